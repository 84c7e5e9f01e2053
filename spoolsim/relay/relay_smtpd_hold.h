/*
 * relay_smtpd_hold - a session's replies held back for --reply-delay.
 *
 * --reply-delay RTT emulates a client RTT away (bench --client-delay where
 * netem cannot be had): each reply is held RTT on a timer of the session's
 * own, twice that for the greeting (the TCP handshake, then the greeting's
 * way), and the session reads nothing meanwhile. For the relay's capacity
 * that is faithful to a client that waits for each reply, as smtp-source
 * without --pipelining does: the session stays open exactly as long
 * between one command and the next as across the network (it waits with
 * the reply in hand instead of for the next command, and holds the same
 * memory, slot of --max-sessions and flow tokens meanwhile), and the
 * client's latency has the same round trips in it. It does not model TCP
 * slow start (a long message's text costs more round trips over a real
 * network), the client's own window or bandwidth, loss or jitter; a
 * pipelining client is charged a round trip per reply, not per group; the
 * STARTTLS 220 is not held (TLS must start right behind it), nor are the
 * TLS handshake's round trips emulated.
 *
 * A reply added while one is held goes behind it, in order, at its time.
 * The timer never ends a hold early: libevent's timers run on a coarse
 * clock, so an early tick is waited out. When the hold is over, `holding'
 * is 0 and over(arg) runs, which writes `held' out (it is the session's
 * to write: its socket).
 */
#ifndef SPOOLSIM_RELAY_SMTPD_HOLD_H
#define SPOOLSIM_RELAY_SMTPD_HOLD_H

#include <stdint.h>

struct evbuffer;
struct event;
struct event_base;

struct relay_smtpd_hold {
    struct evbuffer *held; /* the replies held, in order; NULL until the first */
    struct event *timer;
    int holding;    /* the timer runs: read nothing, add every reply to held */
    int greeted;    /* the greeting, held for two round trips, has been said */
    uint64_t until; /* clock_now_ns() when the held replies may go */
    void (*over)(void *arg);
    void *arg;
};

/*
 * Hold `text' (CRLF added when it has no newline) for rtt seconds, 2 x rtt
 * the first time; over(arg) runs when the hold is over. 1 when this began
 * a hold, 0 when the text went behind one already held.
 */
int relay_smtpd_hold_add(struct relay_smtpd_hold *h, struct event_base *base, double rtt,
                         const char *text, void (*over)(void *arg), void *arg);
/* The timer and the buffer freed; whatever was held is dropped. */
void relay_smtpd_hold_free(struct relay_smtpd_hold *h);

#endif
