/*
 * spool_postfix - the postfix profile's backend: pf_spool, the relay's own
 * queue code, so that `spoolsim raw --profile postfix' and the relay make
 * the same system calls (spool_backend.h has the table). A message is a
 * queue file: enqueued into incoming/, moved to active/ and read,
 * deferred to deferred/ with a defer log, or delivered (a done mark per
 * recipient) and removed. pf_spool counts its own calls, in pr->pf_stats.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include "clock.h"
#include "pf_qfile.h"
#include "spool_backend.h"
#include "spool_runner.h"
#include "xalloc.h"

static const char *const queues[] = {PF_QUEUE_INCOMING, PF_QUEUE_ACTIVE, PF_QUEUE_DEFERRED, NULL};

static int setup(const struct profile *p, const char *root, char *err, size_t errlen)
{
    struct pf_spool sp = {0};
    int status = pf_spool_open(&sp, root, err, errlen);

    (void)p;
    pf_spool_close(&sp);
    return status;
}

static void runner_init(struct spool_runner *pr)
{
    pr->pf.dir = xstrdup(pr->root);
    pr->pf.hash_depth = 1;
    pr->pf.sync = pr->sync == PROFILE_SYNC_NONE        ? PF_SYNC_NONE
                  : pr->sync == PROFILE_SYNC_FDATASYNC ? PF_SYNC_FDATASYNC
                                                       : PF_SYNC_FSYNC;
}

static void runner_free(struct spool_runner *pr)
{
    pf_spool_close(&pr->pf);
}

static int phase_accept(struct spool_runner *pr, struct spool_msg *m)
{
    struct pf_qfile q;
    struct timeval now;
    char **rcpts = xcalloc(m->rcpts, sizeof(*rcpts));
    uint64_t t0;
    int status;

    spool_runner_filler(pr, m->size);
    gettimeofday(&now, NULL);
    pf_qfile_init(&q);
    pf_qfile_begin(&q, (long)now.tv_sec, (long)now.tv_usec, "sender@example.org", "localhost",
                   "127.0.0.1", "localhost");
    pf_qfile_content(&q, pr->body, m->size);
    for (unsigned i = 0; i < m->rcpts; i++) {
        rcpts[i] = xmalloc(32);
        snprintf(rcpts[i], 32, "r%u@example.org", i);
    }
    pf_qfile_finish(&q, (const char *const *)rcpts, m->rcpts);
    t0 = clock_now_ns();
    status = pf_spool_file_enqueue(&pr->pf, &q, m->qid, sizeof(m->qid), &pr->pf_stats);
    if (status != 0)
        spool_runner_fail(pr, "enqueue in", pr->root);
    else
        spool_runner_timed(pr, MEASURE_PF_ENQUEUE, t0);
    for (unsigned i = 0; i < m->rcpts; i++)
        free(rcpts[i]);
    free(rcpts);
    pf_qfile_free(&q);
    return status;
}

/* incoming/ or deferred/ -> active/, read, the defer-log unlink: the qmgr's part. */
static int activate(struct spool_runner *pr, struct spool_msg *m, char **file, size_t *len,
                    struct pf_qfile_view *view)
{
    char err[200];
    uint64_t t0 = clock_now_ns();
    int status;

    if (pf_spool_file_activate(&pr->pf, m->qid, m->deferred, &pr->pf_stats) < 0)
        return spool_runner_fail(pr, "activate", m->qid);
    spool_runner_timed(pr, MEASURE_PF_ACTIVATE, t0);
    t0 = clock_now_ns();
    /* the whole file, as a window of all: its content is read here, not by a delivery */
    status = pf_spool_file_load(&pr->pf, m->qid, SIZE_MAX, file, len, view, err, sizeof(err),
                                &pr->pf_stats);
    if (status == -1)
        return spool_runner_fail(pr, "read", m->qid);
    if (status != 0) {
        snprintf(pr->err, sizeof(pr->err), "queue file %s: %s", m->qid, err);
        return -1;
    }
    spool_runner_timed(pr, MEASURE_PF_READ, t0);
    t0 = clock_now_ns();
    pf_spool_file_log_remove(&pr->pf, PF_QUEUE_DEFER, m->qid, &pr->pf_stats);
    spool_runner_timed(pr, MEASURE_PF_LOG, t0);
    return 0;
}

