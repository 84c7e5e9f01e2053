/*
 * relay_qmgr - the relay's queue manager.
 *
 * A message's file moves as in Postfix: a cleanup thread creates it in
 * incoming/ and commits it; the queue manager renames it to active/ and
 * reads it; the next hop answers; the delivery side marks each delivered
 * recipient D in place and appends defer or bounce logs (fsync'ed); the
 * queue manager then looks for a bounce log and has the bounce service
 * (relay_bounce.c) turn it into a notification to the sender, as it does
 * with the defer log of a message past --max-lifetime; then it unlinks the
 * file, or stamps its retry time and moves it to deferred/. The queue manager's file work runs on
 * its own pool: one thread by default, so that its renames and unlinks happen one at a time, in
 * order, like Postfix's single qmgr process.
 *
 * Every step is an io_pool job whose done() runs here on the loop thread
 * and starts the next step; a message is in at most one job at a time.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include "clock.h"
#include "dsn.h"
#include "msg.h"
#include "relay_model.h"
#include "relay_private.h"
#include "relay_usage.h"
#include "xalloc.h"

static uint64_t backoff_ns(const struct relay *r, unsigned attempts);
static void schedule_retry(struct relay_msg *m, uint64_t delay_ns);

struct relay_msg *relay_msg_new(struct relay *r)
{
    struct relay_msg *m = xcalloc(1, sizeof(*m));

    m->relay = r;
    pf_qfile_init(&m->qf);
    m->all_next = r->all;
    if (r->all)
        r->all->all_prev = m;
    r->all = m;
    return m;
}

static void free_notes(struct relay_msg *m)
{
    for (unsigned i = 0; m->rcpt_reason && i < m->view.rcpt_count; i++) {
        free(m->rcpt_reason[i]);
        free(m->rcpt_reply[i]);
    }
    free(m->rcpt_reason);
    free(m->rcpt_reply);
    m->rcpt_reason = m->rcpt_reply = NULL;
}

void relay_msg_note(struct relay_msg *m, unsigned i)
{
    if (m->rcpt_reason == NULL) {
        m->rcpt_reason = xcalloc(m->view.rcpt_count, sizeof(*m->rcpt_reason));
        m->rcpt_reply = xcalloc(m->view.rcpt_count, sizeof(*m->rcpt_reply));
    }
    free(m->rcpt_reason[i]);
    free(m->rcpt_reply[i]);
    m->rcpt_reason[i] = xstrdup(m->reason);
    m->rcpt_reply[i] = m->hop_reply[0] ? xstrdup(m->hop_reply) : NULL;
}

int relay_bounces(const struct relay *r)
{
    return r->profile->builtin_postfix && !r->opts->no_bounces;
}

static void release_file(struct relay_msg *m)
{
    free_notes(m);
    pf_qfile_view_free(&m->view);
    free(m->file);
    m->file = NULL;
    free(m->results);
    m->results = NULL;
}

void relay_msg_free(struct relay_msg *m)
{
    struct relay *r = m->relay;

    if (m->all_prev)
        m->all_prev->all_next = m->all_next;
    else
        r->all = m->all_next;
    if (m->all_next)
        m->all_next->all_prev = m->all_prev;
    pf_qfile_free(&m->qf);
    if (m->out) {
        pf_spool_abort(m->out); /* only at exit can a file still be open here */
        free(m->out);
    }
    release_file(m);
    if (m->retry_timer)
        event_free(m->retry_timer);
    free(m);
}

void relay_qmgr_free_all(struct relay *r)
{
    while (r->all)
        relay_msg_free(r->all);
}

static void take_stats(struct relay *r, struct relay_msg *m)
{
    pf_spool_stats_add(&r->stats.spool, &m->st);
    memset(&m->st, 0, sizeof(m->st));
}

static void submit(struct io_pool *pool, struct relay_msg *m, void (*work)(struct io_job *),
                   void (*done)(struct io_job *))
{
    m->job.work = work;
    m->job.done = done;
    m->job_status = 0;
    m->job_errno = 0;
    m->job_err[0] = 0;
    io_pool_submit(pool, &m->job);
}

static void push(struct relay_msg **head, struct relay_msg **tail, struct relay_msg *m)
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

static long wall_now(void)
{
    struct timeval tv;

    gettimeofday(&tv, NULL);
    return (long)tv.tv_sec;
}

/* -------------------------------------------------------------- cleanup */

