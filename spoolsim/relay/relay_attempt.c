/*
 * relay_attempt - one delivery attempt of a queued message, step by step.
 *
 * The queue manager moves the message to active/ and reads it
 * (activation); a delivery agent takes it (relay_smtp.c, relay_local.c)
 * and hands the next hop's answers back (relay_attempt_delivered()); the
 * agent's records go to the spool on a cleanup thread; the queue manager
 * retires the message, first letting the bounce service (relay_bounce.c)
 * turn a bounce or defer log into a notification, then removes it or
 * defers it until a retry timer brings it back. Each step's file work is
 * the spool table's (relay_spool.h), in a job; its done() here, on the
 * loop thread, counts, warns and starts the next step.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "clock.h"
#include "msg.h"
#include "relay_loop.h"
#include "relay_private.h"
#include "relay_bounce.h"
#include "relay_qmgr_impl.h"
#include "relay_spool.h"
#include "relay_usage.h"
#include "xalloc.h"

static void warn_unreadable(struct relay *r, const struct relay_msg *m, const char *what)
{
    if (m->job_status == -2) {
        r->stats.corrupt++;
        msg_warn("%s: corrupt queue file moved to corrupt/: %s", m->id, m->job_err);
    } else {
        msg_warn("%s: %s: %s", m->id, what, strerror(m->job_errno));
    }
}

/* Read from active/: to the next hop, or only the unlink when all is marked done. */
static void make_ready(struct relay *r, struct relay_msg *m)
{
    m->results = xcalloc(m->view.rcpt_count ? m->view.rcpt_count : 1, sizeof(*m->results));
    if (m->view.rcpt_pending == 0) {
        /* Every recipient is marked D (delivered before a crash): only the unlink is left. */
        r->qm->n_delivering++;
        m->t_deliver = clock_now_ns();
        relay_attempt_delivered(m);
        return;
    }
    relay_qmgr_ready(r, m);
}

/*
 * A step that failed for a reason that passes (no descriptor, no memory,
 * an I/O error, a lock held elsewhere) is tried again, later each time;
 * only a file that is gone (ENOENT) or not complete (EAGAIN) is let go.
 */
static void retry_later(struct relay *r, struct relay_msg *m, const char *what)
{
    uint64_t delay = retry_policy_backoff_ns(&r->retry, ++m->io_failures);

    char why[64];

    snprintf(why, sizeof(why), "cannot %s a queue file", what);
    relay_loop_warn(&r->loops[0], RELAY_WARN_RETRY, why, m->job_errno,
                    "%s: cannot %s: %s; trying again in %.1f s", m->id, what,
                    strerror(m->job_errno), (double)delay / 1e9);
    relay_attempt_schedule_retry(m, delay);
}

static void retire_done(struct io_job *job);

/*
 * The end of an attempt goes to storage (the backend's retire step) with
 * its retry decided here, once: the wait for the timer and the stamp of a
 * deferred file come from the same decision (retry_policy.h).
 */
static void submit_retire(struct relay *r, struct relay_msg *m)
{
    m->retry_wait_ns = retry_policy_backoff_ns(&r->retry, m->attempts);
    m->retry_due_s = retry_policy_due_s(relay_qmgr_wall_s(), m->retry_wait_ns);
    relay_qmgr_submit(r->qmgr, m, r->backend->retire, retire_done);
}

