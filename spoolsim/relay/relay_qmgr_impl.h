/*
 * relay_qmgr_impl - the queue manager's own state, shared by its three
 * files (relay_qmgr.c, relay_cleanup.c, relay_attempt.c) and by no other:
 * the rest of the relay sees only relay_qmgr.h. All of it is loop 0's,
 * but for the list of every message, which sessions add to on any loop,
 * and the ready list, which every loop's connections take from.
 */
#ifndef SPOOLSIM_RELAY_QMGR_IMPL_H
#define SPOOLSIM_RELAY_QMGR_IMPL_H

#include <event2/event.h>
#include <pthread.h>
#include <stdatomic.h>

#include "io_pool.h"
#include "relay_qmgr.h"
#include "relay_spool.h"

struct relay_qmgr {
    pthread_mutex_t all_lock;
    struct relay_msg *all;                           /* every message, to free at exit */
    struct relay_msg *incoming_head, *incoming_tail; /* waiting to move to active/ */
    /* in active/, waiting for delivery: every loop's connections take from it, under the lock */
    pthread_mutex_t ready_lock;
    struct relay_msg *ready_head, *ready_tail;
    _Atomic unsigned n_ready, n_delivering; /* the list's length; taken, not handed back */
    unsigned n_incoming, n_active, n_deferred, n_moving;

    /*
     * Flow control, as Postfix's in_flow_delay: a committed message costs a
     * token, the queue manager gives one back per message it takes from
     * incoming/ (all of them when incoming/ is empty), and a message with
     * no token waits for one, but never longer than the delay. A session on
     * another loop takes a token itself when one is there and nobody waits
     * (relay_qmgr_enqueue()), so the counts are atomic; the waiting list is
     * loop 0's.
     */
    _Atomic unsigned flow_tokens;
    _Atomic unsigned flow_waiting; /* messages on the list, or on their way to it */
    struct relay_msg *flow_head, *flow_tail;
    struct event *flow_timer;
};

/* relay_qmgr.c */
/* m's next step on a pool thread; done() then runs on the loop thread. */
void relay_qmgr_submit(struct io_pool *pool, struct relay_msg *m, relay_spool_step *step,
                       void (*done)(struct io_job *));
void relay_qmgr_push(struct relay_msg **head, struct relay_msg **tail, struct relay_msg *m);
void relay_qmgr_take_stats(struct relay *r,
                           struct relay_msg *m); /* what the job did to the spool */
void relay_qmgr_flow_put(struct relay *r, unsigned tokens);
/* m, in active/ and read, is ready for a delivery agent: one is sought at once. */
void relay_qmgr_ready(struct relay *r, struct relay_msg *m);

/* relay_cleanup.c: the commit of a message that has its flow token */
void relay_cleanup_commit(struct relay *r, struct relay_msg *m);      /* on loop 0 */
void relay_cleanup_commit_here(struct relay *r, struct relay_msg *m); /* on m's loop */

/* relay_attempt.c */
void relay_attempt_activate(struct relay *r, struct relay_msg *m); /* from the incoming list */
void relay_attempt_schedule_retry(struct relay_msg *m, uint64_t delay_ns);

#endif
