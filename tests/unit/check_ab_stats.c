/*
 * Unit tests for common/report/ab_stats.c: medians, the bootstrap interval of
 * the ratio of medians, and the verdict text of `spoolsim ab'.
 */
#include "config.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ab_export.h"
#include "ab_stats.h"
#include "check_main.h"
#include "workload.h"

#define N(v) (sizeof(v) / sizeof((v)[0]))

/* n figures around `centre', spread uniformly over +-spread, from a fixed seed. */
static void around(double *v, size_t n, double centre, double spread, uint64_t seed)
{
    struct prng p;

    workload_prng_seed(&p, seed);
    for (size_t i = 0; i < n; i++)
        v[i] = centre + spread * (2 * workload_prng_uniform01(&p) - 1);
}

static int starts_with(const char *text, const char *prefix)
{
    return strncmp(text, prefix, strlen(prefix)) == 0;
}

/* ---------------------------------------------------------------- median */

START_TEST(test_median_odd)
{
    static const double v[] = {5, 1, 4, 2, 3};
    double copy[N(v)];

    memcpy(copy, v, sizeof(v));
    ck_assert_double_eq(ab_stats_median(v, N(v)), 3);
    ck_assert_mem_eq(copy, v, sizeof(v)); /* the caller's order is kept */
    ck_assert_double_eq(ab_stats_median((const double[]){7.5}, 1), 7.5);
}
END_TEST

START_TEST(test_median_even)
{
    ck_assert_double_eq(ab_stats_median((const double[]){4, 1, 3, 2}, 4), 2.5);
    ck_assert_double_eq(ab_stats_median((const double[]){10, 20}, 2), 15);
    /* Ties and an outlier the median ignores. */
    ck_assert_double_eq(ab_stats_median((const double[]){1000, 1000, 999, 1001, 1e9, 1}, 6), 1000);
}
END_TEST

/* --------------------------------------------------------------- compare */

START_TEST(test_identical_samples)
{
    double a[5], b[5];
    struct ab_result r;
    char text[256];

    for (size_t i = 0; i < 5; i++)
        a[i] = b[i] = 1000;
    ck_assert_int_eq(ab_stats_compare(a, 5, b, 5, 1, &r), 0);
    ck_assert_double_eq(r.ratio, 1);
    ck_assert(r.ci_low <= 1 && r.ci_high >= 1);
    ck_assert_int_eq(r.outcome, AB_NO_DIFFERENCE);
    ab_stats_verdict(&r, text, sizeof(text));
    ck_assert_str_eq(text, "no difference detectable at this sample size (B/A = 1.00, 95 % CI "
                           "1.00–1.00, 5 runs each)");

    /* The same spread-out figures on both sides: the interval straddles 1. */
    around(a, 5, 1000, 50, 7);
    memcpy(b, a, sizeof(a));
    ck_assert_int_eq(ab_stats_compare(a, 5, b, 5, 1, &r), 0);
    ck_assert_double_eq(r.ratio, 1);
    ck_assert(r.ci_low < 1 && r.ci_high > 1);
    ck_assert_int_eq(r.outcome, AB_NO_DIFFERENCE);
    ab_stats_verdict(&r, text, sizeof(text));
    ck_assert_msg(
        starts_with(text, "no difference detectable at this sample size (B/A = 1.00, 95 % CI "),
        "got: %s", text);
}
END_TEST

/*
 * Ten runs around 1000 against ten around 400, one way round and the
 * other (the same figures): B/A, 0.4 or 2.5, and its interval well away
 * from 1; the verdict says the factor, 2.5 both ways.
 */
static const struct clear_case {
    double a_centre, b_centre;
    uint64_t a_seed, b_seed;
    enum ab_outcome outcome;
    double ratio, ci_above, ci_below;
    const char *starts;
} clear_cases[] = {
    {1000, 400, 1, 2, AB_B_SLOWER, 0.4, 0.37, 0.43, "B is 2.5× slower than A (95 % CI 2."},
    {400, 1000, 2, 1, AB_B_FASTER, 2.5, 2.3, 2.7, "B is 2.5× faster than A (95 % CI 2."},
};

