/*
 * smtp_reply - parse SMTP server replies for a client (no I/O).
 *
 * Lines are fed one at a time (without CR LF) until smtp_reply_line()
 * says the reply is complete: a line "NNN text" after any number of
 * "NNN-text" lines with the same code. The EHLO keywords a client acts on
 * are collected from the lines after the first. The first line's text is
 * kept, truncated, for diagnostics.
 */
#ifndef SPOOLSIM_SMTP_REPLY_H
#define SPOOLSIM_SMTP_REPLY_H

#include <stddef.h>
#include <stdint.h>

#define SMTP_EXT_PIPELINING (1u << 0)
#define SMTP_EXT_STARTTLS (1u << 1)
#define SMTP_EXT_SIZE (1u << 2)
#define SMTP_EXT_8BITMIME (1u << 3)
#define SMTP_EXT_ENHANCEDSTATUSCODES (1u << 4)
#define SMTP_EXT_SMTPUTF8 (1u << 5)
#define SMTP_EXT_CHUNKING (1u << 6)
#define SMTP_EXT_DSN (1u << 7)

#define SMTP_REPLY_TEXT_MAX 256

enum smtp_reply_status { SMTP_REPLY_MORE, SMTP_REPLY_DONE, SMTP_REPLY_MALFORMED };

struct smtp_reply {
    int code;
    unsigned lines;
    unsigned extensions;
    uint64_t size_limit;            /* from "SIZE n"; 0 when none or unlimited */
    char text[SMTP_REPLY_TEXT_MAX]; /* first line, code included */
};

void smtp_reply_init(struct smtp_reply *reply);
enum smtp_reply_status smtp_reply_line(struct smtp_reply *reply, const char *line, size_t len);

/*
 * The first line's first word after the code ("220 mx.example ESMTP",
 * "250-mx.example") is `name', in any case: a server that calls itself by
 * our name, which Postfix's smtp client takes for a mail loop. A name cut
 * off with the text (SMTP_REPLY_TEXT_MAX) does not match.
 */
int smtp_reply_names(const struct smtp_reply *reply, const char *name);

/* Reply class: 2, 3, 4 or 5. */
#define SMTP_REPLY_CLASS(code) ((code) / 100)

#endif
