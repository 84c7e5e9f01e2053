/*
 * histogram - log-linear latency histogram in constant memory.
 *
 * Values are uint64_t nanoseconds. Values below 256 are counted exactly;
 * above that every power-of-two octave is split into 128 equal buckets, so a
 * reported percentile is within 1/256 (about 0.4%) of a value that was really
 * recorded. A percentile is the midpoint of its bucket clamped to the observed
 * min and max, so the lowest and highest ranks are exact. The struct is
 * public so it can be embedded; it never allocates. Not thread-safe: give
 * each thread its own histogram and merge them.
 */
#ifndef SPOOLSIM_HISTOGRAM_H
#define SPOOLSIM_HISTOGRAM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define HISTOGRAM_SUB_BITS 7
#define HISTOGRAM_SUB_COUNT (1 << HISTOGRAM_SUB_BITS)
/* One exact range [0, 128) plus one 128-bucket row per octave 2^7 .. 2^63. */
#define HISTOGRAM_BUCKETS (HISTOGRAM_SUB_COUNT * (64 - HISTOGRAM_SUB_BITS + 1))

struct histogram {
    uint64_t count;
    uint64_t min; /* UINT64_MAX while empty */
    uint64_t max;
    double sum; /* a double: a uint64_t sum of nanoseconds can overflow */
    uint64_t counts[HISTOGRAM_BUCKETS];
};

struct histogram_summary {
    uint64_t count, min, max, p50, p90, p99, p999;
    double mean;
};

struct json_writer;

void histogram_init(struct histogram *h);
void histogram_record(struct histogram *h, uint64_t value);
void histogram_merge(struct histogram *dst, const struct histogram *src);
/*
 * dst = now - before, where before is an earlier copy of the same
 * histogram: what was recorded in between. Its min and max are not known
 * exactly, so they are the lowest value of its lowest bucket and the
 * highest of its highest, within now's min and max.
 */
void histogram_subtract(struct histogram *dst, const struct histogram *now,
                        const struct histogram *before);

/* On an empty histogram every accessor returns 0. */
uint64_t histogram_count(const struct histogram *h);
uint64_t histogram_min(const struct histogram *h);
uint64_t histogram_max(const struct histogram *h);
double histogram_mean(const struct histogram *h);
/*
 * The smallest v such that at least pct% of the recorded values are <= v
 * (nearest rank); pct is clamped to [0, 100] and 100 gives the exact max.
 */
uint64_t histogram_percentile(const struct histogram *h, double pct);

/*
 * A histogram stored sparsely, as a timeline row keeps one: its non-empty
 * buckets, each an index into counts[] with its count.
 */
struct histogram_bucket {
    uint32_t index;
    uint64_t count;
};
/* The non-empty buckets of h, ascending, into out (room for cap of them): how many there are. */
size_t histogram_buckets(const struct histogram *h, struct histogram_bucket *out, size_t cap);
/* Merge into h the n buckets of a histogram with that min, max and sum. */
void histogram_add_buckets(struct histogram *h, const struct histogram_bucket *b, size_t n,
                           uint64_t min, uint64_t max, double sum);
/* The lowest value of bucket index (as "buckets" in JSON names it). */
uint64_t histogram_bucket_lower(uint32_t index);
/* The bucket whose lowest value is lower: 0 and its index, or -1 if lower starts no bucket. */
int histogram_bucket_at(uint64_t lower, uint32_t *index);
void histogram_summarize(const struct histogram *h, struct histogram_summary *out);

/* One line in milliseconds, "  label        n=... p50=...ms ... mean=...ms". */
void histogram_print_text(FILE *fp, const char *label, const struct histogram *h);
/*
 * An object {"count", "min_ms", "mean_ms", "p50_ms", "p90_ms", "p99_ms",
 * "p99_9_ms", "max_ms", "buckets"}; an empty histogram gives count 0 and
 * zeros. "buckets" is the whole histogram (docs/json.md): {"unit": "ns",
 * "scheme": "log-linear", "sub_bucket_bits": 7, "count", "min", "max",
 * "sum", "counts": [[lower_bound, count], ...]} with the non-empty buckets
 * in ascending order.
 */
void histogram_write_json(struct json_writer *w, const char *key, const struct histogram *h);
/*
 * The histogram histogram_write_json() wrote as the object at path of a
 * JSON text, rebuilt from its "buckets": 0, or -1 (h untouched) if it is
 * missing, of another unit or scheme, or not one a histogram could have
 * (a lower bound that starts no bucket, one listed twice or out of order,
 * counts that do not add up to count, a min or max outside its buckets).
 * Exact for values below 2^53 ns (104 days), which a double holds whole.
 */
int histogram_read_json(const char *text, const char *path, struct histogram *h);
/*
 * The bucket layout alone, for a table of histograms of this layout (a
 * timeline's rows): "unit", "scheme" and "sub_bucket_bits", written in
 * the object open in w; read from the object at path of a JSON text
 * (NULL or "": the top level), 0 when it is this layout, else -1.
 */
void histogram_write_layout_json(struct json_writer *w);
int histogram_read_layout_json(const char *text, const char *path);

#endif