static void activate_done(struct io_job *job)
{
    struct relay_msg *m = MSG_OF(job);
    struct relay *r = m->relay;
    struct relay_qmgr *q = r->qm;
    int from_deferred = m->queue == RELAY_Q_DEFERRED;

    relay_qmgr_take_stats(r, m);
    q->n_moving--;
    if (from_deferred)
        q->n_deferred--;
    else
        relay_qmgr_flow_put(r, 1); /* one fed from incoming/: one token */
    if (m->job_status == RELAY_JOB_UNREAD) {
        /* in active/ now: the retry reads it there, as after a failed move to deferred/ */
        m->queue = RELAY_Q_ACTIVE;
        q->n_active++;
        retry_later(r, m, "read");
        relay_qmgr_kick(r);
        return;
    }
    if (m->job_status == -1 && m->job_errno != ENOENT && m->job_errno != EAGAIN &&
        m->job_errno != EINVAL) {
        /* still where it was: the retry activates it again */
        if (from_deferred)
            q->n_deferred++;
        else
            q->n_incoming++;
        retry_later(r, m, "activate");
        relay_qmgr_kick(r);
        return;
    }
    if (m->job_status != 0) {
        warn_unreadable(r, m, "cannot activate");
        relay_qmgr_msg_free(m);
        relay_qmgr_kick(r);
        return;
    }
    m->io_failures = 0;
    m->queue = RELAY_Q_ACTIVE;
    m->t_active = clock_now_ns();
    q->n_active++;
    make_ready(r, m);
}

void relay_attempt_activate(struct relay *r, struct relay_msg *m)
{
    relay_qmgr_submit(r->qmgr, m, r->backend->activate, activate_done);
}

/* ------------------------------------------------ after the next hop spoke */

static void on_retry(evutil_socket_t fd, short what, void *arg);

void relay_attempt_schedule_retry(struct relay_msg *m, uint64_t delay_ns)
{
    struct timeval tv = {(time_t)(delay_ns / CLOCK_NS_PER_SEC),
                         (suseconds_t)(delay_ns % CLOCK_NS_PER_SEC / 1000)};

    if (m->retry_timer == NULL)
        m->retry_timer = evtimer_new(m->relay->base, on_retry, m);
    evtimer_add(m->retry_timer, &tv);
}

static void flush_step(struct relay_msg *m, unsigned thread)
{
    (void)thread;
    relay_bounce_flush_work(m);
}

/* The notification is in incoming/ (or discarded): a message like any other from here on. */
static void flush_done(struct io_job *job)
{
    struct relay_msg *m = MSG_OF(job);
    struct relay *r = m->relay;
    struct relay_qmgr *q = r->qm;
    const char *log = m->flush == RELAY_FLUSH_BOUNCE ? PF_QUEUE_BOUNCE : PF_QUEUE_DEFER;

    relay_qmgr_take_stats(r, m);
    m->flushed |= m->flush;
    m->flush = 0;
    if (m->dsn_id[0]) {
        struct relay_msg *dsn = relay_qmgr_msg_new(r);

        snprintf(dsn->id, sizeof(dsn->id), "%s", m->dsn_id);
        dsn->is_dsn = 1;
        dsn->queue = RELAY_Q_INCOMING;
        q->n_incoming++;
        relay_qmgr_push(&q->incoming_head, &q->incoming_tail, dsn);
        r->stats.bounces_sent++;
        if (r->opts->verbose)
            msg_info("%s: %s non-delivery notification: %s", m->id,
                     m->job_status == RELAY_BOUNCE_POSTMASTER ? "postmaster" : "sender", dsn->id);
    }
    if (m->job_status < 0) {
        char why[sizeof(m->reason)];

        /* as Postfix's qmgr: the message waits, its log kept, and the notice is tried again */
        m->flush_failed = 1;
        snprintf(why, sizeof(why), "cannot send the notification of its %s log: %s: %s", log,
                 m->job_err, strerror(m->job_errno));
        /* A log that stays unreadable (a directory, say) fails at every retry: one warning. */
        if (strcmp(why, m->reason) != 0)
            msg_warn("%s: %s; the message is deferred until it can", m->id, why);
        /* With nothing left for the next hop, this is why it waits, not an empty reason. */
        if (!relay_msg_any(m, RCPT_DEFERRED))
            snprintf(m->reason, sizeof(m->reason), "%s", why);
    } else if (m->job_status == RELAY_BOUNCE_DISCARDED) {
        r->stats.bounces_discarded++;
        msg_info("%s: %s", m->id, m->job_err);
    }
    submit_retire(r, m);
}

