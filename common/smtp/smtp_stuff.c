/*
 * smtp_stuff - turn message content into its DATA wire form; see smtp_stuff.h.
 */
#include "config.h"

#include <string.h>

#include "smtp_stuff.h"

void smtp_stuff_init(struct smtp_stuffer *st)
{
    st->at_line_start = 1;
    st->skip_lf = 0;
}

size_t smtp_stuff(struct smtp_stuffer *st, const char *in, size_t len, char *out)
{
    char *op = out;
    const char *p = in, *end = in + len;

    while (p < end) {
        const char *cr, *stop;

        if (st->skip_lf) {
            st->skip_lf = 0;
            if (*p == '\n') {
                p++;
                continue;
            }
        }
        if (*p == '\r' || *p == '\n') {
            *op++ = '\r';
            *op++ = '\n';
            st->at_line_start = 1;
            st->skip_lf = (*p == '\r');
            p++;
            continue;
        }
        if (st->at_line_start && *p == '.')
            *op++ = '.';
        st->at_line_start = 0;
        /* The rest of the line goes as it is: memchr and memcpy, not a byte at a time. */
        cr = memchr(p, '\r', (size_t)(end - p));
        if (cr == NULL)
            cr = end;
        stop = memchr(p, '\n', (size_t)(cr - p));
        if (stop == NULL)
            stop = cr;
        memcpy(op, p, (size_t)(stop - p));
        op += stop - p;
        p = stop;
    }
    return (size_t)(op - out);
}

size_t smtp_stuff_finish(struct smtp_stuffer *st, char *out)
{
    char *op = out;

    if (!st->at_line_start) {
        *op++ = '\r';
        *op++ = '\n';
    }
    *op++ = '.';
    *op++ = '\r';
    *op++ = '\n';
    smtp_stuff_init(st);
    return (size_t)(op - out);
}
