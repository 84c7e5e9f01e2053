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
#include <stdlib.h>
#include <string.h>

#include "histogram.h"
#include "json.h"
#include "json_read.h"
#include "xalloc.h"

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

void histogram_subtract(struct histogram *dst, const struct histogram *now,
                        const struct histogram *before)
{
    uint64_t width;
    int lo = -1, hi = -1;

    histogram_init(dst);
    for (size_t i = 0; i < HISTOGRAM_BUCKETS; i++) {
        /* A "before" that is not an earlier copy must not wrap a count round. */
        dst->counts[i] =
            now->counts[i] > before->counts[i] ? now->counts[i] - before->counts[i] : 0;
        dst->count += dst->counts[i];
        if (dst->counts[i]) {
            if (lo < 0)
                lo = (int)i;
            hi = (int)i;
        }
    }
    if (dst->count == 0)
        return;
    dst->sum = now->sum > before->sum ? now->sum - before->sum : 0;
    dst->min = histogram_bucket_low((unsigned)lo, &width);
    if (dst->min < now->min)
        dst->min = now->min;
    dst->max = histogram_bucket_low((unsigned)hi, &width) + (width - 1);
    if (dst->max > now->max)
        dst->max = now->max;
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

size_t histogram_buckets(const struct histogram *h, struct histogram_bucket *out, size_t cap)
{
    size_t n = 0;

    for (uint32_t idx = 0; idx < HISTOGRAM_BUCKETS && h->count > 0; idx++) {
        if (h->counts[idx] == 0)
            continue;
        if (n < cap) {
            out[n].index = idx;
            out[n].count = h->counts[idx];
        }
        n++;
    }
    return n;
}

void histogram_add_buckets(struct histogram *h, const struct histogram_bucket *b, size_t n,
                           uint64_t min, uint64_t max, double sum)
{
    uint64_t count = 0;

    for (size_t i = 0; i < n; i++) {
        if (b[i].index >= HISTOGRAM_BUCKETS)
            continue;
        h->counts[b[i].index] += b[i].count;
        count += b[i].count;
    }
    if (count == 0)
        return;
    h->count += count;
    h->sum += sum;
    if (min < h->min)
        h->min = min;
    if (max > h->max)
        h->max = max;
}

uint64_t histogram_bucket_lower(uint32_t index)
{
    uint64_t width;

    return histogram_bucket_low(index, &width);
}

int histogram_bucket_at(uint64_t lower, uint32_t *index)
{
    unsigned idx = histogram_index(lower);
    uint64_t width;

    if (histogram_bucket_low(idx, &width) != lower)
        return -1;
    *index = idx;
    return 0;
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
    json_begin_object(w, "buckets");
    histogram_write_layout_json(w);
    json_uint(w, "count", s.count);
    json_uint(w, "min", s.min);
    json_uint(w, "max", s.max);
    /* Whole nanoseconds: a double's 17 digits, not json_double()'s 9, so the mean survives. */
    json_uint(w, "sum", (uint64_t)llround(h->sum));
    json_begin_array(w, "counts");
    for (unsigned idx = 0; idx < HISTOGRAM_BUCKETS; idx++) {
        uint64_t width;

        if (h->counts[idx] == 0)
            continue;
        json_begin_inline_array(w, NULL);
        json_uint(w, NULL, histogram_bucket_low(idx, &width));
        json_uint(w, NULL, h->counts[idx]);
        json_end_array(w);
    }
    json_end_array(w);
    json_end_object(w);
    json_end_object(w);
}

/* A double read from JSON as a whole uint64_t, or -1. */
static int whole_u64(double v, uint64_t *out)
{
    if (!(v >= 0) || v >= 18446744073709551616.0 || v != floor(v))
        return -1;
    *out = (uint64_t)v;
    return 0;
}

static int read_u64(const char *text, const char *base, const char *key, uint64_t *out)
{
    char path[512];
    double v;

    snprintf(path, sizeof(path), "%s%s", base, key);
    if (json_read_number(text, path, &v) != 0)
        return -1;
    return whole_u64(v, out);
}

/* Counts into h, checked as histogram_read_json() says; h's totals are already set. */
static int fill_buckets(struct histogram *h, const double *rows, long n)
{
    uint64_t total = 0, lower, count, width;
    long prev = -1;
    unsigned idx = 0;

    for (long i = 0; i < n; i++) {
        if (whole_u64(rows[2 * i], &lower) != 0 || whole_u64(rows[2 * i + 1], &count) != 0 ||
            count == 0)
            return -1;
        idx = histogram_index(lower);
        if (histogram_bucket_low(idx, &width) != lower || (long)idx <= prev)
            return -1;
        if (i == 0 && (h->min < lower || h->min > lower + (width - 1)))
            return -1;
        h->counts[idx] = count;
        total += count;
        prev = (long)idx;
    }
    if (total != h->count)
        return -1;
    if (n > 0) {
        uint64_t low = histogram_bucket_low(idx, &width);

        if (h->max < low || h->max > low + (width - 1))
            return -1;
    }
    return 0;
}

void histogram_write_layout_json(struct json_writer *w)
{
    json_string(w, "unit", "ns");
    json_string(w, "scheme", "log-linear");
    json_uint(w, "sub_bucket_bits", HISTOGRAM_SUB_BITS);
}

int histogram_read_layout_json(const char *text, const char *path)
{
    char base[480], str[32], key[512];
    uint64_t bits;

    snprintf(base, sizeof(base), "%s%s", path ? path : "", path && *path ? "." : "");
    snprintf(key, sizeof(key), "%sunit", base);
    if (json_read_string(text, key, str, sizeof(str)) != 0 || strcmp(str, "ns") != 0)
        return -1;
    snprintf(key, sizeof(key), "%sscheme", base);
    if (json_read_string(text, key, str, sizeof(str)) != 0 || strcmp(str, "log-linear") != 0)
        return -1;
    if (read_u64(text, base, "sub_bucket_bits", &bits) != 0 || bits != HISTOGRAM_SUB_BITS)
        return -1;
    return 0;
}

int histogram_read_json(const char *text, const char *path, struct histogram *out)
{
    char buckets[470], base[480], key[512];
    struct histogram *h;
    uint64_t sum;
    double *rows;
    long n;
    int status = -1;

    snprintf(buckets, sizeof(buckets), "%s%sbuckets", path ? path : "", path && *path ? "." : "");
    snprintf(base, sizeof(base), "%s.", buckets);
    if (histogram_read_layout_json(text, buckets) != 0)
        return -1;
    h = xmalloc(sizeof(*h));
    rows = xmalloc(2 * HISTOGRAM_BUCKETS * sizeof(*rows));
    histogram_init(h);
    snprintf(key, sizeof(key), "%scounts", base);
    if (read_u64(text, base, "count", &h->count) == 0 &&
        read_u64(text, base, "min", &h->min) == 0 && read_u64(text, base, "max", &h->max) == 0 &&
        read_u64(text, base, "sum", &sum) == 0 &&
        (n = json_read_number_rows(text, key, 2, rows, HISTOGRAM_BUCKETS)) >= 0) {
        h->sum = (double)sum;
        if (h->count == 0) {
            /* histogram_init()'s empty state, whatever min was written as */
            status = n == 0 && h->max == 0 && sum == 0 ? 0 : -1;
            h->min = UINT64_MAX;
        } else {
            status = h->min <= h->max ? fill_buckets(h, rows, n) : -1;
        }
    }
    if (status == 0)
        *out = *h;
    free(rows);
    free(h);
    return status;
}
