/*
 * spool_runner - run a spool profile's file operations for one message.
 *
 * A runner belongs to one worker thread. It runs a phase of a profile
 * (profile.h) against a spool directory through the profile's backend
 * (spool_backend.h), which times every operation and counts what it did:
 * `spoolsim raw' and the relay's other profiles run it. Errors stop the
 * phase and leave a message in err; the files of a message that failed
 * are not cleaned up there, but by spool_runner_undo() and
 * spool_runner_discard(), for a caller that goes on (the relay).
 *
 * The second half of this header is for the backends alone: the state
 * they keep in a runner and the helpers they share.
 */
#ifndef SPOOLSIM_SPOOL_RUNNER_H
#define SPOOLSIM_SPOOL_RUNNER_H

#include <stddef.h>
#include <stdint.h>

#include "histogram.h"
#include "pf_spool.h"
#include "profile.h"

/* What is timed: the table operations, then the postfix backend's steps. */
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
struct spool_msg {
    uint64_t id;
    unsigned rcpts;
    size_t size;
    int deferred;              /* it went through the defer phase */
    const char *content;       /* what the body write writes (size bytes); NULL: filler */
    int defer_failed;          /* its defer phase failed and was undone (the relay's retry) */
    int discarded;             /* its files were removed by spool_runner_discard() */
    char qid[PF_QUEUE_ID_MAX]; /* postfix: the queue ID */
};

struct spool_backend;

struct spool_runner {
    const struct profile *profile;
    const struct spool_backend *backend; /* the profile's, chosen at init */
    const char *root;
    enum profile_sync sync;
    unsigned worker;
    char *body; /* the filler a message without content is written with */
    size_t body_cap;
    struct histogram latency[MEASURE_COUNT];
    /*
     * System calls made, by kind (the table backend's). Written by the
     * runner's thread alone, read by others while it runs (a relay's
     * report): relaxed atomics, a plain load and store each on the hot
     * path, no locked add. Read them with spool_runner_ops().
     */
    _Atomic uint64_t ops[OP_KIND_COUNT];
    char err[512];

    /* the table backend's (spool_table.c) */
    int fd[PROFILE_SLOTS]; /* the phase's open files, by slot */
    char *envelope;        /* a table's envelope write (spool_envelope.h) */
    size_t envelope_cap;
    /* Where the last phase that failed stopped: for spool_runner_undo(). */
    enum profile_phase failed_phase;
    size_t failed_op;
    unsigned failed_round;
    int failed;

    /* the postfix backend's (spool_postfix.c): its spool, and the calls it counted */
    struct pf_spool pf;
    struct pf_spool_stats pf_stats;
};

/* Make the profile's spool under root; -1 and a message on failure. */
int spool_runner_setup(const struct profile *p, const char *root, char *err, size_t errlen);

void spool_runner_init(struct spool_runner *pr, const struct profile *p, const char *root,
                       enum profile_sync sync, unsigned worker);
void spool_runner_free(struct spool_runner *pr);

/* Run one phase for message m; 0, or -1 with pr->err set. */
int spool_runner_run(struct spool_runner *pr, enum profile_phase phase, struct spool_msg *m);

/*
 * After spool_runner_run() failed for m (and before the runner runs
 * anything else): remove what that phase made before it stopped, the
 * table profiles' files and directories it created, so that the phase
 * can run again (O_EXCL creates would fail on what it left) and a message
 * refused at its accept phase leaves nothing. An accept phase is undone
 * whole (also what it appended to and renamed into place under the
 * message's ID); a deliver or defer phase only loses the files it
 * created, and the message's files from before stay as they are. Not
 * counted in ops: no part of the profile's cost. A no-op for the postfix
 * backend, which cleans up after itself.
 */
void spool_runner_undo(struct spool_runner *pr, struct spool_msg *m);
/*
 * Remove every file and directory of a table profile's message that its
 * phases name by its ID, wherever it stands (sets m->discarded); not counted.
 */
void spool_runner_discard(struct spool_runner *pr, struct spool_msg *m);

/* Add the runner's operation counters to ops; from any thread, while it runs. */
void spool_runner_ops(const struct spool_runner *pr, uint64_t ops[OP_KIND_COUNT]);

const char *spool_runner_measure_name(unsigned measure);

/* ------------------------------------------------------ for the backends */

/* mkdir(path, 0700), where it may exist already; -1 and a message if it fails. */
int spool_runner_mkdir(const char *path, char *err, size_t errlen);
/* The filler body of `size' bytes in pr->body: 72-character lines, like mail. */
void spool_runner_filler(struct spool_runner *pr, size_t size);
/* Set pr->err to "what path: strerror(errno)"; returns -1. */
int spool_runner_fail(struct spool_runner *pr, const char *what, const char *path);
/* Count n calls of `kind': the runner's thread alone calls it. */
void spool_runner_count(struct spool_runner *pr, enum profile_op_kind kind, uint64_t n);
/* Record the time since t0 (clock_now_ns()) under `measure'. */
void spool_runner_timed(struct spool_runner *pr, unsigned measure, uint64_t t0);
/* Close the files a phase left open when it stopped on an error. */
void spool_runner_close_slots(struct spool_runner *pr);

#endif
