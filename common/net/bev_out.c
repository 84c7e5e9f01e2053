/*
 * bev_out - write a bufferevent's output straight to its socket; see bev_out.h.
 */
#include "config.h"

#include <errno.h>
#include <event2/buffer.h>
#include <event2/event.h>

#include "bev_out.h"

int bev_out_flush(struct bufferevent *bev)
{
    struct evbuffer *out = bufferevent_get_output(bev);
    int written;

    if (evbuffer_get_length(out) == 0)
        return 0;
    if (bufferevent_get_enabled(bev) & EV_WRITE)
        return 1; /* already waiting for room */
    /* A bufferevent freezes its output's start against outside drains. */
    evbuffer_unfreeze(out, 1);
    written = evbuffer_write(out, bufferevent_getfd(bev));
    evbuffer_freeze(out, 1);
    if (written < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
        return -1;
    if (evbuffer_get_length(out) == 0)
        return 0;
    bufferevent_enable(bev, EV_WRITE);
    return 1;
}

int bev_out_written(struct bufferevent *bev)
{
    if (evbuffer_get_length(bufferevent_get_output(bev)) > 0)
        return 0;
    bufferevent_disable(bev, EV_WRITE);
    return 1;
}
