/*
 * spool_backend - which backend serves a profile; see spool_backend.h.
 * The backends are spool_postfix.c, spool_table.c and spool_null.c.
 */
#include "config.h"

#include "spool_backend.h"

const struct spool_backend *spool_backend_of(const struct profile *p)
{
    switch (p->backend) {
    case PROFILE_BACKEND_POSTFIX:
        return &spool_postfix;
    case PROFILE_BACKEND_NULL:
        return &spool_null;
    case PROFILE_BACKEND_TABLE:
    default:
        return &spool_table;
    }
}

uint64_t spool_backend_syncs(const struct spool_op_totals *t)
{
    return t->fsyncs + t->fdatasyncs + t->dir_fsyncs;
}

uint64_t spool_backend_metadata(const struct spool_op_totals *t)
{
    return t->creates + t->renames + t->links + t->unlinks + t->probes + t->stats + t->chmods +
           t->utimes + t->mkdirs + t->rmdirs;
}
