/*
 * merge_data - the results of several smtp-source runs as one (spoolsim
 * merge), with no I/O: the caller hands in each result's JSON text.
 *
 * Exact where it can be: counts add; every latency histogram is rebuilt
 * from its "buckets" and merged bucket by bucket, so a merged percentile
 * is the one a single run with all the samples would report, never an
 * average of percentiles. Rates are over the union of the windows on the
 * wall clock (the first start_time to the last end_time). Timeline rows
 * are put, by their wall-clock start, in the merged interval nearest it,
 * so that hosts started together (--start-at) line up to within their
 * start skew; their counts add, and when every input's rows carry their
 * histograms ("timeline_latency") those add too, so a merged row's p50 and
 * p99 are exact; with an input of an older smtp-source they are left out
 * (null).
 *
 * Refused, with a message naming the result and the problem: a text that
 * is not an smtp-source result (or has no schema_version, or one this
 * program does not read), a histogram of another layout (unit, scheme,
 * sub_bucket_bits) or that does not add up, results with other latency
 * stages or another --interval, a result without start_time, a window
 * that is not its run's (longer or shorter than elapsed_s, or than its
 * timeline's rows; an interval_s smtp-source cannot write), the same run
 * twice (the same --id, or without ids the same host, date, command line
 * and window), and windows that do not all overlap (a merged rate over a
 * gap would be no host's load).
 *
 * A result is read in time linear in its text, whatever it holds.
 */
#ifndef SPOOLSIM_MERGE_DATA_H
#define SPOOLSIM_MERGE_DATA_H

#include <stddef.h>
#include <stdint.h>

#include "histogram.h"
#include "source_counts.h"
#include "timeline.h"

#define MERGE_NAME_MAX 80
#define MERGE_STAGES_MAX 16
#define MERGE_COUNTS_MAX 4096     /* kinds of failure, connect error, code: smtp-source has ~1500 */
#define MERGE_INTERVAL_MIN_S 0.01 /* smtp-source --interval's range */
#define MERGE_INTERVAL_MAX_S 3600.0
#define MERGE_ROWS_MAX 4000000 /* a window's rows, merged or not: 11 hours at 10 ms */
#define MERGE_SLACK_S 0.01     /* a window against elapsed_s and its timeline's rows */

/* Counts by name, as in "failures", "connect_errors", "failures_by_code". */
struct merge_counts {
    size_t n;
    char (*key)[MERGE_NAME_MAX];
    uint64_t *value;
};

/* What the merged report says of each result. */
struct merge_input {
    char name[MERGE_NAME_MAX];   /* the caller's (a file name) */
    char id[MERGE_NAME_MAX];     /* --id, "" without one */
    char target[MERGE_NAME_MAX]; /* as given to that smtp-source */
    char *identity;              /* host, date, window, command line: the run without an id */
    double start, end;           /* the window, Unix seconds */
    struct source_counts counts;
    struct timeline timeline; /* its rows, t from its own start */
};

struct merge {
    size_t n;
    struct merge_input *inputs;
    double start, end;           /* the union of the windows */
    struct source_counts counts; /* the inputs' added up */
    double interval_s;
    size_t stages;
    char stage[MERGE_STAGES_MAX][MERGE_NAME_MAX];
    struct histogram *latency; /* stages of them */
    struct merge_counts failures, connect_errors, by_code;
    struct timeline
        timeline; /* merge_data_finish(): messages_in, messages_out, failures, latency */
};

void merge_data_init(struct merge *m);
void merge_data_free(struct merge *m);

/*
 * One result: 0, or -1 with the reason in err (naming name) and m as it
 * was.
 */
int merge_data_add(struct merge *m, const char *text, const char *name, char *err, size_t errlen);

/*
 * After the last merge_data_add(): the union window and the merged timeline.
 * 0, or -1 with the reason in err (no result, windows that do not overlap).
 */
int merge_data_finish(struct merge *m, char *err, size_t errlen);

/* The union's length, seconds: what the merged rates are over. */
double merge_data_window_s(const struct merge *m);

#endif
