/*
 * source_report - smtp-source's statistics and closing summary.
 *
 * The counters and per-phase latency histograms of one run, and their
 * text and JSON forms. Pure bookkeeping: the caller passes the streams.
 */
#ifndef SPOOLSIM_SOURCE_REPORT_H
#define SPOOLSIM_SOURCE_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "histogram.h"
#include "timeline.h"
#include "json_meta.h"
#include "source_counts.h"
#include "source_options.h"

enum source_phase {
    PHASE_CONNECT, /* connect() until the TCP handshake completes */
    PHASE_BANNER,  /* connected until the 220 greeting */
    PHASE_HELO,    /* EHLO/HELO/LHLO until its reply */
    PHASE_TLS,     /* STARTTLS until the TLS handshake completes */
    PHASE_MAIL,
    PHASE_RCPT,
    PHASE_DATA, /* DATA until 354 */
    PHASE_DOT,  /* first content byte until the end-of-data reply */
    PHASE_TXN,  /* the message's (intended) start until the end-of-data reply */
    PHASE_COUNT
};

enum source_failure {
    FAIL_REPLY,      /* a 4xx or 5xx reply; see by_code */
    FAIL_CONNECT,    /* connection refused or unreachable */
    FAIL_TIMEOUT,    /* no reply within --timeout */
    FAIL_DISCONNECT, /* the server closed the connection mid-transaction */
    FAIL_PROTOCOL,   /* a malformed reply */
    FAIL_TLS,        /* STARTTLS not offered, refused, or the handshake failed */
    FAIL_KINDS
};

#define SOURCE_MAX_CODE 600
#define SOURCE_MAX_ERRNO 256 /* connect errors by errno; 0 holds the unknown and the larger */

/*
 * Rates are over the run's window: from its start (the first intended
 * start of a message) to the end of the offered window or the last
 * completion, whichever is later. The offered window ends at the
 * --duration deadline, or, for -m N in an open loop, at the intended
 * arrival after the Nth: N arrivals at rate R offer N/R seconds of load.
 * A closed loop of -m N offers no window: its rate is over start to last
 * completion. So one message at --rate 1 is 1 msgs/s, not one over its
 * own latency.
 */
struct source_stats {
    uint64_t start_ns, end_ns; /* end: the last completion */
    double start_wall_s;       /* the wall clock (Unix seconds) at start_ns */
    uint64_t offered_end_ns;   /* the end of the offered window; 0: none */
    struct source_counts counts;
    uint64_t backlog_max; /* open loop: messages waiting for a free session */
    uint64_t failures[FAIL_KINDS];
    uint64_t connect_errors[SOURCE_MAX_ERRNO]; /* why connections failed, by errno */
    uint64_t by_code[SOURCE_MAX_CODE][PHASE_COUNT];
    struct histogram latency[PHASE_COUNT];
    /* every --interval: attempted in, delivered out, failed, the txn latency */
    struct timeline timeline;
    int msg_log_lost; /* the run's: a write to --msg-log failed (smtp_tool_opts_msg_log_close()) */
};

const char *source_report_phase_name(enum source_phase phase);
const char *source_report_failure_name(enum source_failure kind);
/* Count a failed connection's reason (an errno; 0 if unknown). */
void source_report_connect_error(struct source_stats *st, int err);
void source_report_init(struct source_stats *st);
void source_report_free(struct source_stats *st);
/* The timeline's point now (at the start, every --interval and at the end). */
void source_report_tick(struct source_stats *st, uint64_t now_ns);
/*
 * Another thread's statistics of the same run into dst: counts add,
 * histograms add bucket by bucket, timelines row by row (the threads tick
 * together); the window is the union. backlog_max adds too: each thread
 * has its own backlog, so the sum of their peaks bounds the run's.
 */
void source_report_merge(struct source_stats *dst, const struct source_stats *src);
/* The window rates are over, in seconds (see struct source_stats). */
double source_report_window_s(const struct source_stats *st);
void source_report_text(FILE *fp, const struct source_stats *st, const struct source_options *opts);
int source_report_json(const char *path, const struct source_stats *st,
                       const struct source_options *opts, const struct json_run *run);

#endif