START_TEST(test_b_clearly_different)
{
    const struct clear_case *c = &clear_cases[_i];
    double a[10], b[10];
    struct ab_result r;
    char text[256];

    around(a, 10, c->a_centre, 10, c->a_seed);
    around(b, 10, c->b_centre, 10, c->b_seed);
    ck_assert_int_eq(ab_stats_compare(a, 10, b, 10, 1, &r), 0);
    ck_assert_int_eq(r.outcome, c->outcome);
    ck_assert_msg(fabs(r.ratio - c->ratio) < c->ratio / 20, "ratio %g", r.ratio);
    ck_assert_msg(r.ci_low > c->ci_above && r.ci_low <= r.ratio, "low %g", r.ci_low);
    ck_assert_msg(r.ci_high < c->ci_below && r.ci_high >= r.ratio, "high %g", r.ci_high);
    ab_stats_verdict(&r, text, sizeof(text));
    ck_assert_msg(starts_with(text, c->starts), "got: %s", text);
    ck_assert_msg(strstr(text, "×, 10 runs each)") != NULL, "got: %s", text);
}
END_TEST

START_TEST(test_verdict_texts)
{
    struct ab_result r = {1000, 417, 0.417, 0.385, 0.455, 10, 10, AB_B_SLOWER};
    char text[256];

    /* Slower: A/B, the interval's ends swapped and inverted. */
    ab_stats_verdict(&r, text, sizeof(text));
    ck_assert_str_eq(text, "B is 2.4× slower than A (95 % CI 2.2–2.6×, 10 runs each)");
    r = (struct ab_result){1000, 1300, 1.3, 1.21, 1.42, 5, 5, AB_B_FASTER};
    ab_stats_verdict(&r, text, sizeof(text));
    ck_assert_str_eq(text, "B is 1.3× faster than A (95 % CI 1.2–1.4×, 5 runs each)");
    /* A small but real difference is not printed as "1.0". */
    r = (struct ab_result){1000, 1040, 1.04, 1.02, 1.06, 5, 5, AB_B_FASTER};
    ab_stats_verdict(&r, text, sizeof(text));
    ck_assert_str_eq(text, "B is 1.04× faster than A (95 % CI 1.02–1.06×, 5 runs each)");
    r = (struct ab_result){1000, 980, 0.98, 0.91, 1.06, 5, 4, AB_NO_DIFFERENCE};
    ab_stats_verdict(&r, text, sizeof(text));
    ck_assert_str_eq(text, "no difference detectable at this sample size (B/A = 0.98, 95 % CI "
                           "0.91–1.06, 5 runs of A, 4 of B)");
    /* Truncated, never overrun. */
    memset(text, 'x', sizeof(text));
    ab_stats_verdict(&r, text, 10);
    ck_assert_str_eq(text, "no differ");
    ck_assert_int_eq(text[10], 'x');
}
END_TEST

START_TEST(test_deterministic)
{
    double a[7], b[7];
    struct ab_result r1, r2, r3;

    around(a, 7, 1000, 100, 3);
    around(b, 7, 950, 100, 4);
    ck_assert_int_eq(ab_stats_compare(a, 7, b, 7, 42, &r1), 0);
    ck_assert_int_eq(ab_stats_compare(a, 7, b, 7, 42, &r2), 0);
    /* Field by field: the struct's padding is not part of the result. */
    ck_assert(r1.median_a == r2.median_a && r1.median_b == r2.median_b && r1.ratio == r2.ratio);
    ck_assert(r1.ci_low == r2.ci_low && r1.ci_high == r2.ci_high && r1.outcome == r2.outcome);
    /*
     * Another seed draws other resamples, but ratios of medians of seven
     * figures take few values, so its interval may well be the same: only
     * the point estimate is certain not to move, and the ends stay close.
     */
    ck_assert_int_eq(ab_stats_compare(a, 7, b, 7, 43, &r3), 0);
    ck_assert_double_eq(r3.ratio, r1.ratio);
    ck_assert(fabs(r3.ci_low - r1.ci_low) < 0.05 && fabs(r3.ci_high - r1.ci_high) < 0.05);
}
END_TEST

START_TEST(test_degenerate_two_runs)
{
    double a[] = {1000, 1010}, b[] = {400, 410};
    struct ab_result r;
    char text[256];

    ck_assert_int_eq(ab_stats_compare(a, 2, b, 2, 1, &r), 0);
    ck_assert_double_eq(r.median_a, 1005);
    ck_assert_double_eq(r.median_b, 405);
    /* Two draws from two figures: the interval lies within their extreme ratios. */
    ck_assert(r.ci_low >= 400.0 / 1010 && r.ci_high <= 410.0 / 1000);
    ck_assert(r.ci_low <= r.ci_high);
    ck_assert_int_eq(r.outcome, AB_B_SLOWER);
    ab_stats_verdict(&r, text, sizeof(text));
    ck_assert_msg(strstr(text, "slower than A") && strstr(text, "2 runs each)"), "got: %s", text);
}
END_TEST

