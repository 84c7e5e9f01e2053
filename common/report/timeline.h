/*
 * timeline - what a run did in each interval (--interval), for plotting.
 *
 * A program hands timeline_add() its cumulative counters and its queue
 * depths at the run's start, at every interval boundary and at its end;
 * each call after the first closes one interval, the row from the last
 * point to this one: its start and length, the messages in and out, the
 * failures and fsyncs in it (counts and per-second rates), the latency p50
 * and p99 of what was recorded in it, and the queue depths at its end. A
 * program names the columns it knows (enum timeline_field); the others are
 * null in JSON and empty in CSV. docs/json.md says what each program counts.
 *
 * The same rows are written as JSON (timeline_write_json()) and as CSV
 * (timeline_format_csv()), and read back from the JSON (bench takes the
 * relay's). No I/O but the stream a caller hands in.
 */
#ifndef SPOOLSIM_TIMELINE_H
#define SPOOLSIM_TIMELINE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "histogram.h"

enum timeline_field {
    TIMELINE_IN = 1 << 0,
    TIMELINE_OUT = 1 << 1,
    TIMELINE_FAILURES = 1 << 2,
    TIMELINE_LATENCY = 1 << 3,
    TIMELINE_FSYNCS = 1 << 4,
    TIMELINE_QUEUES = 1 << 5, /* incoming, active, deferred */
};

/* A program's state at one instant: counters since its start, depths now. */
struct timeline_point {
    double t; /* seconds since the run's start */
    uint64_t in, out, failures, fsyncs;
    uint64_t incoming, active, deferred;
};

struct timeline_row {
    double t, interval_s; /* the interval's start (s since the run's start) and length */
    uint64_t messages_in, messages_out, failures, fsyncs;
    uint64_t latency_count, p50_ns, p99_ns; /* of the values recorded in the interval */
    uint64_t incoming, active, deferred;    /* at its end */
    /* The interval's latency histogram, kept sparsely in the timeline's pool (timeline.buckets). */
    uint64_t latency_min, latency_max;
    double latency_sum;
    size_t buckets_at, buckets_n;
};

struct timeline {
    unsigned fields; /* enum timeline_field: the columns known */
    struct timeline_row *rows;
    size_t n, cap;
    int started;
    struct timeline_point last;
    struct histogram *before; /* timeline_add_cumulative(): the histogram at the last point */
    /*
     * Whether rows carry their latency histograms (a timeline fed latency,
     * or read from a JSON with "timeline_latency"): then rows of several
     * timelines merge with exact percentiles.
     */
    int histograms;
    struct histogram_bucket *buckets; /* the rows' non-empty buckets */
    size_t nbuckets, buckets_cap;
};

void timeline_init(struct timeline *tl, unsigned fields);
void timeline_free(struct timeline *tl);

/*
 * The point p; latency holds what was recorded since the last point (NULL
 * for nothing). A point less than a millisecond after the last one closes
 * no interval unless a counter moved (or latency holds something): that is
 * a run ending on a boundary. Counters that went backwards count as no
 * change.
 */
void timeline_add(struct timeline *tl, const struct timeline_point *p,
                  const struct histogram *latency);
/* As timeline_add(), with the run's histogram so far; the timeline keeps a copy between calls. */
void timeline_add_cumulative(struct timeline *tl, const struct timeline_point *p,
                             const struct histogram *cumulative);

/* Row i's latency histogram into h: 0, or -1 if the rows carry none. */
int timeline_row_latency(const struct timeline *tl, size_t i, struct histogram *h);
/*
 * Row si of src into row di of dst: counts and queue depths add; when
 * both carry histograms they merge, and the row's latency_count, p50 and
 * p99 are the merged histogram's (exact, not an average of percentiles).
 * dst's t and interval_s stay.
 */
void timeline_row_add(struct timeline *dst, size_t di, const struct timeline *src, size_t si);
/*
 * src into dst row by row, for timelines of one run ticked at the same
 * instants (threads of one program): row i of each is the same interval.
 * dst grows to src's length; a merged row starts at the earlier start and
 * ends at the later end. dst's fields become those both know.
 */
void timeline_merge(struct timeline *dst, const struct timeline *src);

/*
 * The rows' histograms as the object at key (docs/json.md, "Timelines"):
 * "rows" [[row, count, min, max, sum], ...] for each row with a latency,
 * "counts" [[row, lower_bound, count], ...]. Nothing when the rows carry
 * no histograms.
 */
struct json_writer;
void timeline_write_latency_json(const struct timeline *tl, struct json_writer *w, const char *key);
/*
 * The histograms timeline_write_latency_json() wrote at path into the rows
 * timeline_read_json() read: 0, or -1 (tl without histograms) if it is
 * missing, of another layout, or does not agree with the rows (a row
 * index out of range, a count that is not the row's latency_count, bucket
 * counts that do not add up).
 */
int timeline_read_latency_json(struct timeline *tl, const char *text, const char *path);

/* Every row as an object in an array under key (docs/json.md, "Timelines"). */
void timeline_write_json(const struct timeline *tl, struct json_writer *w, const char *key);

/*
 * The CSV header (row NULL) or one row into buf, ending in "\n": the same
 * columns as the JSON keys, in the same order; the length it needed (as
 * snprintf).
 */
size_t timeline_format_csv(const struct timeline *tl, const struct timeline_row *row, char *buf,
                           size_t len);
/* The header and every row to fp: 0, or -1 if the stream failed. */
int timeline_write_csv(const struct timeline *tl, FILE *fp);
/* The same into the file path ("-": standard output), whole or not at all: 0, or -1 with errno. */
int timeline_save_csv(const struct timeline *tl, const char *path);

/*
 * The rows timeline_write_json() wrote at path of a JSON text into tl
 * (initialized; its rows are replaced): 0, or -1 (tl unchanged) if there is
 * no such array, or an item lacks t or interval_s. A column is known when
 * the first row has it; a null in a known column reads as 0.
 */
int timeline_read_json(struct timeline *tl, const char *text, const char *path);

#endif
