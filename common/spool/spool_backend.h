/*
 * spool_backend - the spool behind one table of functions.
 *
 * A profile's messages are written, moved and removed by one of two
 * backends, chosen once from the profile when a program starts (as
 * OpenSMTPD's queue_backend chooses fs, ram or proc): the postfix
 * backend runs pf_spool, the relay's own queue code; the table backend
 * runs a profile's table of file operations (profile.h) for sendmail,
 * qmail, exim, exim-4.98, opensmtpd and null. Callers (raw, bench's drain, the
 * report) go through the table and never ask which profile it is.
 *
 * The accounting functions (totals, queues, lasting) are pure; the rest
 * do the file work of profile_run.c.
 */
#ifndef SPOOLSIM_SPOOL_BACKEND_H
#define SPOOLSIM_SPOOL_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "pf_spool.h"
#include "profile.h"

struct profile_runner;
struct profile_msg;

/* The system calls a spool made, counted the same way whichever backend made them. */
struct spool_op_totals {
    uint64_t creates, writes, fsyncs, fdatasyncs, dir_fsyncs, renames, links, unlinks, probes,
        stats, chmods, utimes, mkdirs, rmdirs, locks;
};

struct spool_backend {
    const char *name;
    /* Make the spool's directories under root; -1 and a message on failure. */
    int (*setup)(const struct profile *p, const char *root, char *err, size_t errlen);
    /* The backend's own part of a runner (profile_runner_init does the rest). */
    void (*runner_init)(struct profile_runner *pr);
    void (*runner_free)(struct profile_runner *pr);
    /* One phase of one message: accept, deliver, defer; 0, or -1 with pr->err set. */
    int (*phase[PHASE_COUNT])(struct profile_runner *pr, struct profile_msg *m);
    /* What the counters of a runner (or their sum) come to as system calls. */
    void (*totals)(const uint64_t ops[OP_KIND_COUNT], const struct pf_spool_stats *pf,
                   struct spool_op_totals *t);
    /* The directories, relative to the spool, where a queued message has files. */
    const char *const *(*queues)(const struct profile *p);
    /* Files made at set-up that stay (lock files, hints databases): no message. */
    const char *const *(*lasting)(const struct profile *p);
};

extern const struct spool_backend spool_backend_postfix;
extern const struct spool_backend spool_backend_table;

/* The backend that serves profile p. */
const struct spool_backend *spool_backend_of(const struct profile *p);

/* Every sync: fsync, fdatasync and directory fsync. */
uint64_t spool_op_syncs(const struct spool_op_totals *t);
/* Creates, renames, links, unlinks, probes, stats, chmods, utimes, mkdirs, rmdirs. */
uint64_t spool_op_metadata(const struct spool_op_totals *t);

/* The pure parts of the two backends, named for the unit tests. */
void spool_postfix_totals(const uint64_t ops[OP_KIND_COUNT], const struct pf_spool_stats *pf,
                          struct spool_op_totals *t);
void spool_table_totals(const uint64_t ops[OP_KIND_COUNT], const struct pf_spool_stats *pf,
                        struct spool_op_totals *t);
const char *const *spool_postfix_queues(const struct profile *p);
const char *const *spool_table_queues(const struct profile *p);
const char *const *spool_postfix_lasting(const struct profile *p);
const char *const *spool_table_lasting(const struct profile *p);

#endif