int relay_cleanup_streams(const struct relay *r)
{
    return r->profile->builtin_postfix;
}

static void stream_open_work(struct io_job *job)
{
    struct relay_msg *m = MSG_OF(job);

    /* The envelope's first records wait in the 4 KiB buffer, as in cleanup's VSTREAM. */
    m->job_status = pf_spool_create(&m->relay->spool, m->out, m->id, sizeof(m->id), &m->st);
    if (m->job_status == 0)
        m->job_status = pf_spool_append(m->out, m->qf.buf, m->qf.len, &m->st);
    m->job_errno = errno;
}

static void stream_write_work(struct io_job *job)
{
    struct relay_msg *m = MSG_OF(job);

    m->job_status = pf_spool_append(m->out, m->qf.buf, m->qf.len, &m->st);
    m->job_errno = errno;
}

static void stream_done(struct io_job *job)
{
    struct relay_msg *m = MSG_OF(job);

    take_stats(m->relay, m);
    if (m->job_status == 0)
        pf_qfile_drain(&m->qf);
    if (m->client == NULL) {
        relay_cleanup_abort(m); /* its client went while the job ran */
        return;
    }
    relay_smtpd_streamed(m->client, m);
}

void relay_cleanup_open(struct relay_msg *m)
{
    m->out = xmalloc(sizeof(*m->out));
    m->out->fd = -1;
    submit(m->relay->cleanup, m, stream_open_work, stream_done);
}

void relay_cleanup_write(struct relay_msg *m)
{
    submit(m->relay->cleanup, m, stream_write_work, stream_done);
}

static void abort_work(struct io_job *job)
{
    pf_spool_abort(MSG_OF(job)->out);
}

static void abort_done(struct io_job *job)
{
    relay_msg_free(MSG_OF(job));
}

void relay_cleanup_abort(struct relay_msg *m)
{
    m->client = NULL;
    if (m->out && m->out->fd >= 0)
        submit(m->relay->cleanup, m, abort_work, abort_done); /* an unlink: off the loop */
    else
        relay_msg_free(m);
}

/* -------------------------------------------------------------- enqueue */

static void enqueue_work(struct io_job *job)
{
    struct relay_msg *m = MSG_OF(job);
    char size_record[PF_SIZE_RECORD_LEN];

    if (!m->relay->profile->builtin_postfix) {
        m->job_status = relay_profile_accept(m, job->thread);
        return;
    }
    relay_model_spend(m->relay->model, COST_RECEIVE, m->qf.content_bytes, m->qf.rcpt_count);
    /* The rest of the text and the end records, then the C record, the mark, the sync. */
    pf_qfile_size_record(&m->qf, size_record);
    m->job_status = pf_spool_append(m->out, m->qf.buf, m->qf.len, &m->st);
    if (m->job_status == 0)
        m->job_status = pf_spool_commit(&m->relay->spool, m->out, size_record, &m->st);
    m->job_errno = errno;
}

static void enqueue_done(struct io_job *job)
{
    struct relay_msg *m = MSG_OF(job);
    struct relay *r = m->relay;

    m->t_committed = clock_now_ns();
    take_stats(r, m);
    if (m->client)
        relay_smtpd_committed(m->client, m);
    if (m->job_status != 0) {
        if (m->job_errno == ENOSPC || m->job_errno == EDQUOT)
            r->stats.rejected_storage++;
        else
            r->stats.rejected_other++;
        msg_warn("cannot queue a message in %s: %s", r->spool.dir, strerror(m->job_errno));
        relay_msg_free(m);
        return;
    }
    r->stats.received++;
    if (r->stats.first_in_ns == 0) {
        r->stats.first_in_ns = m->t_data_end;
        relay_usage_mark(r); /* the busy window starts */
    }
    histogram_record(&r->stats.receive, m->t_data_end - m->t_mail);
    histogram_record(&r->stats.commit, m->t_committed - m->t_data_end);
    if (r->opts->verbose)
        msg_info("%s: queued", m->id);
    if (!r->profile->builtin_postfix) {
        if (relay_profile_accepted(m) != 0) {
            msg_warn("%s: %s", m->id, m->job_err);
            relay_msg_free(m);
            return;
        }
        push(&r->ready_head, &r->ready_tail, m);
        r->n_ready++;
        relay_qmgr_kick(r);
        return;
    }
    pf_qfile_free(&m->qf); /* from here on the file on disk is the message */
    free(m->out);
    m->out = NULL;
    m->queue = RELAY_Q_INCOMING;
    r->n_incoming++;
    push(&r->incoming_head, &r->incoming_tail, m);
    relay_qmgr_kick(r);
}

