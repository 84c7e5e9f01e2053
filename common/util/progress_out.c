/*
 * progress_out - the live status line on standard error; see progress_out.h.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "msg.h"
#include "progress_out.h"

#define DEFAULT_WIDTH 80
#define ERASE_LINE "\r\033[K"

void progress_out_init(struct progress_out *o, FILE *fp, int want)
{
    o->fp = fp;
    o->mode = progress_mode_for(want, isatty(fileno(fp)));
    o->erase = progress_term_erases(getenv("TERM"));
}

int progress_out_on(const struct progress_out *o)
{
    return o->mode != PROGRESS_OFF;
}

/* Asked at every update: a terminal can be resized while the run goes on. */
static size_t terminal_width(FILE *fp)
{
    struct winsize ws;

    if (ioctl(fileno(fp), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 1)
        return ws.ws_col;
    return DEFAULT_WIDTH;
}

void progress_out_show(const struct progress_out *o, const char *text)
{
    char line[PROGRESS_LINE_MAX + 16];
    size_t width;

    if (o->mode == PROGRESS_PLAIN) {
        snprintf(line, sizeof(line), "%s%s\n", PROGRESS_PREFIX, text);
    } else if (o->mode == PROGRESS_TTY) {
        char fitted[PROGRESS_LINE_MAX];

        snprintf(fitted, sizeof(fitted), "%s", text);
        /* one column spare: a line filling the last one wraps on some terminals */
        width = terminal_width(o->fp) - 1;
        progress_fit(fitted, width);
        if (o->erase)
            snprintf(line, sizeof(line), "\r%s\033[K", fitted);
        else /* spaces cover what a longer line before left */
            snprintf(line, sizeof(line), "\r%-*s", (int)(width < PROGRESS_LINE_MAX ? width : 0),
                     fitted);
    } else {
        return;
    }
    /* one write, so that a message from another thread cannot land inside it */
    fwrite(line, 1, strlen(line), o->fp);
    fflush(o->fp);
}

void progress_out_clear(const struct progress_out *o)
{
    if (o->mode != PROGRESS_TTY)
        return;
    if (o->erase) {
        fputs(ERASE_LINE, o->fp);
    } else {
        size_t width = terminal_width(o->fp) - 1;

        fprintf(o->fp, "\r%*s\r", (int)(width < PROGRESS_LINE_MAX ? width : 0), "");
    }
    fflush(o->fp);
}

void progress_out_notice(const struct progress_out *o, int quiet, const char *who, const char *fmt,
                         ...)
{
    va_list ap;

    if (quiet)
        return;
    if (o)
        progress_out_clear(o);
    fprintf(stderr, "%s: ", who);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

void progress_out_stats(const struct progress_out *o, const struct progress_stats *s)
{
    char text[PROGRESS_LINE_MAX];

    if (o->mode == PROGRESS_OFF)
        return;
    progress_format(s, text, sizeof(text));
    progress_out_show(o, text);
}

static void clear_hook(const void *ctx)
{
    progress_out_clear(ctx);
}

void progress_out_hook_messages(const struct progress_out *o)
{
    if (o->mode == PROGRESS_TTY)
        msg_set_hook(clear_hook, o);
}
