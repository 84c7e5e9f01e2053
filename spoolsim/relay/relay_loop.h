/*
 * relay_loop - the relay's event loops (--threads N).
 *
 * A common/net/loops set (loops.h): loop 0 runs on the main thread with
 * the listener, the signals, the queue manager, the statistics. Every
 * loop, loop 0 included, serves client sessions: the listener deals each
 * accepted connection to the loop with the fewest sessions, and the
 * session lives there to its end, with its own cleanup threads (a share
 * of --cleanup-threads) and, with --model, its own smtpd threads, whose
 * completions come back to it. The other loops (loop 0 too when it is the
 * only one) have the connections to the next hop, a share of
 * --concurrency each, which take messages from the queue manager's ready
 * list, under its lock, and post each one back to loop 0 once the hop has
 * answered.
 * A message moves from a session's loop to loop 0 by a post to loop 0's
 * mailbox once committed (and, when it must wait for a flow token, for
 * the wait and back); nothing else a session does touches loop 0's state
 * but atomic counts and two locked lists (relay_private.h).
 *
 * With one loop (the default) nothing is posted: loop 0 does it all, as
 * before loops existed.
 */
#ifndef SPOOLSIM_RELAY_LOOP_H
#define SPOOLSIM_RELAY_LOOP_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/socket.h>

#include "mailbox.h"
#include "msg.h"

struct loop;
struct relay;
struct relay_conn;
struct relay_session;
struct io_pool;

/*
 * The warnings a dead disk repeats for every message, thousands a second:
 * each said once, then counted (msg.h), a count at most every
 * RELAY_WARN_EVERY_NS and at the end. A loop's own, used on its thread;
 * those of the queue manager's steps are loop 0's.
 */
enum relay_warn {
    RELAY_WARN_CREATE, /* a queue file cannot be made (at a RCPT) */
    RELAY_WARN_WRITE,  /* nor written as the text comes */
    RELAY_WARN_QUEUE,  /* nor committed */
    RELAY_WARN_LEFT,   /* nor withdrawn after its commit failed */
    RELAY_WARN_RETRY,  /* a step the queue manager tries again */
    RELAY_WARN_RECORD, /* the delivery agent's records */
    RELAY_WARN_RETIRE, /* the removal or the move to deferred/ */
    RELAY_WARN_ACCEPT, /* accept(), out of descriptors: again every 100 ms (listener.h) */
    RELAY_WARN_COUNT
};
#define RELAY_WARN_EVERY_NS (10 * 1000000000ULL) /* 10 s */

struct relay_loop {
    struct relay *relay;
    unsigned index;
    struct loop *harness;    /* its loop in r->loop_set (common/net/loops) */
    struct event_base *base; /* harness->base */
    struct mailbox *inbox;   /* harness->mailbox: posts from the other loops */
    struct io_pool *cleanup; /* this loop's sessions' file steps */
    struct io_pool *smtpd;   /* --model: smtpd's CPU per command; else NULL */
    const struct relay_loop_server *server;
    struct relay_session *sessions;
    _Atomic uint64_t served; /* sessions it has started (a report reads it mid-run) */
    /* the next hop (relay_smtp.c): its own connections, its share of --concurrency */
    struct relay_conn *conns, *dead_conns;
    _Atomic unsigned conn_count, idle_conns; /* loop 0 reads them to choose whom to tell */
    unsigned conn_starting, concurrency;
    _Atomic uint64_t deliveries; /* messages its connections took to the hop */
    _Atomic int deliver_posted;  /* deliver_item is on its way: ready messages to take */
    struct mailbox_item deliver_item;
    uint64_t cpu_ns; /* its thread's CPU: taken as it ended; loop 0's by take_cpu() */
    struct msg_limit warn[RELAY_WARN_COUNT];
};

/*
 * What serves the sessions the loops are dealt (relay_smtpd.c's, given by
 * relay.c, so that the loops never name it): accept() takes a connection
 * on its loop's thread; close_all() says 421 to the loop's idle sessions
 * at a stop.
 */
struct relay_loop_server {
    void (*accept)(struct relay_loop *loop, int fd, const struct sockaddr *addr);
    void (*close_all)(struct relay_loop *loop);
};

/*
 * After r->base and the options: loop 0 on r->base, the others with their
 * threads running, each serving its sessions with `server' (kept).
 * r->cleanup and r->smtpd become loop 0's pools.
 */
void relay_loop_start(struct relay *r, const struct relay_loop_server *server);

/* The listener, on loop 0: a new client connection goes to a loop. */
void relay_loop_deal(struct relay *r, int fd, const struct sockaddr *addr, int addrlen);

/* A session on `loop' has ended; on loop's thread. */
void relay_loop_session_ended(struct relay_loop *loop);

/* At a stop, on loop 0: every loop says 421 to its idle sessions. */
void relay_loop_close_sessions(struct relay *r);

/* Jobs and posts under way on any loop: the relay is idle only at 0. */
unsigned relay_loop_pending(const struct relay *r);

/* On loop 0: the other loops' CPU so far into their cpu_ns, and its sum. */
uint64_t relay_loop_take_cpu(struct relay *r);

/* CPU of the loops' cleanup and smtpd threads so far. */
uint64_t relay_loop_pool_cpu_ns(const struct relay *r);

/* On loop 0, its own loop over: stop the other loops' threads and wait for them. */
void relay_loop_join(struct relay *r);

/*
 * After the join, on the one thread left: run every job and post there is,
 * and what they start in turn, until nothing is left.
 */
void relay_loop_drain(struct relay *r);

/*
 * The warning `which' on `loop' (its thread): said, or counted when it
 * repeats; `what' (with the text of err) is what counts as the same
 * warning, so that those that each name their message count as one.
 */
void relay_loop_warn(struct relay_loop *loop, enum relay_warn which, const char *what, int err,
                     const char *fmt, ...) MSG_PRINTF(5, 6);

/* After the drain: the counts not yet said. */
void relay_loop_warn_flush(struct relay *r);

/* Last: the pools, the mailboxes and the other loops' bases (loop 0's is r->base). */
void relay_loop_free(struct relay *r);

#endif