static void commit(struct relay *r, struct relay_msg *m)
{
    if (!r->profile->builtin_postfix) {
        /* Numbers that do not repeat across restarts: files are made with O_EXCL. */
        m->pmsg.id = ++r->next_msg_number;
        snprintf(m->id, sizeof(m->id), "%llu", (unsigned long long)m->pmsg.id);
    }
    submit(r->cleanup, m, enqueue_work, enqueue_done);
}

static void arm_flow_timer(struct relay *r)
{
    uint64_t delay = (uint64_t)(r->opts->in_flow_delay * 1e9), waited;
    struct timeval tv;

    if (r->flow_head == NULL)
        return;
    waited = clock_now_ns() - r->flow_head->t_flow;
    delay = waited < delay ? delay - waited : 0;
    tv = clock_timeval_ns(delay);
    evtimer_add(r->flow_timer, &tv);
}

/* Hand out tokens to waiting messages; past the delay, a message goes without one. */
static void flow_release(struct relay *r, int expired_only)
{
    uint64_t now = clock_now_ns(), delay = (uint64_t)(r->opts->in_flow_delay * 1e9);

    while (r->flow_head) {
        struct relay_msg *m = r->flow_head;

        if (r->flow_tokens > 0)
            r->flow_tokens--;
        else if (!expired_only || now - m->t_flow < delay)
            break;
        r->flow_head = m->next;
        if (r->flow_head == NULL)
            r->flow_tail = NULL;
        m->next = NULL;
        commit(r, m);
    }
    if (r->flow_head == NULL)
        evtimer_del(r->flow_timer);
    else
        arm_flow_timer(r);
}

static void on_flow_timer(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    flow_release(arg, 1);
}

void relay_qmgr_enqueue(struct relay *r, struct relay_msg *m)
{
    if (r->opts->in_flow_delay <= 0 || (r->flow_head == NULL && r->flow_tokens > 0)) {
        if (r->flow_tokens > 0)
            r->flow_tokens--;
        commit(r, m);
        return;
    }
    if (r->flow_timer == NULL)
        r->flow_timer = evtimer_new(r->base, on_flow_timer, r);
    r->stats.flow_waits++;
    m->t_flow = clock_now_ns();
    push(&r->flow_head, &r->flow_tail, m);
    if (r->flow_head == m)
        arm_flow_timer(r);
}

void relay_qmgr_flow_flush(struct relay *r)
{
    while (r->flow_head) {
        struct relay_msg *m = pop(&r->flow_head, &r->flow_tail);

        commit(r, m);
    }
    if (r->flow_timer)
        evtimer_del(r->flow_timer);
}

static void flow_put(struct relay *r, unsigned tokens)
{
    if (r->opts->in_flow_delay <= 0)
        return;
    r->flow_tokens += tokens;
    if (r->flow_tokens > r->opts->in_flow_limit)
        r->flow_tokens = r->opts->in_flow_limit;
    if (r->flow_head)
        flow_release(r, 0);
}

static void flow_put(struct relay *r, unsigned tokens);

/* ------------------------------------------------------------- activate */

/*
 * Read m's queue file in active/ for a delivery attempt: 0, or -1 with
 * m->job_errno when it cannot be read, or -2 when it is damaged (moved to
 * corrupt/, with the reason in m->job_err).
 */
static int read_active(struct relay_msg *m, char **file, size_t *len, struct pf_qfile_view *view)
{
    const struct pf_spool *sp = &m->relay->spool;

    if (pf_spool_read(sp, m->id, file, len, &m->st) != 0) {
        m->job_errno = errno;
        if (errno != EFBIG && errno != EINVAL && errno != ELOOP)
            return -1; /* out of descriptors, say: the file is fine, try again later */
        /* Nothing the relay writes looks like this: kept for a human, unread. */
        if (errno == EFBIG)
            snprintf(m->job_err, sizeof(m->job_err),
                     "%zu bytes, more than any message within --max-size and --max-rcpt makes "
                     "(%llu); not read",
                     *len, (unsigned long long)sp->max_file);
        else
            snprintf(m->job_err, sizeof(m->job_err), "not a regular file; not opened");
        *len = 0;
        pf_spool_corrupt(sp, "active", m->id);
        return -2;
    }
    if (pf_qfile_read(*file, *len, view, m->job_err, sizeof(m->job_err)) != 0) {
        /* qmgr keeps what it cannot read in corrupt/, for a human to look at */
        free(*file);
        *file = NULL;
        pf_spool_corrupt(sp, "active", m->id);
        return -2;
    }
    /* A new attempt: the old defer log goes (for a new message, an ENOENT), as in qmgr. */
    pf_spool_log_remove(sp, "defer", m->id, &m->st);
    return 0;
}

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
        r->n_delivering++;
        m->t_deliver = clock_now_ns();
        relay_qmgr_delivered(m);
        return;
    }
    push(&r->ready_head, &r->ready_tail, m);
    r->n_ready++;
    relay_qmgr_kick(r);
}

