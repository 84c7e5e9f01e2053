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
 * is not an smtp-source result (or of a later schema), a histogram of
 * another layout (unit, scheme, sub_bucket_bits) or that does not add up,
 * results with other latency stages or another --interval, a result
 * without start_time, the same --id twice, and windows that do not all
 * overlap (a merged rate over a gap would be no host's load).
 */
#ifndef SPOOLSIM_MERGE_DATA_H
#define SPOOLSIM_MERGE_DATA_H

#include <stddef.h>
#include <stdint.h>

#include "histogram.h"
#include "timeline.h"

#define MERGE_NAME_MAX 80
#define MERGE_STAGES_MAX 16

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
    double start, end;           /* the window, Unix seconds */
    uint64_t attempted, delivered, failed;
    struct timeline timeline; /* its rows, t from its own start */
};

struct merge {
    size_t n;
    struct merge_input *inputs;
    double start, end; /* the union of the windows */
    uint64_t attempted, delivered, failed, bytes, recipients, connections, tls_sessions;
    double interval_s;
    size_t stages;
    char stage[MERGE_STAGES_MAX][MERGE_NAME_MAX];
    struct histogram *latency; /* stages of them */
    struct merge_counts failures, connect_errors, by_code;
    struct timeline timeline; /* merge_finish(): messages_in, messages_out, failures, latency */
};

void merge_init(struct merge *m);
void merge_free(struct merge *m);

/*
 * One result: 0, or -1 with the reason in err (naming name) and m as it
 * was.
 */
int merge_add(struct merge *m, const char *text, const char *name, char *err, size_t errlen);

/*
 * After the last merge_add(): the union window and the merged timeline.
 * 0, or -1 with the reason in err (no result, windows that do not overlap).
 */
int merge_finish(struct merge *m, char *err, size_t errlen);

/* The union's length, seconds: what the merged rates are over. */
double merge_window_s(const struct merge *m);

#endif
