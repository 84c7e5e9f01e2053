/*
 * Unit tests for common/report/histogram.c: percentiles against the exact
 * nearest-rank values of the sorted input.
 */
#include "config.h"

#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "histogram.h"
#include "json.h"
#include "check_json_text.h"
#include "check_main.h"
#include "check_memfile.h"

#define NVALUES 100000
/* The documented worst case: half a bucket of width low/128. */
#define MAX_REL_ERR (1.0 / 256.0)

/* splitmix64: deterministic, so a failure reproduces. */
static uint64_t rng_state;

static uint64_t rng_next(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static double rng_unit(void)
{
    return (double)(rng_next() >> 11) / 9007199254740992.0;
}

/* Lognormal around 1 ms (Irwin-Hall normal), clamped to 1 us .. 10 s. */
static uint64_t rng_latency(void)
{
    double z = -6.0, v;

    for (int i = 0; i < 12; i++)
        z += rng_unit();
    v = exp(log(1e6) + 2.5 * z);
    if (v < 1e3)
        v = 1e3;
    if (v > 1e10)
        v = 1e10;
    return (uint64_t)v;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

    return (x > y) - (x < y);
}

static double rel_err(uint64_t got, uint64_t want)
{
    if (want == 0)
        return got == 0 ? 0.0 : INFINITY;
    return fabs((double)got - (double)want) / (double)want;
}

/* Exact nearest rank for permille/10 percent of n sorted values. */
static uint64_t exact_permille(const uint64_t *sorted, size_t n, unsigned permille)
{
    size_t rank = (permille * n + 999) / 1000;

    return sorted[rank ? rank - 1 : 0];
}

START_TEST(test_empty)
{
    struct histogram h;
    struct histogram_summary s;

    histogram_init(&h);
    ck_assert_uint_eq(histogram_count(&h), 0);
    ck_assert_uint_eq(histogram_min(&h), 0);
    ck_assert_uint_eq(histogram_max(&h), 0);
    ck_assert(histogram_mean(&h) == 0.0);
    ck_assert_uint_eq(histogram_percentile(&h, 0.0), 0);
    ck_assert_uint_eq(histogram_percentile(&h, 50.0), 0);
    ck_assert_uint_eq(histogram_percentile(&h, 100.0), 0);
    histogram_summarize(&h, &s);
    ck_assert_uint_eq(s.count + s.min + s.max + s.p50 + s.p90 + s.p99 + s.p999, 0);
    ck_assert(s.mean == 0.0);
}
END_TEST

START_TEST(test_lognormal_percentiles)
{
    static uint64_t values[NVALUES];
    static struct histogram h;
    static const unsigned key[] = {500, 900, 990, 999};
    double sum = 0.0;

    rng_state = 42;
    histogram_init(&h);
    for (size_t i = 0; i < NVALUES; i++) {
        values[i] = rng_latency();
        sum += (double)values[i];
        histogram_record(&h, values[i]);
    }
    qsort(values, NVALUES, sizeof(values[0]), cmp_u64);

    ck_assert_uint_eq(histogram_count(&h), NVALUES);
    ck_assert_uint_eq(histogram_min(&h), values[0]);
    ck_assert_uint_eq(histogram_max(&h), values[NVALUES - 1]);
    ck_assert_uint_eq(histogram_percentile(&h, 100.0), values[NVALUES - 1]);
    ck_assert_uint_eq(histogram_percentile(&h, 0.0), values[0]);
    ck_assert(fabs(histogram_mean(&h) - sum / NVALUES) <= 1e-9 * (sum / NVALUES));

    for (size_t i = 0; i < sizeof(key) / sizeof(key[0]); i++) {
        uint64_t want = exact_permille(values, NVALUES, key[i]);
        uint64_t got = histogram_percentile(&h, key[i] / 10.0);

        ck_assert_msg(rel_err(got, want) <= 0.01, "p%.1f: got %llu want %llu", key[i] / 10.0,
                      (unsigned long long)got, (unsigned long long)want);
    }
    /* Every 0.1% step, against the tighter documented bound. */
    for (unsigned k = 1; k <= 1000; k++) {
        uint64_t want = exact_permille(values, NVALUES, k);
        uint64_t got = histogram_percentile(&h, k / 10.0);

        ck_assert_msg(rel_err(got, want) <= MAX_REL_ERR, "p%.1f: got %llu want %llu", k / 10.0,
                      (unsigned long long)got, (unsigned long long)want);
    }
}
END_TEST

START_TEST(test_small_values_exact)
{
    struct histogram h;

    histogram_init(&h);
    for (uint64_t v = 0; v < 256; v++)
        histogram_record(&h, v);
    /* Rank r (1-based) holds the value r - 1; aim between ranks. */
    for (unsigned r = 1; r <= 256; r++)
        ck_assert_uint_eq(histogram_percentile(&h, (r - 0.5) * 100.0 / 256.0), r - 1);

    histogram_init(&h);
    for (int rep = 0; rep < 10; rep++)
        for (uint64_t v = 0; v < 128; v++)
            histogram_record(&h, v);
    ck_assert_uint_eq(histogram_percentile(&h, 50.0), 63);
    ck_assert_uint_eq(histogram_percentile(&h, 90.0), 115);
    ck_assert_uint_eq(histogram_percentile(&h, 99.0), 126);
    ck_assert_uint_eq(histogram_percentile(&h, 100.0), 127);
}
END_TEST

/*
 * Pin one value between 0 and UINT64_MAX so the min/max clamp cannot help:
 * the median is then the pure bucket estimate, across every octave.
 */
START_TEST(test_bucket_error_all_octaves)
{
    struct histogram h;

    rng_state = 7;
    for (unsigned bit = 0; bit < 64; bit++) {
        uint64_t base = (uint64_t)1 << bit;
        uint64_t noise = bit ? rng_next() >> (64 - bit) : 0;
        uint64_t probes[] = {base, base - 1, base + 1, base + (base >> 1), base | noise};

        for (size_t i = 0; i < sizeof(probes) / sizeof(probes[0]); i++) {
            uint64_t v = probes[i], got;

            histogram_init(&h);
            histogram_record(&h, 0);
            histogram_record(&h, UINT64_MAX);
            histogram_record(&h, v);
            got = histogram_percentile(&h, 50.0);
            if (v < 256)
                ck_assert_uint_eq(got, v);
            else
                ck_assert_msg(rel_err(got, v) <= MAX_REL_ERR, "value %llu reported as %llu",
                              (unsigned long long)v, (unsigned long long)got);
        }
    }
}
END_TEST

START_TEST(test_huge_values)
{
    struct histogram h;
    uint64_t big = UINT64_MAX / 2, got;

    histogram_init(&h);
    histogram_record(&h, big);
    ck_assert_uint_eq(histogram_max(&h), big);
    ck_assert_uint_eq(histogram_percentile(&h, 50.0), big);

    /* 1001 values spaced 1e12 apart below big; the median is i = 500. */
    histogram_init(&h);
    for (uint64_t i = 0; i <= 1000; i++)
        histogram_record(&h, big - i * 1000000000000ULL);
    histogram_record(&h, UINT64_MAX);
    histogram_record(&h, 1);
    got = histogram_percentile(&h, 50.0);
    ck_assert(rel_err(got, big - 500 * 1000000000000ULL) <= 0.01);
    ck_assert_uint_eq(histogram_max(&h), UINT64_MAX);
    ck_assert_uint_eq(histogram_percentile(&h, 100.0), UINT64_MAX);
    ck_assert(histogram_mean(&h) > 0.0);
}
END_TEST

static void assert_same(const struct histogram *x, const struct histogram *y)
{
    struct histogram_summary s1, s2;

    ck_assert(memcmp(x->counts, y->counts, sizeof(x->counts)) == 0);
    histogram_summarize(x, &s1);
    histogram_summarize(y, &s2);
    ck_assert_uint_eq(s1.count, s2.count);
    ck_assert_uint_eq(s1.min, s2.min);
    ck_assert_uint_eq(s1.max, s2.max);
    ck_assert_uint_eq(s1.p50, s2.p50);
    ck_assert_uint_eq(s1.p90, s2.p90);
    ck_assert_uint_eq(s1.p99, s2.p99);
    ck_assert_uint_eq(s1.p999, s2.p999);
    ck_assert_uint_eq(histogram_percentile(x, 12.5), histogram_percentile(y, 12.5));
    ck_assert(fabs(s1.mean - s2.mean) <= 1e-12 * s1.mean);
}

START_TEST(test_merge)
{
    static struct histogram all, a, b, empty;

    rng_state = 99;
    histogram_init(&all);
    histogram_init(&a);
    histogram_init(&b);
    histogram_init(&empty);
    for (int i = 0; i < 20000; i++) {
        uint64_t v = rng_latency();

        histogram_record(&all, v);
        histogram_record(i % 3 ? &a : &b, v);
    }
    histogram_merge(&a, &empty);
    histogram_merge(&a, &b);
    assert_same(&all, &a);

    /* Into an empty histogram: a copy. */
    histogram_merge(&empty, &all);
    ck_assert_uint_eq(histogram_min(&empty), histogram_min(&all));
    ck_assert_uint_eq(histogram_percentile(&empty, 99.0), histogram_percentile(&all, 99.0));
}
END_TEST

static char *capture_text(const char *label, const struct histogram *h)
{
    struct check_memfile m;

    histogram_print_text(check_memfile_open(&m), label, h);
    return check_memfile_text(&m);
}

START_TEST(test_print_text)
{
    struct histogram h;
    char *out;

    histogram_init(&h);
    out = capture_text("connect", &h);
    ck_assert_str_eq(out, "  connect      n=0\n");
    free(out);

    for (int i = 0; i < 1000; i++)
        histogram_record(&h, 123456);
    out = capture_text("connect", &h);
    ck_assert_str_eq(out, "  connect      n=1000  p50=0.123ms p90=0.123ms p99=0.123ms "
                          "p99.9=0.123ms max=0.123ms mean=0.123ms\n");
    free(out);
}
END_TEST

START_TEST(test_write_json)
{
    struct histogram h;
    struct json_text t;
    struct json_writer *w = json_text_begin(&t);
    char *buf;

    histogram_init(&h);
    histogram_record(&h, 1000000);
    histogram_record(&h, 3500000);
    histogram_write_json(w, "connect", &h);
    histogram_init(&h);
    histogram_write_json(w, "empty", &h);
    buf = json_text_end(&t);
    ck_assert_str_eq(buf, "{\n"
                          "  \"connect\": {\n"
                          "    \"count\": 2,\n"
                          "    \"min_ms\": 1,\n"
                          "    \"mean_ms\": 2.25,\n"
                          "    \"p50_ms\": 1,\n"
                          "    \"p90_ms\": 3.5,\n"
                          "    \"p99_ms\": 3.5,\n"
                          "    \"p99_9_ms\": 3.5,\n"
                          "    \"max_ms\": 3.5,\n"
                          "    \"buckets\": {\n"
                          "      \"unit\": \"ns\",\n"
                          "      \"scheme\": \"log-linear\",\n"
                          "      \"sub_bucket_bits\": 7,\n"
                          "      \"count\": 2,\n"
                          "      \"min\": 1000000,\n"
                          "      \"max\": 3500000,\n"
                          "      \"sum\": 4500000,\n"
                          "      \"counts\": [\n"
                          "        [999424, 1],\n"
                          "        [3489792, 1]\n"
                          "      ]\n"
                          "    }\n"
                          "  },\n"
                          "  \"empty\": {\n"
                          "    \"count\": 0,\n"
                          "    \"min_ms\": 0,\n"
                          "    \"mean_ms\": 0,\n"
                          "    \"p50_ms\": 0,\n"
                          "    \"p90_ms\": 0,\n"
                          "    \"p99_ms\": 0,\n"
                          "    \"p99_9_ms\": 0,\n"
                          "    \"max_ms\": 0,\n"
                          "    \"buckets\": {\n"
                          "      \"unit\": \"ns\",\n"
                          "      \"scheme\": \"log-linear\",\n"
                          "      \"sub_bucket_bits\": 7,\n"
                          "      \"count\": 0,\n"
                          "      \"min\": 0,\n"
                          "      \"max\": 0,\n"
                          "      \"sum\": 0,\n"
                          "      \"counts\": []\n"
                          "    }\n"
                          "  }\n"
                          "}\n");
    free(buf);
}
END_TEST

/* h as histogram_write_json() writes it, under the key "h" of an object. */
static char *write_text(const struct histogram *h)
{
    struct json_text t;

    histogram_write_json(json_text_begin(&t), "h", h);
    return json_text_end(&t);
}

/* Two results written, read back and merged: the histogram merged in memory. */
START_TEST(test_read_json_merge)
{
    static struct histogram a, b, merged, ra, rb, rm;
    char *ta, *tb;

    rng_state = 7;
    histogram_init(&a);
    histogram_init(&b);
    for (int i = 0; i < 30000; i++)
        histogram_record(i % 4 ? &a : &b, rng_latency());
    histogram_record(&b, 3); /* the exact buckets too */
    histogram_record(&a, 200);
    merged = a;
    histogram_merge(&merged, &b);
    ta = write_text(&a);
    tb = write_text(&b);
    memset(&ra, 0xa5, sizeof(ra));
    ck_assert_int_eq(histogram_read_json(ta, "h", &ra), 0);
    ck_assert_int_eq(histogram_read_json(tb, "h", &rb), 0);
    assert_same(&ra, &a);
    ck_assert(ra.sum == a.sum);
    rm = ra;
    histogram_merge(&rm, &rb);
    assert_same(&rm, &merged);
    free(ta);
    free(tb);

    /* an empty one reads back as histogram_init() makes it, and merges as nothing */
    histogram_init(&a);
    ta = write_text(&a);
    ck_assert_int_eq(histogram_read_json(ta, "h", &ra), 0);
    ck_assert_uint_eq(ra.count, 0);
    ck_assert_uint_eq(ra.min, UINT64_MAX);
    rm = merged;
    histogram_merge(&rm, &ra);
    assert_same(&rm, &merged);
    free(ta);
}
END_TEST

START_TEST(test_read_json_rejects)
{
    static struct histogram h, before;
    static const char *const bad[] = {
        /* another unit, scheme or resolution */
        "{\"buckets\": {\"unit\": \"us\", \"scheme\": \"log-linear\", \"sub_bucket_bits\": 7, "
        "\"count\": 1, \"min\": 5, \"max\": 5, \"sum\": 5, \"counts\": [[5, 1]]}}",
        "{\"buckets\": {\"unit\": \"ns\", \"scheme\": \"hdr\", \"sub_bucket_bits\": 7, "
        "\"count\": 1, \"min\": 5, \"max\": 5, \"sum\": 5, \"counts\": [[5, 1]]}}",
        "{\"buckets\": {\"unit\": \"ns\", \"scheme\": \"log-linear\", \"sub_bucket_bits\": 8, "
        "\"count\": 1, \"min\": 5, \"max\": 5, \"sum\": 5, \"counts\": [[5, 1]]}}",
        /* 257 starts no bucket: 256 and 258 do */
        "{\"buckets\": {\"unit\": \"ns\", \"scheme\": \"log-linear\", \"sub_bucket_bits\": 7, "
        "\"count\": 1, \"min\": 257, \"max\": 257, \"sum\": 257, \"counts\": [[257, 1]]}}",
        /* counts that do not add up */
        "{\"buckets\": {\"unit\": \"ns\", \"scheme\": \"log-linear\", \"sub_bucket_bits\": 7, "
        "\"count\": 3, \"min\": 5, \"max\": 6, \"sum\": 16, \"counts\": [[5, 1], [6, 1]]}}",
        /* out of order, twice, a zero count */
        "{\"buckets\": {\"unit\": \"ns\", \"scheme\": \"log-linear\", \"sub_bucket_bits\": 7, "
        "\"count\": 2, \"min\": 5, \"max\": 6, \"sum\": 11, \"counts\": [[6, 1], [5, 1]]}}",
        "{\"buckets\": {\"unit\": \"ns\", \"scheme\": \"log-linear\", \"sub_bucket_bits\": 7, "
        "\"count\": 2, \"min\": 5, \"max\": 5, \"sum\": 10, \"counts\": [[5, 1], [5, 1]]}}",
        "{\"buckets\": {\"unit\": \"ns\", \"scheme\": \"log-linear\", \"sub_bucket_bits\": 7, "
        "\"count\": 1, \"min\": 5, \"max\": 6, \"sum\": 5, \"counts\": [[5, 1], [6, 0]]}}",
        /* a min or max outside the buckets */
        "{\"buckets\": {\"unit\": \"ns\", \"scheme\": \"log-linear\", \"sub_bucket_bits\": 7, "
        "\"count\": 1, \"min\": 4, \"max\": 5, \"sum\": 5, \"counts\": [[5, 1]]}}",
        "{\"buckets\": {\"unit\": \"ns\", \"scheme\": \"log-linear\", \"sub_bucket_bits\": 7, "
        "\"count\": 1, \"min\": 5, \"max\": 6, \"sum\": 5, \"counts\": [[5, 1]]}}",
        /* an empty one with leftovers; a fraction; a key missing */
        "{\"buckets\": {\"unit\": \"ns\", \"scheme\": \"log-linear\", \"sub_bucket_bits\": 7, "
        "\"count\": 0, \"min\": 0, \"max\": 0, \"sum\": 0, \"counts\": [[5, 1]]}}",
        "{\"buckets\": {\"unit\": \"ns\", \"scheme\": \"log-linear\", \"sub_bucket_bits\": 7, "
        "\"count\": 1, \"min\": 5, \"max\": 5, \"sum\": 5, \"counts\": [[5, 1.5]]}}",
        "{\"buckets\": {\"unit\": \"ns\", \"scheme\": \"log-linear\", \"sub_bucket_bits\": 7, "
        "\"count\": 1, \"min\": 5, \"max\": 5, \"counts\": [[5, 1]]}}",
        /* the percentiles alone, as results before the buckets were */
        "{\"count\": 1, \"p50_ms\": 1}",
    };
    const char *good = "{\"buckets\": {\"unit\": \"ns\", \"scheme\": \"log-linear\", "
                       "\"sub_bucket_bits\": 7, \"count\": 2, \"min\": 256, \"max\": 259, "
                       "\"sum\": 515, \"counts\": [[256, 1], [258, 1]]}}";

    histogram_init(&h);
    histogram_record(&h, 42);
    before = h;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        ck_assert_msg(histogram_read_json(bad[i], NULL, &h) == -1, "accepted: %s", bad[i]);
        ck_assert(memcmp(&h, &before, sizeof(h)) == 0); /* untouched */
    }
    ck_assert_int_eq(histogram_read_json(good, NULL, &h), 0);
    ck_assert_uint_eq(h.count, 2);
    ck_assert_uint_eq(histogram_max(&h), 259);
    ck_assert_uint_eq(histogram_percentile(&h, 50.0), 256);
}
END_TEST

