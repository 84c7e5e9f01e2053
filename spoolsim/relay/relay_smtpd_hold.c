/*
 * relay_smtpd_hold - a session's replies held back for --reply-delay
 * (relay_smtpd_hold.h).
 */
#include "config.h"

#include <event2/buffer.h>
#include <event2/event.h>
#include <string.h>
#include <sys/time.h>

#include "clock.h"
#include "msg.h"
#include "relay_smtpd_hold.h"

/* The round trip is over: the owner's over() says the held replies. */
static void on_hold_over(evutil_socket_t fd, short what, void *arg)
{
    struct relay_smtpd_hold *h = arg;
    uint64_t now;

    (void)fd;
    (void)what;
    now = clock_now_ns();
    if (now < h->until) {
        /* libevent's timers run on a coarse clock and may come a tick early: never short */
        struct timeval tv = clock_timeval_ns(h->until - now);

        evtimer_add(h->timer, &tv);
        return;
    }
    h->holding = 0;
    h->over(h->arg);
}

int relay_smtpd_hold_add(struct relay_smtpd_hold *h, struct event_base *base, double rtt,
                         const char *text, void (*over)(void *arg), void *arg)
{
    struct timeval tv;

    if (h->held == NULL) {
        h->held = evbuffer_new();
        h->timer = evtimer_new(base, on_hold_over, h);
        if (h->held == NULL || h->timer == NULL)
            msg_fatal("out of memory for a held reply");
    }
    evbuffer_add(h->held, text, strlen(text));
    if (strchr(text, '\n') == NULL)
        evbuffer_add(h->held, "\r\n", 2);
    if (h->holding)
        return 0; /* behind the one already held, in order, at its time */
    tv = clock_timeval(h->greeted ? rtt : 2 * rtt);
    h->until = clock_now_ns() + (uint64_t)((h->greeted ? rtt : 2 * rtt) * 1e9);
    h->greeted = 1;
    h->holding = 1;
    h->over = over;
    h->arg = arg;
    evtimer_add(h->timer, &tv);
    return 1;
}

void relay_smtpd_hold_free(struct relay_smtpd_hold *h)
{
    if (h->timer)
        event_free(h->timer);
    if (h->held)
        evbuffer_free(h->held);
    h->timer = NULL;
    h->held = NULL;
}
