/*
 * relay_qmgr - the relay's queue manager: its lists and their scheduling.
 *
 * A message's file moves as in Postfix: a cleanup thread creates it in
 * incoming/ and commits it (relay_cleanup.c); the queue manager moves it
 * to active/ and reads it, the next hop answers, the delivery agent
 * records the answers, and the queue manager removes the file or defers
 * it (relay_attempt.c). This file holds what decides who goes next: the
 * incoming list fed into active/ at the pace of Postfix's qmgr, the ready
 * list handed to the delivery agents, flow control, and every message's
 * life from relay_qmgr_msg_new() to relay_qmgr_msg_free().
 *
 * The queue manager's file work runs on its own pool: one thread by
 * default, so that its renames and unlinks happen one at a time, in order,
 * like Postfix's single qmgr process. Every step is an io_pool job whose
 * done() runs on the loop thread and starts the next step; a message is in
 * at most one job at a time.
 */
#include "config.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include "clock.h"
#include "relay_loop.h"
#include "relay_private.h"
#include "relay_deliver.h"
#include "relay_qmgr_impl.h"
#include "relay_spool.h"
#include "xalloc.h"

void relay_qmgr_new(struct relay *r)
{
    r->qm = xcalloc(1, sizeof(*r->qm));
    pthread_mutex_init(&r->qm->all_lock, NULL);
    pthread_mutex_init(&r->qm->ready_lock, NULL);
    r->qm->flow_tokens = r->opts->in_flow_limit;
}

struct relay_msg *relay_qmgr_msg_new(struct relay *r)
{
    struct relay_msg *m = xcalloc(1, sizeof(*m));
    struct relay_qmgr *q = r->qm;

    m->relay = r;
    m->loop = &r->loops[0];
    pf_qfile_init(&m->qf);
    pthread_mutex_lock(&q->all_lock); /* sessions make messages on every loop */
    m->all_next = q->all;
    if (q->all)
        q->all->all_prev = m;
    q->all = m;
    pthread_mutex_unlock(&q->all_lock);
    return m;
}

long relay_qmgr_wall_s(void)
{
    struct timeval tv;

    gettimeofday(&tv, NULL);
    return (long)tv.tv_sec;
}

void relay_qmgr_msg_free(struct relay_msg *m)
{
    struct relay_qmgr *q = m->relay->qm;

    pthread_mutex_lock(&q->all_lock);
    if (m->all_prev)
        m->all_prev->all_next = m->all_next;
    else
        q->all = m->all_next;
    if (m->all_next)
        m->all_next->all_prev = m->all_prev;
    pthread_mutex_unlock(&q->all_lock);
    pf_qfile_free(&m->qf);
    if (m->out) {
        pf_spool_file_abort(m->out); /* only at exit can a file still be open here */
        free(m->out);
    }
    relay_msg_release(m);
    if (m->retry_timer)
        event_free(m->retry_timer);
    free(m);
}

void relay_qmgr_free(struct relay *r)
{
    if (r->qm == NULL)
        return;
    while (r->qm->all)
        relay_qmgr_msg_free(r->qm->all);
    if (r->qm->flow_timer)
        event_free(r->qm->flow_timer);
    pthread_mutex_destroy(&r->qm->all_lock);
    pthread_mutex_destroy(&r->qm->ready_lock);
    free(r->qm);
    r->qm = NULL;
}

void relay_qmgr_take_stats(struct relay *r, struct relay_msg *m)
{
    pthread_mutex_lock(&r->stats_lock);
    pf_spool_stats_add(&r->stats.spool, &m->st);
    pthread_mutex_unlock(&r->stats_lock);
    memset(&m->st, 0, sizeof(m->st));
}

static void step_work(struct io_job *job)
{
    struct relay_msg *m = MSG_OF(job);

    m->step(m, job->thread);
}

void relay_qmgr_submit(struct io_pool *pool, struct relay_msg *m, relay_spool_step *step,
                       void (*done)(struct io_job *))
{
    m->step = step;
    m->job.work = step_work;
    m->job.done = done;
    m->job_status = 0;
    m->job_errno = 0;
    m->job_err[0] = 0;
    io_pool_submit(pool, &m->job);
}

void relay_qmgr_push(struct relay_msg **head, struct relay_msg **tail, struct relay_msg *m)
{
    m->next = NULL;
    if (*tail)
        (*tail)->next = m;
    else
        *head = m;
    *tail = m;
}

static struct relay_msg *pop(struct relay_msg **head, struct relay_msg **tail)
{
    struct relay_msg *m = *head;

    if (m) {
        *head = m->next;
        if (*head == NULL)
            *tail = NULL;
        m->next = NULL;
    }
    return m;
}

/* ---------------------------------------------------------- flow control */