/* What a phase does to a message activate() has read; its status. */
typedef int (*active_work)(struct spool_runner *pr, struct spool_msg *m,
                           const struct pf_qfile_view *view);

/* activate(), then `work', then the read file let go: the qmgr's part and the delivery's. */
static int with_active(struct spool_runner *pr, struct spool_msg *m, active_work work)
{
    struct pf_qfile_view view;
    char *file;
    size_t len;
    int status;

    if (activate(pr, m, &file, &len, &view) != 0)
        return -1;
    status = work(pr, m, &view);
    pf_qfile_view_free(&view);
    free(file);
    return status;
}

static int deliver(struct spool_runner *pr, struct spool_msg *m, const struct pf_qfile_view *view)
{
    uint64_t t0;
    int status = 0;

    for (unsigned i = 0; i < view->rcpt_count && status == 0; i++) {
        t0 = clock_now_ns();
        if (pf_spool_file_mark_done(&pr->pf, m->qid, view->rcpts[i].offset, &pr->pf_stats) != 0)
            status = spool_runner_fail(pr, "mark done", m->qid);
        spool_runner_timed(pr, MEASURE_PF_MARK, t0);
    }
    t0 = clock_now_ns();
    pf_spool_file_log_exists(&pr->pf, PF_QUEUE_BOUNCE, m->qid, &pr->pf_stats);
    if (status == 0 && pf_spool_file_remove(&pr->pf, m->qid, &pr->pf_stats) != 0)
        status = spool_runner_fail(pr, "remove", m->qid);
    spool_runner_timed(pr, MEASURE_PF_REMOVE, t0);
    return status;
}

static int defer(struct spool_runner *pr, struct spool_msg *m, const struct pf_qfile_view *view)
{
    struct timeval now;
    uint64_t t0;
    int status = 0;

    (void)view;
    t0 = clock_now_ns();
    if (pf_spool_file_log_append(
            &pr->pf, PF_QUEUE_DEFER, m->qid,
            "recipient=r0@example.org\noffset=0\nstatus=4.0.0\naction=delayed\n"
            "reason=host said: 450 4.3.0 try again later\n\n",
            &pr->pf_stats) != 0)
        status = spool_runner_fail(pr, "defer log", m->qid);
    spool_runner_timed(pr, MEASURE_PF_LOG, t0);
    gettimeofday(&now, NULL);
    t0 = clock_now_ns();
    if (status == 0 &&
        pf_spool_file_defer(&pr->pf, m->qid, (long)now.tv_sec + 300, &pr->pf_stats) != 0)
        status = spool_runner_fail(pr, "defer", m->qid);
    spool_runner_timed(pr, MEASURE_PF_DEFER, t0);
    return status;
}

static int phase_deliver(struct spool_runner *pr, struct spool_msg *m)
{
    return with_active(pr, m, deliver);
}

static int phase_defer(struct spool_runner *pr, struct spool_msg *m)
{
    return with_active(pr, m, defer);
}

/* pf_spool counts its own calls; its fsyncs include the directory ones it makes. */
static void totals(const uint64_t ops[OP_KIND_COUNT], const struct pf_spool_stats *s,
                   struct spool_op_totals *t)
{
    (void)ops;
    memset(t, 0, sizeof(*t));
    t->creates = s->creates;
    t->writes = s->writes;
    t->fsyncs = s->fsyncs;
    t->renames = s->renames;
    t->unlinks = s->unlinks;
    t->probes = s->probes;
    t->stats = s->stat_probes;
    t->chmods = s->chmods;
    t->utimes = s->utimes;
    t->mkdirs = s->mkdirs;
    t->locks = s->locks;
}

static const char *const *queues_of(const struct profile *p)
{
    (void)p;
    return queues;
}

static const char *const *lasting(const struct profile *p)
{
    (void)p;
    return NULL; /* its lock file is in pid/, which is no queue */
}

/* It cleans up after itself: nothing to undo or discard. */
const struct spool_backend spool_postfix = {
    .name = "postfix",
    .setup = setup,
    .runner_init = runner_init,
    .runner_free = runner_free,
    .phase = {phase_accept, phase_deliver, phase_defer},
    .totals = totals,
    .queues = queues_of,
    .lasting = lasting,
};
