/*
 * profile_run - run a spool profile's file operations for one message.
 *
 * A runner belongs to one worker thread. It executes a phase of a
 * profile (profile.h) against a spool directory, times every operation,
 * and counts what it did, through the profile's backend (spool_backend.h):
 * the postfix profile runs pf_spool, the relay's own code, so that
 * `spoolsim raw --profile postfix' and the relay make the same system calls. Errors stop the phase
 * and leave a message in err; the files of a message that failed are not cleaned up here.
 */
#ifndef SPOOLSIM_PROFILE_RUN_H
#define SPOOLSIM_PROFILE_RUN_H

#include <stddef.h>
#include <stdint.h>

#include "histogram.h"
#include "pf_spool.h"
#include "profile.h"

/* What is timed: the table operations, then the postfix profile's steps. */
enum {
    MEASURE_PF_ENQUEUE = OP_KIND_COUNT,
    MEASURE_PF_ACTIVATE,
    MEASURE_PF_READ,
    MEASURE_PF_MARK,
    MEASURE_PF_REMOVE,
    MEASURE_PF_LOG,
    MEASURE_PF_DEFER,
    MEASURE_COUNT
};

/* One message's state between its phases. */
struct profile_msg {
    uint64_t id;
    unsigned rcpts;
    size_t size;
    int deferred;              /* it went through the defer phase */
    const char *content;       /* what the body write writes (size bytes); NULL: filler */
    char qid[PF_QUEUE_ID_MAX]; /* postfix: the queue ID */
};

struct spool_backend;

struct profile_runner {
    const struct profile *profile;
    const struct spool_backend *backend; /* the profile's, chosen at init */
    const char *root;
    enum profile_sync sync;
    unsigned worker;
    int fd[PROFILE_SLOTS]; /* the phase's open files, by slot */
    char *body;
    size_t body_cap;
    struct pf_spool pf; /* postfix profile */
    struct pf_spool_stats pf_stats;
    struct histogram latency[MEASURE_COUNT];
    uint64_t ops[OP_KIND_COUNT]; /* system calls made, by kind */
    char err[512];
};

/* Make the profile's directories under root; -1 and a message on failure. */
int profile_setup(const struct profile *p, const char *root, char *err, size_t errlen);

void profile_runner_init(struct profile_runner *pr, const struct profile *p, const char *root,
                         enum profile_sync sync, unsigned worker);
void profile_runner_free(struct profile_runner *pr);

/* Run one phase for message m; 0, or -1 with pr->err set. */
int profile_run(struct profile_runner *pr, enum profile_phase phase, struct profile_msg *m);

const char *profile_measure_name(unsigned measure);

#endif
