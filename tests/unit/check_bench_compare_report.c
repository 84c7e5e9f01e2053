/*
 * Unit tests for spoolsim/drive/bench_compare_report.c: the medians, the
 * ratio model / real MTA and its verdict at the tolerance's edges, and the
 * text and JSON reports of `spoolsim bench --compare'.
 */
#include "config.h"

#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench_compare_report.h"
#include "check_json_text.h"
#include "check_main.h"
#include "check_memfile.h"
#include "json_read.h"

/* A comparison of `runs' runs a side: the model's delivered rates m[], the MTA's r[]. */
static void fill(struct bench_compare *c, const double *m, const double *r, size_t runs)
{
    memset(c, 0, sizeof(*c));
    c->mta = "postfix";
    snprintf(c->mta_version, sizeof(c->mta_version), "3.7.11");
    for (size_t i = 0; i < runs; i++) {
        ck_assert_int_eq(bench_compare_report_add(&c->model, m[i], m[i] * 1.1), 0);
        ck_assert_int_eq(bench_compare_report_add(&c->real, r[i], r[i] * 1.2), 0);
    }
}

START_TEST(test_medians_and_ratio)
{
    static const double m[] = {1100, 1300, 1200}, r[] = {1000, 900, 1100};
    struct bench_compare c;

    fill(&c, m, r, 3);
    ck_assert_int_eq(bench_compare_report_summarize(&c), 0);
    ck_assert_double_eq_tol(c.median_model, 1200, 1e-9);
    ck_assert_double_eq_tol(c.median_real, 1000, 1e-9);
    ck_assert_double_eq_tol(c.injected_model, 1320, 1e-9);
    ck_assert_double_eq_tol(c.injected_real, 1200, 1e-9);
    ck_assert_double_eq_tol(c.ratio, 1.2, 1e-12);
    ck_assert_int_eq(c.agree, 0); /* 20 % off */
    ck_assert_int_eq(c.have_interval, 1);
    ck_assert(c.interval.ci_low <= 1.2 && 1.2 <= c.interval.ci_high);
}
END_TEST

/* The tolerance's edges: 15 % either way agrees, beyond it does not. */
START_TEST(test_tolerance_edges)
{
    static const struct {
        double model, real;
        int agree;
    } rows[] = {
        {1150, 1000, 1}, {850, 1000, 1}, {1000, 1000, 1},
        {1160, 1000, 0}, {840, 1000, 0}, {2000, 1000, 0},
    };
    struct bench_compare c;

    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        fill(&c, &rows[i].model, &rows[i].real, 1);
        ck_assert_int_eq(bench_compare_report_summarize(&c), 0);
        ck_assert_msg(c.agree == rows[i].agree, "%g against %g: agree %d", rows[i].model,
                      rows[i].real, c.agree);
        ck_assert_int_eq(c.have_interval, 0); /* one run a side: no spread */
    }
}
END_TEST

START_TEST(test_missing_side)
{
    static const double m[] = {1000};
    struct bench_compare c;

    fill(&c, m, m, 0);
    ck_assert_int_eq(bench_compare_report_add(&c.model, 1000, 1000), 0);
    ck_assert_int_eq(bench_compare_report_summarize(&c), -1);
    ck_assert_int_eq(c.agree, 0);
    /* a side is full at BENCH_COMPARE_RUNS_MAX */
    for (size_t i = 1; i < BENCH_COMPARE_RUNS_MAX; i++)
        ck_assert_int_eq(bench_compare_report_add(&c.model, 1, 1), 0);
    ck_assert_int_eq(bench_compare_report_add(&c.model, 1, 1), -1);
}
END_TEST

START_TEST(test_verdict_text)
{
    static const double slow[] = {700}, fast[] = {1000};
    struct bench_compare c;
    char v[300];

    fill(&c, slow, fast, 1);
    bench_compare_report_summarize(&c);
    bench_compare_report_verdict(&c, v, sizeof(v));
    ck_assert_str_eq(v, "DISAGREE: the model is 30 % slower than the real postfix (model/postfix "
                        "0.70; tolerance +-15 %)");
    fill(&c, fast, fast, 1);
    bench_compare_report_summarize(&c);
    bench_compare_report_verdict(&c, v, sizeof(v));
    ck_assert_str_eq(v, "agree: the model is 0 % faster than the real postfix (model/postfix "
                        "1.00; tolerance +-15 %)");
}
END_TEST

