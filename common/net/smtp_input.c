/*
 * smtp_input - feed the SMTP readers from a libevent input buffer; see smtp_input.h.
 */
#include "config.h"

#include <string.h>

#include "smtp_input.h"

enum smtp_line_status smtp_input_line(struct smtp_line_reader *rd, struct evbuffer *in, char *copy,
                                      size_t size, size_t *len)
{
    for (;;) {
        size_t avail = evbuffer_get_length(in), used = 0;
        struct smtp_line line;
        enum smtp_line_status status;
        const char *buf;

        if (avail == 0)
            return SMTP_LINE_NEED_MORE;
        if (avail > rd->limit)
            avail = rd->limit;
        buf = (const char *)evbuffer_pullup(in, (ev_ssize_t)avail);
        status = smtp_line_next(rd, buf, avail, &line, &used);
        if (status == SMTP_LINE_OK) {
            /* Copy out first: draining may free the bytes the line points into. */
            *len = line.len < size ? line.len : size;
            memcpy(copy, line.text, *len);
        }
        evbuffer_drain(in, used);
        if (status != SMTP_LINE_NEED_MORE || used == 0)
            return status;
        /* the tail of an over-long line was skipped: look again */
    }
}

int smtp_input_data(struct smtp_data_reader *rd, struct evbuffer *in, smtp_data_emit_fn emit,
                    void *ctx)
{
    while (!rd->done && evbuffer_get_length(in) > 0) {
        struct evbuffer_iovec vec[16];
        int n = evbuffer_peek(in, -1, NULL, vec, 16);
        size_t used = 0;

        /* evbuffer_peek says how many extents the data needs: maybe more than it filled. */
        if (n > 16)
            n = 16;
        for (int i = 0; i < n && !rd->done; i++)
            used += smtp_data_feed(rd, vec[i].iov_base, vec[i].iov_len, emit, ctx);
        evbuffer_drain(in, used);
    }
    return rd->done;
}
