/*
 * bench_compare_report - `spoolsim bench --compare MTA': the relay's
 * model of a real MTA against that MTA, side by side (no I/O but the
 * stream and the JSON writer it is given).
 *
 * A prediction is worth what its error is on the user's own disk: each
 * side has the rates of its runs (delivered messages a second, load start
 * to empty queue, and injected), the summary of a side is its median, and
 * the verdict is on the ratio model / real MTA of the delivered medians:
 * the two agree when it is within BENCH_COMPARE_TOLERANCE of 1. With two
 * runs a side or more the ratio has the 95 % bootstrap interval of
 * ab_stats (A the real MTA, B the model), which says how far the verdict
 * itself can be trusted; one run a side has none.
 */
#ifndef SPOOLSIM_BENCH_COMPARE_REPORT_H
#define SPOOLSIM_BENCH_COMPARE_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "ab_stats.h"
#include "json.h"

#define BENCH_COMPARE_RUNS 3       /* --runs' default */
#define BENCH_COMPARE_RUNS_MAX 100 /* --runs' largest */
#define BENCH_COMPARE_TOLERANCE 0.15
#define BENCH_COMPARE_SEED 1 /* the bootstrap's: the same runs give the same interval */

/* What the spool's block device did per message (diskstat.h); NAN where not counted. */
struct bench_compare_disk {
    double bytes_written, write_ios, flushes;
};

struct bench_compare_side {
    double delivered[BENCH_COMPARE_RUNS_MAX]; /* msgs/s, load start to empty queue */
    double injected[BENCH_COMPARE_RUNS_MAX];  /* msgs/s over the client's window */
    struct bench_compare_disk disk[BENCH_COMPARE_RUNS_MAX];
    size_t runs;
};

struct bench_compare {
    const char *mta;                 /* "postfix", "exim" */
    char mta_version[32];            /* as the MTA's runs found it; "" unknown */
    char model_desc[400];            /* the relay's model, as its report names it */
    char model_warning[1200];        /* why the model may not be this machine's; "" */
    struct bench_compare_side model; /* spoolsim relay --model MTA */
    struct bench_compare_side real;  /* the MTA itself */
    /* bench_compare_report_summarize(): */
    double median_model, median_real; /* delivered */
    double injected_model, injected_real;
    struct bench_compare_disk disk_model, disk_real; /* medians of the runs that counted */
    double ratio;      /* median_model / median_real; 0 when a side has no run */
    int have_interval; /* interval: ab_stats' 95 % interval of the ratio */
    struct ab_result interval;
    int agree; /* |ratio - 1| <= BENCH_COMPARE_TOLERANCE */
};

/* Add a run's rates to a side (its disk counts unknown); -1 when the side is full. */
int bench_compare_report_add(struct bench_compare_side *side, double delivered, double injected);

/*
 * The disk counts of the run added last: the disk does the same work for
 * the model and the MTA, or it does not, and a rate alone cannot say.
 */
void bench_compare_report_add_disk(struct bench_compare_side *side,
                                   const struct bench_compare_disk *disk);

/* The medians, the ratio, its interval and the verdict: 0, or -1 when a side has no run. */
int bench_compare_report_summarize(struct bench_compare *c);

/* The verdict in one line, e.g. "agree: the model is 4 % slower than the real postfix ...". */
void bench_compare_report_verdict(const struct bench_compare *c, char *buf, size_t len);

/* The text report: the runs, the medians, the ratio, the verdict. */
void bench_compare_report_print(const struct bench_compare *c, const char *spool_desc, FILE *fp);

/* The same into an open JSON object (json_meta_begin()'s). */
void bench_compare_report_write_json(const struct bench_compare *c, struct json_writer *w);

#endif
