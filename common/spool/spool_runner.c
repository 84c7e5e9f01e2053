/*
 * spool_runner - run a spool profile's file operations; see spool_runner.h.
 * What a phase does is the backend's; this is what every backend shares.
 */
#include "config.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clock.h"
#include "spool_backend.h"
#include "spool_runner.h"
#include "xalloc.h"

static const char *const pf_measure_names[] = {
    "pf_enqueue", "pf_activate", "pf_read", "pf_mark_done", "pf_remove", "pf_log", "pf_defer"};

const char *spool_runner_measure_name(unsigned measure)
{
    if (measure < OP_KIND_COUNT)
        return profile_op_name((enum profile_op_kind)measure);
    return pf_measure_names[measure - OP_KIND_COUNT];
}

int spool_runner_mkdir(const char *path, char *err, size_t errlen)
{
    if (mkdir(path, 0700) != 0 && errno != EEXIST) {
        snprintf(err, errlen, "cannot create %s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

int spool_runner_setup(const struct profile *p, const char *root, char *err, size_t errlen)
{
    if (spool_runner_mkdir(root, err, errlen) != 0)
        return -1;
    return spool_backend_of(p)->setup(p, root, err, errlen);
}

void spool_runner_init(struct spool_runner *pr, const struct profile *p, const char *root,
                       enum profile_sync sync, unsigned worker)
{
    memset(pr, 0, sizeof(*pr));
    pr->profile = p;
    pr->backend = spool_backend_of(p);
    pr->root = root;
    pr->sync = sync;
    pr->worker = worker;
    for (unsigned i = 0; i < PROFILE_SLOTS; i++)
        pr->fd[i] = -1;
    for (unsigned i = 0; i < MEASURE_COUNT; i++)
        histogram_init(&pr->latency[i]);
    if (pr->backend->runner_init)
        pr->backend->runner_init(pr);
}

void spool_runner_close_slots(struct spool_runner *pr)
{
    for (unsigned i = 0; i < PROFILE_SLOTS; i++) {
        if (pr->fd[i] >= 0)
            close(pr->fd[i]);
        pr->fd[i] = -1;
    }
}

void spool_runner_free(struct spool_runner *pr)
{
    spool_runner_close_slots(pr);
    free(pr->body);
    free(pr->envelope);
    if (pr->backend->runner_free)
        pr->backend->runner_free(pr);
}

/* Only the runner's thread writes its counters: no read-modify-write needs to be atomic. */
void spool_runner_count(struct spool_runner *pr, enum profile_op_kind kind, uint64_t n)
{
    _Atomic uint64_t *c = &pr->ops[kind];

    atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + n,
                          memory_order_relaxed);
}

void spool_runner_ops(const struct spool_runner *pr, uint64_t ops[OP_KIND_COUNT])
{
    for (unsigned k = 0; k < OP_KIND_COUNT; k++)
        ops[k] += atomic_load_explicit(&pr->ops[k], memory_order_relaxed);
}

void spool_runner_filler(struct spool_runner *pr, size_t size)
{
    if (pr->body_cap < size + 1) {
        pr->body_cap = size + 1;
        pr->body = xrealloc(pr->body, pr->body_cap);
    }
    for (size_t i = 0; i < size; i++)
        pr->body[i] = (i % 74 == 72) ? '\r' : (i % 74 == 73) ? '\n' : 'x';
}

int spool_runner_fail(struct spool_runner *pr, const char *what, const char *path)
{
    snprintf(pr->err, sizeof(pr->err), "%s %s: %s", what, path ? path : "", strerror(errno));
    return -1;
}

void spool_runner_timed(struct spool_runner *pr, unsigned measure, uint64_t t0)
{
    histogram_record(&pr->latency[measure], clock_now_ns() - t0);
}

int spool_runner_run(struct spool_runner *pr, enum profile_phase phase, struct spool_msg *m)
{
    int status = pr->backend->phase[phase](pr, m);

    if (status == 0 && phase == PHASE_DEFER)
        m->deferred = 1;
    else if (status == 0 && phase == PHASE_DELIVER)
        m->deferred = 0;
    return status;
}

void spool_runner_undo(struct spool_runner *pr, struct spool_msg *m)
{
    if (pr->backend->undo)
        pr->backend->undo(pr, m);
}

void spool_runner_discard(struct spool_runner *pr, struct spool_msg *m)
{
    m->discarded = 1;
    if (pr->backend->discard)
        pr->backend->discard(pr, m);
}
