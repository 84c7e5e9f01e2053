/*
 * relay_spool_runner - the relay's spool for every profile but postfix:
 * the message in memory, its file work common/spool's, through a runner
 * (spool_runner.h) per pool thread (relay_spool.h has the table).
 *
 * With any --profile but postfix (profile.h's table),
 * each message costs the file system what that MTA's spool costs it
 * (profile.h, through the profile's backend, spool_backend.h): the accept
 * phase on a cleanup thread before the 250, with the message's own bytes
 * as the data file; the deliver or defer phase on the queue manager's
 * thread once the next hop has answered. The message itself is delivered
 * from memory, so these profiles measure the spool's cost, not a queue
 * that survives a crash: after a restart nothing is recovered from such a
 * spool, and there are no bounce notices. With a model of the MTA
 * (--model exim), its receiving side's CPU goes with the accept phase, its
 * delivery's with the delivery agent's record step.
 */
#include "config.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "spool_runner.h"
#include "relay_private.h"
#include "relay_qmgr.h"
#include "relay_spool.h"
#include "xalloc.h"

struct relay_spool_state {
    struct spool_runner *runners; /* one per pool thread: cleanup's, then qmgr's */
    unsigned runner_count;
    _Atomic uint64_t next_msg_number; /* assign_id() runs on any event loop */
};

static enum profile_sync sync_of(const struct relay_options *opts)
{
    if (!opts->sync_given)
        return PROFILE_SYNC_AS_PROFILE;
    return opts->sync == PF_SYNC_NONE        ? PROFILE_SYNC_NONE
           : opts->sync == PF_SYNC_FDATASYNC ? PROFILE_SYNC_FDATASYNC
                                             : PROFILE_SYNC_FSYNC;
}

static int runner_open(struct relay *r, char *err, size_t errlen)
{
    const struct relay_options *opts = r->opts;
    struct relay_spool_state *st;

    r->spool.dir = xstrdup(opts->spool);
    if (spool_runner_setup(r->profile, opts->spool, err, errlen) != 0)
        return -1;
    st = r->spool_state = xcalloc(1, sizeof(*st));
    /* one runner per cleanup thread, and one for a queue manager of its own */
    st->runner_count = opts->cleanup_threads + 1;
    st->runners = xcalloc(st->runner_count, sizeof(*st->runners));
    for (unsigned i = 0; i < st->runner_count; i++)
        spool_runner_init(&st->runners[i], r->profile, opts->spool, sync_of(opts), i);
    st->next_msg_number = (uint64_t)time(NULL) * 1000000;
    return 0;
}

static void runner_recover(struct relay *r)
{
    (void)r; /* the messages were in memory: nothing on disk is a message to deliver */
}

static void runner_close(struct relay *r)
{
    struct relay_spool_state *st = r->spool_state;

    if (st == NULL)
        return;
    for (unsigned i = 0; i < st->runner_count; i++)
        spool_runner_free(&st->runners[i]);
    free(st->runners);
    free(st);
    r->spool_state = NULL;
}

/* Another MTA's profile syncs as that MTA unless told. */
static const char *runner_sync_name(const struct relay_options *opts)
{
    return opts->sync_given ? pf_spool_sync_name(opts->sync) : "profile";
}

static int runner_profile_ops(const struct relay *r, uint64_t ops[OP_KIND_COUNT])
{
    const struct relay_spool_state *st = r->spool_state;

    /* On loop 0 (a report, SIGUSR1 too) while the runners' threads count. */
    memset(ops, 0, sizeof(uint64_t) * OP_KIND_COUNT);
    for (unsigned i = 0; i < st->runner_count; i++)
        spool_runner_ops(&st->runners[i], ops);
    return 1;
}

/* Numbers that do not repeat across restarts: files are made with O_EXCL. */
static void runner_assign_id(struct relay *r, struct relay_msg *m)
{
    m->pmsg.id = atomic_fetch_add(&r->spool_state->next_msg_number, 1) + 1;
    snprintf(m->id, sizeof(m->id), "%llu", (unsigned long long)m->pmsg.id);
}

static void run_phase(struct relay_msg *m, struct spool_runner *pr, enum profile_phase phase)
{
    errno = 0;
    m->job_status = spool_runner_run(pr, phase, &m->pmsg);
    m->job_errno = errno;
    if (m->job_status != 0)
        snprintf(m->job_err, sizeof(m->job_err), "%.190s", pr->err);
}