#define JOB_UNREAD (-3) /* moved to active/, but not read (yet) */

static void activate_work(struct io_job *job)
{
    struct relay_msg *m = MSG_OF(job);

    if (pf_spool_activate(&m->relay->spool, m->id, m->queue == RELAY_Q_DEFERRED, &m->st) != 0) {
        m->job_status = -1;
        m->job_errno = errno;
        return;
    }
    m->job_status = read_active(m, &m->file, &m->file_len, &m->view);
    if (m->job_status == 0) /* qmgr's work: the envelope read, recipients resolved */
        relay_model_spend(m->relay->model, COST_QMGR, m->view.content_bytes, m->view.rcpt_count);
    if (m->job_status == -1)
        m->job_status = JOB_UNREAD;
}

/*
 * A step that failed for a reason that passes (no descriptor, no memory,
 * an I/O error, a lock held elsewhere) is tried again, later each time;
 * only a file that is gone (ENOENT) or not complete (EAGAIN) is let go.
 */
static void retry_later(struct relay *r, struct relay_msg *m, const char *what)
{
    uint64_t delay = backoff_ns(r, ++m->io_failures);

    msg_warn("%s: cannot %s: %s; trying again in %.1f s", m->id, what, strerror(m->job_errno),
             (double)delay / 1e9);
    schedule_retry(m, delay);
}

static void activate_done(struct io_job *job)
{
    struct relay_msg *m = MSG_OF(job);
    struct relay *r = m->relay;
    int from_deferred = m->queue == RELAY_Q_DEFERRED;

    take_stats(r, m);
    r->n_moving--;
    if (from_deferred)
        r->n_deferred--;
    else
        flow_put(r, 1); /* one fed from incoming/: one token */
    if (m->job_status == JOB_UNREAD) {
        /* in active/ now: the retry reads it there, as after a failed move to deferred/ */
        m->queue = RELAY_Q_ACTIVE;
        r->n_active++;
        retry_later(r, m, "read");
        relay_qmgr_kick(r);
        return;
    }
    if (m->job_status == -1 && m->job_errno != ENOENT && m->job_errno != EAGAIN &&
        m->job_errno != EINVAL) {
        /* still where it was: the retry activates it again */
        if (from_deferred)
            r->n_deferred++;
        else
            r->n_incoming++;
        retry_later(r, m, "activate");
        relay_qmgr_kick(r);
        return;
    }
    if (m->job_status != 0) {
        warn_unreadable(r, m, "cannot activate");
        relay_msg_free(m);
        relay_qmgr_kick(r);
        return;
    }
    m->io_failures = 0;
    m->queue = RELAY_Q_ACTIVE;
    m->t_active = clock_now_ns();
    r->n_active++;
    make_ready(r, m);
}

/* ------------------------------------------------ after the next hop spoke */

static int any_result(const struct relay_msg *m, enum relay_rcpt_result which)
{
    for (unsigned i = 0; i < m->view.rcpt_count; i++)
        if (m->results[i] == which)
            return 1;
    return 0;
}

/* The next hop's host, for Remote-MTA: "dns; HOST" has no port or brackets. */
static void hop_host(const struct relay *r, char *out, size_t len)
{
    const char *d = r->hop_desc, *colon = strrchr(d, ':');
    size_t n = colon ? (size_t)(colon - d) : strlen(d);

    if (n >= 2 && d[0] == '[' && d[n - 1] == ']') {
        d++;
        n -= 2;
    }
    snprintf(out, len, "%.*s", (int)n, d);
}

/*
 * Postfix's defer and bounce logs: one attribute block per recipient
 * (dsn.h), with the status the hop's reply gives, in a malloc'd string.
 */
