/*
 * check_merge - spoolsim merge's merging: the merged histogram is the
 * histogram of all the samples (so its percentiles are exact), counts
 * add, the rate is over the union of the windows, timeline rows line up
 * on the wall clock, and what cannot be merged is refused.
 */
#include "config.h"

#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check_json_text.h"
#include "check_main.h"
#include "json_meta.h"
#include "merge_data.h"
#include "xalloc.h"

/* One smtp-source result as the test writes it. */
struct spec {
    const char *program, *id;
    double start, end, interval;
    uint64_t attempted, delivered, failed;
    const struct histogram *txn;
    const char *stage2; /* a second stage's name ("connect"), or NULL */
    uint64_t refused;   /* failures_by_code "450@rcpt" */
    int no_start;
    double elapsed; /* elapsed_s when not 0, else end - start */
    double tick;    /* the timer's spacing of the rows when not 0 (late), else interval */
};

static char *result_text(const struct spec *s)
{
    static const struct json_host host = {.name = "h", .cpus = 1};
    static char *argv[] = {"smtp-source", NULL};
    struct json_run run = {s->program, NULL, 1, argv};
    struct json_text t;
    struct json_writer *w = json_text_begin(&t);
    struct histogram empty;
    struct timeline tl;
    struct timeline_point p = {0};

    histogram_init(&empty);
    json_meta_write_with(w, &run, &host, 0);
    json_string(w, "id", s->id);
    json_string(w, "target", "192.0.2.1:25");
    json_double(w, "elapsed_s", s->elapsed != 0 ? s->elapsed : s->end - s->start);
    if (!s->no_start) {
        json_time(w, "start_time", s->start);
        json_time(w, "end_time", s->end);
    }
    json_uint(w, "attempted", s->attempted);
    json_uint(w, "delivered", s->delivered);
    json_uint(w, "failed", s->failed);
    json_uint(w, "bytes", s->delivered * 1000);
    json_uint(w, "recipients", s->delivered);
    json_uint(w, "connections", 2);
    json_uint(w, "tls_sessions", 0);
    json_begin_object(w, "latency");
    if (s->stage2)
        histogram_write_json(w, s->stage2, &empty);
    histogram_write_json(w, "txn", s->txn);
    json_end_object(w);
    json_double(w, "interval_s", s->interval);
    /* rows of interval each, the run's counts spread evenly, the last one shorter */
    timeline_init(&tl, TIMELINE_IN | TIMELINE_OUT | TIMELINE_FAILURES);
    timeline_add(&tl, &p, NULL);
    while (p.t + (s->tick ? s->tick : s->interval) < s->end - s->start) {
        double f;

        p.t += s->tick ? s->tick : s->interval;
        f = p.t / (s->end - s->start);
        p.in = (uint64_t)(f * (double)s->attempted);
        p.out = (uint64_t)(f * (double)s->delivered);
        p.failures = (uint64_t)(f * (double)s->failed);
        timeline_add(&tl, &p, NULL);
    }
    p.t = s->end - s->start;
    p.in = s->attempted;
    p.out = s->delivered;
    p.failures = s->failed;
    timeline_add(&tl, &p, NULL);
    timeline_write_json(&tl, w, "timeline");
    timeline_free(&tl);
    json_begin_object(w, "failures");
    json_uint(w, "reply", s->refused);
    json_uint(w, "connect", s->failed - s->refused);
    json_end_object(w);
    json_begin_object(w, "connect_errors");
    if (s->failed > s->refused)
        json_uint(w, "Connection refused", s->failed - s->refused);
    json_end_object(w);
    json_begin_object(w, "failures_by_code");
    if (s->refused)
        json_uint(w, "450@rcpt", s->refused);
    json_end_object(w);
    return json_text_end(&t);
}

/* A long-tailed sample, reproducible: latencies from 50 us to about a second. */
static uint64_t sample(uint64_t *state)
{
    double u;

    *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
    u = (double)(*state >> 11) / 9007199254740992.0;
    return (uint64_t)(50000.0 * exp(10.0 * u * u));
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

    return x < y ? -1 : x > y;
}

static int add(struct merge *m, const struct spec *s, const char *name, char *err, size_t len)
{
    char *text = result_text(s);
    int rc = merge_data_add(m, text, name, err, len);

    free(text);
    return rc;
}

