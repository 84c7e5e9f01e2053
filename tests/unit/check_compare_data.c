/*
 * check_compare_data - spoolsim compare's reading and judging of stored
 * results: the headline figure of each program, every run of a repeated
 * result (ab's sides, bench --compare's, bench -n's), failed runs left out,
 * the ratio against the first and, where both sides have runs, ab's own
 * bootstrap interval; what has no figure is refused, naming why.
 */
#include "config.h"

#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ab_stats.h"
#include "check_json_text.h"
#include "check_main.h"
#include "compare_data.h"

static const char ab_text[] =
    "{\"program\": \"spoolsim ab\", \"metric\": \"delivered_per_s\", \"unit\": \"msgs/s\","
    " \"sides\": {\"A\": {\"runs\": [100, 110, null, 105, 95]},"
    "             \"B\": {\"runs\": [200, 210, 190, 205, 195]}}}";

static const char bench_n_text[] = "{\"program\": \"spoolsim bench\", \"delivered_per_s\": 999,"
                                   " \"repeated\": {\"runs\": [300, 310, 290]}}";

static const char bench_compare_text[] =
    "{\"program\": \"spoolsim bench\", \"mta\": \"postfix\","
    " \"model_runs\": [{\"delivered_per_s\": 50}, {\"delivered_per_s\": 52}],"
    " \"mta_runs\": [{\"delivered_per_s\": 40}, {\"delivered_per_s\": 41}]}";

static const char raw_text[] = "{\"program\": \"spoolsim raw\", \"delivered_per_s\": 2500.5}";
static const char pm_text[] = "{\"program\": \"spoolsim postmark\", \"transactions_per_s\": 80}";

static void add_ok(struct compare *c, const char *text, const char *name)
{
    char err[256];

    ck_assert_msg(compare_data_add(c, text, name, err, sizeof(err)) == 0, "%s: %s", name, err);
}

START_TEST(test_headline_figures)
{
    struct compare c;

    compare_data_init(&c, 1);
    add_ok(&c, raw_text, "raw.json");
    add_ok(&c, pm_text, "pm.json");
    ck_assert_uint_eq(c.n, 2);
    ck_assert_str_eq(c.s[0].label, "raw.json");
    ck_assert_str_eq(c.s[0].metric, "delivered_per_s");
    ck_assert_uint_eq(c.s[0].n, 1);
    ck_assert_double_eq(c.s[0].runs[0], 2500.5);
    ck_assert_str_eq(c.s[1].metric, "transactions_per_s");
    ck_assert_str_eq(c.s[1].unit, "transactions/s");
    compare_data_judge(&c);
    ck_assert(!c.s[0].have_interval);
    ck_assert(!c.s[1].have_ratio); /* another metric: no ratio */
    compare_data_free(&c);
}
END_TEST

START_TEST(test_repeated_runs)
{
    struct compare c;

    compare_data_init(&c, 1);
    add_ok(&c, ab_text, "ab.json");
    add_ok(&c, bench_n_text, "n.json");
    add_ok(&c, bench_compare_text, "cmp.json");
    ck_assert_uint_eq(c.n, 5);
    ck_assert_str_eq(c.s[0].label, "ab.json:A");
    ck_assert_str_eq(c.s[1].label, "ab.json:B");
    ck_assert_uint_eq(c.s[0].n, 4); /* the failed run (null) left out */
    ck_assert_uint_eq(c.s[1].n, 5);
    ck_assert_str_eq(c.s[2].label, "n.json");
    ck_assert_uint_eq(c.s[2].n, 3); /* the runs, not the last one's figure */
    ck_assert_double_eq(c.s[2].runs[1], 310);
    ck_assert_str_eq(c.s[3].label, "cmp.json:model");
    ck_assert_str_eq(c.s[4].label, "cmp.json:postfix");
    ck_assert_double_eq(c.s[4].runs[1], 41);
    compare_data_free(&c);
}
END_TEST

