/*
 * Unit tests for spoolsim/drive/ab_compare_report.c: the predicted A/B
 * ratio against the real one, the verdict at the tolerance's edges, and
 * the text and JSON of `spoolsim ab --compare'.
 */
#include "config.h"

#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ab_compare_report.h"
#include "check_json_text.h"
#include "check_main.h"
#include "check_memfile.h"
#include "json_read.h"

static struct ab_compare_pass pass(double ratio)
{
    struct ab_compare_pass p = {.have = 1,
                                .ratio = ratio,
                                .ci_low = ratio * 0.9,
                                .ci_high = ratio * 1.1,
                                .median_a = 1000,
                                .median_b = 1000 * ratio};

    return p;
}

START_TEST(test_judge_edges)
{
    static const struct {
        double predicted, real;
        int agree;
    } rows[] = {
        {2.2, 2.0, 1}, {1.8, 2.0, 1}, {2.0, 2.0, 1}, {2.21, 2.0, 0}, {1.79, 2.0, 0}, {0.5, 2.0, 0},
    };

    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        struct ab_compare c = {.mta = "postfix", .unit = "msgs/s"};

        c.predicted = pass(rows[i].predicted);
        c.real = pass(rows[i].real);
        ab_compare_report_judge(&c);
        ck_assert_double_eq_tol(c.over, rows[i].predicted / rows[i].real, 1e-12);
        ck_assert_msg(c.agree == rows[i].agree, "%g against %g", rows[i].predicted, rows[i].real);
    }
}
END_TEST

START_TEST(test_missing_pass)
{
    struct ab_compare c = {.mta = "postfix", .unit = "msgs/s"};
    struct check_memfile mf;
    char *text;

    c.predicted = pass(2.5);
    ab_compare_report_judge(&c);
    ck_assert(c.over == 0 && c.agree == 0);
    ab_compare_report_print(&c, check_memfile_open(&mf));
    text = check_memfile_text(&mf);
    ck_assert_ptr_nonnull(strstr(text, "real:       no ratio"));
    ck_assert_ptr_nonnull(strstr(text, "verdict:    none"));
    free(text);
}
END_TEST

START_TEST(test_print_and_json)
{
    struct ab_compare c = {.mta = "postfix", .unit = "msgs/s"};
    struct check_memfile mf;
    struct json_text t;
    double v;
    char *text;

    c.predicted = pass(2.5);
    c.real = pass(2.0);
    c.real.ci_low = c.real.ci_high = NAN; /* one run a side: no interval */
    ab_compare_report_judge(&c);
    ab_compare_report_print(&c, check_memfile_open(&mf));
    text = check_memfile_text(&mf);
    ck_assert_ptr_nonnull(strstr(
        text, "predicted:  B/A 2.50 (95 % CI 2.25-2.75): A 1000.0, B 2500.0 msgs/s (medians)\n"));
    ck_assert_ptr_nonnull(strstr(text, "real:       B/A 2.00: A 1000.0, B 2000.0 msgs/s"));
    ck_assert_ptr_nonnull(strstr(text, "verdict:    DISAGREE: the predicted B/A is 25 % above "
                                       "the real one (1.25 times it; tolerance +-10 %)\n"));
    free(text);

    ab_compare_report_write_json(&c, json_text_begin(&t));
    text = json_text_end(&t);
    ck_assert_double_eq_tol(json_text_number(text, "predicted.ratio"), 2.5, 1e-9);
    ck_assert_double_eq_tol(json_text_number(text, "real.median_b"), 2000, 1e-9);
    ck_assert_int_eq(json_read_number(text, "real.ci_low", &v), -1); /* null */
    ck_assert_double_eq_tol(json_text_number(text, "predicted_over_real"), 1.25, 1e-9);
    ck_assert_ptr_nonnull(strstr(text, "\"agree\": false"));
    free(text);
}
END_TEST

int main(void)
{
    const TTest *const tests[] = {test_judge_edges, test_missing_pass, test_print_and_json, NULL};

    return check_run_tests("ab_compare_report", tests);
}
