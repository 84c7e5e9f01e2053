/*
 * crash_plan - crash points in a block-write log; see crash_plan.h.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "crash_plan.h"
#include "workload.h"
#include "xalloc.h"

/* A well-mixed bit of (seed, i): splitmix64's finaliser. */
static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

int crash_plan_has(const struct crash_point *p, size_t i)
{
    if (i < p->barrier)
        return 1;
    return (mix(p->seed ^ mix((uint64_t)i)) >> 63) != 0;
}

void crash_plan_unflushed(const struct blklog *log, const struct crash_point *p, size_t *kept,
                          size_t *of)
{
    *kept = *of = 0;
    for (size_t i = p->barrier; i < p->end; i++) {
        if (log->v[i].type != BLKLOG_WRITE)
            continue;
        (*of)++;
        *kept += (size_t)crash_plan_has(p, i);
    }
}

static int point_cmp(const void *a, const void *b)
{
    const struct crash_point *x = a, *y = b;

    if (x->barrier != y->barrier)
        return x->barrier < y->barrier ? -1 : 1;
    if (x->end != y->end)
        return x->end < y->end ? -1 : 1;
    return x->is_flush - y->is_flush;
}

/* A time in [record end - 1, the next record), or up to end_ns after the last, from the seed. */
static uint64_t cut_time(const struct blklog *log, size_t end, uint64_t seed, uint64_t end_ns)
{
    uint64_t from = log->mark_times ? log->v[end - 1].t_logged_ns : log->v[end - 1].t_ns;
    uint64_t to = end < log->n ? log->v[end].t_ns : end_ns;

    if (log->mark_times && from >= to)
        return to; /* no mark between the two records: see crash_plan.h */
    if (to <= from)
        return from;
    return from + mix(seed ^ 0x7469) % (to - from);
}

/* The last record at or before time t (the log is in time order; t >= the first's). */
static size_t record_at(const struct blklog *log, uint64_t t)
{
    size_t lo = 0, hi = log->n - 1;

    while (lo < hi) {
        size_t mid = lo + (hi - lo + 1) / 2;

        if (log->v[mid].t_ns <= t)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

void crash_plan_make(const struct blklog *log, unsigned n, uint64_t seed, uint64_t end_ns,
                     struct crash_plan *out)
{
    size_t *flush_at = xcalloc(log->flushes + 1, sizeof(*flush_at));
    size_t *write_at = xcalloc(log->writes + 1, sizeof(*write_at));
    size_t *barrier_of = xcalloc(log->n + 1, sizeof(*barrier_of));
    size_t nf = 0, nw = 0, want_flush, want_random, barrier = 0;
    struct prng rng;

    memset(out, 0, sizeof(*out));
    for (size_t i = 0; i < log->n; i++) {
        barrier_of[i] = barrier; /* the barrier a cut after record i has */
        if (log->v[i].type == BLKLOG_FLUSH) {
            flush_at[nf++] = i;
            barrier = i + 1;
            barrier_of[i] = barrier;
        } else {
            write_at[nw++] = i;
        }
    }
    want_flush = nf <= n / 2 ? nf : n / 2;
    want_random = nw > 0 ? n - want_flush : 0;
    out->v = xcalloc(want_flush + want_random + 1, sizeof(*out->v));
    workload_prng_seed(&rng, seed);
    for (size_t k = 0; k < want_flush; k++) {
        /* evenly spread, the last flush always among them */
        size_t i = flush_at[nf - 1 - (k * nf) / want_flush];
        struct crash_point *p = &out->v[out->n++];

        p->end = p->barrier = i + 1;
        p->is_flush = 1;
        p->seed = workload_prng_next(&rng);
        p->t_ns = cut_time(log, p->end, p->seed, end_ns);
    }
    out->flush_points = out->n;
    for (size_t k = 0; k < want_random; k++) {
        struct crash_point *p = &out->v[out->n++];
        size_t i;

        if (k % 2 == 1 && end_ns > log->v[0].t_ns) {
            /*
             * Every other one at a time drawn evenly over the run, as a power
             * cut comes: drawn by write, a long stretch in which nothing
             * reaches the disk (a load with no fsync) got no point but by
             * luck, and the loss it hides went unseen.
             */
            uint64_t t = log->v[0].t_ns + workload_prng_range(&rng, 0, end_ns - log->v[0].t_ns - 1);

            i = record_at(log, t);
            p->end = i + 1;
            p->barrier = barrier_of[i];
            p->is_flush = p->barrier == p->end;
            p->seed = workload_prng_next(&rng);
            p->t_ns = log->mark_times && t < log->v[i].t_logged_ns
                          ? cut_time(log, p->end, p->seed, end_ns)
                          : t;
            continue;
        }
        i = write_at[workload_prng_range(&rng, 0, nw - 1)];
        p->end = i + 1;
        p->barrier = barrier_of[i];
        p->seed = workload_prng_next(&rng);
        p->t_ns = cut_time(log, p->end, p->seed, end_ns);
    }
    out->random_points = out->n - out->flush_points;
    if (out->n > 1)
        qsort(out->v, out->n, sizeof(*out->v), point_cmp);
    free(flush_at);
    free(write_at);
    free(barrier_of);
}

void crash_plan_free(struct crash_plan *p)
{
    free(p->v);
    memset(p, 0, sizeof(*p));
}
