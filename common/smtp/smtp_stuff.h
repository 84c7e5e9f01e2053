/*
 * smtp_stuff - turn message content into its DATA wire form (no I/O).
 *
 * Every line end becomes CR LF (a bare LF and a bare CR each become one
 * CR LF, so a client never emits a bare line end: docs/security.md item 4),
 * and a line that starts with "." gets a second one (RFC 5321 4.5.2).
 * Content may arrive in pieces; the stuffer carries state across them.
 * smtp_stuff_finish() completes a last unterminated line and appends the
 * end-of-data line.
 */
#ifndef SPOOLSIM_SMTP_STUFF_H
#define SPOOLSIM_SMTP_STUFF_H

#include <stddef.h>

struct smtp_stuffer {
    int at_line_start;
    int skip_lf; /* a CR was just turned into CR LF */
};

/* Worst-case output size for `len' input bytes. */
#define SMTP_STUFF_BOUND(len) (2 * (len))
#define SMTP_STUFF_FINISH_MAX 5

void smtp_stuff_init(struct smtp_stuffer *st);
size_t smtp_stuff(struct smtp_stuffer *st, const char *in, size_t len, char *out);
size_t smtp_stuff_finish(struct smtp_stuffer *st, char *out);

#endif
