/*
 * listener - the servers' (smtp-sink, spoolsim relay) listening socket on
 * their event loop: a readable socket is accepted from until accept()
 * says EAGAIN, LISTENER_BATCH connections at most, so that a flood of
 * connections cannot hold the loop from the sessions it has.
 *
 * Taking the whole backlog at a wake-up costs a failed accept() a wake-up,
 * but greets every waiting client in one pass of the loop: one accept() a
 * wake-up, as Postfix's smtp-sink does, made our sink 0.92 times as fast
 * under Postfix's smtp-source (its client spent 10 % more CPU a message;
 * docs/benchmarks.md). The event is level-triggered: what the batch left
 * wakes the loop again.
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

#define LISTENER_BATCH 64

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
