/*
 * loops - N event loops, each an event base on its own thread (--threads N).
 *
 * A set has a main base, the one the caller's thread runs: the listener,
 * the signals, the displays. With LOOPS_FIRST_ON_MAIN, loop 0 is that
 * base, run on the caller's thread, and the others run on threads of
 * their own; without it, all N do, and the main base is the caller's
 * alone. The threads are made with interrupt_thread_create(): SIGINT and
 * SIGTERM stay the main thread's, whose loop turns them into posts
 * (loops_catch). Each loop has a mailbox (common/net/mailbox): work
 * reaches a loop from another thread only as a post to it, and reaches
 * the main thread as a post to the main mailbox; nothing else crosses.
 *
 * A server deals its connections from one listener on the main base
 * (loops_pick) rather than open a listener per loop with SO_REUSEPORT:
 * the kernel spreads SO_REUSEPORT connections by a hash of their
 * addresses and ports, so a few long sessions can pile onto one loop
 * while another idles, where the listener can pick the loop with the
 * fewest sessions; unix-domain sockets have no SO_REUSEPORT; and a limit
 * on concurrent sessions pauses one accept queue, as Postfix's master
 * does for its smtpd processes, which several queues could not share (a
 * connection hashed to a full loop would wait while another had room).
 * The price is one post per connection to the loop that gets it, a pipe
 * write at most (none while that loop is awake).
 *
 * Life: loops_new() makes the bases and mailboxes; loops_start() starts
 * the threads, each running its loop (see struct loops_hooks);
 * loops_run() runs loop 0 here when it is the main thread's, and waits
 * for the rest: once loop 0 has ended it stops the others, else it runs
 * the main base until every loop has ended on its own or by loops_stop();
 * then it joins every thread. loops_free() last, on the one thread left.
 * Every function but loops_post(), loops_post_main() and
 * loops_session_ended() is the main thread's.
 */
#ifndef SPOOLSIM_LOOPS_H
#define SPOOLSIM_LOOPS_H

#include <event2/event.h>
#include <pthread.h>
#include <stdatomic.h>

#include "mailbox.h"

struct loops;

struct loop {
    struct loops *set;
    unsigned index;
    struct event_base *base;
    struct mailbox *mailbox; /* posts to this loop, from any thread */
    void *owner;             /* the program's object for this loop: its to set */
    /* The harness's. */
    _Atomic unsigned sessions; /* dealt by loops_pick() and not yet ended */
    int on_main;               /* loop 0 with LOOPS_FIRST_ON_MAIN */
    int ended; /* its dispatch has returned: read on its thread, or after the join */
    pthread_t thread;
    struct mailbox_item stop_item, done_item;
    int stop_posted;
};

/*
 * A loop's life, on its thread: before(), its base dispatched, ended set,
 * after(). Each may be NULL. after() is the place to close what the loop
 * still has and to run the base once more for the frees it defers.
 */
struct loops_hooks {
    void (*before)(struct loop *loop);
    void (*after)(struct loop *loop);
};

enum {
    LOOPS_FIRST_ON_MAIN = 1, /* loop 0 is the main base, run on the caller's thread */
    LOOPS_SPARE_FIRST = 2,   /* loops_pick(): loop 0 only when it has fewer than every other */
    /*
     * Each loop gives up its CPU (sched_yield) after every pass through its
     * ready events, before it waits for more: another program runnable on
     * that CPU (the client, say) goes first, and the loop comes back to a
     * batch of events where it would otherwise sleep and be woken for each
     * one. With nothing else runnable it costs one system call a pass.
     */
    LOOPS_YIELD = 4,
};

/*
 * n loops (1 or more). main_base: the caller's, which it frees after
 * loops_free(); NULL: the set makes one, and frees it. Fatal when a base
 * or a pipe cannot be had.
 */
/*
 * libevent's fatal errors (it exits with 1 by itself) made msg_fatal()'s,
 * exit status 3 as every run that could not complete (exit_status.h);
 * loops_new() does it, and a program that makes a base before calls it.
 */
void loops_catch_fatal(void);
struct loops *loops_new(unsigned n, struct event_base *main_base, int flags,
                        const struct loops_hooks *hooks);

unsigned loops_count(const struct loops *ls);
struct loop *loops_loop(struct loops *ls, unsigned i);
struct event_base *loops_main_base(struct loops *ls);

/* The threads of the loops that are not the main thread's. Fatal if one cannot start. */
void loops_start(struct loops *ls);

/*
 * The loop with the fewest sessions, its count raised by one (the caller
 * hands it a session); ties go to each of them in turn, so that equal
 * loads take connections round-robin.
 */
struct loop *loops_pick(struct loops *ls);

/* Any thread: a session loops_pick() dealt to `loop' has ended. */
void loops_session_ended(struct loop *loop);

/* Any thread: run `item' on loop's thread (see mailbox.h for who owns the item). */
void loops_post(struct loop *loop, struct mailbox_item *item);

/*
 * Any thread: run `item' on the main thread: at once when called there,
 * else posted to the main mailbox (loop 0's when it is the main's).
 */
void loops_post_main(struct loops *ls, struct mailbox_item *item);

/*
 * fn(loop) for every loop still running, each on its own thread: at once
 * for the one the main thread runs, posted to the others (a copy each: it
 * may be called again before those ran). A loop that has ended skips it.
 */
void loops_each(struct loops *ls, void (*fn)(struct loop *loop));

/* Every loop on a thread of its own leaves its dispatch (each told once). */
void loops_stop(struct loops *ls);

/*
 * On the main base, fn(ls, signo, arg) when signo arrives; the event is
 * freed with the set.
 */
void loops_catch(struct loops *ls, int signo, void (*fn)(struct loops *ls, int signo, void *arg),
                 void *arg);

/* See the life above: loop 0 if it is the main's, the wait, the join. */
void loops_run(struct loops *ls);

/* Only the join (a caller that ran the main base itself and called loops_stop()). */
void loops_join(struct loops *ls);

/*
 * After the join: what is still posted runs (loops_each()'s copies are
 * dropped), then the mailboxes, the signal events and the bases go. The
 * signals loops_catch() caught stay blocked in the calling thread: the
 * run is over, and one arriving late must not end the program in place
 * of its exit status.
 */
void loops_free(struct loops *ls);

#endif
