/*
 * relay_profile - the relay with another MTA's spool profile.
 *
 * With --profile sendmail, qmail, exim, opensmtpd or null, each message
 * costs the file system what that MTA's spool costs it (profile.h): the
 * accept phase on a cleanup thread before the 250, with the message's own
 * bytes as the data file; the deliver or defer phase on the queue
 * manager's thread once the next hop has answered. The message itself is
 * delivered from memory, so these profiles measure the spool's cost, not
 * a queue that survives a crash: after a restart nothing is recovered
 * from such a spool. The postfix profile does not come here; it is
 * pf_spool, with recovery.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "relay_private.h"
#include "xalloc.h"

static enum profile_sync sync_of(const struct relay_options *opts)
{
    if (!opts->sync_given)
        return PROFILE_SYNC_AS_PROFILE;
    return opts->sync == PF_SYNC_NONE        ? PROFILE_SYNC_NONE
           : opts->sync == PF_SYNC_FDATASYNC ? PROFILE_SYNC_FDATASYNC
                                             : PROFILE_SYNC_FSYNC;
}

int relay_profile_setup(struct relay *r, char *err, size_t errlen)
{
    const struct relay_options *opts = r->opts;

    if (profile_setup(r->profile, opts->spool, err, errlen) != 0)
        return -1;
    /* one runner per cleanup thread, and one for a queue manager of its own */
    r->runner_count = opts->cleanup_threads + 1;
    r->runners = xcalloc(r->runner_count, sizeof(*r->runners));
    for (unsigned i = 0; i < r->runner_count; i++)
        profile_runner_init(&r->runners[i], r->profile, opts->spool, sync_of(opts), i);
    return 0;
}

void relay_profile_free(struct relay *r)
{
    for (unsigned i = 0; i < r->runner_count; i++)
        profile_runner_free(&r->runners[i]);
    free(r->runners);
    r->runners = NULL;
    r->runner_count = 0;
}

int relay_profile_accept(struct relay_msg *m, unsigned thread)
{
    struct relay *r = m->relay;
    struct profile_runner *pr = &r->runners[thread];
    int status;

    m->pmsg.rcpts = m->qf.rcpt_count;
    m->pmsg.size = m->qf.len;
    m->pmsg.content = m->qf.buf; /* the data file holds the message's own bytes */
    errno = 0;
    status = profile_run(pr, PHASE_ACCEPT, &m->pmsg);
    m->job_errno = errno;
    if (status != 0)
        snprintf(m->job_err, sizeof(m->job_err), "%.190s", pr->err);
    m->pmsg.content = NULL;
    return status;
}

int relay_profile_accepted(struct relay_msg *m)
{
    struct relay *r = m->relay;

    /* The queue file image stays in memory: it is what gets delivered. */
    m->file = m->qf.buf;
    m->file_len = m->qf.len;
    m->qf.buf = NULL;
    pf_qfile_free(&m->qf);
    if (pf_qfile_read(m->file, m->file_len, &m->view, m->job_err, sizeof(m->job_err)) != 0)
        return -1;
    m->queue = RELAY_Q_ACTIVE;
    r->n_active++;
    m->results = xcalloc(m->view.rcpt_count ? m->view.rcpt_count : 1, sizeof(*m->results));
    return 0;
}

int relay_profile_retire(struct relay_msg *m, int defer, unsigned thread, int qmgr_pool)
{
    struct relay *r = m->relay;
    /* The queue manager's own thread has the last runner; in the pool shape, the thread's. */
    struct profile_runner *pr = &r->runners[qmgr_pool ? thread : r->runner_count - 1];
    int status;

    errno = 0;
    status = profile_run(pr, defer ? PHASE_DEFER : PHASE_DELIVER, &m->pmsg);
    m->job_errno = errno;
    if (status != 0)
        snprintf(m->job_err, sizeof(m->job_err), "%.190s", pr->err);
    return status;
}

void relay_profile_retry(struct relay_msg *m)
{
    struct relay *r = m->relay;

    /* Recipients finished in an earlier attempt are not tried again. */
    for (unsigned i = 0; i < m->view.rcpt_count; i++) {
        if (m->results[i] == RCPT_SENT || m->results[i] == RCPT_BOUNCED) {
            m->view.rcpts[i].done = 1;
            m->view.rcpt_pending--;
        }
        m->results[i] = RCPT_UNTRIED;
    }
    r->n_deferred--;
    m->queue = RELAY_Q_ACTIVE;
    r->n_active++;
    m->t_active = 0;
}

void relay_profile_totals(const struct relay *r, uint64_t ops[OP_KIND_COUNT])
{
    memset(ops, 0, sizeof(uint64_t) * OP_KIND_COUNT);
    for (unsigned i = 0; i < r->runner_count; i++)
        for (unsigned k = 0; k < OP_KIND_COUNT; k++)
            ops[k] += r->runners[i].ops[k];
}
