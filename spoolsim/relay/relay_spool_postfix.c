/*
 * relay_spool_postfix - the relay's spool as Postfix keeps it: a queue
 * file per message through pf_spool (relay_spool.h has the table).
 *
 * A cleanup thread creates the file in incoming/ at the first RCPT,
 * writes it as the text comes and commits it (the C record, the mode,
 * the sync); the queue manager renames it to active/ and reads it; the
 * delivery agent appends defer and bounce logs (fsync'ed) and marks each
 * finished recipient D in place; at the end of the attempt the queue
 * manager sends a bounce log (or, past --max-lifetime, the defer log) to
 * the bounce service, then unlinks the file or stamps its retry time and
 * moves it to deferred/. At start pf_recover_spool() hands back what a
 * previous run left.
 */
#include "config.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "dsn.h"
#include "msg.h"
#include "relay_model.h"
#include "relay_private.h"
#include "relay_qmgr.h"
#include "relay_spool.h"
#include "xalloc.h"

static int pf_open(struct relay *r, char *err, size_t errlen)
{
    r->spool.scan_incoming = r->opts->incoming_scan;
    return pf_spool_open(&r->spool, r->opts->spool, err, errlen);
}

static void pf_recover(struct relay *r)
{
    struct pf_recovery rec;
    char err[512];

    if (pf_recover_spool(&r->spool, relay_qmgr_found, r, &rec, err, sizeof(err)) != 0)
        msg_fatal("recovery of %s: %s", r->spool.dir, err);
    if (r->opts->quiet)
        return;
    if (rec.requeued || rec.incomplete || rec.marked || rec.skipped || rec.removed_logs ||
        rec.found_incoming || rec.found_deferred)
        msg_info("recovered %s: %u back from active/, %u incomplete removed, %u marked complete "
                 "again, %u left alone, %u stale logs removed; %u to deliver, %u deferred",
                 r->spool.dir, rec.requeued, rec.incomplete, rec.marked, rec.skipped,
                 rec.removed_logs, rec.found_incoming, rec.found_deferred);
}

static void pf_close(struct relay *r)
{
    (void)r; /* pf_spool_close() is the relay's: the lock and the directory are every spool's */
}

static const char *pf_sync_name_of(const struct relay_options *opts)
{
    return pf_spool_sync_name(opts->sync);
}

static int pf_profile_ops(const struct relay *r, uint64_t ops[OP_KIND_COUNT])
{
    (void)r;
    memset(ops, 0, sizeof(uint64_t) * OP_KIND_COUNT);
    return 0; /* pf_spool counts its own calls, in the relay's statistics */
}

/* -------------------------------------------------------------- cleanup */

static void pf_stream_open(struct relay_msg *m, unsigned thread)
{
    (void)thread;
    /* The envelope's first records wait in the 4 KiB buffer, as in cleanup's VSTREAM. */
    m->job_status = pf_spool_file_create(&m->relay->spool, m->out, m->id, sizeof(m->id), &m->st);
    if (m->job_status == 0)
        m->job_status = pf_spool_file_append(m->out, m->qf.buf, m->qf.len, &m->st);
    m->job_errno = errno;
}

static void pf_stream_write(struct relay_msg *m, unsigned thread)
{
    (void)thread;
    m->job_status = pf_spool_file_append(m->out, m->qf.buf, m->qf.len, &m->st);
    m->job_errno = errno;
}

static void pf_stream_abort(struct relay_msg *m, unsigned thread)
{
    (void)thread;
    pf_spool_file_abort(m->out);
}

static void pf_assign_id(struct relay *r, struct relay_msg *m)
{
    (void)r;
    (void)m; /* pf_spool_file_create() named it after its inode at the first RCPT */
}

static void pf_commit(struct relay_msg *m, unsigned thread)
{
    (void)thread;
    relay_model_spend(m->relay->model, COST_RECEIVE, m->qf.content_bytes, m->qf.rcpt_count);
    /* The rest of the text and the end records, then the C record, the mark, the sync. */
    m->job_status = pf_spool_file_commit_qfile(&m->relay->spool, m->out, &m->qf, &m->st);
    m->job_errno = errno;
    if (m->job_status == 0) /* cleanup's trigger to qmgr: something to scan for */
        atomic_fetch_add(&m->relay->incoming_marked, 1);
}

static enum relay_spool_next pf_committed(struct relay_msg *m)
{
    pf_qfile_free(&m->qf); /* from here on the file on disk is the message */
    free(m->out);
    m->out = NULL;
    return RELAY_NEXT_ACTIVATE;
}