static void arm_flow_timer(struct relay *r)
{
    struct relay_qmgr *q = r->qm;
    uint64_t delay = (uint64_t)(r->opts->in_flow_delay * 1e9), waited;
    struct timeval tv;

    if (q->flow_head == NULL)
        return;
    waited = clock_now_ns() - q->flow_head->t_flow;
    delay = waited < delay ? delay - waited : 0;
    tv = clock_timeval_ns(delay);
    evtimer_add(q->flow_timer, &tv);
}

/* A token, if there is one: sessions on every loop take them. */
static int take_token(struct relay_qmgr *q)
{
    unsigned t = atomic_load(&q->flow_tokens);

    while (t > 0)
        if (atomic_compare_exchange_weak(&q->flow_tokens, &t, t - 1))
            return 1;
    return 0;
}

/* The list's first message has left it (for its commit). */
static struct relay_msg *flow_pop(struct relay_qmgr *q)
{
    struct relay_msg *m = pop(&q->flow_head, &q->flow_tail);

    q->flow_waiting--;
    return m;
}

/* Hand out tokens to waiting messages; past the delay, a message goes without one. */
static void flow_release(struct relay *r, int expired_only)
{
    struct relay_qmgr *q = r->qm;
    uint64_t now = clock_now_ns(), delay = (uint64_t)(r->opts->in_flow_delay * 1e9);

    while (q->flow_head) {
        if (!take_token(q) && (!expired_only || now - q->flow_head->t_flow < delay))
            break;
        relay_cleanup_commit(r, flow_pop(q));
    }
    if (q->flow_head == NULL)
        evtimer_del(q->flow_timer);
    else
        arm_flow_timer(r);
}

static void on_flow_timer(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    flow_release(arg, 1);
}

/* On loop 0: m, counted in flow_waiting, takes a token now or waits for one in the list. */
static void flow_wait(struct relay *r, struct relay_msg *m)
{
    struct relay_qmgr *q = r->qm;

    if (q->flow_head == NULL && take_token(q)) {
        q->flow_waiting--;
        relay_cleanup_commit(r, m);
        return;
    }
    if (q->flow_timer == NULL)
        q->flow_timer = evtimer_new(r->base, on_flow_timer, r);
    r->stats.flow_waits++;
    m->t_flow = clock_now_ns();
    relay_qmgr_push(&q->flow_head, &q->flow_tail, m);
    if (q->flow_head == m)
        arm_flow_timer(r);
}

static void on_flow_wait_post(struct mailbox_item *item)
{
    struct relay_msg *m = (struct relay_msg *)((char *)item - offsetof(struct relay_msg, posted));

    flow_wait(m->relay, m);
}

/*
 * On the loop of m's session. With a token to be had and nobody waiting
 * for one, the commit starts here and loop 0 hears of m only once it is
 * committed; else m waits on loop 0's list, in its turn.
 */
void relay_qmgr_enqueue(struct relay *r, struct relay_msg *m)
{
    struct relay_qmgr *q = r->qm;

    if (r->opts->in_flow_delay <= 0) {
        relay_cleanup_commit_here(r, m);
        return;
    }
    if (q->flow_waiting == 0 && take_token(q)) {
        relay_cleanup_commit_here(r, m);
        return;
    }
    q->flow_waiting++; /* before the post: later messages queue behind it */
    if (m->loop->index == 0) {
        flow_wait(r, m);
        return;
    }
    m->posted.run = on_flow_wait_post;
    mailbox_post(r->loops[0].inbox, &m->posted);
}

void relay_qmgr_flow_flush(struct relay *r)
{
    struct relay_qmgr *q = r->qm;

    while (q->flow_head)
        relay_cleanup_commit(r, flow_pop(q));
    if (q->flow_timer)
        evtimer_del(q->flow_timer);
}

void relay_qmgr_flow_put(struct relay *r, unsigned tokens)
{
    struct relay_qmgr *q = r->qm;
    unsigned t, limit = r->opts->in_flow_limit;

    if (r->opts->in_flow_delay <= 0)
        return;
    t = atomic_load(&q->flow_tokens);
    while (!atomic_compare_exchange_weak(
        &q->flow_tokens, &t, t + tokens < limit && t + tokens >= t ? t + tokens : limit))
        continue;
    if (q->flow_head)
        flow_release(r, 0);
}

/* -------------------------------------------------------------- recovery */