static void retire_done(struct io_job *job)
{
    struct relay_msg *m = MSG_OF(job);
    struct relay *r = m->relay;
    struct relay_qmgr *q = r->qm;
    int deferred = relay_msg_must_wait(m); /* without bounce notices: a deferred recipient */

    relay_qmgr_take_stats(r, m);
    if (m->flush) {
        relay_qmgr_submit(r->cleanup, m, flush_step,
                          flush_done); /* the bounce service, then back here */
        return;
    }
    q->n_active--;
    if (m->job_status != 0) {
        /* The file stays in active/ (a full disk, say): try the move again later. */
        relay_loop_warn(&r->loops[0], RELAY_WARN_RETIRE,
                        deferred ? "cannot defer a message" : "cannot remove a queue file",
                        m->job_errno, "%s: cannot %s: %s", m->id, deferred ? "defer" : "remove",
                        strerror(m->job_errno));
        q->n_active++;
        relay_attempt_schedule_retry(m, m->retry_wait_ns);
        return;
    }
    if ((relay_msg_any(m, RCPT_BOUNCED) || (m->flushed & RELAY_FLUSH_DEFER && !m->flush_failed)) &&
        !m->ever_bounced) {
        m->ever_bounced = 1;
        /* a notification that fails is counted as discarded (or re-sent), not as bounced mail */
        if (!m->is_dsn) {
            r->stats.bounced++;
            r->stats.loops += m->looped != 0;
        }
        if (!relay_spool_bounces(r->backend, r->opts))
            r->stats.bounces_dropped++;
    }
    if (deferred) {
        r->stats.deferrals++;
        m->queue = RELAY_Q_DEFERRED;
        q->n_deferred++;
        if (r->opts->verbose)
            msg_info("%s: deferred (%s), attempt %u", m->id, m->reason, m->attempts);
        r->backend->park(m);
        relay_attempt_schedule_retry(m, m->retry_wait_ns);
    } else {
        uint64_t now = clock_now_ns();

        r->stats.last_out_ns = now;
        if (m->is_dsn)
            r->stats.bounces_delivered += relay_msg_any(m, RCPT_SENT);
        else if (relay_msg_any(m, RCPT_SENT) || (m->view.rcpt_pending == 0 && !m->ever_bounced))
            r->stats.delivered++;
        if (m->t_mail)
            histogram_record(&r->stats.end_to_end, now - m->t_mail);
        if (r->opts->verbose)
            msg_info("%s: removed", m->id);
        relay_qmgr_msg_free(m);
        if (q->n_incoming + q->n_active + q->n_deferred == 0)
            relay_usage_mark(r); /* the busy window may end here */
    }
    relay_qmgr_kick(r);
}

static void agent_done(struct io_job *job)
{
    struct relay_msg *m = MSG_OF(job);
    struct relay *r = m->relay;

    relay_qmgr_take_stats(r, m);
    /*
     * A lost D mark costs a duplicate, a lost log line a reason: neither
     * may hold the message up. The queue manager's move decides its fate.
     */
    if (m->job_status != 0)
        relay_loop_warn(&r->loops[0], RELAY_WARN_RECORD, "cannot record a delivery", m->job_errno,
                        "%s: cannot record the delivery: %s", m->id, strerror(m->job_errno));
    submit_retire(r, m);
}

/*
 * Out of the queue into corrupt/, as a file found damaged at activation:
 * no log, no notice, no D mark (the hop got no end of data, so nothing
 * was delivered). A move that fails leaves the file in active/, for the
 * next start's recovery to bring back; either way it is not tried again.
 */
