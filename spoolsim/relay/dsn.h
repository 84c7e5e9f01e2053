/*
 * dsn - delivery status notifications, composed in memory (no I/O).
 *
 * Two halves of what Postfix's bounce service does with text:
 *
 * - the per-message logs (bounce/ID, defer/X/ID): one block per
 *   recipient, "name=value" lines after an empty line, as
 *   bounce_append_service.c writes them; dsn_log_format() makes one,
 *   dsn_log_parse() reads a whole log back;
 *
 * - the notification itself (RFC 3464): a multipart/report;
 *   report-type=delivery-status message with a human-readable part, a
 *   message/delivery-status part (Reporting-MTA, Arrival-Date, then per
 *   recipient Final-Recipient, Action, Status, Remote-MTA,
 *   Diagnostic-Code) and the original's headers as text/rfc822-headers.
 *   Lines end in CR LF, as pf_qfile_content() takes message text; every
 *   line the composer makes is folded to 78 characters where there is
 *   white space to fold at and never exceeds 998, and a returned header
 *   line over 998 is broken with CR LF SP, as Postfix's smtp client does
 *   at smtp_line_length_limit.
 */
#ifndef SPOOLSIM_DSN_H
#define SPOOLSIM_DSN_H

#include <stddef.h>

#define DSN_STATUS_MAX 16  /* "5.1.1" and room for three-digit subcodes */
#define DSN_LINE_FOLD 78   /* RFC 5322's recommended line length */
#define DSN_LINE_LIMIT 998 /* RFC 5322's hard limit, without CR LF */

/* One recipient's block in a bounce or defer log. NULL fields are absent. */
struct dsn_entry {
    char *recipient;
    long offset;     /* of its R record in the queue file; 0 = absent */
    char *status;    /* enhanced status code, "5.1.1" */
    char *action;    /* "failed" (bounce/), "delayed" (defer/) */
    char *diag_type; /* "smtp" when the next hop said diag_text */
    char *diag_text; /* the hop's reply, "550 5.1.1 <x>: unknown" */
    char *mta_type;  /* "dns" */
    char *mta_name;  /* the hop */
    char *reason;    /* the sentence for humans */
};

struct dsn_log {
    struct dsn_entry *entries;
    unsigned count;
};

/*
 * The block for `e' (an empty line, the attributes, an empty line) in a
 * malloc'd NUL-terminated string. Line ends and NULs inside a value
 * would break the format, so they become spaces.
 */
char *dsn_log_format(const struct dsn_entry *e);

/*
 * Every block of a log. Lines that are not "name=value" (Postfix's old
 * "<rcpt>: text" form, say) are skipped; a block without recipient= is
 * dropped. A missing status or action takes the log's default, as
 * Postfix's bounce_log_open(): 5.0.0 and failed for bounce/, 4.0.0 and
 * delayed for defer/ (`is_defer'). Returns 0; the log is freed with
 * dsn_log_free() even when empty.
 */
int dsn_log_parse(const char *text, size_t len, int is_defer, struct dsn_log *log);
void dsn_log_free(struct dsn_log *log);

/*
 * The enhanced status code of an SMTP reply ("550 5.1.1 text" gives
 * "5.1.1"), or one derived from its class when the reply has none or one
 * of another class ("550 text" gives "5.0.0", "451 ..." "4.0.0"). A reply
 * that is no reply at all gives "4.0.0" when `failed' is 0, else "5.0.0".
 */
void dsn_status_of_reply(const char *reply, int failed, char out[DSN_STATUS_MAX]);

/* RFC 5322 date of `t' in UTC, "Tue, 01 Dec 2026 11:22:49 +0000"; needs 32 bytes. */
void dsn_date(long t, char *out, size_t len);

/*
 * The date as Postfix's mail_date() writes it (in Received: headers): local
 * time, the day padded with a space, the zone's name after the offset:
 * "Wed,  2 Dec 2026 03:19:42 +0100 (CET)"; 64 bytes are enough.
 */
void dsn_mail_date(long t, char *out, size_t len);

/*
 * How many bytes of `text' (CR LF or LF lines) are its header section:
 * the lines up to the first that is neither "name:" nor a continuation.
 */
size_t dsn_header_length(const char *text, size_t len);

struct dsn_report {
    const char *queue_id;      /* the original's */
    const char *reporting_mta; /* our host name */
    const char *sender;        /* the original's envelope sender; "" = null */
    const char *to;            /* the notification's recipient */
    int postmaster_copy;       /* a double bounce: to the postmaster, not the sender */
    long arrival_sec;          /* the original's arrival */
    long now_sec, now_usec;    /* the notification's Date, Message-Id and boundary */
    const struct dsn_log *log; /* every entry is reported */
    const char *headers;       /* the original's header section, dsn_header_length() */
    size_t headers_len;
};

/*
 * The whole notification, headers and body, CR LF lines, in a malloc'd
 * buffer (NUL-terminated; *len without the NUL). The boundary is
 * "QUEUEID.SECONDS/HOST" as Postfix's, lengthened until no line of the
 * returned headers contains it.
 */
char *dsn_compose(const struct dsn_report *rep, size_t *len);

#endif
