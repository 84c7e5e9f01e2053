/*
 * relay_cleanup - the receiving side of the queue manager: a message's
 * file from its creation to its commit.
 *
 * Each step is a job on the cleanup pool, whose work is the spool table's
 * (relay_spool.h) and whose done() comes back here on the loop thread:
 * with a streaming spool the file is made at the first RCPT and written as
 * the text arrives (its waiter's streamed() after each piece); at the end
 * of data, once it has a flow token (relay_qmgr.c), the message is
 * committed and its client answered (the waiter's committed(): the session
 * is relay_msg.h's struct relay_cleanup_waiter to this file). A committed message
 * goes to the incoming list or, kept in memory, straight to the ready list.
 *
 * The jobs run on the cleanup threads of the session's loop and come back
 * there; the lists are loop 0's, so a message of another loop is posted
 * to loop 0 once committed (relay_loop.h), and, when it must wait for a
 * flow token, to loop 0 for the wait and back for its commit.
 */
#include "config.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "clock.h"
#include "msg.h"
#include "relay_loop.h"
#include "relay_private.h"
#include "relay_qmgr_impl.h"
#include "relay_spool.h"
#include "relay_usage.h"
#include "xalloc.h"

int relay_cleanup_streams(const struct relay *r)
{
    return r->backend->streams;
}

static void stream_done(struct io_job *job)
{
    struct relay_msg *m = MSG_OF(job);

    relay_qmgr_take_stats(m->relay, m);
    if (m->job_status == 0)
        pf_qfile_drain(&m->qf);
    if (m->client == NULL) {
        relay_cleanup_abort(m); /* its client went while the job ran */
        return;
    }
    m->waiter->streamed(m->client, m);
}

void relay_cleanup_open(struct relay_msg *m)
{
    /* made here, not on the thread: the session tests m->out while the job runs */
    m->out = xmalloc(sizeof(*m->out));
    m->out->fd = -1;
    relay_qmgr_submit(m->loop->cleanup, m, m->relay->backend->stream_open, stream_done);
}

void relay_cleanup_write(struct relay_msg *m)
{
    relay_qmgr_submit(m->loop->cleanup, m, m->relay->backend->stream_write, stream_done);
}

static void abort_done(struct io_job *job)
{
    relay_qmgr_msg_free(MSG_OF(job));
}

void relay_cleanup_abort(struct relay_msg *m)
{
    m->client = NULL;
    if (m->out && m->out->fd >= 0)
        relay_qmgr_submit(m->loop->cleanup, m, m->relay->backend->stream_abort,
                          abort_done); /* an unlink: off the loop */
    else
        relay_qmgr_msg_free(m);
}

#define MSG_OF_POST(item) ((struct relay_msg *)((char *)(item)-offsetof(struct relay_msg, posted)))

/* On loop 0: what the commit means for the queue. */
static void committed(struct relay_msg *m)
{
    struct relay *r = m->relay;
    struct relay_qmgr *q = r->qm;

    m->loop = &r->loops[0];
    if (m->job_status != 0) {
        if (m->job_errno == ENOSPC || m->job_errno == EDQUOT)
            r->stats.rejected_storage++;
        else
            r->stats.rejected_other++;
        if (m->out && m->out->left) /* its ID: the one file a restart may deliver unasked */
            relay_loop_warn(m->loop, RELAY_WARN_LEFT, "cannot queue a message, nor withdraw it",
                            m->job_errno,
                            "%s: cannot queue a message in %s: %s; its file could not be "
                            "withdrawn either, and a restart may deliver it besides the copy its "
                            "client, told 4xx, sends again",
                            m->id, r->spool.dir, strerror(m->job_errno));
        else
            relay_loop_warn(m->loop, RELAY_WARN_QUEUE, "cannot queue a message", m->job_errno,
                            "cannot queue a message in %s: %s", r->spool.dir,
                            strerror(m->job_errno));
        relay_qmgr_msg_free(m);
        return;
    }
    r->stats.received++;
    if (m->t_data_end > r->stats.last_in_ns) /* the loops hand commits over out of order */
        r->stats.last_in_ns = m->t_data_end;
    if (r->stats.first_in_ns == 0) {
        r->stats.first_in_ns = m->t_data_end;
        relay_usage_mark(r); /* the busy window starts */
    }
    histogram_record(&r->stats.receive, m->t_data_end - m->t_mail);
    histogram_record(&r->stats.commit, m->t_committed - m->t_data_end);
    if (r->opts->verbose)
        msg_info("%s: queued", m->id);
    switch (r->backend->committed(m)) {
    case RELAY_NEXT_FAILED:
        msg_warn("%s: %s", m->id, m->job_err);
        relay_qmgr_msg_free(m);
        return;
    case RELAY_NEXT_READY:
        m->queue = RELAY_Q_ACTIVE;
        q->n_active++;
        relay_qmgr_ready(r, m);
        return;
    case RELAY_NEXT_ACTIVATE:
        m->queue = RELAY_Q_INCOMING;
        q->n_incoming++;
        relay_qmgr_push(&q->incoming_head, &q->incoming_tail, m);
        relay_qmgr_kick(r);
        return;
    }
}

static void on_committed_post(struct mailbox_item *item)
{
    committed(MSG_OF_POST(item));
}

/* On the session's loop: the client hears first, then the queue learns. */
static void commit_done(struct io_job *job)
{
    struct relay_msg *m = MSG_OF(job);

    m->t_committed = clock_now_ns();
    relay_qmgr_take_stats(m->relay, m);
    if (m->client)
        m->waiter->committed(m->client, m);
    if (m->loop->index == 0) {
        committed(m);
        return;
    }
    m->posted.run = on_committed_post;
    mailbox_post(m->relay->loops[0].inbox, &m->posted);
}

void relay_cleanup_commit_here(struct relay *r, struct relay_msg *m)
{
    relay_qmgr_submit(m->loop->cleanup, m, r->backend->commit, commit_done);
}

static void on_commit_post(struct mailbox_item *item)
{
    struct relay_msg *m = MSG_OF_POST(item);

    relay_cleanup_commit_here(m->relay, m);
}

void relay_cleanup_commit(struct relay *r, struct relay_msg *m)
{
    if (m->loop->index == 0) {
        relay_cleanup_commit_here(r, m);
        return;
    }
    m->posted.run = on_commit_post;
    mailbox_post(m->loop->inbox, &m->posted);
}
