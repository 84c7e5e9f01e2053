/*
 * smtp_cmd - parse one SMTP command line (no I/O).
 *
 * smtp_cmd_parse() recognises the verbs spoolsim speaks and checks their
 * syntax. On success it returns 0 and fills `cmd' with spans that point
 * into the caller's line. On failure it returns the reply code (500, 501,
 * 502, 555) and sets cmd->error to the full reply text, ready to send.
 *
 * MAIL FROM takes SIZE=n and BODY=7BIT|8BITMIME|BINARYMIME, and tolerates
 * RET, ENVID and AUTH; RCPT TO tolerates NOTIFY and ORCPT. Any other
 * parameter gets 555, as RFC 5321 4.1.1.11 asks; so does SMTPUTF8 unless
 * the server offered it (flags below).
 *
 * A path ends at the first '>' outside a quoted string: a Quoted-string
 * local part may hold '>', spaces and backslash-quoted pairs (RFC 5321
 * 4.1.2, "a b>c"@example), and the path is kept as sent, quotes and all.
 * A quoted string left open gets 501. The rest of a path is taken as
 * leniently as Postfix takes it (no domain, odd characters), but never
 * with a control character, and never with an 8-bit byte unless SMTPUTF8
 * allows it: RFC 6531 lets UTF-8 into addresses only in a transaction
 * whose MAIL said SMTPUTF8 to a server that offered it. Without that an
 * 8-bit byte in a path gets 553 5.6.7, in a parameter 501; with it the
 * path must be well-formed UTF-8 (501 otherwise).
 */
#ifndef SPOOLSIM_SMTP_CMD_H
#define SPOOLSIM_SMTP_CMD_H

#include <stddef.h>
#include <stdint.h>

#define SMTP_PATH_LIMIT 256 /* RFC 5321 4.5.3.1.3 */

enum smtp_verb {
    SMTP_VERB_UNKNOWN,
    SMTP_VERB_HELO,
    SMTP_VERB_EHLO,
    SMTP_VERB_LHLO,
    SMTP_VERB_MAIL,
    SMTP_VERB_RCPT,
    SMTP_VERB_DATA,
    SMTP_VERB_RSET,
    SMTP_VERB_NOOP,
    SMTP_VERB_QUIT,
    SMTP_VERB_VRFY,
    SMTP_VERB_HELP,
    SMTP_VERB_STARTTLS,
    SMTP_VERB_COUNT
};

enum smtp_body { SMTP_BODY_UNSPECIFIED, SMTP_BODY_7BIT, SMTP_BODY_8BITMIME, SMTP_BODY_BINARYMIME };

struct smtp_span {
    const char *ptr;
    size_t len;
};

struct smtp_cmd {
    enum smtp_verb verb;
    struct smtp_span arg;    /* everything after the verb, spaces trimmed */
    struct smtp_span path;   /* MAIL/RCPT: the address between < and > */
    struct smtp_span params; /* MAIL/RCPT: the ESMTP parameters */
    int has_size;
    uint64_t size;
    enum smtp_body body;
    int smtputf8;      /* MAIL: the SMTPUTF8 parameter (only when offered) */
    const char *error; /* reply text when parsing failed */
};

/* smtp_cmd_parse()'s flags: what the server offered, and what the transaction declared. */
#define SMTP_CMD_OFFER_SMTPUTF8 (1u << 0) /* EHLO listed SMTPUTF8: MAIL takes the parameter */
#define SMTP_CMD_MAIL_SMTPUTF8 (1u << 1)  /* RCPT: this transaction's MAIL said SMTPUTF8 */

/*
 * `flags' must say what the server's EHLO reply offered, so that what it
 * accepts is what it announced: 0 for a server that offers no SMTPUTF8.
 */
int smtp_cmd_parse(const char *line, size_t len, unsigned flags, struct smtp_cmd *cmd);

/* Upper-case verb name, e.g. "MAIL"; "UNKNOWN" for SMTP_VERB_UNKNOWN. */
const char *smtp_cmd_verb_name(enum smtp_verb verb);

/* Verb by name, case-insensitive, as used in option lists; UNKNOWN if none. */
enum smtp_verb smtp_cmd_verb_lookup(const char *name, size_t len);

#endif
