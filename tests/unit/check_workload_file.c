/*
 * Unit tests for common/report/workload_file.c: a workload read from a
 * text, its sizes and recipients drawn back within a few percent of the
 * file's over many draws with a fixed seed, its rates, the replay's
 * arrival times, and the texts it refuses.
 */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "workload_file.h"
#include "xalloc.h"

#define DRAWS 200000

/* A workload whose sizes run linearly from 1,000 at 0 % to 41,000 at 100 %, with a tail. */
static char *workload_text(const char *extra_quantile)
{
    char *t = xmalloc(16384);
    size_t n = 0;

    n += (size_t)snprintf(t + n, 16384 - n,
                          "{\"schema_version\": 1, \"program\": \"spoolsim workload\", "
                          "\"messages\": 300, \"size_bytes\": {\"quantiles\": [");
    for (int p = 0; p <= 99; p++)
        n += (size_t)snprintf(t + n, 16384 - n, "[%d, %d], ", p, 1000 + 400 * p);
    n += (size_t)snprintf(t + n, 16384 - n,
                          "%s[100, 2000000]]}, \"recipients\": {\"counts\": [[1, 100], [3, 200]]}, "
                          "\"arrivals_per_minute\": {\"minutes\": 3, \"mean\": 2, \"peak\": 4, "
                          "\"profile\": [[0, 2], [2, 4]]}}",
                          extra_quantile);
    return t;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

    return x < y ? -1 : x > y;
}

START_TEST(test_sizes_follow_quantiles)
{
    char *text = workload_text("");
    struct workload_file *wf = xmalloc(sizeof(*wf));
    uint64_t *s = xmalloc(DRAWS * sizeof(*s));
    struct prng p;
    char err[256];

    ck_assert_int_eq(workload_file_parse(text, wf, err, sizeof(err)), 0);
    ck_assert_uint_eq(wf->n_quantiles, 101);
    ck_assert_double_eq_tol(workload_file_size_median(wf), 21000, 1e-9);
    workload_prng_seed(&p, 1);
    for (size_t i = 0; i < DRAWS; i++)
        s[i] = workload_file_size(wf, &p);
    qsort(s, DRAWS, sizeof(*s), cmp_u64);
    ck_assert_uint_ge(s[0], 1000);
    ck_assert_uint_le(s[DRAWS - 1], 2000000);
    /* within 2 % of the file's median, 10th and 90th percentiles */
    ck_assert_double_eq_tol((double)s[DRAWS / 2], 21000, 21000 * 0.02);
    ck_assert_double_eq_tol((double)s[DRAWS / 10], 5000, 5000 * 0.02);
    ck_assert_double_eq_tol((double)s[DRAWS * 9 / 10], 37000, 37000 * 0.02);
    /* the last percent is the tail, between 40,600 and 2,000,000 */
    ck_assert_uint_gt(s[DRAWS - 1], 1000000);
    free(s);
    workload_file_free(wf);
    free(wf);
    free(text);
}
END_TEST

START_TEST(test_rcpts_follow_counts)
{
    char *text = workload_text("");
    struct workload_file *wf = xmalloc(sizeof(*wf));
    struct prng p;
    unsigned ones = 0, threes = 0;
    char err[256];

    ck_assert_int_eq(workload_file_parse(text, wf, err, sizeof(err)), 0);
    workload_prng_seed(&p, 7);
    for (size_t i = 0; i < DRAWS; i++) {
        unsigned r = workload_file_rcpts(wf, &p);

        ck_assert(r == 1 || r == 3);
        ones += r == 1;
        threes += r == 3;
    }
    ck_assert_double_eq_tol((double)threes / DRAWS, 2.0 / 3, 0.01);
    ck_assert_uint_eq(ones + threes, DRAWS);
    workload_file_free(wf);
    free(wf);
    free(text);
}
END_TEST

START_TEST(test_rates_and_replay)
{
    char *text = workload_text("");
    struct workload_file *wf = xmalloc(sizeof(*wf));
    double t = -1;
    char err[256];

    ck_assert_int_eq(workload_file_parse(text, wf, err, sizeof(err)), 0);
    ck_assert_double_eq_tol(workload_file_rate(wf, 0), 2.0 / 60, 1e-12);
    ck_assert_double_eq_tol(workload_file_rate(wf, 1), 4.0 / 60, 1e-12);
    /* minute 0: two arrivals at 0 and 30 s; minute 1 none; minute 2 four, 15 s apart */
    ck_assert_uint_eq(workload_file_replay_count(wf, 1), 6);
    const double want[] = {0, 30, 120, 135, 150, 165};
    for (uint64_t k = 0; k < 6; k++) {
        ck_assert_int_eq(workload_file_replay_time(wf, 1, 1, k, &t), 0);
        ck_assert_double_eq_tol(t, want[k], 1e-9);
    }
    ck_assert_int_eq(workload_file_replay_time(wf, 1, 1, 6, &t), -1);
    /* compressed 60 times: a minute a second; doubled: twice the arrivals */
    ck_assert_int_eq(workload_file_replay_time(wf, 60, 1, 3, &t), 0);
    ck_assert_double_eq_tol(t, 135.0 / 60, 1e-9);
    ck_assert_uint_eq(workload_file_replay_count(wf, 2), 12);
    ck_assert_int_eq(workload_file_replay_time(wf, 1, 2, 3, &t), 0);
    ck_assert_double_eq_tol(t, 45, 1e-9);
    ck_assert_int_eq(workload_file_replay_time(wf, 1, 2, 4, &t), 0);
    ck_assert_double_eq_tol(t, 120, 1e-9);
    workload_file_free(wf);
    free(wf);
    free(text);
}
END_TEST

/* Each refused text and a word its message must have. */
START_TEST(test_refusals)
{
    struct workload_file *wf = xmalloc(sizeof(*wf));
    char *descending = workload_text("[99.5, 100], ");
    char err[256];
    const struct {
        const char *text, *says;
    } bad[] = {
        {"", "not JSON"},
        {"this is a mail log", "not JSON"},
        {"{\"program\": \"spoolsim workload\", ", "not JSON"},
        {"[1, 2]", "not a JSON object"},
        {"{\"program\": \"smtp-source\", \"messages\": 3}", "not a workload"},
        {"{\"program\": \"spoolsim workload\", \"messages\": 0}", "no messages"},
        {"{\"program\": \"spoolsim workload\", \"messages\": 3}", "size_bytes.quantiles"},
        {descending, "not ascending"},
    };

    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        err[0] = 0;
        ck_assert_int_eq(workload_file_parse(bad[i].text, wf, err, sizeof(err)), -1);
        ck_assert_msg(strstr(err, bad[i].says), "case %zu: \"%s\" lacks \"%s\"", i, err,
                      bad[i].says);
        ck_assert_ptr_null(wf->cum);
    }
    free(descending);
    free(wf);
}
END_TEST

int main(void)
{
    const TTest *const tests[] = {test_sizes_follow_quantiles, test_rcpts_follow_counts,
                                  test_rates_and_replay, test_refusals, NULL};

    return check_run_cases("workload_file", 30, tests, NULL, 0);
}
