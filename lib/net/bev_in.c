/*
 * bev_in - read a plain bufferevent's socket with one read() per event; see bev_in.h.
 */
#include "config.h"

#include <errno.h>
#include <event2/buffer.h>
#include <unistd.h>

#include "bev_in.h"

static void on_ready(evutil_socket_t fd, short what, void *arg)
{
    struct bev_in *in = arg;
    struct evbuffer *input = bufferevent_get_input(in->bev);
    struct evbuffer_iovec vec;
    short failure = BEV_EVENT_READING;
    ssize_t n;

    if (what == EV_TIMEOUT) {
        /* EV_TIMEOUT together with EV_READ means a read is due: no timeout (as libevent). */
        failure |= BEV_EVENT_TIMEOUT;
    } else {
        /* A bufferevent keeps its input's end frozen against outside adds. */
        evbuffer_unfreeze(input, 0);
        if (evbuffer_reserve_space(input, BEV_IN_READ_MAX, &vec, 1) != 1) {
            evbuffer_freeze(input, 0);
            failure |= BEV_EVENT_ERROR;
        } else {
            n = read(fd, vec.iov_base, vec.iov_len);
            if (n > 0) {
                vec.iov_len = (size_t)n;
                evbuffer_commit_space(input, &vec, 1);
            }
            evbuffer_freeze(input, 0);
            if (n > 0) {
                in->on_read(in->bev, in->arg);
                return;
            }
            if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
                return;
            failure |= n == 0 ? BEV_EVENT_EOF : BEV_EVENT_ERROR;
        }
    }
    bev_in_disable(in);
    in->on_event(in->bev, failure, in->arg);
}

int bev_in_start(struct bev_in *in, struct bufferevent *bev, bufferevent_data_cb on_read,
                 bufferevent_event_cb on_event, void *arg)
{
    in->bev = bev;
    in->on_read = on_read;
    in->on_event = on_event;
    in->arg = arg;
    in->has_timeout = 0;
    in->enabled = 0;
    in->ev = event_new(bufferevent_get_base(bev), bufferevent_getfd(bev), EV_READ | EV_PERSIST,
                       on_ready, in);
    return in->ev ? 0 : -1;
}

void bev_in_set_timeout(struct bev_in *in, const struct timeval *tv)
{
    in->has_timeout = tv != NULL;
    if (tv)
        in->timeout = *tv;
    if (!in->enabled)
        return;
    if (tv)
        event_add(in->ev, tv);
    else
        event_remove_timer(in->ev); /* keeps the event in epoll */
}

void bev_in_enable(struct bev_in *in)
{
    if (in->ev == NULL || in->enabled)
        return;
    in->enabled = 1;
    event_add(in->ev, in->has_timeout ? &in->timeout : NULL);
}

void bev_in_disable(struct bev_in *in)
{
    if (in->ev == NULL || !in->enabled)
        return;
    in->enabled = 0;
    event_del(in->ev);
}

void bev_in_stop(struct bev_in *in)
{
    if (in->ev == NULL)
        return;
    event_free(in->ev);
    in->ev = NULL;
    in->enabled = 0;
}
