/*
 * Unit tests for spoolsim/drive/ab_stats.c: medians, the bootstrap interval of
 * the ratio of medians, and the verdict text of `spoolsim ab'.
 */
#include "config.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ab_stats.h"
#include "check_main.h"
#include "workload.h"

#define N(v) (sizeof(v) / sizeof((v)[0]))

/* n figures around `centre', spread uniformly over +-spread, from a fixed seed. */
static void around(double *v, size_t n, double centre, double spread, uint64_t seed)
{
    struct prng p;

    prng_seed(&p, seed);
    for (size_t i = 0; i < n; i++)
        v[i] = centre + spread * (2 * prng_uniform01(&p) - 1);
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
    ck_assert_double_eq(ab_median(v, N(v)), 3);
    ck_assert_mem_eq(copy, v, sizeof(v)); /* the caller's order is kept */
    ck_assert_double_eq(ab_median((const double[]){7.5}, 1), 7.5);
}
END_TEST

START_TEST(test_median_even)
{
    ck_assert_double_eq(ab_median((const double[]){4, 1, 3, 2}, 4), 2.5);
    ck_assert_double_eq(ab_median((const double[]){10, 20}, 2), 15);
    /* Ties and an outlier the median ignores. */
    ck_assert_double_eq(ab_median((const double[]){1000, 1000, 999, 1001, 1e9, 1}, 6), 1000);
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
    ck_assert_int_eq(ab_compare(a, 5, b, 5, 1, &r), 0);
    ck_assert_double_eq(r.ratio, 1);
    ck_assert(r.ci_low <= 1 && r.ci_high >= 1);
    ck_assert_int_eq(r.outcome, AB_NO_DIFFERENCE);
    ab_verdict(&r, text, sizeof(text));
    ck_assert_str_eq(text, "no difference detectable at this sample size (B/A = 1.00, 95 % CI "
                           "1.00–1.00, 5 runs each)");

    /* The same spread-out figures on both sides: the interval straddles 1. */
    around(a, 5, 1000, 50, 7);
    memcpy(b, a, sizeof(a));
    ck_assert_int_eq(ab_compare(a, 5, b, 5, 1, &r), 0);
    ck_assert_double_eq(r.ratio, 1);
    ck_assert(r.ci_low < 1 && r.ci_high > 1);
    ck_assert_int_eq(r.outcome, AB_NO_DIFFERENCE);
    ab_verdict(&r, text, sizeof(text));
    ck_assert_msg(
        starts_with(text, "no difference detectable at this sample size (B/A = 1.00, 95 % CI "),
        "got: %s", text);
}
END_TEST

START_TEST(test_b_clearly_slower)
{
    double a[10], b[10];
    struct ab_result r;
    char text[256];

    around(a, 10, 1000, 10, 1);
    around(b, 10, 400, 10, 2);
    ck_assert_int_eq(ab_compare(a, 10, b, 10, 1, &r), 0);
    ck_assert_int_eq(r.outcome, AB_B_SLOWER);
    ck_assert(fabs(r.ratio - 0.4) < 0.02);
    ck_assert(r.ci_low > 0.37 && r.ci_low <= r.ratio);
    ck_assert(r.ci_high < 0.43 && r.ci_high >= r.ratio);
    ab_verdict(&r, text, sizeof(text));
    ck_assert_msg(starts_with(text, "B is 2.5× slower than A (95 % CI 2."), "got: %s", text);
    ck_assert_msg(strstr(text, "×, 10 runs each)") != NULL, "got: %s", text);
}
END_TEST

START_TEST(test_b_clearly_faster)
{
    double a[10], b[10];
    struct ab_result r;
    char text[256];

    /* The same figures the other way round: the factor is the same 2.5. */
    around(a, 10, 400, 10, 2);
    around(b, 10, 1000, 10, 1);
    ck_assert_int_eq(ab_compare(a, 10, b, 10, 1, &r), 0);
    ck_assert_int_eq(r.outcome, AB_B_FASTER);
    ck_assert(r.ci_low > 2.3 && r.ci_high < 2.7);
    ab_verdict(&r, text, sizeof(text));
    ck_assert_msg(starts_with(text, "B is 2.5× faster than A (95 % CI 2."), "got: %s", text);
}
END_TEST