static char *log_text(const struct relay_msg *m, enum relay_rcpt_result which, const char *action)
{
    size_t used = 0;
    char *out = xstrdup(""), host[sizeof(m->relay->hop_desc)];

    hop_host(m->relay, host, sizeof(host));
    for (unsigned i = 0; i < m->view.rcpt_count; i++) {
        const struct pf_qfile_rcpt *rc = &m->view.rcpts[i];
        const char *reason = m->reason, *reply = m->hop_reply;
        char *addr, *block, status[DSN_STATUS_MAX];
        struct dsn_entry e = {0};
        size_t n;

        if (m->results[i] != which)
            continue;
        if (m->rcpt_reason && m->rcpt_reason[i]) {
            reason = m->rcpt_reason[i];
            reply = m->rcpt_reply[i];
        }
        if (reply && !*reply)
            reply = NULL;
        dsn_status_of_reply(reply, which == RCPT_BOUNCED, status);
        addr = xstrndup(rc->addr, rc->addr_len);
        e.recipient = addr;
        e.offset = (long)rc->offset;
        e.status = status;
        e.action = (char *)action;
        if (reply) {
            e.diag_type = "smtp";
            e.diag_text = (char *)reply;
            e.mta_type = "dns";
            e.mta_name = host;
        }
        e.reason = (char *)reason;
        block = dsn_log_format(&e);
        n = strlen(block);
        out = xrealloc(out, used + n + 1);
        memcpy(out + used, block, n + 1);
        used += n;
        free(block);
        free(addr);
    }
    return out;
}

/*
 * The delivery agent's part: the defer and bounce logs (fsync'ed), then a
 * D over each recipient that is finished, delivered or bounced, so that a
 * retry does not try it again (no fsync: a lost D means a duplicate).
 */
static void agent_work(struct io_job *job)
{
    struct relay_msg *m = MSG_OF(job);
    const struct pf_spool *sp = &m->relay->spool;
    int bounce_logged = 0;
    char *text;

    if (!m->relay->profile->builtin_postfix)
        return; /* the profile's deliver phase has its own per-recipient work */
    relay_model_spend(m->relay->model, COST_DELIVER, m->view.content_bytes, m->view.rcpt_count);
    if (any_result(m, RCPT_BOUNCED)) {
        text = log_text(m, RCPT_BOUNCED, "failed");
        if (pf_spool_log_append(sp, "bounce", m->id, text, &m->st) == 0) {
            bounce_logged = 1;
        } else {
            /* As Postfix's agents do: a bounce that cannot be logged is deferred instead. */
            m->job_status = -1;
            m->job_errno = errno;
            for (unsigned i = 0; i < m->view.rcpt_count; i++)
                if (m->results[i] == RCPT_BOUNCED)
                    m->results[i] = RCPT_DEFERRED;
        }
        free(text);
    }
    if (any_result(m, RCPT_DEFERRED)) {
        text = log_text(m, RCPT_DEFERRED, "delayed");
        if (pf_spool_log_append(sp, "defer", m->id, text, &m->st) != 0) {
            m->job_status = -1;
            m->job_errno = errno;
        }
        free(text);
    }
    for (unsigned i = 0; i < m->view.rcpt_count; i++) {
        int finished =
            m->results[i] == RCPT_SENT || (m->results[i] == RCPT_BOUNCED && bounce_logged);

        if (finished && pf_spool_mark_done(sp, m->id, m->view.rcpts[i].offset, &m->st) != 0) {
            m->job_status = -1;
            m->job_errno = errno;
        }
    }
}

static uint64_t backoff_ns(const struct relay *r, unsigned attempts)
{
    uint64_t backoff = r->opts->min_backoff_ns;

    for (unsigned i = 1; i < attempts && backoff < r->opts->max_backoff_ns; i++)
        backoff *= 2;
    return backoff < r->opts->max_backoff_ns ? backoff : r->opts->max_backoff_ns;
}

/* Some recipients wait for a retry: deferred, or bounced with no notification posted yet. */
static int must_wait(const struct relay_msg *m)
{
    if (m->flushed & RELAY_FLUSH_DEFER)
        return m->flush_failed; /* the expired recipients were returned */
    return any_result(m, RCPT_DEFERRED) || m->flush_failed;
}

