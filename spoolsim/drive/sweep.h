/*
 * sweep - `spoolsim sweep', in three parts: sweep_options.c reads the
 * command line, sweep.c runs the steps, sweep_report.c says what they
 * found (text and JSON); sweep_search.c, pure, picks the rates and judges
 * the steps. What they share: the options, a step's measures, the sweep's
 * state. See sweep.c for what the command does.
 */
#ifndef SPOOLSIM_SWEEP_H
#define SPOOLSIM_SWEEP_H

#include <limits.h>
#include <stddef.h>
#include <stdio.h>

#include "drive.h"
#include "fsinfo.h"
#include "json_meta.h"
#include "optgroup.h"
#include "progress_out.h"
#include "sweep_search.h"

#define RELAY_ARGS_MAX 32

struct sweep_options {
    const char *spool_parent;
    double rates[SWEEP_MAX_RATES];
    size_t n_rates; /* 0: automatic */
    double start, factor, tolerance;
    unsigned max_steps;
    double warmup, window, slo;
    struct optgroup_values common; /* -s, --size, --json, --keep, -q */
    int reuse;
    const char *arrivals; /* smtp-source's --arrivals: fixed or poisson */
    const char *target;   /* HOST:PORT, or NULL: a relay of our own */
    char sink_delay[32];  /* --sink-delay as seconds for smtp-sink -w, "" for none */
    unsigned sink_port;   /* with --target: a sink on this port, its next hop (0: none) */
    const char *profile;  /* the relay's, from the options after -- */
    char *relay_args[RELAY_ARGS_MAX]; /* passed on to the relay */
    size_t n_relay_args;
    const struct json_run *run;
    /* --workload: its mean and busiest minute's rates, messages/s (0 without) */
    double workload_mean_per_s, workload_peak_per_s;
};

/* What a step measured, beyond what the verdict reads. */
struct sweep_step {
    struct sweep_measure m;
    enum sweep_reason reason;
    double sent, sent_per_s; /* the window's client: messages started, over its window */
    double accepted, backlog_max;
    double arrived_per_s;        /* at the sink during the window, from any client */
    double p50_s, p999_s, max_s; /* the client's */
    int latency_known;           /* the client had a message answered */
    char no_mail[512]; /* nothing accepted: why, from the client's report ("" otherwise) */
    double e2e_p50_s, e2e_p99_s, e2e_count; /* the relay's, over the whole step */
    int e2e_known;
};

struct sweep {
    const struct sweep_options *opts;
    struct drive d;
    char sink_path[PATH_MAX], source_path[PATH_MAX];
    struct drive_child sink, relay, warm, source;
    struct fsinfo fs;
    char spool_parent_used[PATH_MAX];
    struct sweep_step steps[SWEEP_MAX_RATES];
    unsigned n_steps;
    /* the status line (--progress): what the step under way is doing */
    struct progress_out progress;
    uint64_t start_ns, step_start_ns, next_show_ns;
    double rate;       /* the step's offered rate */
    const char *phase; /* "warm-up", "window", "grace" */
    char workload_sha256[DRIVE_SHA256_HEX]; /* as smtp-source read it; "" until then */
};

/* sweep_options.c: the command line into o, or a usage error (exit status 2). */
void sweep_options_parse(struct sweep_options *o, int argc, char **argv);

/* --target's form: HOST:PORT (a number 1 to 65535 or a service name), [IPv6]:PORT or unix:PATH. */
int sweep_options_target_ok(const char *target);

/* sweep_report.c: the text report on fp; --json (0, or -1 with errno). */
void sweep_report_print(const struct sweep *s, const struct sweep_search *search, FILE *fp);
int sweep_report_write_json(const struct sweep *s, const struct sweep_search *search);

#endif
