/*
 * spool_backend - the accounting half of the two backends; see spool_backend.h.
 * The file work is in profile_run.c, where the tables are filled.
 */
#include "config.h"

#include <string.h>

#include "spool_backend.h"

static const char *const postfix_queues[] = {PF_QUEUE_INCOMING, PF_QUEUE_ACTIVE, PF_QUEUE_DEFERRED,
                                             NULL};

const struct spool_backend *spool_backend_of(const struct profile *p)
{
    return p->backend;
}

uint64_t spool_op_syncs(const struct spool_op_totals *t)
{
    return t->fsyncs + t->fdatasyncs + t->dir_fsyncs;
}

uint64_t spool_op_metadata(const struct spool_op_totals *t)
{
    return t->creates + t->renames + t->links + t->unlinks + t->probes + t->stats + t->chmods +
           t->utimes + t->mkdirs + t->rmdirs;
}

/* pf_spool counts its own calls; its fsyncs include the directory ones it makes. */
void spool_postfix_totals(const uint64_t ops[OP_KIND_COUNT], const struct pf_spool_stats *s,
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

void spool_table_totals(const uint64_t ops[OP_KIND_COUNT], const struct pf_spool_stats *pf,
                        struct spool_op_totals *t)
{
    (void)pf;
    memset(t, 0, sizeof(*t));
    t->creates = ops[OP_CREATE] + ops[OP_APPEND];
    t->writes = ops[OP_WRITE] + ops[OP_PWRITE];
    t->fsyncs = ops[OP_FSYNC];
    t->fdatasyncs = ops[OP_FDATASYNC];
    t->dir_fsyncs = ops[OP_FSYNC_DIR];
    t->renames = ops[OP_RENAME];
    t->links = ops[OP_LINK];
    t->unlinks = ops[OP_UNLINK];
    t->probes = ops[OP_PROBE];
    t->stats = ops[OP_STAT];
    t->chmods = ops[OP_FCHMOD];
    t->utimes = ops[OP_UTIME];
    t->mkdirs = ops[OP_MKDIR];
    t->rmdirs = ops[OP_RMDIR];
    t->locks = ops[OP_LOCK];
}

const char *const *spool_postfix_queues(const struct profile *p)
{
    (void)p;
    return postfix_queues;
}

const char *const *spool_table_queues(const struct profile *p)
{
    return p->dirs;
}

const char *const *spool_postfix_lasting(const struct profile *p)
{
    (void)p;
    return NULL; /* its lock file is in pid/, which is no queue */
}

const char *const *spool_table_lasting(const struct profile *p)
{
    return p->files;
}
