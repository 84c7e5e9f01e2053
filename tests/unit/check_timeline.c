/*
 * Unit tests for common/report/timeline.c: rows from points, the JSON and CSV
 * forms of them, and the JSON read back.
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
#include "timeline.h"
#include "check_json_text.h"
#include "check_main.h"
#include "check_memfile.h"

static const unsigned all_fields = TIMELINE_IN | TIMELINE_OUT | TIMELINE_FAILURES |
                                   TIMELINE_LATENCY | TIMELINE_FSYNCS | TIMELINE_QUEUES;

static char *json_text(const struct timeline *tl)
{
    struct json_text t;

    timeline_write_json(tl, json_text_begin(&t), "timeline");
    return json_text_end(&t);
}

static char *csv_text(const struct timeline *tl)
{
    struct check_memfile m;

    ck_assert_int_eq(timeline_write_csv(tl, check_memfile_open(&m)), 0);
    return check_memfile_text(&m);
}

/* Two intervals: 1 s with 10 in, 8 out, latency 1..10 ms; 0.5 s with 4 in and a failure. */
static void two_intervals(struct timeline *tl, unsigned fields)
{
    /* t; the counters: in, out, failures, fsyncs; the queues: incoming, active, deferred */
    static const struct timeline_point points[] = {
        {0, 0, 0, 0, 0, 0, 0, 0},
        {1.0, 10, 8, 0, 20, 2, 1, 0},
        {1.5, 14, 8, 1, 28, 5, 3, 1},
    };
    static struct histogram h;

    histogram_init(&h);
    for (uint64_t i = 1; i <= 10; i++)
        histogram_record(&h, i * 1000000);
    timeline_init(tl, fields);
    /* the latencies are the first interval's, the one that ends at points[1] */
    for (size_t i = 0; i < sizeof(points) / sizeof(points[0]); i++)
        timeline_add(tl, &points[i], i == 1 ? &h : NULL);
}

START_TEST(test_rows)
{
    /* the counters as differences over the interval, the queues as they stood at its end */
    static const struct {
        double t, interval_s;
        uint64_t in, out, failures, fsyncs, latency_count, incoming, active, deferred;
    } want[] = {
        {0, 1.0, 10, 8, 0, 20, 10, 2, 1, 0},
        {1.0, 0.5, 4, 0, 1, 8, 0, 5, 3, 1},
    };
    struct timeline tl;

    two_intervals(&tl, all_fields);
    ck_assert_uint_eq(tl.n, 2);
    for (size_t i = 0; i < 2; i++) {
        const struct timeline_row *r = &tl.rows[i];

        ck_assert(r->t == want[i].t && r->interval_s == want[i].interval_s);
        ck_assert_uint_eq(r->messages_in, want[i].in);
        ck_assert_uint_eq(r->messages_out, want[i].out);
        ck_assert_uint_eq(r->failures, want[i].failures);
        ck_assert_uint_eq(r->fsyncs, want[i].fsyncs);
        ck_assert_uint_eq(r->latency_count, want[i].latency_count);
        ck_assert_uint_eq(r->incoming, want[i].incoming);
        ck_assert_uint_eq(r->active, want[i].active);
        ck_assert_uint_eq(r->deferred, want[i].deferred);
    }
    ck_assert_uint_eq(tl.rows[0].p50_ns,
                      5000000 - 5000000 % 32768 + 16383); /* its bucket's midpoint */
    ck_assert_uint_eq(tl.rows[0].p99_ns, 10000000);       /* the highest rank: max */
    timeline_free(&tl);
}
END_TEST

START_TEST(test_no_time_no_row)
{
    struct timeline tl;
    struct timeline_point p = {.t = 3, .in = 5};

    timeline_init(&tl, TIMELINE_IN);
    timeline_add(&tl, &p, NULL);
    timeline_add(&tl, &p, NULL); /* the end at the instant of the last boundary: nothing */
    ck_assert_uint_eq(tl.n, 0);
    p.t = 3.0005;
    timeline_add(&tl, &p, NULL); /* or half a millisecond after it */
    ck_assert_uint_eq(tl.n, 0);
    p.t = 3;
    p.in = 4; /* a counter going backwards is no change */
    timeline_add(&tl, &p, NULL);
    ck_assert_uint_eq(tl.n, 0);
    p.t = 4;
    p.in = 9;
    timeline_add(&tl, &p, NULL);
    ck_assert_uint_eq(tl.n, 1);
    ck_assert_uint_eq(tl.rows[0].messages_in, 4); /* from the last point it kept, 5 */
    ck_assert(tl.rows[0].t == 3 && tl.rows[0].interval_s == 1);
    timeline_free(&tl);
}
END_TEST