/* text with the first from made to (malloc'd); from must be there. */
static char *edit(const char *text, const char *from, const char *to)
{
    const char *at = strstr(text, from);
    size_t n = strlen(text) + strlen(to) + 1;
    char *out = xmalloc(n);

    ck_assert_msg(at != NULL, "no %s", from);
    snprintf(out, n, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
    return out;
}

/* merge_data_add() of text as name to a new merge: 0, or -1 with the reason in err. */
static int add_alone(const char *text, const char *name, char *err, size_t len)
{
    struct merge m;
    int rc;

    merge_data_init(&m);
    rc = merge_data_add(&m, text, name, err, len);
    merge_data_free(&m);
    return rc;
}

/*
 * A smtp-source run of id from start to end (wall clock, s) in rows of 1 s: attempted messages,
 * of which failed failed, their latencies in h.
 */
static struct spec run_of(const char *id, double start, double end, uint64_t attempted,
                          uint64_t failed, const struct histogram *h)
{
    struct spec s = {.program = "smtp-source",
                     .id = id,
                     .start = start,
                     .end = end,
                     .interval = 1,
                     .attempted = attempted,
                     .delivered = attempted - failed,
                     .failed = failed,
                     .txn = h};

    return s;
}

/* m, the merge of the n runs (each named by its id); each add and the finish must succeed. */
static void merge_all(struct merge *m, const struct spec *runs, size_t n)
{
    char err[512];

    merge_data_init(m);
    for (size_t i = 0; i < n; i++)
        ck_assert_msg(add(m, &runs[i], runs[i].id, err, sizeof(err)) == 0, "%s", err);
    ck_assert_msg(merge_data_finish(m, err, sizeof(err)) == 0, "%s", err);
}

START_TEST(test_histograms_exact)
{
    enum { N = 3, PER = 4000 };
    static struct histogram h[N], all;
    static uint64_t raw[N * PER];
    static const double pcts[] = {1, 50, 90, 99, 99.9, 100};
    uint64_t state = 42;
    struct merge m;
    struct spec runs[N];
    char ids[N][8];

    histogram_init(&all);
    for (int i = 0; i < N; i++) {
        histogram_init(&h[i]);
        /* different hosts, different loads: the second one's latencies are 3 times longer */
        for (int k = 0; k < PER * (i + 1) / 2; k++) {
            uint64_t v = sample(&state) * (i == 1 ? 3 : 1);

            histogram_record(&h[i], v);
            histogram_record(&all, v);
            raw[histogram_count(&all) - 1] = v;
        }
    }
    for (int i = 0; i < N; i++) {
        snprintf(ids[i], sizeof(ids[i]), "h%d", i);
        runs[i] = run_of(ids[i], 1000 + 0.01 * i, 1010, h[i].count, 0, &h[i]);
    }
    merge_all(&m, runs, N);
    ck_assert_uint_eq(m.stages, 1);
    ck_assert_str_eq(m.stage[0], "txn");
    /* the merged histogram is the histogram of all the samples, bucket for bucket */
    ck_assert_uint_eq(m.latency[0].count, all.count);
    ck_assert_uint_eq(m.latency[0].min, all.min);
    ck_assert_uint_eq(m.latency[0].max, all.max);
    ck_assert(fabs(m.latency[0].sum - all.sum) < 1);
    ck_assert(memcmp(m.latency[0].counts, all.counts, sizeof(all.counts)) == 0);
    /* so its percentiles are the raw ones within the histogram's 1/256 */
    qsort(raw, all.count, sizeof(raw[0]), cmp_u64);
    for (size_t i = 0; i < sizeof(pcts) / sizeof(pcts[0]); i++) {
        uint64_t got = histogram_percentile(&m.latency[0], pcts[i]);
        size_t rank = (size_t)ceil(pcts[i] / 100 * (double)all.count);
        uint64_t want = raw[(rank ? rank : 1) - 1];

        ck_assert_uint_eq(got, histogram_percentile(&all, pcts[i]));
        ck_assert_msg(fabs((double)got - (double)want) <= (double)want / 256 + 1,
                      "p%g: %llu, raw %llu", pcts[i], (unsigned long long)got,
                      (unsigned long long)want);
    }
    /* and not the mean of the hosts' p99s, which the slow host would pull far off */
    {
        double mean_p99 = 0;

        for (int i = 0; i < N; i++)
            mean_p99 += (double)histogram_percentile(&h[i], 99) / N;
        ck_assert(fabs(mean_p99 - (double)histogram_percentile(&all, 99)) >
                  (double)histogram_percentile(&all, 99) / 100);
    }
    merge_data_free(&m);
}
END_TEST

START_TEST(test_counts_and_window)
{
    struct histogram h;
    struct merge m;
    struct spec runs[] = {run_of("a", 1000.0, 1010.0, 100, 3, &h),
                          run_of("b", 1000.2, 1010.5, 50, 0, &h),
                          run_of("c", 1000.1, 1009.8, 31, 1, &h)};
    uint64_t in = 0, out = 0, failed = 0;

    runs[0].refused = 2;
    runs[2].refused = 1;
    histogram_init(&h);
    histogram_record(&h, 2000000);
    merge_all(&m, runs, 3);
    ck_assert_uint_eq(m.n, 3);
    ck_assert_uint_eq(m.counts.attempted, 181);
    ck_assert_uint_eq(m.counts.delivered, 177);
    ck_assert_uint_eq(m.counts.failed, 4);
    ck_assert_uint_eq(m.counts.bytes, 177000);
    ck_assert_uint_eq(m.counts.connections, 6);
    ck_assert_uint_eq(m.latency[0].count, 3);
    /* the union of the windows: 1000.0 to 1010.5 */
    ck_assert(fabs(m.start - 1000.0) < 1e-6 && fabs(m.end - 1010.5) < 1e-6);
    ck_assert(fabs(merge_data_window_s(&m) - 10.5) < 1e-6);
    ck_assert_uint_eq(m.by_code.n, 1);
    ck_assert_str_eq(m.by_code.key[0], "450@rcpt");
    ck_assert_uint_eq(m.by_code.value[0], 3);
    ck_assert_uint_eq(m.failures.n, 2);
    ck_assert_uint_eq(m.failures.value[0] + m.failures.value[1], 4);
    ck_assert_uint_eq(m.connect_errors.n, 1);
    ck_assert_uint_eq(m.connect_errors.value[0], 1);
    /* timeline: 11 rows of the union (the last 0.5 s), the counts add up to the runs' */
    ck_assert_uint_eq(m.timeline.n, 11);
    ck_assert(fabs(m.timeline.rows[10].t - 10) < 1e-9);
    ck_assert(fabs(m.timeline.rows[10].interval_s - 0.5) < 1e-6);
    for (size_t r = 0; r < m.timeline.n; r++) {
        in += m.timeline.rows[r].messages_in;
        out += m.timeline.rows[r].messages_out;
        failed += m.timeline.rows[r].failures;
    }
    ck_assert_uint_eq(in, 181);
    ck_assert_uint_eq(out, 177);
    ck_assert_uint_eq(failed, 4);
    /* each host's first second lands in the first row, whatever its start skew */
    ck_assert_uint_eq(m.timeline.rows[0].messages_in, 10 + 4 + 3);
    merge_data_free(&m);
}
END_TEST

START_TEST(test_timeline_on_the_wall_clock)
{
    struct histogram h;
    struct merge m;
    /* b starts 3 s after a: its first row is the merged row 3 */
    const struct spec runs[] = {run_of("a", 500, 505, 5, 0, &h), run_of("b", 503, 506, 30, 0, &h)};

    histogram_init(&h);
    merge_all(&m, runs, 2);
    ck_assert_uint_eq(m.timeline.n, 6);
    ck_assert_uint_eq(m.timeline.rows[0].messages_in, 1);
    ck_assert_uint_eq(m.timeline.rows[2].messages_in, 1);
    ck_assert_uint_eq(m.timeline.rows[3].messages_in, 1 + 10);
    ck_assert_uint_eq(m.timeline.rows[5].messages_in, 10);
    merge_data_free(&m);
}
END_TEST

/*
 * Runs refused beside test_refused's a.json: how each differs from it (a program, id, stage or
 * interval of its own, or no start_time), its file's name, and a word the message must have.
 */
static const struct {
    const char *name, *program, *id, *stage2;
    double interval;
    int no_start;
    const char *want;
} unlike[] = {
    {"relay.json", "spoolsim relay", "r", NULL, 1, 0, "not of smtp-source"},
    {"again.json", NULL, "a", NULL, 1, 0, "id \"a\" again"},
    {"i.json", NULL, "i", NULL, 0.5, 0, "interval_s"},
    {"st.json", NULL, "st", "connect", 1, 0, "latency stages"},
    {"old.json", NULL, "old", NULL, 1, 1, "start_time"},
};

/* What must be refused, and a word the message must have. */
START_TEST(test_refused)
{
    struct histogram h;
    struct merge m;
    char err[512], *text, *bits;
    const struct spec ok = run_of("a", 100, 110, 1, 0, &h);
    struct spec s;

    histogram_init(&h);
    histogram_record(&h, 1000000);
    merge_data_init(&m);
    ck_assert_msg(add(&m, &ok, "a.json", err, sizeof(err)) == 0, "%s", err);

    for (size_t i = 0; i < sizeof(unlike) / sizeof(unlike[0]); i++) {
        s = ok;
        if (unlike[i].program)
            s.program = unlike[i].program;
        s.id = unlike[i].id;
        s.stage2 = unlike[i].stage2;
        s.interval = unlike[i].interval;
        s.no_start = unlike[i].no_start;
        ck_assert_int_eq(add(&m, &s, unlike[i].name, err, sizeof(err)), -1);
        ck_assert_msg(strstr(err, unlike[i].name) && strstr(err, unlike[i].want), "%s: %s",
                      unlike[i].name, err);
    }

    /* another layout: sub_bucket_bits 5 */
    s = ok;
    s.id = "l";
    text = result_text(&s);
    bits = strstr(text, "\"sub_bucket_bits\": 7");
    ck_assert_ptr_nonnull(bits);
    bits[strlen("\"sub_bucket_bits\": ")] = '5';
    ck_assert_int_eq(merge_data_add(&m, text, "l.json", err, sizeof(err)), -1);
    ck_assert_msg(strstr(err, "another layout") && strstr(err, "sub_bucket_bits 5"), "%s", err);
    /* counts that do not add up */
    bits[strlen("\"sub_bucket_bits\": ")] = '7';
    ck_assert_int_eq(merge_data_add(&m, text, "l.json", err, sizeof(err)), 0);
    free(text);
    s.id = "cut";
    text = result_text(&s);
    text[strlen(text) / 2] = 0;
    ck_assert_int_eq(merge_data_add(&m, text, "cut.json", err, sizeof(err)), -1);
    free(text);

    /* timeline_latency of another layout: named as such, not as rows that disagree */
    {
        static const char *const layouts[][2] = {
            {"\"us\", \"scheme\": \"log-linear\", \"sub_bucket_bits\": 7", "another unit (\"us\""},
            {"\"ns\", \"scheme\": \"log-linear\", \"sub_bucket_bits\": 0", "sub_bucket_bits 0"},
            {"\"ns\", \"scheme\": \"log-linear\", \"sub_bucket_bits\": 64", "sub_bucket_bits 64"},
            {"\"ns\", \"scheme\": \"linear\", \"sub_bucket_bits\": 7",
             "another layout (\"linear\""},
        };
        struct merge m2;

        s = ok;
        s.id = "tl";
        text = result_text(&s);
        for (size_t i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++) {
            size_t n = strlen(text);
            char *doc = xmalloc(n + 256);
            char *end = strrchr(text, '}');

            snprintf(doc, n + 256,
                     "%.*s, \"timeline_latency\": {\"unit\": %s, \"rows\": [], "
                     "\"counts\": []}}",
                     (int)(end - text), text, layouts[i][0]);
            merge_data_init(&m2);
            ck_assert_int_eq(merge_data_add(&m2, doc, "tl.json", err, sizeof(err)), -1);
            ck_assert_msg(strstr(err, "tl.json: timeline_latency.") && strstr(err, layouts[i][1]) &&
                              !strstr(err, "does not agree"),
                          "%s", err);
            merge_data_free(&m2);
            free(doc);
        }
        free(text);
    }

    /* nothing refused changed what was merged: a.json and l.json */
    ck_assert_uint_eq(m.n, 2);
    ck_assert_uint_eq(m.counts.delivered, 2);
    ck_assert_uint_eq(m.latency[0].count, 2);

    /* no overlap: a later run */
    s = ok;
    s.id = "late";
    s.start = 111;
    s.end = 120;
    ck_assert_int_eq(add(&m, &s, "late.json", err, sizeof(err)), 0);
    ck_assert_int_eq(merge_data_finish(&m, err, sizeof(err)), -1);
    ck_assert_msg(strstr(err, "do not overlap") && strstr(err, "late.json"), "%s", err);
    merge_data_free(&m);

    merge_data_init(&m);
    ck_assert_int_eq(merge_data_finish(&m, err, sizeof(err)), -1);
    merge_data_free(&m);
}
END_TEST

/* schema_version: a whole number from 1 to JSON_SCHEMA_VERSION, or the result is refused. */
START_TEST(test_schema_version)
{
    static const char *const bad[] = {"0", "-1", "\"1\"", "1.5", "null", "2", "1e300"};
    struct histogram h;
    const struct spec ok = run_of(NULL, 100, 102, 0, 0, &h);
    char err[512], *text, *edited, value[32];

    histogram_init(&h);
    text = result_text(&ok);
    ck_assert_msg(add_alone(text, "ok.json", err, sizeof(err)) == 0, "%s", err);
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        snprintf(value, sizeof(value), "\"schema_version\": %s", bad[i]);
        edited = edit(text, "\"schema_version\": 1", value);
        ck_assert_int_eq(add_alone(edited, "v.json", err, sizeof(err)), -1);
        ck_assert_msg(strstr(err, "v.json: ") && strstr(err, "schema_version"), "%s: %s", bad[i],
                      err);
        free(edited);
    }
    edited = edit(text, "\"schema_version\"", "\"schema\"");
    ck_assert_int_eq(add_alone(edited, "none.json", err, sizeof(err)), -1);
    ck_assert_msg(strstr(err, "none.json: no schema_version"), "%s", err);
    free(edited);
    free(text);
}
END_TEST