/* ------------------------------------------------------------- activate */

/*
 * Read m's queue file in active/ for a delivery attempt: 0, or -1 with
 * m->job_errno when it cannot be read, or -2 when it is damaged (moved to
 * corrupt/, with the reason in m->job_err).
 */
static int read_active(struct relay_msg *m, char **file, size_t *len, struct pf_qfile_view *view)
{
    const struct pf_spool *sp = &m->relay->spool;
    int status;

    /* A large file's content stays on disk: its delivery reads it a window at a time. */
    status = pf_spool_file_load(sp, m->id, RELAY_TEXT_WINDOW, file, len, view, m->job_err,
                                sizeof(m->job_err), &m->st);
    if (status == -1) {
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
        pf_spool_file_corrupt(sp, PF_QUEUE_ACTIVE, m->id);
        return -2;
    }
    if (status != 0) {
        /* qmgr keeps what it cannot read in corrupt/, for a human to look at */
        pf_spool_file_corrupt(sp, PF_QUEUE_ACTIVE, m->id);
        return -2;
    }
    /* A new attempt: the old defer log goes (for a new message, an ENOENT), as in qmgr. */
    pf_spool_file_log_remove(sp, PF_QUEUE_DEFER, m->id, &m->st);
    return 0;
}

static void pf_activate(struct relay_msg *m, unsigned thread)
{
    struct relay *r = m->relay;
    unsigned ahead = atomic_load(&r->scanned_ahead);
    unsigned room = m->scan_room > ahead ? m->scan_room - ahead : 0;
    int status;

    (void)thread;
    /*
     * Postfix's qmgr takes what its scan finds, not only the message that
     * woke it, and scans again only when cleanup has triggered it since:
     * with no commit since the last scan began, that scan saw this file
     * marked and took it, and the activation finds it in active/. A scan
     * stopped by the room leaves the rest to their own activations.
     * What the scans move ahead is counted until each file's activation
     * comes (a message whose commit failed after a scan took it is never
     * activated: it stays counted, and the room only gets smaller).
     */
    if (m->queue != RELAY_Q_DEFERRED && r->spool.scan_incoming && room > 0 &&
        atomic_exchange(&r->incoming_marked, 0) > 0) {
        int moved = pf_spool_scan_incoming(&r->spool, room, &m->st);

        if (moved > 0)
            atomic_fetch_add(&r->scanned_ahead, (unsigned)moved);
    }
    status = pf_spool_file_activate(&r->spool, m->id, m->queue == RELAY_Q_DEFERRED, &m->st);
    if (status < 0) {
        m->job_status = -1;
        m->job_errno = errno;
        return;
    }
    if (status == 1) /* a scan took it: counted until now */
        atomic_fetch_sub(&r->scanned_ahead, 1);
    m->job_status = read_active(m, &m->file, &m->file_len, &m->view);
    if (m->job_status == 0) /* qmgr's work: the envelope read, recipients resolved */
        relay_model_spend(m->relay->model, COST_QMGR, m->view.content_bytes, m->view.rcpt_count);
    if (m->job_status == -1)
        m->job_status = RELAY_JOB_UNREAD;
}

/* Its content turned out damaged while it was delivered: kept for a human, as at activation. */
static void pf_quarantine(struct relay_msg *m, unsigned thread)
{
    (void)thread;
    m->job_status = pf_spool_file_corrupt(&m->relay->spool, PF_QUEUE_ACTIVE, m->id);
    m->job_errno = errno;
}