/* The interval's part of a growing histogram: as if only it had been recorded. */
START_TEST(test_cumulative)
{
    static struct histogram run, part;
    struct timeline tl;
    struct timeline_point p = {0};

    timeline_init(&tl, TIMELINE_LATENCY);
    histogram_init(&run);
    histogram_init(&part);
    timeline_add_cumulative(&tl, &p, &run);
    for (uint64_t i = 0; i < 1000; i++)
        histogram_record(&run, 100000 + i);
    p.t = 1;
    timeline_add_cumulative(&tl, &p, &run);
    for (uint64_t i = 0; i < 100; i++) {
        histogram_record(&run, 50000000 + 1000 * i);
        histogram_record(&part, 50000000 + 1000 * i);
    }
    p.t = 2;
    timeline_add_cumulative(&tl, &p, &run);
    ck_assert_uint_eq(tl.n, 2);
    ck_assert_uint_eq(tl.rows[0].latency_count, 1000);
    ck_assert(tl.rows[0].p99_ns < 110000);
    ck_assert_uint_eq(tl.rows[1].latency_count, 100);
    /*
     * Within half a bucket of the interval's own: the part's min is not
     * known exactly, only its bucket, so the clamp to it differs.
     */
    ck_assert(llabs((long long)tl.rows[1].p50_ns - (long long)histogram_percentile(&part, 50)) <=
              (long long)histogram_percentile(&part, 50) / 256);
    ck_assert(tl.rows[1].p99_ns > 50000000);
    timeline_free(&tl);
}
END_TEST

START_TEST(test_csv)
{
    struct timeline tl;
    char *text;

    two_intervals(&tl, all_fields);
    text = csv_text(&tl);
    ck_assert_str_eq(text, "t,interval_s,messages_in,messages_in_per_s,messages_out,"
                           "messages_out_per_s,failures,latency_count,p50_ms,p99_ms,fsyncs,"
                           "fsyncs_per_s,incoming,active,deferred\n"
                           "0,1,10,10,8,8,0,10,4.997119,10,20,20,2,1,0\n"
                           "1,0.5,4,8,0,0,1,0,,,8,16,5,3,1\n");
    free(text);
    timeline_free(&tl);
    /* a program that knows less leaves the rest empty */
    two_intervals(&tl, TIMELINE_IN | TIMELINE_OUT);
    text = csv_text(&tl);
    ck_assert_str_eq(strchr(text, '\n') + 1, "0,1,10,10,8,8,,,,,,,,,\n"
                                             "1,0.5,4,8,0,0,,,,,,,,,\n");
    free(text);
    timeline_free(&tl);
}
END_TEST

START_TEST(test_json_and_back)
{
    struct timeline tl, back;
    char *text, *again;

    two_intervals(&tl, TIMELINE_IN | TIMELINE_LATENCY | TIMELINE_QUEUES);
    text = json_text(&tl);
    ck_assert_ptr_nonnull(strstr(text, "\"p50_ms\": 4.997119,"));
    ck_assert_ptr_nonnull(strstr(text, "\"messages_out\": null,"));
    ck_assert_ptr_nonnull(strstr(text, "\"messages_in_per_s\": 8,")); /* 4 in 0.5 s */
    ck_assert_ptr_nonnull(strstr(text, "\"latency_count\": 0,\n      \"p50_ms\": null,"));
    timeline_init(&back, 0);
    ck_assert_int_eq(timeline_read_json(&back, text, "timeline"), 0);
    ck_assert_uint_eq(back.fields, TIMELINE_IN | TIMELINE_LATENCY | TIMELINE_QUEUES);
    ck_assert_uint_eq(back.n, 2);
    again = json_text(&back);
    ck_assert_str_eq(again, text);
    free(again);
    free(text);
    timeline_free(&back);
    timeline_free(&tl);
}
END_TEST

START_TEST(test_read_rejects)
{
    struct timeline tl;

    timeline_init(&tl, TIMELINE_IN);
    ck_assert_int_eq(timeline_read_json(&tl, "{\"timeline\": [{\"interval_s\": 1}]}", "timeline"),
                     -1);
    ck_assert_int_eq(
        timeline_read_json(&tl, "{\"timeline\": [{\"t\": 0, \"interval_s\": 1}, 5]}", "timeline"),
        -1);
    ck_assert_int_eq(timeline_read_json(&tl, "{\"queue_depth\": []}", "timeline"), -1);
    ck_assert_uint_eq(tl.fields, TIMELINE_IN); /* untouched */
    ck_assert_int_eq(timeline_read_json(&tl, "{\"timeline\": []}", "timeline"), 0);
    ck_assert_uint_eq(tl.n, 0);
    timeline_free(&tl);
}
END_TEST