/*
 * Postfix's qmgr_active_done(): a bounce log that is there (and not empty)
 * goes to the bounce service first; then, if the message is past its
 * lifetime, its defer log; the message is deferred or removed only once
 * the service has answered (m->flush names the log it is to send).
 */
static void retire_work(struct io_job *job)
{
    struct relay_msg *m = MSG_OF(job);
    const struct pf_spool *sp = &m->relay->spool;

    if (!m->relay->profile->builtin_postfix) {
        m->job_status = relay_profile_retire(m, any_result(m, RCPT_DEFERRED), job->thread,
                                             m->relay->qmgr == m->relay->cleanup);
        return;
    }
    m->flush = 0;
    if (relay_bounces(m->relay)) {
        off_t size;

        if (!(m->flushed & RELAY_FLUSH_BOUNCE) &&
            pf_spool_log_stat(sp, "bounce", m->id, &size, &m->st)) {
            if (size > 0) {
                m->flush = RELAY_FLUSH_BOUNCE;
                return;
            }
            pf_spool_log_remove(sp, "bounce", m->id, &m->st); /* an append that failed */
        }
        m->flushed |= RELAY_FLUSH_BOUNCE;
        if (m->expired && !m->flush_failed && !(m->flushed & RELAY_FLUSH_DEFER)) {
            m->flush = RELAY_FLUSH_DEFER;
            return;
        }
    }
    if (must_wait(m)) {
        uint64_t backoff = backoff_ns(m->relay, m->attempts);

        m->job_status =
            pf_spool_defer(sp, m->id, wall_now() + (long)(backoff / CLOCK_NS_PER_SEC), &m->st);
        m->job_errno = errno;
        return;
    }
    /* --no-bounces: the file and its bounce log go, and no notification is made */
    if (!relay_bounces(m->relay) && pf_spool_log_exists(sp, "bounce", m->id, &m->st))
        pf_spool_log_remove(sp, "bounce", m->id, &m->st);
    m->job_status = pf_spool_remove(sp, m->id, &m->st);
    m->job_errno = errno;
}

static void on_retry(evutil_socket_t fd, short what, void *arg);

static void schedule_retry(struct relay_msg *m, uint64_t delay_ns)
{
    struct timeval tv = {(time_t)(delay_ns / CLOCK_NS_PER_SEC),
                         (suseconds_t)(delay_ns % CLOCK_NS_PER_SEC / 1000)};

    if (m->retry_timer == NULL)
        m->retry_timer = evtimer_new(m->relay->base, on_retry, m);
    evtimer_add(m->retry_timer, &tv);
}

static void retire_done(struct io_job *job);

static void flush_work(struct io_job *job)
{
    relay_bounce_flush_work(MSG_OF(job));
}

/* The notification is in incoming/ (or discarded): a message like any other from here on. */
static void flush_done(struct io_job *job)
{
    struct relay_msg *m = MSG_OF(job);
    struct relay *r = m->relay;
    const char *log = m->flush == RELAY_FLUSH_BOUNCE ? "bounce" : "defer";

    take_stats(r, m);
    m->flushed |= m->flush;
    m->flush = 0;
    if (m->dsn_id[0]) {
        struct relay_msg *dsn = relay_msg_new(r);

        snprintf(dsn->id, sizeof(dsn->id), "%s", m->dsn_id);
        dsn->is_dsn = 1;
        dsn->queue = RELAY_Q_INCOMING;
        r->n_incoming++;
        push(&r->incoming_head, &r->incoming_tail, dsn);
        r->stats.bounces_sent++;
        if (r->opts->verbose)
            msg_info("%s: %s non-delivery notification: %s", m->id,
                     m->job_status == RELAY_BOUNCE_POSTMASTER ? "postmaster" : "sender", dsn->id);
    }
    if (m->job_status < 0) {
        /* as Postfix's qmgr: the message waits, its log kept, and the notice is tried again */
        m->flush_failed = 1;
        msg_warn("%s: cannot send the notification of its %s log: %s: %s; the message is deferred",
                 m->id, log, m->job_err, strerror(m->job_errno));
    } else if (m->job_status == RELAY_BOUNCE_DISCARDED) {
        r->stats.bounces_discarded++;
        msg_info("%s: %s", m->id, m->job_err);
    }
    submit(r->qmgr, m, retire_work, retire_done);
}