static void runner_commit(struct relay_msg *m, unsigned thread)
{
    struct spool_runner *pr = &m->relay->spool_state->runners[thread];

    m->pmsg.rcpts = m->qf.rcpt_count;
    m->pmsg.size = m->qf.len;
    m->pmsg.content = m->qf.buf; /* the data file holds the message's own bytes */
    run_phase(m, pr, PHASE_ACCEPT);
    m->pmsg.content = NULL;
    /* Refused (452 on a full disk): none of its files may stay. */
    if (m->job_status != 0)
        spool_runner_undo(pr, &m->pmsg);
    else /* the receiving side's CPU (Exim's receive), before the 250 */
        relay_model_spend(m->relay->model, COST_RECEIVE, m->qf.content_bytes, m->qf.rcpt_count);
}

static enum relay_spool_next runner_committed(struct relay_msg *m)
{
    /* The queue file image stays in memory: it is what gets delivered. */
    m->file = m->qf.buf;
    m->file_len = m->qf.len;
    m->qf.buf = NULL;
    pf_qfile_free(&m->qf);
    if (pf_qfile_read(m->file, m->file_len, &m->view, m->job_err, sizeof(m->job_err)) != 0)
        return RELAY_NEXT_FAILED;
    m->results = xcalloc(m->view.rcpt_count ? m->view.rcpt_count : 1, sizeof(*m->results));
    return RELAY_NEXT_READY;
}

static void runner_record(struct relay_msg *m, unsigned thread)
{
    (void)thread;
    /* The profile's deliver phase has its own per-recipient work; the delivery's CPU goes here. */
    relay_model_spend(m->relay->model, COST_DELIVER, m->view.content_bytes, m->view.rcpt_count);
}

static void runner_retire(struct relay_msg *m, unsigned thread)
{
    struct relay *r = m->relay;
    struct relay_spool_state *st = r->spool_state;
    /* The queue manager's own thread has the last runner; in the pool shape, the thread's. */
    struct spool_runner *pr = &st->runners[r->qmgr == r->cleanup ? thread : st->runner_count - 1];
    enum profile_phase phase = relay_msg_any(m, RCPT_DEFERRED) ? PHASE_DEFER : PHASE_DELIVER;

    if (m->pmsg.discarded) {
        m->job_status = 0; /* the retry of a deliver phase that failed: its files are gone */
        return;
    }
    run_phase(m, pr, phase);
    if (m->job_status == 0)
        return;
    /*
     * The message is in memory, and must not wait on its files: a full
     * disk that stops its deliver or defer phase would stop every message
     * so (the phase tried again and again, which frees nothing), and what
     * the phase left (a tf file, a -J journal) would fail its next run.
     * Delivered: its files go now, and the retry the queue manager
     * schedules only ends it. Deferred: its files are as before the phase,
     * and the retry is a new delivery attempt (runner_reread), as for a
     * Postfix queue file that could not be moved to deferred/.
     */
    spool_runner_undo(pr, &m->pmsg);
    if (phase == PHASE_DELIVER)
        spool_runner_discard(pr, &m->pmsg);
    else
        m->pmsg.defer_failed = 1;
}

static void runner_park(struct relay_msg *m)
{
    (void)m; /* the message never leaves memory */
}

/* Recipients finished in an earlier attempt are not tried again. */
static void keep_finished(struct relay_msg *m)
{
    for (unsigned i = 0; i < m->view.rcpt_count; i++) {
        if (m->results[i] == RCPT_SENT || m->results[i] == RCPT_BOUNCED) {
            m->view.rcpts[i].done = 1;
            m->view.rcpt_pending--;
        }
        m->results[i] = RCPT_UNTRIED;
    }
    m->t_active = 0;
}

static enum relay_spool_next runner_retry(struct relay_msg *m)
{
    keep_finished(m);
    return RELAY_NEXT_READY;
}

/* Still active after a failed phase: a defer phase that failed makes the retry a new attempt. */
static int runner_must_reread(const struct relay_msg *m)
{
    return m->pmsg.defer_failed;
}

/* On a pool thread, before the new attempt: as runner_retry, with results made afresh. */
static void runner_reread(struct relay_msg *m, unsigned thread)
{
    (void)thread;
    m->pmsg.defer_failed = 0;
    keep_finished(m);
    free(m->results);
    m->results = NULL; /* make_ready allocates them */
    m->job_status = 0;
}

/* Nothing streams, nothing waits in incoming/: those stay NULL. */
const struct relay_spool relay_spool_runner = {
    .name = "runner",
    .open = runner_open,
    .recover = runner_recover,
    .close = runner_close,
    .sync_name = runner_sync_name,
    .profile_ops = runner_profile_ops,
    .assign_id = runner_assign_id,
    .commit = runner_commit,
    .committed = runner_committed,
    .record = runner_record,
    .retire = runner_retire,
    .park = runner_park,
    .retry = runner_retry,
    .must_reread = runner_must_reread,
    .reread = runner_reread,
};
