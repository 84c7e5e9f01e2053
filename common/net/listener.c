/*
 * listener - a readable listening socket accepted from in a batch; see listener.h.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "listener.h"
#include "xalloc.h"

struct listener {
    struct event *ev;
    int fd;
    int enabled;
    listener_accept_fn on_accept;
    listener_error_fn on_error;
    event_callback_fn resume;
    void *arg;
};

static int nothing_happened(int err)
{
    /*
     * The client left before we took it, or there was nothing to take; on
     * Linux a pending network error of the new connection comes back from
     * accept() too, and accept(2) asks for it to be treated as EAGAIN.
     */
    return err == EAGAIN || err == EWOULDBLOCK || err == ECONNABORTED || err == EINTR ||
           err == EPROTO || err == ENETDOWN || err == ENOPROTOOPT || err == EHOSTDOWN ||
           err == EHOSTUNREACH || err == EOPNOTSUPP || err == ENETUNREACH;
}

static int out_of_resources(int err)
{
    return err == EMFILE || err == ENFILE || err == ENOBUFS || err == ENOMEM;
}

static void on_readable(evutil_socket_t fd, short what, void *arg)
{
    struct listener *l = arg;
    struct sockaddr_storage addr;
    socklen_t len;
    int conn = -1, err;

    (void)what;
    if (!l->enabled) /* stopped by a session earlier in this pass of the loop */
        return;
    /* on_accept() may disable the listener (a session limit): then it stops here */
    for (unsigned n = 0; n < LISTENER_BATCH && l->enabled; n++) {
        len = sizeof(addr);
        conn = accept4(fd, (struct sockaddr *)&addr, &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (conn < 0)
            break;
        l->on_accept(l, conn, (struct sockaddr *)&addr, len, l->arg);
    }
    if (conn >= 0) /* the batch is over, or the listener was stopped */
        return;
    err = errno;
    if (nothing_happened(err))
        return;
    if (out_of_resources(err)) {
        struct timeval pause = {0, 100000};

        listener_disable(l);
        event_base_once(event_get_base(l->ev), -1, EV_TIMEOUT, l->resume, l->arg, &pause);
    }
    l->on_error(l, err, l->arg);
}

struct listener *listener_new(struct event_base *base, int fd, listener_accept_fn on_accept,
                              listener_error_fn on_error, event_callback_fn resume, void *arg)
{
    struct listener *l = xcalloc(1, sizeof(*l));
    int flags = fcntl(fd, F_GETFL);

    /* a connection reset between the wake-up and accept() must not block the loop */
    if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) != 0 ||
        (l->ev = event_new(base, fd, EV_READ | EV_PERSIST, on_readable, l)) == NULL) {
        free(l);
        return NULL;
    }
    l->fd = fd;
    l->on_accept = on_accept;
    l->on_error = on_error;
    l->resume = resume;
    l->arg = arg;
    listener_enable(l);
    return l;
}

void listener_enable(struct listener *l)
{
    if (!l->enabled && event_add(l->ev, NULL) == 0)
        l->enabled = 1;
}

void listener_disable(struct listener *l)
{
    if (l->enabled && event_del(l->ev) == 0)
        l->enabled = 0;
}

void listener_free(struct listener *l)
{
    if (l == NULL)
        return;
    event_free(l->ev);
    close(l->fd);
    free(l);
}