/* A window that is not its run's, or an interval no smtp-source writes. */
START_TEST(test_window_bounded)
{
    static const struct {
        const char *from[2], *to[2], *want;
    } bad[] = {
        /* a window of a billion seconds: elapsed_s says otherwise (and a billion rows) */
        {{"\"start_time\": 100.000000", "\"end_time\": 110.000000"},
         {"\"start_time\": 0", "\"end_time\": 1e9"},
         "not the window"},
        /* a rows' worth of one (1e5 s) with elapsed_s to match: the timeline's ten rows do not */
        {{"\"end_time\": 110.000000", "\"elapsed_s\": 10"},
         {"\"end_time\": 100100", "\"elapsed_s\": 1e5"},
         "timeline of"},
        /* an interval out of smtp-source's range */
        {{"\"interval_s\": 1,", NULL}, {"\"interval_s\": 1e-300,", NULL}, "interval_s"},
        {{"\"interval_s\": 1,", NULL}, {"\"interval_s\": 7200,", NULL}, "interval_s"},
    };
    struct histogram h;
    struct spec s = run_of(NULL, 100, 110, 0, 0, &h);
    char err[512], *text, *edited;

    histogram_init(&h);
    /* elapsed_s that is not end_time - start_time */
    s.elapsed = 5;
    text = result_text(&s);
    ck_assert_int_eq(add_alone(text, "e.json", err, sizeof(err)), -1);
    ck_assert_msg(strstr(err, "e.json") && strstr(err, "elapsed_s"), "%s", err);
    free(text);
    s.elapsed = 0;
    text = result_text(&s);
    ck_assert_msg(add_alone(text, "ok.json", err, sizeof(err)) == 0, "%s", err);
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        char *once = edit(text, bad[i].from[0], bad[i].to[0]);

        edited = bad[i].from[1] ? edit(once, bad[i].from[1], bad[i].to[1]) : xstrdup(once);
        ck_assert_int_eq(add_alone(edited, "w.json", err, sizeof(err)), -1);
        ck_assert_msg(strstr(err, "w.json: ") && strstr(err, bad[i].want), "%zu: %s", i, err);
        free(edited);
        free(once);
    }
    /* a row placed far beyond the window is put in the last one, not converted out of range */
    edited = edit(text, "\"t\": 9,", "\"t\": 1e300,");
    {
        struct merge m;

        merge_data_init(&m);
        ck_assert_msg(merge_data_add(&m, edited, "far.json", err, sizeof(err)) == 0, "%s", err);
        ck_assert_int_eq(merge_data_finish(&m, err, sizeof(err)), 0);
        ck_assert_uint_eq(m.timeline.n, 10);
        merge_data_free(&m);
    }
    free(edited);
    free(text);
}
END_TEST