/* ------------------------------------------------ after the next hop spoke */

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
        const char *reason = m->reason, *reply = m->hop_reply, *own = m->own_status;
        char *addr, *block, status[DSN_STATUS_MAX];
        struct dsn_entry e = {0};
        size_t n;

        if (m->results[i] != which)
            continue;
        if (m->rcpt_reason && m->rcpt_reason[i]) {
            reason = m->rcpt_reason[i];
            reply = m->rcpt_reply[i];
            own = m->rcpt_status[i];
        }
        if (reply && !*reply)
            reply = NULL;
        if (own)
            snprintf(status, sizeof(status), "%s", own);
        else
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
static void pf_record(struct relay_msg *m, unsigned thread)
{
    (void)thread;
    const struct pf_spool *sp = &m->relay->spool;
    int bounce_logged = 0;
    char *text;

    relay_model_spend(m->relay->model, COST_DELIVER, m->view.content_bytes, m->view.rcpt_count);
    if (relay_msg_any(m, RCPT_BOUNCED)) {
        text = log_text(m, RCPT_BOUNCED, "failed");
        if (pf_spool_file_log_append(sp, PF_QUEUE_BOUNCE, m->id, text, &m->st) == 0) {
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
    if (relay_msg_any(m, RCPT_DEFERRED)) {
        text = log_text(m, RCPT_DEFERRED, "delayed");
        if (pf_spool_file_log_append(sp, PF_QUEUE_DEFER, m->id, text, &m->st) != 0) {
            m->job_status = -1;
            m->job_errno = errno;
        }
        free(text);
    }
    for (unsigned i = 0; i < m->view.rcpt_count; i++) {
        int finished =
            m->results[i] == RCPT_SENT || (m->results[i] == RCPT_BOUNCED && bounce_logged);

        if (finished && pf_spool_file_mark_done(sp, m->id, m->view.rcpts[i].offset, &m->st) != 0) {
            m->job_status = -1;
            m->job_errno = errno;
        }
    }
}

/*
 * Postfix's qmgr_active_done(): a bounce log that is there (and not empty)
 * goes to the bounce service first; then, if the message is past its
 * lifetime, its defer log; the message is deferred or removed only once
 * the service has answered (m->flush names the log it is to send).
 */
static void pf_retire(struct relay_msg *m, unsigned thread)
{
    const struct pf_spool *sp = &m->relay->spool;

    (void)thread;
    m->flush = 0;
    if (relay_spool_bounces(m->relay->backend, m->relay->opts)) {
        off_t size;

        if (!(m->flushed & RELAY_FLUSH_BOUNCE) &&
            pf_spool_file_log_stat(sp, PF_QUEUE_BOUNCE, m->id, &size, &m->st)) {
            if (size > 0) {
                m->flush = RELAY_FLUSH_BOUNCE;
                return;
            }
            pf_spool_file_log_remove(sp, PF_QUEUE_BOUNCE, m->id,
                                     &m->st); /* an append that failed */
        }
        m->flushed |= RELAY_FLUSH_BOUNCE;
        if (m->expired && !m->flush_failed && !(m->flushed & RELAY_FLUSH_DEFER)) {
            m->flush = RELAY_FLUSH_DEFER;
            return;
        }
    }
    if (relay_msg_must_wait(m)) {
        /* stamped with the retry the queue manager decided (retry_policy.h) */
        m->job_status = pf_spool_file_defer(sp, m->id, m->retry_due_s, &m->st);
        m->job_errno = errno;
        return;
    }
    /* --no-bounces: the file and its bounce log go, and no notification is made */
    if (!relay_spool_bounces(m->relay->backend, m->relay->opts) &&
        pf_spool_file_log_exists(sp, PF_QUEUE_BOUNCE, m->id, &m->st))
        pf_spool_file_log_remove(sp, PF_QUEUE_BOUNCE, m->id, &m->st);
    m->job_status = pf_spool_file_remove(sp, m->id, &m->st);
    m->job_errno = errno;
}

/* A deferred message is read again from deferred/ at its retry. */
static void pf_park(struct relay_msg *m)
{
    relay_msg_release(m);
}

static enum relay_spool_next pf_retry(struct relay_msg *m)
{
    (void)m;
    return RELAY_NEXT_ACTIVATE;
}

/* ---------------------------------------------------------------- retries */

/* Never read (its reading failed), or its move to deferred/ failed: read it again. */
static int pf_must_reread(const struct relay_msg *m)
{
    return m->file == NULL || relay_msg_any(m, RCPT_DEFERRED);
}

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
static void pf_reread(struct relay_msg *m, unsigned thread)
{
    (void)thread;
    struct pf_qfile_view view;
    char *file;
    size_t len;

    if ((m->job_status = read_active(m, &file, &len, &view)) != 0)
        return;
    relay_msg_release(m);
    m->file = file;
    m->file_len = len;
    m->view = view;
}

const struct relay_spool relay_spool_postfix = {
    .name = "postfix",
    .streams = 1,
    .bounces = 1,
    .fsyncs_live = 1,
    .open = pf_open,
    .recover = pf_recover,
    .close = pf_close,
    .sync_name = pf_sync_name_of,
    .profile_ops = pf_profile_ops,
    .stream_open = pf_stream_open,
    .stream_write = pf_stream_write,
    .stream_abort = pf_stream_abort,
    .assign_id = pf_assign_id,
    .commit = pf_commit,
    .committed = pf_committed,
    .activate = pf_activate,
    .record = pf_record,
    .retire = pf_retire,
    .park = pf_park,
    .retry = pf_retry,
    .must_reread = pf_must_reread,
    .reread = pf_reread,
    .quarantine = pf_quarantine,
};
