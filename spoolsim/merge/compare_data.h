/*
 * compare_data - stored results side by side: what `spoolsim compare'
 * reads of each and how it sets them against the first.
 *
 * Pure: no I/O, no shared state. A result (one program's JSON, as
 * docs/json.md describes it) gives one or more series, each a headline
 * figure of one program under one name (delivered_per_s for bench and raw,
 * transactions_per_s for postmark, ...) and the figure of every run it
 * holds: one for a single run; every measured run for repeated ones (each
 * side of ab's, each side of bench --compare's, bench -n's). A result
 * that has no figure to compare (a crash test, a merge of nothing) is
 * refused with a message naming why.
 *
 * The first series is the baseline. Each series is summarized by its
 * median, and where it has AB_MIN_RUNS figures or more, the 95 % bootstrap
 * interval of that median (ab_stats_median_interval()); beside the
 * baseline, by the ratio of the medians and, where both sides have runs
 * enough, the 95 % bootstrap interval of that ratio and its verdict, as
 * ab computes them for live runs (ab_stats_compare(), with one seed). A
 * ratio is given only between series of the same metric.
 */
#ifndef SPOOLSIM_COMPARE_DATA_H
#define SPOOLSIM_COMPARE_DATA_H

#include <stddef.h>
#include <stdint.h>

#include "ab_stats.h"
#include "json.h"

#define COMPARE_RUNS_MAX 1000 /* figures of one series: more than ab or bench ever make */
#define COMPARE_SERIES_MAX 64 /* series of one comparison */

struct compare_series {
    char label[512];  /* the file as named, with ":A", ":model" ... for a side */
    char program[64]; /* "spoolsim bench" */
    char metric[64];  /* "delivered_per_s" */
    char unit[32];    /* "msgs/s" */
    double *runs;     /* the figures of the successful runs, in order */
    size_t n;

    /* from compare_data_judge() */
    double median;
    int have_interval; /* the median's own 95 % interval, from n >= AB_MIN_RUNS */
    double ci_low, ci_high;
    int have_ratio;           /* against the baseline (same metric; the baseline has 0) */
    struct ab_result vs_base; /* ratio = this median / baseline's; ci only when have_ratio_ci */
    int have_ratio_ci;
};

struct compare {
    struct compare_series s[COMPARE_SERIES_MAX];
    size_t n;
    uint64_t seed;
};

void compare_data_init(struct compare *c, uint64_t seed);
void compare_data_free(struct compare *c);

/*
 * The series of one result text, labelled after name, added to c: 0, or
 * -1 with why in err (nothing added) when the text is not a result of
 * ours with a figure to compare (not JSON, no program, a program with no
 * headline figure, no successful run), or c has no room left.
 */
int compare_data_add(struct compare *c, const char *text, const char *name, char *err,
                     size_t errlen);

/* The medians, intervals and ratios of every series against the first. */
void compare_data_judge(struct compare *c);

/*
 * One series as a row of the text report (no newline), into buf: label,
 * runs, median [interval], ratio [interval] and its verdict, "-" for what
 * it has not. The baseline says "baseline".
 */
void compare_data_format_row(const struct compare *c, size_t i, char *buf, size_t len);

/* The comparison's keys (docs/json.md, spoolsim compare) into an open object. */
void compare_data_write_json(const struct compare *c, struct json_writer *w);

#endif
