/*
 * relay_stats - the relay's counters, latencies and queue depths, sampled
 * on loop 0 (what other loops count is atomic), printed as text and
 * JSON at the end and as the live status line.
 */
#ifndef SPOOLSIM_RELAY_STATS_H
#define SPOOLSIM_RELAY_STATS_H

#include <stdint.h>
#include <stdio.h>

#include "histogram.h"
#include "pf_spool.h"
#include "sysusage.h"
#include "timeline.h"

struct relay;

/* The queues' lengths now (relay_qmgr_depths()). */
struct relay_queue_depths {
    unsigned incoming, active, deferred, delivering; /* active: with those moving there */
};

struct relay_stats {
    uint64_t received, delivered, bounced, deferrals, corrupt, recovered, expired;
    uint64_t loops; /* of the bounced: mail loops (5.4.6), never counted as delivered */
    _Atomic uint64_t rejected_storage, rejected_other; /* sessions count them on any loop */
    _Atomic uint64_t rejected_hops; /* 554 5.4.0: Received: fields at --hopcount-limit */
    /* notifications: posted, delivered, discarded (failed ones), not made (--no-bounces) */
    uint64_t bounces_sent, bounces_delivered, bounces_discarded, bounces_dropped;
    uint64_t rcpts_sent;
    uint64_t first_in_ns, last_in_ns, last_out_ns; /* arrivals, deliveries: their windows */
    uint64_t recovered_ns; /* when recovery found the first message: it opens the busy window */
    struct pf_spool_stats spool; /* under the relay's stats_lock: every loop's jobs add to it */
    struct pf_spool_stats maildir;
    struct histogram receive, commit, queue_wait, delivery, end_to_end;
    _Atomic uint64_t hop_connects, hop_failures, hop_tls; /* any loop */
    uint64_t flow_waits; /* messages that waited for a flow token */
    _Atomic uint64_t sessions, tls_sessions, timeouts, error_closes; /* SMTP clients, any loop */
    uint64_t session_limit_waits; /* times the listener paused at --max-sessions */
    unsigned max_concurrent;      /* client sessions at once, at most: the listener's count */
    /* queue depths sampled every --stats-interval */
    struct relay_sample {
        double t;
        unsigned incoming, active, deferred, delivering;
        uint64_t received, delivered, fsyncs;
        struct sysusage_sample sys; /* the machine, the kernel, the spool's disk */
        uint64_t self_cpu_ns;       /* the relay, all threads */
        uint64_t qmgr_busy_ns;      /* time the qmgr thread spent in its jobs */
        uint64_t loop_cpu_ns;       /* loop 0's thread, where this is sampled */
    } * samples;
    size_t sample_count, sample_cap;
    struct timeline timeline; /* one row every --interval (relay_stats_tick) */
    /* The queue manager's relay_qmgr_depths(), which relay.c gives: the counters never call it. */
    void (*queue_depths)(const struct relay *r, struct relay_queue_depths *d);
};

void relay_stats_init(struct relay_stats *st);
void relay_stats_free(struct relay_stats *st);
void relay_stats_sample(struct relay *r);
/* The timeline's point now: at the start, every --interval and at the end. */
void relay_stats_tick(struct relay *r);
void relay_stats_print(const struct relay *r, FILE *fp);
/* The live status line, every second. */
void relay_stats_progress(struct relay *r);
void relay_stats_print_start(const struct relay *r, int listen_fd, FILE *fp); /* one line */
int relay_stats_write_json(const struct relay *r, const char *path);
/* The busy window's ends (first in to the last in or out), or -1 if it has none yet. */
int relay_stats_busy_span(const struct relay *r, uint64_t *from, uint64_t *to);

#endif
