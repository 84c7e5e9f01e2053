/*
 * listener - the servers' (smtp-sink, spoolsim relay) listening socket on
 * their event loop: a readable socket is one accept(), as Postfix's
 * servers take one connection a wake-up.
 *
 * The socket's event is level-triggered: a backlog of several connections
 * keeps it readable, and the loop comes back to it after the sessions it
 * has woken for. libevent's evconnlistener accepts until EAGAIN instead,
 * which is one failed accept() for every wake-up that finds one
 * connection, the common case (docs/benchmarks.md, the sink).
 *
 * Accepted sockets are non-blocking and close-on-exec. An accept() that
 * finds the connection gone (EAGAIN, ECONNABORTED, EINTR) is nothing.
 * Out of descriptors or memory it fails at once and the socket stays
 * readable: the listener stops, and `resume' runs on its base 100 ms
 * later, to enable it again as the server then stands; the connections
 * wait in the backlog meanwhile. Every failure but the nothing ones is
 * handed to `on_error' with its errno.
 */
#ifndef SPOOLSIM_LISTENER_H
#define SPOOLSIM_LISTENER_H

#include <sys/socket.h>

#include <event2/event.h>

struct listener;

typedef void (*listener_accept_fn)(struct listener *l, int fd, struct sockaddr *addr,
                                   socklen_t addrlen, void *arg);
typedef void (*listener_error_fn)(struct listener *l, int err, void *arg);

/*
 * Listen on `fd' (listen() called, made non-blocking here) on `base'; the
 * listener owns fd from then on, closed by listener_free(). Enabled at
 * once. NULL when the event cannot be made.
 */
struct listener *listener_new(struct event_base *base, int fd, listener_accept_fn on_accept,
                              listener_error_fn on_error, event_callback_fn resume, void *arg);
void listener_enable(struct listener *l);
void listener_disable(struct listener *l);
void listener_free(struct listener *l);

#endif