void relay_qmgr_found(void *ctx, const char *queue, const char *id, long mtime)
{
    struct relay *r = ctx;
    struct relay_qmgr *q = r->qm;
    struct relay_msg *m = relay_qmgr_msg_new(r);

    snprintf(m->id, sizeof(m->id), "%s", id);
    r->stats.recovered++;
    if (r->stats.recovered_ns == 0)
        r->stats.recovered_ns = clock_now_ns();
    if (strcmp(queue, PF_QUEUE_DEFERRED) == 0) {
        m->queue = RELAY_Q_DEFERRED;
        m->attempts = 1;
        q->n_deferred++;
        relay_attempt_schedule_retry(
            m, retry_policy_wait_until_ns(&r->retry, mtime, relay_qmgr_wall_s()));
    } else {
        m->queue = RELAY_Q_INCOMING;
        q->n_incoming++;
        relay_qmgr_push(&q->incoming_head, &q->incoming_tail, m);
    }
}

/* -------------------------------------------------------------- scheduling */

/*
 * Postfix's qmgr feeds one message at a time from incoming/ into active/,
 * between its other work, so the queue manager's own speed sets how fast
 * mail moves on; a pool shape feeds as many at once as it has threads.
 * The single thread gets the next message queued behind the one it moves:
 * Postfix's qmgr imports the next one as soon as the last is in (its loop
 * does not wait when incoming/ has more), and without a message queued our
 * thread would sleep until this loop had seen the last one done, a pause
 * and a wake-up for every message that Postfix does not have. The thread
 * still moves them one after the other, in order.
 */
static unsigned feed_limit(const struct relay *r)
{
    return r->opts->qmgr == RELAY_QMGR_SINGLE ? 2 : r->opts->cleanup_threads;
}

/*
 * What a scan of incoming/ may move at an activation (SPOOLSIM_QMGR_SCAN):
 * active/'s room as the queue manager sees it now, every committed message
 * still waiting counted in it, less what scans have moved ahead meanwhile
 * (relay_spool_postfix.c). Postfix's qmgr stops its scan when its active
 * queue is full, and counts what it scanned at once; here the feed learns
 * of a file a scan took only at its activation, so active/ may hold up to
 * twice --active-limit for a moment, never the whole backlog.
 */
static unsigned scan_room(const struct relay *r)
{
    const struct relay_qmgr *q = r->qm;
    unsigned used = q->n_active + q->n_moving + q->n_incoming;

    /*
     * The message being activated is in n_moving already: a scan that takes
     * its file too uses a place twice, which errs on the side of the limit.
     */
    return used < r->opts->active_limit ? r->opts->active_limit - used : 0;
}

void relay_qmgr_kick(struct relay *r)
{
    struct relay_msg *m;
    struct relay_qmgr *q = r->qm;

    if (r->stopping)
        return;
    while (q->incoming_head && q->n_moving < feed_limit(r) &&
           q->n_active + q->n_moving < r->opts->active_limit) {
        m = pop(&q->incoming_head, &q->incoming_tail);
        if (m->queue == RELAY_Q_INCOMING)
            q->n_incoming--;
        q->n_moving++;
        m->scan_room = scan_room(r);
        relay_attempt_activate(r, m);
    }
    /* All tokens back when nothing waits in incoming/, as Postfix's qmgr gives them. */
    if (q->incoming_head == NULL)
        relay_qmgr_flow_put(r, r->opts->in_flow_limit);
    r->agent->deliver_ready(r);
}

void relay_qmgr_ready(struct relay *r, struct relay_msg *m)
{
    pthread_mutex_lock(&r->qm->ready_lock);
    relay_qmgr_push(&r->qm->ready_head, &r->qm->ready_tail, m);
    r->qm->n_ready++;
    pthread_mutex_unlock(&r->qm->ready_lock);
    relay_qmgr_kick(r);
}

struct relay_msg *relay_qmgr_next_ready(struct relay *r)
{
    struct relay_qmgr *q = r->qm;
    struct relay_msg *m;

    if (r->stopping || q->n_ready == 0)
        return NULL;
    pthread_mutex_lock(&q->ready_lock);
    m = pop(&q->ready_head, &q->ready_tail);
    if (m) {
        q->n_ready--;
        q->n_delivering++;
        m->t_deliver = clock_now_ns();
        m->own_status = NULL; /* the hop's replies speak for this attempt */
    }
    pthread_mutex_unlock(&q->ready_lock);
    return m;
}

void relay_qmgr_abandoned(struct relay_msg *m)
{
    m->relay->qm->n_delivering--;
}

unsigned relay_qmgr_ready_count(const struct relay *r)
{
    return r->qm->n_ready;
}

void relay_qmgr_depths(const struct relay *r, struct relay_queue_depths *d)
{
    const struct relay_qmgr *q = r->qm;

    d->incoming = q->n_incoming;
    d->active = q->n_active + q->n_moving;
    d->deferred = q->n_deferred;
    d->delivering = q->n_delivering;
}

int relay_qmgr_idle(const struct relay *r)
{
    return relay_loop_pending(r) == 0 && io_pool_pending(r->qmgr) == 0 && r->qm->n_delivering == 0;
}
