/*
 * listener - what the servers do alike with their listener; see listener.h.
 */
#include "config.h"

#include <errno.h>

#include "listener.h"

void listener_pause_on_error(struct evconnlistener *listener, int err, event_callback_fn resume,
                             void *arg)
{
    struct timeval pause = {0, 100000};

    if (err == EMFILE || err == ENFILE || err == ENOBUFS || err == ENOMEM) {
        evconnlistener_disable(listener);
        event_base_once(evconnlistener_get_base(listener), -1, EV_TIMEOUT, resume, arg, &pause);
    }
}
