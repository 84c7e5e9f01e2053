/*
 * profile_run - run a spool profile's file operations for one message.
 *
 * A runner belongs to one worker thread. It executes a phase of a
 * profile (profile.h) against a spool directory, times every operation,
 * and counts what it did, through the profile's backend (spool_backend.h):
 * the postfix profile runs pf_spool, the relay's own code, so that
 * `spoolsim raw --profile postfix' and the relay make the same system calls. Errors stop the phase
 * and leave a message in err; the files of a message that failed are not cleaned up there, but
 * by profile_undo() and profile_discard(), for a caller that goes on (the relay).
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
    int defer_failed;          /* its defer phase failed and was undone (the relay's retry) */
    int discarded;             /* its files were removed by profile_discard() */
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
    char *envelope; /* a table's envelope write (spool_envelope.h) */
    size_t envelope_cap;
    struct pf_spool pf; /* postfix profile */
    struct pf_spool_stats pf_stats;
    struct histogram latency[MEASURE_COUNT];
    /*
     * System calls made, by kind. Written by the runner's thread alone,
     * read by others while it runs (a relay's report): relaxed atomics,
     * a plain load and store each on the hot path, no locked add.
     * Read them with profile_runner_ops().
     */
    _Atomic uint64_t ops[OP_KIND_COUNT];
    /* Where the last phase that failed stopped: for profile_undo(). */
    enum profile_phase failed_phase;
    size_t failed_op;
    unsigned failed_round;
    int failed;
    char err[512];
};

/* Make the profile's directories under root; -1 and a message on failure. */
int profile_setup(const struct profile *p, const char *root, char *err, size_t errlen);

void profile_runner_init(struct profile_runner *pr, const struct profile *p, const char *root,
                         enum profile_sync sync, unsigned worker);
void profile_runner_free(struct profile_runner *pr);

/* Run one phase for message m; 0, or -1 with pr->err set. */
int profile_run(struct profile_runner *pr, enum profile_phase phase, struct profile_msg *m);

/*
 * After profile_run() failed for m (and before the runner runs anything
 * else): remove what that phase made before it stopped, the table
 * profiles' files and directories it created, so that the phase can run
 * again (O_EXCL creates would fail on what it left) and a message refused
 * at its accept phase leaves nothing. An accept phase is undone whole
 * (also what it appended to and renamed into place under the message's
 * ID); a deliver or defer phase only loses the files it created, and the
 * message's files from before stay as they are. Not counted in ops: no
 * part of the profile's cost. A no-op for the postfix backend, which
 * cleans up after itself.
 */
void profile_undo(struct profile_runner *pr, struct profile_msg *m);
/*
 * Remove every file and directory of a table profile's message that its
 * phases name by its ID, wherever it stands (sets m->discarded); not counted.
 */
void profile_discard(struct profile_runner *pr, struct profile_msg *m);

/* Add the runner's operation counters to ops; from any thread, while it runs. */
void profile_runner_ops(const struct profile_runner *pr, uint64_t ops[OP_KIND_COUNT]);

const char *profile_measure_name(unsigned measure);

#endif
