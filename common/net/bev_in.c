/*
 * bev_in - read a plain bufferevent's socket with one read() per event; see bev_in.h.
 */
#include "config.h"

#include <errno.h>
#include <event2/buffer.h>
#include <unistd.h>

#include "bev_in.h"
#include "clock.h"

static void fail(struct bev_in *in, short failure)
{
    bev_in_disable(in);
    in->on_event(in->bev, BEV_EVENT_READING | failure, in->arg);
}

/* A read into a buffer on the stack, referenced by the input buffer while on_read runs. */
static void read_lent(struct bev_in *in, evutil_socket_t fd, struct evbuffer *input)
{
    char buf[BEV_IN_READ_MAX];
    ssize_t n = read(fd, buf, sizeof(buf));
    int added;

    if (n > 0) {
        evbuffer_unfreeze(input, 0);
        added = evbuffer_add_reference(input, buf, (size_t)n, NULL, NULL) == 0;
        evbuffer_freeze(input, 0);
        if (!added) {
            fail(in, BEV_EVENT_ERROR);
            return;
        }
        in->lent = buf;
        in->lent_len = (size_t)n;
        in->on_read(in->bev, in->arg); /* it calls bev_in_settle() */
        return;
    }
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
        return;
    fail(in, n == 0 ? BEV_EVENT_EOF : BEV_EVENT_ERROR);
}

static void on_ready(evutil_socket_t fd, short what, void *arg)
{
    struct bev_in *in = arg;
    struct evbuffer *input = bufferevent_get_input(in->bev);
    struct evbuffer_iovec vec;
    ssize_t n;

    (void)what;
    if (in->has_timeout)
        in->last_ns = clock_now_ns(); /* what the idle timer looks at (on_idle) */
    if (in->lend && evbuffer_get_length(input) == 0) {
        read_lent(in, fd, input);
        return;
    }
    /* A bufferevent keeps its input's end frozen against outside adds. */
    evbuffer_unfreeze(input, 0);
    if (evbuffer_reserve_space(input, BEV_IN_READ_MAX, &vec, 1) != 1) {
        evbuffer_freeze(input, 0);
        fail(in, BEV_EVENT_ERROR);
        return;
    }
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
    fail(in, n == 0 ? BEV_EVENT_EOF : BEV_EVENT_ERROR);
}

static void arm(struct bev_in *in, uint64_t ns)
{
    struct timeval tv = clock_timeval_ns(ns);

    evtimer_add(in->timer, &tv);
}

/* The timer was armed for the whole timeout from some moment: reads since then move it on. */
static void on_idle(evutil_socket_t fd, short what, void *arg)
{
    struct bev_in *in = arg;
    uint64_t idle = clock_now_ns() - in->last_ns;

    (void)fd;
    (void)what;
    if (idle < in->timeout_ns) {
        arm(in, in->timeout_ns - idle);
        return;
    }
    fail(in, BEV_EVENT_TIMEOUT);
}

int bev_in_start(struct bev_in *in, struct bufferevent *bev, bufferevent_data_cb on_read,
                 bufferevent_event_cb on_event, void *arg)
{
    struct event_base *base = bufferevent_get_base(bev);

    in->bev = bev;
    in->on_read = on_read;
    in->on_event = on_event;
    in->arg = arg;
    in->has_timeout = 0;
    in->enabled = 0;
    in->lend = 0;
    in->lent = NULL;
    in->ev = event_new(base, bufferevent_getfd(bev), EV_READ | EV_PERSIST, on_ready, in);
    in->timer = in->ev ? evtimer_new(base, on_idle, in) : NULL;
    if (in->timer == NULL && in->ev) {
        event_free(in->ev);
        in->ev = NULL;
    }
    return in->ev ? 0 : -1;
}

/* The timeout from now, as libevent's own would be on (re)adding the event. */
static void start_timer(struct bev_in *in)
{
    in->last_ns = clock_now_ns();
    arm(in, in->timeout_ns);
}

void bev_in_set_timeout(struct bev_in *in, const struct timeval *tv)
{
    uint64_t ns = tv ? (uint64_t)tv->tv_sec * 1000000000u + (uint64_t)tv->tv_usec * 1000u : 0;
    int same = tv && in->has_timeout && ns == in->timeout_ns;

    in->has_timeout = tv != NULL;
    if (tv) {
        in->timeout = *tv;
        in->timeout_ns = ns;
    }
    if (!in->enabled)
        return;
    if (same)
        in->last_ns = clock_now_ns(); /* the armed timer, when it fires, counts from now */
    else if (tv)
        start_timer(in);
    else
        evtimer_del(in->timer);
}

void bev_in_enable(struct bev_in *in)
{
    if (in->ev == NULL || in->enabled)
        return;
    in->enabled = 1;
    event_add(in->ev, NULL);
    if (in->has_timeout)
        start_timer(in);
}

void bev_in_disable(struct bev_in *in)
{
    if (in->ev == NULL || !in->enabled)
        return;
    in->enabled = 0;
    event_del(in->ev);
    evtimer_del(in->timer);
}

void bev_in_lend(struct bev_in *in)
{
    in->lend = 1;
}

void bev_in_settle(struct bev_in *in)
{
    struct evbuffer *input;
    size_t rest;

    if (in->lent == NULL)
        return;
    input = bufferevent_get_input(in->bev);
    /* The input was empty before the read and nothing else adds to it: what is left is the read's
     * tail. */
    rest = evbuffer_get_length(input);
    if (rest > 0) {
        evbuffer_unfreeze(input, 0);
        evbuffer_drain(input, rest);
        evbuffer_add(input, in->lent + in->lent_len - rest, rest);
        evbuffer_freeze(input, 0);
    }
    in->lent = NULL;
}

void bev_in_stop(struct bev_in *in)
{
    if (in->ev == NULL)
        return;
    event_free(in->ev);
    event_free(in->timer);
    in->ev = NULL;
    in->timer = NULL;
    in->enabled = 0;
    in->lent = NULL; /* nothing to settle: the bufferevent is about to go or change hands */
}