static void retire_done(struct io_job *job)
{
    struct relay_msg *m = MSG_OF(job);
    struct relay *r = m->relay;
    int deferred = r->profile->builtin_postfix ? must_wait(m) : any_result(m, RCPT_DEFERRED);

    take_stats(r, m);
    if (m->flush) {
        submit(r->cleanup, m, flush_work, flush_done); /* the bounce service, then back here */
        return;
    }
    r->n_active--;
    if (m->job_status != 0) {
        /* The file stays in active/ (a full disk, say): try the move again later. */
        msg_warn("%s: cannot %s: %s", m->id, deferred ? "defer" : "remove", strerror(m->job_errno));
        r->n_active++;
        schedule_retry(m, backoff_ns(r, m->attempts));
        return;
    }
    if ((any_result(m, RCPT_BOUNCED) || (m->flushed & RELAY_FLUSH_DEFER && !m->flush_failed)) &&
        !m->ever_bounced) {
        m->ever_bounced = 1;
        /* a notification that fails is counted as discarded (or re-sent), not as bounced mail */
        if (!m->is_dsn)
            r->stats.bounced++;
        if (!relay_bounces(r))
            r->stats.bounces_dropped++;
    }
    if (deferred) {
        r->stats.deferrals++;
        m->queue = RELAY_Q_DEFERRED;
        r->n_deferred++;
        if (r->opts->verbose)
            msg_info("%s: deferred (%s), attempt %u", m->id, m->reason, m->attempts);
        if (r->profile->builtin_postfix)
            release_file(m); /* read again from deferred/ at the retry */
        schedule_retry(m, backoff_ns(r, m->attempts));
    } else {
        uint64_t now = clock_now_ns();

        r->stats.last_out_ns = now;
        if (m->is_dsn)
            r->stats.bounces_delivered += any_result(m, RCPT_SENT);
        else if (any_result(m, RCPT_SENT) || (m->view.rcpt_pending == 0 && !m->ever_bounced))
            r->stats.delivered++;
        if (m->t_mail)
            histogram_record(&r->stats.end_to_end, now - m->t_mail);
        if (r->opts->verbose)
            msg_info("%s: removed", m->id);
        relay_msg_free(m);
        if (r->n_incoming + r->n_active + r->n_deferred == 0)
            relay_usage_mark(r); /* the busy window may end here */
    }
    relay_qmgr_kick(r);
}

static void agent_done(struct io_job *job)
{
    struct relay_msg *m = MSG_OF(job);
    struct relay *r = m->relay;

    take_stats(r, m);
    /*
     * A lost D mark costs a duplicate, a lost log line a reason: neither
     * may hold the message up. The queue manager's move decides its fate.
     */
    if (m->job_status != 0)
        msg_warn("%s: cannot record the delivery: %s", m->id, strerror(m->job_errno));
    submit(r->qmgr, m, retire_work, retire_done);
}

void relay_qmgr_delivered(struct relay_msg *m)
{
    struct relay *r = m->relay;
    long age = wall_now() - m->view.arrival_sec;

    m->t_delivered = clock_now_ns();
    r->n_delivering--;
    m->attempts++;
    histogram_record(&r->stats.delivery, m->t_delivered - m->t_deliver);
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
        if (m->results[i] == RCPT_DEFERRED &&
            (uint64_t)(age > 0 ? age : 0) * CLOCK_NS_PER_SEC >= r->opts->max_lifetime_ns) {
            if (relay_bounces(r))
                m->expired = 1;
            else
                m->results[i] = RCPT_BOUNCED;
            r->stats.expired++;
        }
    }
    submit(r->cleanup, m, agent_work, agent_done);
}

/* ---------------------------------------------------------------- retries */

/*
 * A deferral whose move to deferred/ failed leaves the file in active/:
 * on a spool out of inodes the hash directory cannot be made, and only a
 * delivery, whose unlink frees space, can end that. So the retry is a new
 * attempt, as after a restart that puts active/ back: the file is read
 * again (with the D marks of recipients already delivered) and goes to
 * the next hop; the move is tried again only if that attempt defers too.
 * Until the new reading succeeds the message keeps the old one, so that a
 * failed reading leaves it a deferral in active/ as before.
 */
static void reread_work(struct io_job *job)
{
    struct relay_msg *m = MSG_OF(job);
    struct pf_qfile_view view;
    char *file;
    size_t len;

    if ((m->job_status = read_active(m, &file, &len, &view)) != 0)
        return;
    release_file(m);
    m->file = file;
    m->file_len = len;
    m->view = view;
}