/* A against B of an ab result: exactly ab's own ratio, interval and verdict. */
START_TEST(test_ratio_as_ab)
{
    static const double a[] = {100, 110, 105, 95}, b[] = {200, 210, 190, 205, 195};
    struct ab_result want;
    struct compare c;

    compare_data_init(&c, 7);
    add_ok(&c, ab_text, "ab.json");
    compare_data_judge(&c);
    ck_assert_int_eq(ab_stats_compare(a, 4, b, 5, 7, &want), 0);
    ck_assert(c.s[1].have_ratio && c.s[1].have_ratio_ci);
    ck_assert_double_eq(c.s[1].vs_base.ratio, want.ratio);
    ck_assert_double_eq(c.s[1].vs_base.ci_low, want.ci_low);
    ck_assert_double_eq(c.s[1].vs_base.ci_high, want.ci_high);
    ck_assert_int_eq(c.s[1].vs_base.outcome, AB_B_FASTER);
    ck_assert_double_eq(c.s[0].median, 102.5);
    ck_assert(c.s[0].have_interval && c.s[0].ci_low <= 102.5 && c.s[0].ci_high >= 102.5);
    compare_data_free(&c);
}
END_TEST

/* One run against repeated ones: the ratio of the medians, no interval. */
START_TEST(test_single_run_ratio)
{
    struct compare c;
    char row[512];

    compare_data_init(&c, 1);
    add_ok(&c, bench_n_text, "n.json");
    add_ok(&c, raw_text, "raw.json");
    compare_data_judge(&c);
    ck_assert(c.s[1].have_ratio && !c.s[1].have_ratio_ci);
    ck_assert_double_eq_tol(c.s[1].vs_base.ratio, 2500.5 / 300, 1e-12);
    compare_data_format_row(&c, 0, row, sizeof(row));
    ck_assert_ptr_nonnull(strstr(row, "baseline"));
    ck_assert_ptr_nonnull(strstr(row, "300.0 (290.0-310.0)"));
    compare_data_format_row(&c, 1, row, sizeof(row));
    ck_assert_ptr_nonnull(strstr(row, "8.335"));
    compare_data_free(&c);
}
END_TEST

START_TEST(test_refused)
{
    static const struct {
        const char *text, *why;
    } bad[] = {
        {"not json", "no \"program\""},
        {"{\"program\": \"spoolsim crash\", \"durable\": true}", "has no rate"},
        {"{\"program\": \"spoolsim sweep\", \"knee_per_s\": null}", "no successful run"},
        {"{\"program\": \"spoolsim ab\", \"metric\": \"delivered_per_s\","
         " \"sides\": {\"A\": {\"runs\": [null]}, \"B\": {\"runs\": [1, 2]}}}",
         "no successful run"},
        {"{\"program\": \"spoolsim ab\"}", "without its metric"},
    };
    struct compare c;
    char err[256];

    compare_data_init(&c, 1);
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        ck_assert_int_eq(compare_data_add(&c, bad[i].text, "x.json", err, sizeof(err)), -1);
        ck_assert_msg(strstr(err, bad[i].why) != NULL, "%zu: %s", i, err);
        ck_assert_uint_eq(c.n, 0); /* nothing of it kept */
    }
    compare_data_free(&c);
}
END_TEST

START_TEST(test_json)
{
    struct compare c;
    struct json_text t;
    struct json_writer *w = json_text_begin(&t);
    char *text, s[64];
    double v;

    compare_data_init(&c, 1);
    add_ok(&c, ab_text, "ab.json");
    add_ok(&c, raw_text, "raw.json");
    compare_data_judge(&c);
    compare_data_write_json(&c, w);
    text = json_text_end(&t);
    ck_assert_int_eq(json_read_string(text, "baseline", s, sizeof(s)), 0);
    ck_assert_str_eq(s, "ab.json:A");
    ck_assert_int_eq(json_read_array_length(text, "results"), 3);
    ck_assert_int_eq(json_read_array_length(text, "results.0.runs"), 4);
    ck_assert_int_eq(json_read_number(text, "results.1.ratio", &v), 0);
    ck_assert_double_eq_tol(v, c.s[1].vs_base.ratio, 1e-8);
    ck_assert_int_eq(json_read_string(text, "results.1.outcome", s, sizeof(s)), 0);
    ck_assert_str_eq(s, "higher");
    ck_assert_int_eq(json_read_number(text, "results.0.ratio", &v), -1); /* null */
    ck_assert_int_eq(json_read_number(text, "results.2.ratio_ci_low", &v), -1);
    free(text);
    compare_data_free(&c);
}
END_TEST

int main(void)
{
    const TTest *const tests[] = {test_headline_figures,
                                  test_repeated_runs,
                                  test_ratio_as_ab,
                                  test_single_run_ratio,
                                  test_refused,
                                  test_json,
                                  NULL};

    return check_run_tests("compare_data", tests);
}
