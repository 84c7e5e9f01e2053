/*
 * spool_null - the null profile's backend: no file work at all, so that a
 * run measures the harness alone (spool_backend.h has the table). Its
 * spool is the bare directory; nothing is queued there, and nothing is
 * counted.
 */
#include "config.h"

#include <string.h>

#include "spool_backend.h"
#include "spool_runner.h"

static const char *const no_queues[] = {NULL};

static int setup(const struct profile *p, const char *root, char *err, size_t errlen)
{
    (void)p;
    (void)root;
    (void)err;
    (void)errlen;
    return 0;
}

static int phase_none(struct spool_runner *pr, struct spool_msg *m)
{
    (void)pr;
    (void)m;
    return 0;
}

static void totals(const uint64_t ops[OP_KIND_COUNT], const struct pf_spool_stats *pf,
                   struct spool_op_totals *t)
{
    (void)ops;
    (void)pf;
    memset(t, 0, sizeof(*t));
}

static const char *const *queues(const struct profile *p)
{
    (void)p;
    return no_queues;
}

static const char *const *lasting(const struct profile *p)
{
    (void)p;
    return NULL;
}

const struct spool_backend spool_null = {
    .name = "null",
    .no_io = 1,
    .setup = setup,
    .phase = {phase_none, phase_none, phase_none},
    .totals = totals,
    .queues = queues,
    .lasting = lasting,
};
