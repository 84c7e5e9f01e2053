/*
 * smtp_line - split an SMTP byte stream into lines, in bounded memory.
 *
 * SYNOPSIS
 *	struct smtp_line_reader rd;
 *	smtp_line_init(&rd, 512);
 *	status = smtp_line_next(&rd, buf, len, &line, &consumed);
 *
 * DESCRIPTION
 *	The reader never copies: it points into the caller's buffer. The
 *	caller removes `consumed' bytes after every call, whatever the status.
 *
 *	A line ends at LF; a CR just before the LF is not part of the text.
 *	A line whose terminator was a bare LF is flagged so that the caller
 *	can apply its bare-LF policy.
 *
 *	A line longer than the limit (which counts the CRLF, as RFC 5321
 *	does) is reported once as SMTP_LINE_TOO_LONG as soon as the limit is
 *	passed; everything up to and including its LF is then thrown away, so
 *	the tail of an over-long command is never run as a command and the
 *	caller never buffers more than `limit' bytes.
 */
#ifndef SPOOLSIM_SMTP_LINE_H
#define SPOOLSIM_SMTP_LINE_H

#include <stddef.h>

#define SMTP_COMMAND_LINE_LIMIT 512 /* RFC 5321 4.5.3.1.4, CRLF included */
#define SMTP_REPLY_LINE_LIMIT 4096  /* lenient: 512 per RFC, peers send more */

enum smtp_line_status {
    SMTP_LINE_NEED_MORE, /* no complete line yet */
    SMTP_LINE_OK,        /* `line' is valid */
    SMTP_LINE_TOO_LONG,  /* a line passed the limit; its rest is skipped */
};

struct smtp_line_reader {
    size_t limit;
    int discarding; /* inside the tail of an over-long line */
};

struct smtp_line {
    const char *text;
    size_t len; /* without CR LF */
    int bare_lf;
};

void smtp_line_init(struct smtp_line_reader *rd, size_t limit);
enum smtp_line_status smtp_line_next(struct smtp_line_reader *rd, const char *buf, size_t avail,
                                     struct smtp_line *line, size_t *consumed);

#endif