/* One row of n latencies lo, lo+step, ... (ms) over [t, t + 1). */
static void one_row(struct timeline *tl, double t, uint64_t n, uint64_t lo_ms, uint64_t step_ms)
{
    static struct histogram h;
    struct timeline_point p = {.t = t};

    if (!tl->started)
        timeline_add(tl, &p, NULL);
    histogram_init(&h);
    for (uint64_t i = 0; i < n; i++)
        histogram_record(&h, (lo_ms + i * step_ms) * 1000000);
    p = tl->last;
    p.t += 1.0;
    p.in += n;
    p.out += n;
    timeline_add(tl, &p, &h);
}

/* Two threads' rows merge with the percentiles of all their samples, not an average. */
START_TEST(test_merge_exact)
{
    struct timeline a, b;
    static struct histogram all, got;

    timeline_init(&a, all_fields);
    timeline_init(&b, all_fields);
    one_row(&a, 0, 90, 1, 0);   /* 90 samples of 1 ms */
    one_row(&b, 0, 10, 100, 1); /* 10 of 100..109 ms */
    one_row(&b, 0, 5, 7, 0);    /* b has a second row, a none */
    histogram_init(&all);
    for (int i = 0; i < 90; i++)
        histogram_record(&all, 1000000);
    for (uint64_t i = 0; i < 10; i++)
        histogram_record(&all, (100 + i) * 1000000);
    timeline_merge(&a, &b);
    ck_assert_uint_eq(a.n, 2);
    ck_assert_uint_eq(a.rows[0].messages_out, 100);
    ck_assert_uint_eq(a.rows[0].latency_count, 100);
    ck_assert_uint_eq(a.rows[0].p50_ns, histogram_percentile(&all, 50));
    ck_assert_uint_eq(a.rows[0].p99_ns, histogram_percentile(&all, 99));
    ck_assert_uint_gt(a.rows[0].p99_ns, 100000000); /* the 99th of all is one of b's */
    ck_assert_uint_eq(a.rows[1].latency_count, 5);
    ck_assert_int_eq(timeline_row_latency(&a, 0, &got), 0);
    ck_assert_uint_eq(histogram_count(&got), 100);
    ck_assert_uint_eq(histogram_max(&got), histogram_max(&all));
    timeline_free(&a);
    timeline_free(&b);
}
END_TEST

/* The rows' histograms survive JSON; a pool that disagrees with the rows is refused. */
START_TEST(test_latency_json)
{
    struct timeline a, back;
    struct json_text t;
    struct json_writer *w;
    static struct histogram h1, h2;
    char *text, *bad;

    timeline_init(&a, all_fields);
    one_row(&a, 0, 30, 2, 3);
    one_row(&a, 0, 0, 0, 0);
    one_row(&a, 0, 7, 50, 1);
    w = json_text_begin(&t);
    timeline_write_json(&a, w, "timeline");
    timeline_write_latency_json(&a, w, "timeline_latency");
    text = json_text_end(&t);
    timeline_init(&back, 0);
    ck_assert_int_eq(timeline_read_json(&back, text, "timeline"), 0);
    ck_assert_int_eq(timeline_row_latency(&back, 0, &h1), -1); /* not read yet */
    ck_assert_int_eq(timeline_read_latency_json(&back, text, "timeline_latency"), 0);
    for (size_t i = 0; i < a.n; i++) {
        ck_assert_int_eq(timeline_row_latency(&a, i, &h1), 0);
        ck_assert_int_eq(timeline_row_latency(&back, i, &h2), 0);
        ck_assert_uint_eq(histogram_count(&h1), histogram_count(&h2));
        ck_assert_uint_eq(histogram_percentile(&h1, 99), histogram_percentile(&h2, 99));
        ck_assert_uint_eq(histogram_min(&h1), histogram_min(&h2));
    }
    /* the third row's count said as 8, not 7 */
    bad = strdup(text);
    ck_assert_ptr_nonnull(strstr(bad, "[2, 7,"));
    strstr(bad, "[2, 7,")[4] = '8';
    ck_assert_int_eq(timeline_read_latency_json(&back, bad, "timeline_latency"), -1);
    ck_assert_int_eq(back.histograms, 0);
    ck_assert_int_eq(timeline_read_latency_json(&back, text, "nothing"), -1);
    free(bad);
    free(text);
    timeline_free(&a);
    timeline_free(&back);
}
END_TEST

int main(void)
{
    const TTest *const tests[] = {test_rows,        test_no_time_no_row, test_cumulative,
                                  test_csv,         test_json_and_back,  test_read_rejects,
                                  test_merge_exact, test_latency_json,   NULL};

    return check_run_tests("timeline", tests);
}
