/*
 * histogram - log-linear latency histogram; see histogram.h.
 *
 * Bucket layout: index v for v < 128; otherwise, with k the position of the
 * top bit of v (7..63), row k-6 of 128 buckets, each 2^(k-7) wide. Row 1 has
 * width 1, so every value below 256 has a bucket of its own.
 */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "histogram.h"
#include "json.h"

static unsigned histogram_top_bit(uint64_t v)
{
    return 63u - (unsigned)__builtin_clzll(v);
}

static unsigned histogram_index(uint64_t v)
{
    unsigned shift;

    if (v < HISTOGRAM_SUB_COUNT)
        return (unsigned)v;
    shift = histogram_top_bit(v) - HISTOGRAM_SUB_BITS;
    return (shift + 1) * HISTOGRAM_SUB_COUNT + (unsigned)((v >> shift) - HISTOGRAM_SUB_COUNT);
}

/* Lowest value of bucket idx; *width gets how many values it holds. */
static uint64_t histogram_bucket_low(unsigned idx, uint64_t *width)
{
    unsigned shift;

    if (idx < HISTOGRAM_SUB_COUNT) {
        *width = 1;
        return idx;
    }
    shift = idx / HISTOGRAM_SUB_COUNT - 1;
    *width = (uint64_t)1 << shift;
    return (uint64_t)(HISTOGRAM_SUB_COUNT + idx % HISTOGRAM_SUB_COUNT) << shift;
}

void histogram_init(struct histogram *h)
{
    memset(h, 0, sizeof(*h));
    h->min = UINT64_MAX;
}

void histogram_record(struct histogram *h, uint64_t value)
{
    h->counts[histogram_index(value)]++;
    h->count++;
    h->sum += (double)value;
    if (value < h->min)
        h->min = value;
    if (value > h->max)
        h->max = value;
}

void histogram_merge(struct histogram *dst, const struct histogram *src)
{
    if (src->count == 0)
        return;
    for (size_t i = 0; i < HISTOGRAM_BUCKETS; i++)
        dst->counts[i] += src->counts[i];
    dst->count += src->count;
    dst->sum += src->sum;
    if (src->min < dst->min)
        dst->min = src->min;
    if (src->max > dst->max)
        dst->max = src->max;
}

uint64_t histogram_count(const struct histogram *h)
{
    return h->count;
}

uint64_t histogram_min(const struct histogram *h)
{
    return h->count ? h->min : 0;
}

uint64_t histogram_max(const struct histogram *h)
{
    return h->max;
}

double histogram_mean(const struct histogram *h)
{
    return h->count ? h->sum / (double)h->count : 0.0;
}

/* The 1-based nearest rank for pct, in [1, count]; count must be > 0. */
static uint64_t histogram_rank(uint64_t count, double pct)
{
    double x, r;

    if (!(pct > 0.0)) /* also catches NaN */
        return 1;
    if (pct >= 100.0)
        return count;
    x = pct / 100.0 * (double)count;
    /*
     * 99.9 has no exact binary form, so 99.9% of 100000 comes out as
     * 99900.00000000001; without this snap ceil() would be one rank too high.
     */
    r = nearbyint(x);
    if (fabs(x - r) <= x * 1e-9)
        x = r;
    x = ceil(x);
    if (x < 1.0)
        return 1;
    if (x >= (double)count)
        return count;
    return (uint64_t)x;
}

uint64_t histogram_percentile(const struct histogram *h, double pct)
{
    uint64_t rank, seen = 0, width, low, value;
    unsigned idx;

    if (h->count == 0)
        return 0;
    rank = histogram_rank(h->count, pct);
    /* The extreme ranks are known exactly; no need to estimate them. */
    if (rank == 1)
        return h->min;
    if (rank == h->count)
        return h->max;
    for (idx = 0; idx < HISTOGRAM_BUCKETS - 1; idx++) {
        seen += h->counts[idx];
        if (seen >= rank)
            break;
    }
    low = histogram_bucket_low(idx, &width);
    value = low + (width - 1) / 2;
    if (value < h->min)
        value = h->min;
    if (value > h->max)
        value = h->max;
    return value;
}

void histogram_summarize(const struct histogram *h, struct histogram_summary *out)
{
    out->count = histogram_count(h);
    out->min = histogram_min(h);
    out->max = histogram_max(h);
    out->p50 = histogram_percentile(h, 50.0);
    out->p90 = histogram_percentile(h, 90.0);
    out->p99 = histogram_percentile(h, 99.0);
    out->p999 = histogram_percentile(h, 99.9);
    out->mean = histogram_mean(h);
}

static double histogram_ms(uint64_t ns)
{
    return (double)ns / 1e6;
}

void histogram_print_text(FILE *fp, const char *label, const struct histogram *h)
{
    struct histogram_summary s;

    histogram_summarize(h, &s);
    if (s.count == 0) {
        fprintf(fp, "  %-12s n=0\n", label);
        return;
    }
    fprintf(fp,
            "  %-12s n=%" PRIu64 "  p50=%.3fms p90=%.3fms p99=%.3fms p99.9=%.3fms"
            " max=%.3fms mean=%.3fms\n",
            label, s.count, histogram_ms(s.p50), histogram_ms(s.p90), histogram_ms(s.p99),
            histogram_ms(s.p999), histogram_ms(s.max), s.mean / 1e6);
}

void histogram_write_json(struct json_writer *w, const char *key, const struct histogram *h)
{
    struct histogram_summary s;

    histogram_summarize(h, &s);
    json_begin_object(w, key);
    json_uint(w, "count", s.count);
    json_double(w, "min_ms", histogram_ms(s.min));
    json_double(w, "mean_ms", s.mean / 1e6);
    json_double(w, "p50_ms", histogram_ms(s.p50));
    json_double(w, "p90_ms", histogram_ms(s.p90));
    json_double(w, "p99_ms", histogram_ms(s.p99));
    json_double(w, "p99_9_ms", histogram_ms(s.p999));
    json_double(w, "max_ms", histogram_ms(s.max));
    json_end_object(w);
}