/*
 * A late --interval timer on a loaded machine: fewer rows than the window
 * has intervals, each longer, the last ending at the window's end. The run
 * is whole (smtp-source wrote one row of 0.514 s at --interval 0.5, which
 * merge refused for "1 row of 0.5 s"); its counts all land.
 */
START_TEST(test_late_rows)
{
    struct histogram h;
    struct merge m;
    struct spec run = run_of("late", 100, 110, 70, 0, &h);
    uint64_t in = 0;

    histogram_init(&h);
    run.tick = 1.5; /* rows at 0, 1.5, ... 9: 7 rows of a 10 s window */
    merge_all(&m, &run, 1);
    for (size_t r = 0; r < m.timeline.n; r++)
        in += m.timeline.rows[r].messages_in;
    ck_assert_uint_eq(in, 70);
    merge_data_free(&m);
}
END_TEST

/* The same run twice without --id: its host, date, command line and window are what tell. */
START_TEST(test_same_run_twice)
{
    struct histogram h;
    struct spec s = run_of(NULL, 100, 110, 1, 0, &h);
    struct merge m;
    char err[512], *text;

    histogram_init(&h);
    histogram_record(&h, 1000);
    merge_data_init(&m);
    ck_assert_msg(add(&m, &s, "a.json", err, sizeof(err)) == 0, "%s", err);
    ck_assert_int_eq(add(&m, &s, "b.json", err, sizeof(err)), -1);
    ck_assert_msg(strstr(err, "b.json: the same run as a.json"), "%s", err);
    /* another window: another run, though all else is alike */
    s.start = 100.5;
    ck_assert_msg(add(&m, &s, "c.json", err, sizeof(err)) == 0, "%s", err);
    /* another host */
    s.start = 100;
    text = result_text(&s);
    {
        char *other = edit(text, "\"name\": \"h\"", "\"name\": \"h2\"");

        ck_assert_msg(merge_data_add(&m, other, "d.json", err, sizeof(err)) == 0, "%s", err);
        free(other);
    }
    free(text);
    ck_assert_uint_eq(m.n, 3);
    ck_assert_uint_eq(m.counts.delivered, 3);
    merge_data_free(&m);
}
END_TEST