/* An interval that reaches past the tolerance says that the agreement is not settled. */
START_TEST(test_verdict_unsettled)
{
    static const double m[] = {700, 1400}, r[] = {1000, 1000};
    struct bench_compare c;
    char v[400];

    fill(&c, m, r, 2);
    bench_compare_report_summarize(&c);
    ck_assert_int_eq(c.agree, 1); /* medians 1050 against 1000 */
    bench_compare_report_verdict(&c, v, sizeof(v));
    ck_assert_ptr_nonnull(strstr(v, "not settled"));
}
END_TEST

START_TEST(test_print)
{
    static const double m[] = {1100, 1300}, r[] = {1000, 1000};
    struct bench_compare c;
    struct check_memfile mf;
    char *text;

    fill(&c, m, r, 2);
    snprintf(c.model_desc, sizeof(c.model_desc), "postfix 3.7.11 (built-in)");
    bench_compare_report_summarize(&c);
    bench_compare_report_print(&c, "/var/spool (ext4)", check_memfile_open(&mf));
    text = check_memfile_text(&mf);
    ck_assert_ptr_nonnull(strstr(text, "against a real postfix 3.7.11, 2 runs each, alternating"));
    ck_assert_ptr_nonnull(strstr(text, "spool:      /var/spool (ext4)\n"));
    ck_assert_ptr_nonnull(strstr(text, "model:      postfix 3.7.11 (built-in)\n"));
    ck_assert_ptr_nonnull(
        strstr(text, "run 2       model 1300.0 msgs/s delivered (1430.0 injected); postfix "
                     "1000.0 (1200.0)\n"));
    ck_assert_ptr_nonnull(strstr(text, "delivered:  model 1200.0 msgs/s, postfix 1000.0 msgs/s "
                                       "(medians): model/postfix 1.20 (95 % CI "));
    ck_assert_ptr_nonnull(strstr(text, "verdict:    DISAGREE: the model is 20 % faster"));
    free(text);

    /* a side without a finished run: no verdict */
    fill(&c, m, r, 0);
    bench_compare_report_add(&c.model, 1000, 1000);
    bench_compare_report_summarize(&c);
    bench_compare_report_print(&c, NULL, check_memfile_open(&mf));
    text = check_memfile_text(&mf);
    ck_assert_ptr_nonnull(strstr(text, "run 1       model 1000.0 msgs/s delivered (1000.0 "
                                       "injected); postfix -\n"));
    ck_assert_ptr_nonnull(strstr(text, "verdict:    none"));
    free(text);
}
END_TEST

START_TEST(test_json)
{
    static const double m[] = {900, 1000, 1100}, r[] = {1000, 1000, 1000};
    struct bench_compare c;
    struct json_text t;
    char s[64];
    char *text;

    fill(&c, m, r, 3);
    bench_compare_report_summarize(&c);
    bench_compare_report_write_json(&c, json_text_begin(&t));
    text = json_text_end(&t);
    ck_assert_int_eq(json_read_string(text, "mta", s, sizeof(s)), 0);
    ck_assert_str_eq(s, "postfix");
    ck_assert_int_eq(json_read_string(text, "mta_version", s, sizeof(s)), 0);
    ck_assert_str_eq(s, "3.7.11");
    ck_assert_int_eq(json_read_array_length(text, "model_runs"), 3);
    ck_assert_double_eq_tol(json_text_number(text, "mta_runs.2.delivered_per_s"), 1000, 1e-6);
    ck_assert_double_eq_tol(json_text_number(text, "delivered_per_s.model"), 1000, 1e-6);
    ck_assert_double_eq_tol(json_text_number(text, "ratio"), 1.0, 1e-9);
    ck_assert_double_eq_tol(json_text_number(text, "tolerance"), 0.15, 1e-9);
    ck_assert_ptr_nonnull(strstr(text, "\"agree\": true"));
    free(text);
}
END_TEST

int main(void)
{
    const TTest *const tests[] = {
        test_medians_and_ratio, test_tolerance_edges, test_missing_side, test_verdict_text,
        test_verdict_unsettled, test_print,           test_json,         NULL};

    return check_run_tests("bench_compare_report", tests);
}