START_TEST(test_verdict_texts)
{
    struct ab_result r = {1000, 417, 0.417, 0.385, 0.455, 10, 10, AB_B_SLOWER};
    char text[256];

    /* Slower: A/B, the interval's ends swapped and inverted. */
    ab_verdict(&r, text, sizeof(text));
    ck_assert_str_eq(text, "B is 2.4× slower than A (95 % CI 2.2–2.6×, 10 runs each)");
    r = (struct ab_result){1000, 1300, 1.3, 1.21, 1.42, 5, 5, AB_B_FASTER};
    ab_verdict(&r, text, sizeof(text));
    ck_assert_str_eq(text, "B is 1.3× faster than A (95 % CI 1.2–1.4×, 5 runs each)");
    /* A small but real difference is not printed as "1.0". */
    r = (struct ab_result){1000, 1040, 1.04, 1.02, 1.06, 5, 5, AB_B_FASTER};
    ab_verdict(&r, text, sizeof(text));
    ck_assert_str_eq(text, "B is 1.04× faster than A (95 % CI 1.02–1.06×, 5 runs each)");
    r = (struct ab_result){1000, 980, 0.98, 0.91, 1.06, 5, 4, AB_NO_DIFFERENCE};
    ab_verdict(&r, text, sizeof(text));
    ck_assert_str_eq(text, "no difference detectable at this sample size (B/A = 0.98, 95 % CI "
                           "0.91–1.06, 5 runs of A, 4 of B)");
    /* Truncated, never overrun. */
    memset(text, 'x', sizeof(text));
    ab_verdict(&r, text, 10);
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
    ck_assert_int_eq(ab_compare(a, 7, b, 7, 42, &r1), 0);
    ck_assert_int_eq(ab_compare(a, 7, b, 7, 42, &r2), 0);
    /* Field by field: the struct's padding is not part of the result. */
    ck_assert(r1.median_a == r2.median_a && r1.median_b == r2.median_b && r1.ratio == r2.ratio);
    ck_assert(r1.ci_low == r2.ci_low && r1.ci_high == r2.ci_high && r1.outcome == r2.outcome);
    /*
     * Another seed draws other resamples, but ratios of medians of seven
     * figures take few values, so its interval may well be the same: only
     * the point estimate is certain not to move, and the ends stay close.
     */
    ck_assert_int_eq(ab_compare(a, 7, b, 7, 43, &r3), 0);
    ck_assert_double_eq(r3.ratio, r1.ratio);
    ck_assert(fabs(r3.ci_low - r1.ci_low) < 0.05 && fabs(r3.ci_high - r1.ci_high) < 0.05);
}
END_TEST

START_TEST(test_degenerate_two_runs)
{
    double a[] = {1000, 1010}, b[] = {400, 410};
    struct ab_result r;
    char text[256];

    ck_assert_int_eq(ab_compare(a, 2, b, 2, 1, &r), 0);
    ck_assert_double_eq(r.median_a, 1005);
    ck_assert_double_eq(r.median_b, 405);
    /* Two draws from two figures: the interval lies within their extreme ratios. */
    ck_assert(r.ci_low >= 400.0 / 1010 && r.ci_high <= 410.0 / 1000);
    ck_assert(r.ci_low <= r.ci_high);
    ck_assert_int_eq(r.outcome, AB_B_SLOWER);
    ab_verdict(&r, text, sizeof(text));
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
    ck_assert_int_eq(ab_compare(good, 1, good, 3, 1, &r), -1); /* one run: nothing to resample */
    ck_assert_int_eq(ab_compare(good, 3, good, 0, 1, &r), -1);
    ck_assert_int_eq(ab_compare(zero, 3, good, 3, 1, &r), -1);
    ck_assert_int_eq(ab_compare(good, 3, neg, 3, 1, &r), -1);
    ck_assert_int_eq(ab_compare(nan_, 3, good, 3, 1, &r), -1);
    ck_assert_int_eq(ab_compare(good, 3, inf, 3, 1, &r), -1);
    ck_assert_mem_eq(&r, &before, sizeof(r));
}
END_TEST

static Suite *ab_stats_suite(void)
{
    Suite *s = suite_create("ab_stats");
    TCase *tm = tcase_create("median");
    TCase *tc = tcase_create("compare");

    tcase_add_test(tm, test_median_odd);
    tcase_add_test(tm, test_median_even);
    suite_add_tcase(s, tm);

    tcase_add_test(tc, test_identical_samples);
    tcase_add_test(tc, test_b_clearly_slower);
    tcase_add_test(tc, test_b_clearly_faster);
    tcase_add_test(tc, test_verdict_texts);
    tcase_add_test(tc, test_deterministic);
    tcase_add_test(tc, test_degenerate_two_runs);
    tcase_add_test(tc, test_refused);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return check_run_suite(ab_stats_suite());
}
