/*
 * progress_out - the live status line on standard error.
 *
 * On a terminal (or as --progress and --no-progress say) the line is
 * rewritten in place: a carriage return, the text cut to the terminal's
 * width, and an erase to the end of the line; progress_out_clear() erases
 * it, before anything else is written to the terminal (the report, a
 * message: msg.h's hook does that) and at the end, so that no partial line
 * is left. A terminal whose $TERM is "dumb" or unset gets no escape: the
 * line is padded with spaces to the width instead, and erased with spaces. Off a terminal with
 * --progress, each update is a plain line, PROGRESS_PREFIX and the text, with no control
 * characters, so that a log stays readable; off a terminal without it, nothing.
 *
 * The struct is not changed after progress_out_init(), so that any thread
 * may show or clear.
 */
#ifndef SPOOLSIM_PROGRESS_OUT_H
#define SPOOLSIM_PROGRESS_OUT_H

#include <stdarg.h>
#include <stdio.h>

#include "progress.h"

struct progress_out {
    FILE *fp;
    enum progress_mode mode;
    int erase; /* the terminal takes "\033[K" (progress_term_erases()) */
};

/* want: -1 as the stream is, 0 off (--no-progress), 1 on (--progress). */
void progress_out_init(struct progress_out *o, FILE *fp, int want);
/* Whether anything will be shown. */
int progress_out_on(const struct progress_out *o);
void progress_out_show(const struct progress_out *o, const char *text);
void progress_out_clear(const struct progress_out *o);
/* The line as progress_format() makes it, shown. */
void progress_out_stats(const struct progress_out *o, const struct progress_stats *s);
/*
 * A notice of a program's own ("spoolsim bench: work directory ..."), on a
 * line of its own on standard error, after erasing the status line (o may
 * be NULL where there is none); nothing if quiet (-q).
 */
void progress_out_notice(const struct progress_out *o, int quiet, const char *who, const char *fmt,
                         ...) __attribute__((format(printf, 4, 5)));
/* Erase the line before every message of msg.h, until the program exits. */
void progress_out_hook_messages(const struct progress_out *o);

#endif
