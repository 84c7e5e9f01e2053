/*
 * smtp_stuff - turn message content into its DATA wire form; see smtp_stuff.h.
 */
#include "config.h"

#include "smtp_stuff.h"

void smtp_stuff_init(struct smtp_stuffer *st)
{
    st->at_line_start = 1;
    st->skip_lf = 0;
}

size_t smtp_stuff(struct smtp_stuffer *st, const char *in, size_t len, char *out)
{
    char *op = out;

    for (size_t i = 0; i < len; i++) {
        char c = in[i];

        if (st->skip_lf) {
            st->skip_lf = 0;
            if (c == '\n')
                continue;
        }
        if (c == '\r' || c == '\n') {
            *op++ = '\r';
            *op++ = '\n';
            st->at_line_start = 1;
            st->skip_lf = (c == '\r');
            continue;
        }
        if (st->at_line_start && c == '.')
            *op++ = '.';
        *op++ = c;
        st->at_line_start = 0;
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
