/*
 * relay_spool - the relay's spool behind one table of functions.
 *
 * Where the relay keeps a message is one of two tables, chosen once from
 * the profile at start (relay_spool_of()): `postfix' (relay_spool_postfix.c)
 * keeps it in a Postfix queue file through pf_spool, with bounce and defer
 * logs and recovery after a crash; `runner' (relay_spool_runner.c) keeps
 * the message itself in memory and makes its profile's file work through
 * common/spool's backend for it (spool_backend.h: table or null). This is
 * not a second choice of backend: the profile's backend is common/spool's,
 * the relay only chooses whether it is its own queue. The queue manager
 * calls the table and never asks which profile it is.
 *
 * Functions marked "pool" run on an io_pool thread and touch only their
 * message and the spool; they answer in m->job_status (and m->job_errno,
 * m->job_err). The others run on the loop thread. The table and its
 * selection are pure: tests/unit/check_relay_spool.c.
 */
#ifndef SPOOLSIM_RELAY_SPOOL_H
#define SPOOLSIM_RELAY_SPOOL_H

#include <stddef.h>
#include <stdint.h>

#include "profile.h"

struct relay;
struct relay_msg;
struct relay_options;

/* Where a message goes after its commit or when its retry is due. */
enum relay_spool_next {
    RELAY_NEXT_ACTIVATE, /* a file to move to active/ and read: the incoming list */
    RELAY_NEXT_READY,    /* already in memory: straight to a delivery agent */
    RELAY_NEXT_FAILED,   /* unusable; the reason in m->job_err */
};

/* A step on a pool thread (`thread': the pool's number for it, for per-thread state). */
typedef void relay_spool_step(struct relay_msg *m, unsigned thread);

#define RELAY_JOB_UNREAD (-3) /* activate: moved to active/, but not read (yet) */

struct relay_spool {
    const char *name;
    int streams;     /* the file is made at the first RCPT, written as the text comes */
    int bounces;     /* Postfix's bounce and defer logs and notifications */
    int fsyncs_live; /* its fsyncs are counted on the loop thread: on the timeline */

    /* Set-up before service (-1 and err on failure), the state left by a crash, tear-down. */
    int (*open)(struct relay *r, char *err, size_t errlen);
    void (*recover)(struct relay *r);
    void (*close)(struct relay *r);
    /* The sync policy as the reports name it. */
    const char *(*sync_name)(const struct relay_options *opts);
    /* The profile's own operation counters, summed; 0 when it has none (pf_spool counts). */
    int (*profile_ops)(const struct relay *r, uint64_t ops[OP_KIND_COUNT]);

    /* pool, only when `streams': create the file; append m->qf's records; remove it */
    relay_spool_step *stream_open;
    relay_spool_step *stream_write;
    relay_spool_step *stream_abort;
    /*
     * The message's ID at DATA, for the Received: header (a streaming spool
     * named it at its creation); on the event loop of the message's
     * session, any of them.
     */
    void (*assign_id)(struct relay *r, struct relay_msg *m);
    /* pool: the end of data made durable, before the 250 */
    relay_spool_step *commit;
    /* After a successful commit: what the queue manager does with it. */
    enum relay_spool_next (*committed)(struct relay_msg *m);
    /* pool, for RELAY_NEXT_ACTIVATE only: into active/ and read (RELAY_JOB_UNREAD: moved, unread)
     */
    relay_spool_step *activate;
    /* pool: the delivery agent's records of an attempt (logs, done marks) */
    relay_spool_step *record;
    /* pool: the end of an attempt: removed, deferred, or m->flush set for the bounce service */
    relay_spool_step *retire;
    /* A deferred message waits for its retry: what it need not keep meanwhile goes. */
    void (*park)(struct relay_msg *m);
    /* Its retry is due: where it goes. */
    enum relay_spool_next (*retry)(struct relay_msg *m);
    /* A retry of a message still in active/: read its file again first (then `reread')? */
    int (*must_reread)(const struct relay_msg *m);
    relay_spool_step *reread; /* pool */
    /*
     * pool, where a delivery reads the file (NULL elsewhere): its content
     * was found damaged on the way (m->reason says how); out of the queue
     */
    relay_spool_step *quarantine;
};

extern const struct relay_spool relay_spool_postfix;
extern const struct relay_spool relay_spool_runner;

/* The table that keeps profile p's messages: postfix for the postfix backend, else runner. */
const struct relay_spool *relay_spool_of(const struct profile *p);

/* Postfix's bounce notices are modelled: a spool that has them, without --no-bounces. */
int relay_spool_bounces(const struct relay_spool *spool, const struct relay_options *opts);

#endif