START_TEST(test_refused)
{
    double good[] = {1, 2, 3}, zero[] = {1, 0, 3}, neg[] = {1, -2, 3};
    double nan_[] = {1, NAN, 3}, inf[] = {1, INFINITY, 3};
    struct ab_result r, before;

    memset(&r, 0x5a, sizeof(r));
    memset(&before, 0x5a, sizeof(before));
    ck_assert_int_eq(ab_stats_compare(good, 1, good, 3, 1, &r),
                     -1); /* one run: nothing to resample */
    ck_assert_int_eq(ab_stats_compare(good, 3, good, 0, 1, &r), -1);
    ck_assert_int_eq(ab_stats_compare(zero, 3, good, 3, 1, &r), -1);
    ck_assert_int_eq(ab_stats_compare(good, 3, neg, 3, 1, &r), -1);
    ck_assert_int_eq(ab_stats_compare(nan_, 3, good, 3, 1, &r), -1);
    ck_assert_int_eq(ab_stats_compare(good, 3, inf, 3, 1, &r), -1);
    ck_assert_mem_eq(&r, &before, sizeof(r));
}
END_TEST

/* ------------------------------------------------------- spread, warnings */

START_TEST(test_median_interval)
{
    double v[40], low = -1, high = -1, low2, high2, m;

    /* Three runs: a resampled median is 1 or 3 with probability 7/27 each, far more than 2.5 %. */
    ck_assert_int_eq(ab_stats_median_interval((const double[]){3, 1, 2}, 3, 1, &low, &high), 0);
    ck_assert_double_eq(low, 1);
    ck_assert_double_eq(high, 3);
    ck_assert_int_eq(ab_stats_median_interval((const double[]){5, 5, 5, 5}, 4, 1, &low, &high), 0);
    ck_assert(low == 5 && high == 5);
    around(v, N(v), 1000, 50, 7);
    m = ab_stats_median(v, N(v));
    ck_assert_int_eq(ab_stats_median_interval(v, N(v), 3, &low, &high), 0);
    ck_assert(950 < low && low < m && m < high && high < 1050);
    ck_assert_int_eq(ab_stats_median_interval(v, N(v), 3, &low2, &high2), 0);
    ck_assert(low2 == low && high2 == high);
    /* Refused, and the outputs left alone. */
    low = high = -1;
    ck_assert_int_eq(ab_stats_median_interval((const double[]){5}, 1, 1, &low, &high), -1);
    ck_assert_int_eq(ab_stats_median_interval((const double[]){5, NAN}, 2, 1, &low, &high), -1);
    ck_assert(low == -1 && high == -1);
}
END_TEST

START_TEST(test_summarize)
{
    struct ab_summary s;

    ab_stats_summarize((const double[]){2, 4, 4, 4, 5, 5, 7, 9}, 8, &s);
    ck_assert_uint_eq(s.runs, 8);
    ck_assert_double_eq(s.mean, 5);
    ck_assert_double_eq(s.median, 4.5);
    ck_assert_double_eq(s.min, 2);
    ck_assert_double_eq(s.max, 9);
    /* the sample deviation: sqrt(32 / 7), not the population's 2 */
    ck_assert_double_eq_tol(s.sd, sqrt(32.0 / 7.0), 1e-12);
    ab_stats_summarize((const double[]){7.5}, 1, &s);
    ck_assert_double_eq(s.sd, 0);
    ck_assert_double_eq(s.min, 7.5);
    ck_assert_double_eq(s.max, 7.5);
}
END_TEST

START_TEST(test_warnings)
{
    struct ab_summary a = {.runs = 5}, b = {.runs = 5};
    struct ab_result r = {.ratio = 1.0, .ci_low = 0.95, .ci_high = 1.149};
    char buf[512];

    /* five runs and an interval of 19.9 % of the ratio: nothing to say */
    ck_assert_int_eq(ab_stats_warnings(&a, &b, &r, buf, sizeof(buf)), 0);
    ck_assert_str_eq(buf, "");
    r.ci_high = 1.151; /* 20.1 % */
    ck_assert_int_eq(ab_stats_warnings(&a, &b, &r, buf, sizeof(buf)), 1);
    ck_assert_str_eq(buf, "the 95 % interval is wide (0.950–1.151, 20 % of the ratio, more than "
                          "20 %): the runs scatter; run more or quieten the machine\n");
    /* relative to the ratio: the same width around 2 is narrow */
    r = (struct ab_result){.ratio = 2.0, .ci_low = 1.9, .ci_high = 2.2};
    ck_assert_int_eq(ab_stats_warnings(&a, &b, &r, buf, sizeof(buf)), 0);
    b.runs = 4;
    ck_assert_int_eq(ab_stats_warnings(&a, &b, &r, buf, sizeof(buf)), 1);
    ck_assert_str_eq(buf, "B has 4 successful runs, fewer than 5: take the verdict as a hint and "
                          "run more (-n)\n");
    a.runs = 1;
    ck_assert_int_eq(ab_stats_warnings(&a, &b, NULL, buf, sizeof(buf)), 2);
    ck_assert(starts_with(buf, "A has 1 successful run, fewer"));
    /* truncated, never overrun */
    ck_assert_int_eq(ab_stats_warnings(&a, &b, NULL, buf, 10), 2);
    ck_assert_uint_eq(strlen(buf), 9);
}
END_TEST