static void reread_done(struct io_job *job)
{
    struct relay_msg *m = MSG_OF(job);
    struct relay *r = m->relay;

    take_stats(r, m);
    if (m->job_status == -1 && m->job_errno != ENOENT) {
        retry_later(r, m, "read"); /* still in active/, unreadable for now */
        return;
    }
    if (m->job_status != 0) {
        warn_unreadable(r, m, "gone from active/");
        r->n_active--;
        relay_msg_free(m);
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

    (void)fd;
    (void)what;
    if (r->stopping)
        return;
    if (m->queue == RELAY_Q_ACTIVE) {
        /* never read (its reading failed), or its move to deferred/ failed: read it again */
        if (r->profile->builtin_postfix && (m->file == NULL || any_result(m, RCPT_DEFERRED))) {
            submit(r->qmgr, m, reread_work, reread_done);
            return;
        }
        submit(r->qmgr, m, retire_work, retire_done); /* a removal that failed before */
        return;
    }
    if (!r->profile->builtin_postfix) {
        relay_profile_retry(m); /* the message never left memory */
        push(&r->ready_head, &r->ready_tail, m);
        r->n_ready++;
        relay_qmgr_kick(r);
        return;
    }
    push(&r->incoming_head, &r->incoming_tail, m);
    relay_qmgr_kick(r);
}

void relay_qmgr_found(void *ctx, const char *queue, const char *id, long mtime)
{
    struct relay *r = ctx;
    struct relay_msg *m = relay_msg_new(r);

    snprintf(m->id, sizeof(m->id), "%s", id);
    r->stats.recovered++;
    if (r->stats.first_in_ns == 0)
        r->stats.first_in_ns = clock_now_ns();
    if (strcmp(queue, "deferred") == 0) {
        long wait = mtime - wall_now();
        uint64_t delay = wait > 0 ? (uint64_t)wait * CLOCK_NS_PER_SEC : 0;

        m->queue = RELAY_Q_DEFERRED;
        m->attempts = 1;
        r->n_deferred++;
        schedule_retry(m, delay < r->opts->max_backoff_ns ? delay : r->opts->max_backoff_ns);
    } else {
        m->queue = RELAY_Q_INCOMING;
        r->n_incoming++;
        push(&r->incoming_head, &r->incoming_tail, m);
    }
}

/* -------------------------------------------------------------- scheduling */

/*
 * Postfix's qmgr feeds one message at a time from incoming/ into active/,
 * between its other work, so the queue manager's own speed sets how fast
 * mail moves on; a pool shape feeds as many at once as it has threads.
 */
static unsigned feed_limit(const struct relay *r)
{
    return r->opts->qmgr == RELAY_QMGR_SINGLE ? 1 : r->opts->cleanup_threads;
}

void relay_qmgr_kick(struct relay *r)
{
    if (r->stopping)
        return;
    while (r->incoming_head && r->n_moving < feed_limit(r) &&
           r->n_active + r->n_moving < r->opts->active_limit) {
        struct relay_msg *m = pop(&r->incoming_head, &r->incoming_tail);

        if (m->queue == RELAY_Q_INCOMING)
            r->n_incoming--;
        r->n_moving++;
        submit(r->qmgr, m, activate_work, activate_done);
    }
    /* All tokens back when nothing waits in incoming/, as Postfix's qmgr gives them. */
    if (r->incoming_head == NULL)
        flow_put(r, r->opts->in_flow_limit);
    if (r->opts->hop_kind == RELAY_HOP_SMTP) {
        relay_smtp_deliver(r);
        return;
    }
    while (r->ready_head) {
        struct relay_msg *m = pop(&r->ready_head, &r->ready_tail);

        r->n_ready--;
        r->n_delivering++;
        m->t_deliver = clock_now_ns();
        relay_local_deliver(r, m);
    }
}

struct relay_msg *relay_qmgr_next_ready(struct relay *r)
{
    struct relay_msg *m = r->stopping ? NULL : pop(&r->ready_head, &r->ready_tail);

    if (m) {
        r->n_ready--;
        r->n_delivering++;
        m->t_deliver = clock_now_ns();
    }
    return m;
}

unsigned relay_qmgr_ready_count(const struct relay *r)
{
    return r->n_ready;
}

int relay_qmgr_idle(const struct relay *r)
{
    return io_pool_pending(r->cleanup) == 0 && io_pool_pending(r->qmgr) == 0 &&
           r->n_delivering == 0;
}