START_TEST(test_subtract)
{
    static struct histogram before, now, delta, only_after;

    rng_state = 11;
    histogram_init(&before);
    histogram_init(&only_after);
    for (int i = 0; i < 5000; i++)
        histogram_record(&before, rng_latency());
    now = before;
    for (int i = 0; i < 3000; i++) {
        uint64_t v = rng_latency();

        histogram_record(&now, v);
        histogram_record(&only_after, v);
    }
    histogram_subtract(&delta, &now, &before);
    ck_assert(memcmp(delta.counts, only_after.counts, sizeof(delta.counts)) == 0);
    ck_assert_uint_eq(delta.count, 3000);
    ck_assert_uint_eq(histogram_percentile(&delta, 50.0), histogram_percentile(&only_after, 50.0));
    ck_assert_uint_eq(histogram_percentile(&delta, 99.0), histogram_percentile(&only_after, 99.0));
    /* min and max: within their bucket (half a bucket is 1/256 of the value) */
    ck_assert(delta.min <= only_after.min && rel_err(delta.min, only_after.min) <= 2 * MAX_REL_ERR);
    ck_assert(delta.max >= only_after.max && rel_err(delta.max, only_after.max) <= 2 * MAX_REL_ERR);
    ck_assert(fabs(histogram_mean(&delta) - histogram_mean(&only_after)) <=
              1e-6 * histogram_mean(&only_after));
    /* nothing new: empty */
    histogram_subtract(&delta, &now, &now);
    ck_assert_uint_eq(histogram_count(&delta), 0);
    ck_assert_uint_eq(histogram_percentile(&delta, 99.0), 0);
}
END_TEST

int main(void)
{
    const TTest *const tests[] = {test_empty,
                                  test_lognormal_percentiles,
                                  test_small_values_exact,
                                  test_bucket_error_all_octaves,
                                  test_huge_values,
                                  test_merge,
                                  test_print_text,
                                  test_write_json,
                                  test_read_json_merge,
                                  test_read_json_rejects,
                                  test_subtract,
                                  NULL};

    return check_run_cases("histogram", 30, tests, NULL, 0);
}