/* ---------------------------------------------------------------- export */

static void export_of(struct ab_export *e, struct ab_result *r)
{
    static const double a[] = {100, 110, 90, 105, 95}, b[] = {50, 52, 48, 51, 49};

    memset(e, 0, sizeof(*e));
    e->unit = "msgs/s";
    e->dir[0] = "/mnt/a";
    e->dir[1] = "/mnt/b, \"dirsync\"";
    ab_stats_summarize(a, N(a), &e->side[0]);
    ab_stats_summarize(b, N(b), &e->side[1]);
    *r =
        (struct ab_result){.ratio = 0.5, .ci_low = 0.45, .ci_high = 0.55, .runs_a = 5, .runs_b = 5};
    e->result = r;
}

/*
 * Each export of export_of()'s comparison (B's directory changed where dir_b says), whole; then
 * uncompared, with side `empty' run-less, the lines it must hold (up to a NULL).
 */
static const struct {
    const char *name;
    char *(*export)(const struct ab_export *e);
    const char *dir_b;
    const char *whole;
    int empty;
    const char *uncompared[3];
} exports[] = {
    {"markdown",
     ab_export_markdown,
     "/mnt/b|c",
     "| Side | Directory | Median [msgs/s] | Mean ± σ [msgs/s] | Min [msgs/s] "
     "| Max [msgs/s] | Runs | B/A (95 % CI) |\n"
     "|:---|:---|---:|---:|---:|---:|---:|---:|\n"
     "| A | `/mnt/a` | 100.0 | 100.0 ± 7.9 | 90.0 | 110.0 | 5 | 1.000 |\n"
     "| B | `/mnt/b\\|c` | 50.0 | 50.0 ± 1.6 | 48.0 | 52.0 | 5 | "
     "0.500 (0.450–0.550) |\n",
     1,
     {"| A | `/mnt/a` | 100.0 | 100.0 ± 7.9 | 90.0 | 110.0 | 5 | n/a |\n",
      "| B | `/mnt/b\\|c` | n/a | n/a | n/a | n/a | 0 | n/a |\n", NULL}},
    {"csv",
     ab_export_csv,
     NULL,
     "side,directory,unit,median,mean,stddev,min,max,runs,ratio,ci_low,ci_high\n"
     "A,/mnt/a,msgs/s,100,100,7.90569415,90,110,5,1,,\n"
     "B,\"/mnt/b, \"\"dirsync\"\"\",msgs/s,50,50,1.58113883,48,52,5,0.5,0.45,"
     "0.55\n",
     0,
     {"\nA,/mnt/a,msgs/s,,,,,,0,,,\n", NULL}},
};

START_TEST(test_export)
{
    struct ab_export e;
    struct ab_result r;
    char *text;

    export_of(&e, &r);
    if (exports[_i].dir_b)
        e.dir[1] = exports[_i].dir_b;
    text = exports[_i].export(&e);
    ck_assert_str_eq(text, exports[_i].whole);
    free(text);
    e.result = NULL;
    e.side[exports[_i].empty].runs = 0;
    text = exports[_i].export(&e);
    for (size_t k = 0; exports[_i].uncompared[k]; k++)
        ck_assert_msg(strstr(text, exports[_i].uncompared[k]), "%s: no \"%s\" in\n%s",
                      exports[_i].name, exports[_i].uncompared[k], text);
    free(text);
}
END_TEST

int main(void)
{
    const TTest *const median[] = {test_median_odd, test_median_even, NULL};
    const TTest *const compare[] = {
        test_identical_samples,   test_verdict_texts, test_deterministic,
        test_degenerate_two_runs, test_refused,       test_median_interval,
        test_summarize,           test_warnings,      NULL};
    Suite *s = suite_create("ab_stats");
    TCase *tc;

    check_add_tcase(s, "median", median);
    tc = check_add_tcase(s, "compare", compare);
    tcase_add_loop_test(tc, test_b_clearly_different, 0, CHECK_ROWS(clear_cases));
    tcase_add_loop_test(tc, test_export, 0, CHECK_ROWS(exports));
    return check_run_suite(s);
}
