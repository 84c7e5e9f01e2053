/*
 * raw_report - the options and results of `spoolsim raw', printed as
 * text and JSON, and its ceiling measurements (raw_ceiling.c).
 */
#ifndef SPOOLSIM_RAW_REPORT_H
#define SPOOLSIM_RAW_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "diskstat.h"
#include "fsinfo.h"
#include "optgroup.h"
#include "json_meta.h"
#include "histogram.h"
#include "pf_spool.h"
#include "spool_runner.h"
#include "timeline.h"

struct raw_options {
    const char *dir;
    const char *profile;
    unsigned workers;
    /* -d -m --size -r, --json, --interval, --csv, --keep, -q, --progress */
    struct optgroup_values common;
    unsigned defer_pct;
    unsigned depth;
    enum profile_sync sync;
    int ceiling;
    const struct json_run *run; /* the command line, for the JSON report */
};

struct raw_result {
    double elapsed_s;
    uint64_t accepted, delivered, deferred;
    struct histogram latency[MEASURE_COUNT];
    /* every --interval: accepted in, delivered out, failures, syncs, the accept latency */
    struct timeline timeline;
    uint64_t ops[OP_KIND_COUNT];
    struct pf_spool_stats pf;
    struct fsinfo fs;
    struct diskstat disk; /* the device's own counts over the run (not the ceilings) */
    /* --ceiling */
    double fsync_ceiling, loop_ceiling; /* operations/s at the same concurrency */
    char error[512];
};

void raw_report_init(struct raw_result *res);

/* Measure the bare limits of `dir' with opts->workers threads for about `seconds'. */
int raw_ceiling(const struct raw_options *opts, const char *dir, double seconds,
                struct raw_result *res);

void raw_report_print(const struct raw_options *o, const struct profile *p,
                      const struct raw_result *res, FILE *fp);
int raw_report_write_json(const struct raw_options *o, const struct profile *p,
                          const struct raw_result *res);

#endif