/* Counts objects: a key twice, or more kinds than MERGE_COUNTS_MAX, are refused. */
START_TEST(test_counts_refused)
{
    struct histogram h;
    const struct spec s = run_of(NULL, 100, 102, 0, 0, &h);
    char err[512], *text, *edited, *many;
    size_t n = (MERGE_COUNTS_MAX + 1) * 24, used = 0;

    histogram_init(&h);
    text = result_text(&s);
    edited = edit(text, "\"failures\": {", "\"failures\": {\"x\": 1, \"x\": 2, ");
    ck_assert_int_eq(add_alone(edited, "d.json", err, sizeof(err)), -1);
    ck_assert_msg(strstr(err, "d.json: failures: \"x\" twice"), "%s", err);
    free(edited);
    edited = edit(text, "\"failures\": {", "\"failures\": {\"x\": \"1\", ");
    ck_assert_int_eq(add_alone(edited, "s.json", err, sizeof(err)), -1);
    ck_assert_msg(strstr(err, "s.json: failures: \"x\" is not a count"), "%s", err);
    free(edited);
    many = xmalloc(n);
    used = (size_t)snprintf(many, n, "\"failures\": {");
    for (int i = 0; i < MERGE_COUNTS_MAX + 1; i++)
        used += (size_t)snprintf(many + used, n - used, "\"e%d\": 0, ", i);
    edited = edit(text, "\"failures\": {", many);
    ck_assert_int_eq(add_alone(edited, "m.json", err, sizeof(err)), -1);
    ck_assert_msg(strstr(err, "m.json: failures: more than"), "%s", err);
    free(edited);
    free(many);
    free(text);
}
END_TEST

int main(void)
{
    const TTest *const tests[] = {test_histograms_exact,
                                  test_counts_and_window,
                                  test_timeline_on_the_wall_clock,
                                  test_refused,
                                  test_schema_version,
                                  test_window_bounded,
                                  test_same_run_twice,
                                  test_counts_refused,
                                  test_late_rows,
                                  NULL};

    /*
     * 60 s, not Check's 4: test_counts_refused reads a result of 4,097 kinds
     * of failure, about 3 s under the sanitizers, and in CI's sanitizer
     * build, beside another test, it ran out of the 4.
     */
    return check_run_cases("merge", 60, tests, NULL, 0);
}
