/*
 * spool_backend - the spool behind one table of functions.
 *
 * A profile's messages are written, moved and removed by one of three
 * backends, one file each, chosen from the profile by spool_backend_of()
 * and nowhere else (as OpenSMTPD's queue_backend.c chooses queue_fs,
 * queue_ram or queue_null): spool_postfix.c runs pf_spool, the relay's own
 * queue code; spool_table.c runs a profile's tables of file operations
 * (profile.h) for every other MTA's profile;
 * spool_null.c does no file work at all. Callers (raw, bench's drain, the
 * report, the relay's other profiles) go through spool_runner.h and this
 * table and never ask which profile it is.
 *
 * The accounting functions (totals, queues, lasting) are pure, and tested
 * in tests/unit/check_spool_backend.c.
 */
#ifndef SPOOLSIM_SPOOL_BACKEND_H
#define SPOOLSIM_SPOOL_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "pf_spool.h"
#include "profile.h"

struct spool_runner;
struct spool_msg;

/* The system calls a spool made, counted the same way whichever backend made them. */
struct spool_op_totals {
    uint64_t creates, writes, fsyncs, fdatasyncs, dir_fsyncs, renames, links, unlinks, probes,
        stats, chmods, utimes, mkdirs, rmdirs, locks;
};

struct spool_backend {
    const char *name;
    int no_io; /* makes no file at all: nothing is queued on disk to count */
    /* Make the spool's directories under root (which exists); -1 and a message on failure. */
    int (*setup)(const struct profile *p, const char *root, char *err, size_t errlen);
    /* The backend's own part of a runner (spool_runner_init does the rest); may be NULL. */
    void (*runner_init)(struct spool_runner *pr);
    void (*runner_free)(struct spool_runner *pr);
    /* One phase of one message: accept, deliver, defer; 0, or -1 with pr->err set. */
    int (*phase[PHASE_COUNT])(struct spool_runner *pr, struct spool_msg *m);
    /* spool_runner_undo() and _discard(); NULL where there is nothing to remove. */
    void (*undo)(struct spool_runner *pr, struct spool_msg *m);
    void (*discard)(struct spool_runner *pr, struct spool_msg *m);
    /* What the counters of a runner (or their sum) come to as system calls. */
    void (*totals)(const uint64_t ops[OP_KIND_COUNT], const struct pf_spool_stats *pf,
                   struct spool_op_totals *t);
    /* The directories, relative to the spool, where a queued message has files. */
    const char *const *(*queues)(const struct profile *p);
    /* Files made at set-up that stay (lock files, hints databases): no message; or NULL. */
    const char *const *(*lasting)(const struct profile *p);
};

extern const struct spool_backend spool_postfix; /* spool_postfix.c */
extern const struct spool_backend spool_table;   /* spool_table.c */
extern const struct spool_backend spool_null;    /* spool_null.c */

/* The backend that serves profile p. */
const struct spool_backend *spool_backend_of(const struct profile *p);

/* Every sync: fsync, fdatasync and directory fsync. */
uint64_t spool_backend_syncs(const struct spool_op_totals *t);
/* Creates, renames, links, unlinks, probes, stats, chmods, utimes, mkdirs, rmdirs. */
uint64_t spool_backend_metadata(const struct spool_op_totals *t);

#endif