static void quarantine_done(struct io_job *job)
{
    struct relay_msg *m = MSG_OF(job);
    struct relay *r = m->relay;

    relay_qmgr_take_stats(r, m);
    r->qm->n_active--;
    r->stats.corrupt++;
    if (m->job_status == 0)
        msg_warn("%s: corrupt queue file moved to corrupt/: %s", m->id, m->reason);
    else
        msg_warn("%s: corrupt queue file (%s) left in active/: cannot move it to corrupt/: %s",
                 m->id, m->reason, strerror(m->job_errno));
    relay_qmgr_msg_free(m);
    relay_qmgr_kick(r);
}

void relay_attempt_delivered(struct relay_msg *m)
{
    struct relay *r = m->relay;
    struct relay_qmgr *q = r->qm;
    int expired = retry_policy_expired(&r->retry, m->view.arrival_sec, relay_qmgr_wall_s());

    m->t_delivered = clock_now_ns();
    q->n_delivering--;
    m->attempts++;
    histogram_record(&r->stats.delivery, m->t_delivered - m->t_deliver);
    if (m->damaged && r->backend->quarantine) {
        relay_qmgr_submit(r->qmgr, m, r->backend->quarantine, quarantine_done);
        return;
    }
    if (m->attempts == 1 && m->t_committed)
        histogram_record(&r->stats.queue_wait, m->t_deliver - m->t_committed);
    m->expired = m->flushed = m->flush_failed = 0;
    m->dsn_id[0] = 0;
    for (unsigned i = 0; i < m->view.rcpt_count; i++) {
        if (m->results[i] == RCPT_SENT)
            r->stats.rcpts_sent++;
        /*
         * Past its lifetime a deferral is returned to the sender, as
         * maximal_queue_lifetime says: Postfix logs it as deferred, then
         * its qmgr has the defer log sent as a failure notice. Without
         * notices the deferral just becomes a bounce.
         */
        if (m->results[i] == RCPT_DEFERRED && expired) {
            if (relay_spool_bounces(r->backend, r->opts))
                m->expired = 1;
            else
                m->results[i] = RCPT_BOUNCED;
            r->stats.expired++;
        }
    }
    relay_qmgr_submit(r->cleanup, m, r->backend->record, agent_done);
}

/* ---------------------------------------------------------------- retries */

static void reread_done(struct io_job *job)
{
    struct relay_msg *m = MSG_OF(job);
    struct relay *r = m->relay;
    struct relay_qmgr *q = r->qm;

    relay_qmgr_take_stats(r, m);
    if (m->job_status == -1 && m->job_errno != ENOENT) {
        retry_later(r, m, "read"); /* still in active/, unreadable for now */
        return;
    }
    if (m->job_status != 0) {
        warn_unreadable(r, m, "gone from active/");
        q->n_active--;
        relay_qmgr_msg_free(m);
        relay_qmgr_kick(r);
        return;
    }
    m->io_failures = 0;
    make_ready(r, m);
}

static void on_retry(evutil_socket_t fd, short what, void *arg)
{
    struct relay_msg *m = arg;
    struct relay *r = m->relay;
    struct relay_qmgr *q = r->qm;

    (void)fd;
    (void)what;
    if (r->stopping)
        return;
    if (m->queue == RELAY_Q_ACTIVE) {
        /* never read (its reading failed), or its move to deferred/ failed: read it again */
        if (r->backend->must_reread(m)) {
            relay_qmgr_submit(r->qmgr, m, r->backend->reread, reread_done);
            return;
        }
        submit_retire(r, m); /* a removal that failed before */
        return;
    }
    if (r->backend->retry(m) == RELAY_NEXT_READY) {
        q->n_deferred--; /* the message never left memory */
        m->queue = RELAY_Q_ACTIVE;
        q->n_active++;
        relay_qmgr_ready(r, m);
        return;
    }
    relay_qmgr_push(&q->incoming_head, &q->incoming_tail, m);
    relay_qmgr_kick(r);
}
