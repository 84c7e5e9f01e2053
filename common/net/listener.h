/*
 * listener - what the servers (smtp-sink, spoolsim relay) do alike with
 * their libevent listener.
 */
#ifndef SPOOLSIM_LISTENER_H
#define SPOOLSIM_LISTENER_H

#include <event2/event.h>
#include <event2/listener.h>

/*
 * accept() failed with err. Out of descriptors (or of memory), it fails
 * at once and the listening socket stays readable: without a pause the
 * loop would spin. Then the listener is disabled and resume(-1,
 * EV_TIMEOUT, arg) runs on its base 100 ms later, to enable it again as
 * the server then stands. New connections wait in the backlog meanwhile;
 * the sessions already open go on. Any other error leaves it listening.
 */
void listener_pause_on_error(struct evconnlistener *listener, int err, event_callback_fn resume,
                             void *arg);

#endif
