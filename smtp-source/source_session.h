/*
 * source_session - one smtp-source client session on a libevent loop.
 *
 * A session connects, greets, optionally starts TLS, and runs mail
 * transactions one after another, asking the scheduler (the
 * next_message hook in struct source_ctx) for each message. It records
 * per-phase latency and failures in the shared statistics and never
 * blocks: waits between messages and connection retries are timers.
 */
#ifndef SPOOLSIM_SOURCE_SESSION_H
#define SPOOLSIM_SOURCE_SESSION_H

#include <event2/event.h>
#include <openssl/ssl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/socket.h>

#include "source_message.h"
#include "source_options.h"
#include "source_report.h"
#include "workload.h"

struct source_session;

/* What next_message() says. */
enum source_next { SOURCE_NEXT_DONE = -1, SOURCE_NEXT_WAIT = 0, SOURCE_NEXT_GO = 1 };

struct source_ctx {
    const struct source_options *opts;
    struct event_base *base;
    SSL_CTX *tls_ctx;
    struct sockaddr_storage addr;
    socklen_t addrlen;
    struct source_message msg;
    struct source_stats stats;
    struct prng rng;
    FILE *msg_log; /* shared by the threads: one fprintf() per line, which stdio locks */
    /*
     * Message numbers and -N's recipient numbers are unique across the
     * whole run: with --threads N, thread i takes i, i + N, i + 2N, ...
     */
    uint64_t next_seq;
    uint64_t next_rcpt;
    unsigned stride;
    struct source_session *idle; /* sessions waiting for a message */
    /*
     * The counters the main thread shows while this thread runs (--progress,
     * -c): copies of stats' own, stored by this thread, loaded by that one.
     */
    _Atomic uint64_t live_attempted, live_delivered, live_failed;

    /* Scheduler hooks, set by smtp-source.c. */
    enum source_next (*next_message)(struct source_ctx *ctx, uint64_t *start_ns);
    void (*on_session_done)(struct source_ctx *ctx);
};

struct source_session *source_session_new(struct source_ctx *ctx, unsigned id);
void source_session_start(struct source_session *s);
/* Wake every idle session: the scheduler has messages for them. */
void source_session_wake_idle(struct source_ctx *ctx);
void source_session_free(struct source_session *s);

#endif
