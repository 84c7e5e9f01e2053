/*
 * smtp_cmd - parse one SMTP command line (no I/O).
 *
 * smtp_cmd_parse() recognises the verbs spoolsim speaks and checks their
 * syntax. On success it returns 0 and fills `cmd' with spans that point
 * into the caller's line. On failure it returns the reply code (500, 501,
 * 502, 555) and sets cmd->error to the full reply text, ready to send.
 *
 * MAIL FROM takes SIZE=n and BODY=7BIT|8BITMIME|BINARYMIME, and tolerates
 * SMTPUTF8, RET, ENVID and AUTH; RCPT TO tolerates NOTIFY and ORCPT. Any
 * other parameter gets 555, as RFC 5321 4.1.1.11 asks.
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
    const char *error; /* reply text when parsing failed */
};

int smtp_cmd_parse(const char *line, size_t len, struct smtp_cmd *cmd);

/* Upper-case verb name, e.g. "MAIL"; "UNKNOWN" for SMTP_VERB_UNKNOWN. */
const char *smtp_cmd_verb_name(enum smtp_verb verb);

/* Verb by name, case-insensitive, as used in option lists; UNKNOWN if none. */
enum smtp_verb smtp_cmd_verb_lookup(const char *name, size_t len);

#endif
