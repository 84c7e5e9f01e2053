/*
 * Unit tests for common/util/workload.c: PRNG determinism and ranges, size spec
 * parsing, distribution statistics, and duration parsing.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "workload.h"
#include "check_main.h"

#define DRAWS 200000

START_TEST(test_same_seed_same_stream)
{
    struct prng a, b, c;
    int same = 1, differs = 0;

    workload_prng_seed(&a, 42);
    workload_prng_seed(&b, 42);
    workload_prng_seed(&c, 43);
    for (int i = 0; i < 1000; i++) {
        uint64_t x = workload_prng_next(&a);

        same &= x == workload_prng_next(&b);
        differs |= x != workload_prng_next(&c);
    }
    ck_assert(same);
    ck_assert(differs);
}
END_TEST

/* Known answers from a reference xoshiro256** + splitmix64: runs must replay anywhere. */
START_TEST(test_known_answer)
{
    struct prng p;

    workload_prng_seed(&p, 42);
    ck_assert_uint_eq(workload_prng_next(&p), 1546998764402558742ULL);
    ck_assert_uint_eq(workload_prng_next(&p), 6990951692964543102ULL);
    ck_assert_uint_eq(workload_prng_next(&p), 12544586762248559009ULL);
    /* splitmix64 must turn even seed 0 into a usable, non-zero state. */
    workload_prng_seed(&p, 0);
    ck_assert(p.s[0] | p.s[1] | p.s[2] | p.s[3]);
    ck_assert_uint_ne(workload_prng_next(&p), workload_prng_next(&p));
}
END_TEST

START_TEST(test_range_bounds_and_uniformity)
{
    struct prng p;
    uint64_t counts[10] = {0};
    int outside = 0;

    workload_prng_seed(&p, 1);
    for (int i = 0; i < DRAWS; i++) {
        uint64_t v = workload_prng_range(&p, 10, 19);

        if (v >= 10 && v <= 19)
            counts[v - 10]++;
        else
            outside++;
    }
    ck_assert_int_eq(outside, 0);
    /* Each bucket expects 20000; 5 standard deviations is about 670. */
    for (int i = 0; i < 10; i++)
        ck_assert_msg(counts[i] > 19000 && counts[i] < 21000, "bucket %d has %llu", i,
                      (unsigned long long)counts[i]);
    for (int i = 0; i < 1000; i++) {
        outside += workload_prng_range(&p, 5, 5) != 5;
        outside += workload_prng_range(&p, UINT64_MAX - 1, UINT64_MAX) < UINT64_MAX - 1;
    }
    ck_assert_int_eq(outside, 0);
}
END_TEST

static double exponential_250(struct prng *p)
{
    return workload_prng_exponential(p, 250.0);
}

/* DRAWS draws from `seed': every one in [0, below), their mean `mean' within tol. */
static const struct draws_case {
    const char *what;
    double (*draw)(struct prng *p);
    uint64_t seed;
    double below, mean, tol;
} draws_cases[] = {
    {"uniform01", workload_prng_uniform01, 7, 1.0, 0.5, 0.01},
    {"exponential", exponential_250, 3, INFINITY, 250.0, 250.0 * 0.02},
};

START_TEST(test_draws)
{
    const struct draws_case *c = &draws_cases[_i];
    struct prng p;
    double sum = 0;
    int outside = 0;

    workload_prng_seed(&p, c->seed);
    for (int i = 0; i < DRAWS; i++) {
        double x = c->draw(&p);

        outside += !(x >= 0 && x < c->below);
        sum += x;
    }
    ck_assert_msg(outside == 0, "%s: %d outside", c->what, outside);
    ck_assert_double_eq_tol(sum / DRAWS, c->mean, c->tol);
}
END_TEST

START_TEST(test_normal_moments)
{
    struct prng p;
    double sum = 0, sumsq = 0;

    workload_prng_seed(&p, 4);
    for (int i = 0; i < DRAWS; i++) {
        double z = workload_prng_normal(&p);

        sum += z;
        sumsq += z * z;
    }
    ck_assert_double_eq_tol(sum / DRAWS, 0.0, 0.01);
    ck_assert_double_eq_tol(sumsq / DRAWS, 1.0, 0.02);
}
END_TEST

static const struct {
    const char *spec;
    int ok;
    enum size_dist_kind kind;
    uint64_t a, b, max;
    double sigma;
    const char *describe; /* expected workload_size_describe() */
    const char *err_part; /* a substring the error must contain */
} spec_cases[] = {
    {"1000", 1, SIZE_FIXED, 1000, 0, 0, 0, "fixed:1000", NULL},
    {"0", 1, SIZE_FIXED, 0, 0, 0, 0, "fixed:0", NULL},
    {"4k", 1, SIZE_FIXED, 4096, 0, 0, 0, "fixed:4096", NULL},
    {"2M", 1, SIZE_FIXED, 2097152, 0, 0, 0, "fixed:2097152", NULL},
    {"fixed:10K", 1, SIZE_FIXED, 10240, 0, 0, 0, "fixed:10240", NULL},
    {"uniform:100:2000", 1, SIZE_UNIFORM, 100, 2000, 0, 0, "uniform:100:2000", NULL},
    {"uniform:1k:1m", 1, SIZE_UNIFORM, 1024, 1048576, 0, 0, "uniform:1024:1048576", NULL},
    {"uniform:7:7", 1, SIZE_UNIFORM, 7, 7, 0, 0, "uniform:7:7", NULL},
    {"lognormal:4096:1.0", 1, SIZE_LOGNORMAL, 4096, 0, 64ULL << 20, 1.0, "lognormal:4096:1", NULL},
    {"lognormal:4k:0.5:1m", 1, SIZE_LOGNORMAL, 4096, 0, 1048576, 0.5, "lognormal:4096:0.5:1048576",
     NULL},
    {"lognormal:100:.25", 1, SIZE_LOGNORMAL, 100, 0, 64ULL << 20, 0.25, "lognormal:100:0.25", NULL},
    {"18446744073709551615", 1, SIZE_FIXED, UINT64_MAX, 0, 0, 0, "fixed:18446744073709551615",
     NULL},
    {"", 0, 0, 0, 0, 0, 0, NULL, "bad size spec"},
    {"-5", 0, 0, 0, 0, 0, 0, NULL, "\"-5\""},
    {"fixed:-5", 0, 0, 0, 0, 0, 0, NULL, "\"-5\""},
    {"10x", 0, 0, 0, 0, 0, 0, NULL, "\"10x\""},
    {"10kb", 0, 0, 0, 0, 0, 0, NULL, "\"10kb\""},
    {" 10", 0, 0, 0, 0, 0, 0, NULL, "bad size spec"},
    {"fixed:", 0, 0, 0, 0, 0, 0, NULL, "bad size \"\""},
    {"fixed:1:2", 0, 0, 0, 0, 0, 0, NULL, "expected fixed:N"},
    {"uniform:5", 0, 0, 0, 0, 0, 0, NULL, "uniform:LO:HI"},
    {"uniform:10:5", 0, 0, 0, 0, 0, 0, NULL, "LO 10 is greater than HI 5"},
    {"uniform:a:5", 0, 0, 0, 0, 0, 0, NULL, "bad LO \"a\""},
    {"uniform:1:5z", 0, 0, 0, 0, 0, 0, NULL, "bad HI \"5z\""},
    {"18446744073709551616", 0, 0, 0, 0, 0, 0, NULL, "too large"},
    {"18014398509481984k", 0, 0, 0, 0, 0, 0, NULL, "too large"},
    {"lognormal:4096", 0, 0, 0, 0, 0, 0, NULL, "MEDIAN:SIGMA"},
    {"lognormal:4096:0", 0, 0, 0, 0, 0, 0, NULL, "bad SIGMA \"0\""},
    {"lognormal:4096:-1", 0, 0, 0, 0, 0, 0, NULL, "bad SIGMA \"-1\""},
    {"lognormal:4096:nan", 0, 0, 0, 0, 0, 0, NULL, "bad SIGMA"},
    {"lognormal:4096:inf", 0, 0, 0, 0, 0, 0, NULL, "bad SIGMA"},
    {"lognormal:4096:1.0x", 0, 0, 0, 0, 0, 0, NULL, "bad SIGMA \"1.0x\""},
    {"lognormal:0:1", 0, 0, 0, 0, 0, 0, NULL, "MEDIAN must be at least 1"},
    {"lognormal:4m:1:1m", 0, 0, 0, 0, 0, 0, NULL, "exceeds MAX"},
    {"lognormal:1:1:0", 0, 0, 0, 0, 0, 0, NULL, "exceeds MAX"},
    {"lognormal:1:1:1:1", 0, 0, 0, 0, 0, 0, NULL, "MEDIAN:SIGMA[:MAX]"},
    {"pareto:1:2", 0, 0, 0, 0, 0, 0, NULL, "unknown size distribution \"pareto\""},
    {"uniform:1:2:3:4:5", 0, 0, 0, 0, 0, 0, NULL, "too many fields"},
};

START_TEST(test_size_dist_parse_table)
{
    struct size_dist d, again;
    char err[256] = "", buf[128];
    int rc;

    memset(&d, 0xa5, sizeof(d));
    rc = workload_size_parse(spec_cases[_i].spec, &d, err, sizeof(err));
    if (!spec_cases[_i].ok) {
        ck_assert_msg(rc == -1, "\"%s\" was accepted", spec_cases[_i].spec);
        ck_assert_msg(strstr(err, spec_cases[_i].err_part) != NULL,
                      "\"%s\": error \"%s\" lacks \"%s\"", spec_cases[_i].spec, err,
                      spec_cases[_i].err_part);
        return;
    }
    ck_assert_msg(rc == 0, "\"%s\" rejected: %s", spec_cases[_i].spec, err);
    ck_assert_int_eq(d.kind, spec_cases[_i].kind);
    ck_assert_uint_eq(d.a, spec_cases[_i].a);
    if (d.kind == SIZE_UNIFORM)
        ck_assert_uint_eq(d.b, spec_cases[_i].b);
    if (d.kind == SIZE_LOGNORMAL) {
        ck_assert_uint_eq(d.max, spec_cases[_i].max);
        ck_assert_double_eq(d.sigma, spec_cases[_i].sigma);
        ck_assert_double_eq_tol(d.mu, log((double)spec_cases[_i].a), 1e-12);
    }
    ck_assert_str_eq(workload_size_describe(&d, buf, sizeof(buf)), spec_cases[_i].describe);
    /* The description must read back as the same distribution. */
    ck_assert_int_eq(workload_size_parse(buf, &again, err, sizeof(err)), 0);
    ck_assert_int_eq(again.kind, d.kind);
    ck_assert_uint_eq(again.a, d.a);
    ck_assert_double_eq(workload_size_mean(&again), workload_size_mean(&d));
}
END_TEST

START_TEST(test_fixed_always_n)
{
    struct size_dist d;
    struct prng p;
    char err[128];
    int wrong = 0;

    ck_assert_int_eq(workload_size_parse("fixed:777", &d, err, sizeof(err)), 0);
    workload_prng_seed(&p, 9);
    for (int i = 0; i < 10000; i++)
        wrong += workload_size_sample(&d, &p) != 777;
    ck_assert_int_eq(wrong, 0);
    ck_assert_double_eq(workload_size_mean(&d), 777.0);
}
END_TEST

START_TEST(test_uniform_stats)
{
    struct size_dist d;
    struct prng p;
    char err[128];
    double sum = 0;
    uint64_t lo = UINT64_MAX, hi = 0;

    ck_assert_int_eq(workload_size_parse("uniform:100:2000", &d, err, sizeof(err)), 0);
    workload_prng_seed(&p, 10);
    for (int i = 0; i < DRAWS; i++) {
        uint64_t v = workload_size_sample(&d, &p);

        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
        sum += (double)v;
    }
    /* With 200000 draws both ends are hit; neither is ever passed. */
    ck_assert_uint_eq(lo, 100);
    ck_assert_uint_eq(hi, 2000);
    ck_assert_double_eq(workload_size_mean(&d), 1050.0);
    ck_assert_double_eq_tol(sum / DRAWS, 1050.0, 1050.0 * 0.02);
}
END_TEST

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

    return (x > y) - (x < y);
}

START_TEST(test_lognormal_median_and_clamp)
{
    struct size_dist d;
    struct prng p;
    char err[128];
    uint64_t *v = malloc(DRAWS * sizeof(*v));
    int at_min = 0, at_max = 0, outside = 0;

    ck_assert_ptr_nonnull(v);
    ck_assert_int_eq(workload_size_parse("lognormal:4096:1.0", &d, err, sizeof(err)), 0);
    workload_prng_seed(&p, 11);
    for (int i = 0; i < DRAWS; i++)
        v[i] = workload_size_sample(&d, &p);
    qsort(v, DRAWS, sizeof(*v), cmp_u64);
    ck_assert_uint_ge(v[0], 1);
    ck_assert_uint_le(v[DRAWS - 1], SIZE_DIST_DEFAULT_MAX);
    ck_assert_double_eq_tol((double)v[DRAWS / 2], 4096.0, 4096.0 * 0.03);
    ck_assert_double_eq_tol(workload_size_mean(&d), 4096.0 * exp(0.5), 1e-6);

    /* A wide sigma with a low MAX must pile up on both clamps, never beyond. */
    ck_assert_int_eq(workload_size_parse("lognormal:100:4:5000", &d, err, sizeof(err)), 0);
    for (int i = 0; i < DRAWS; i++) {
        uint64_t x = workload_size_sample(&d, &p);

        outside += x < 1 || x > 5000;
        at_min += x == 1;
        at_max += x == 5000;
    }
    ck_assert_int_eq(outside, 0);
    ck_assert_int_gt(at_min, 0);
    ck_assert_int_gt(at_max, 0);
    ck_assert_double_le(workload_size_mean(&d), 5000.0);
    free(v);
}
END_TEST

START_TEST(test_parse_size_errno)
{
    uint64_t v = 1;

    ck_assert_int_eq(workload_parse_size("1m", &v), 0);
    ck_assert_uint_eq(v, 1048576);
    ck_assert_int_eq(workload_parse_size("16777215K", &v), 0);
    errno = 0;
    ck_assert_int_eq(workload_parse_size("99999999999999999999", &v), -1);
    ck_assert_int_eq(errno, ERANGE);
    errno = 0;
    ck_assert_int_eq(workload_parse_size("+1", &v), -1);
    ck_assert_int_eq(errno, EINVAL);
    ck_assert_int_eq(workload_parse_size("1 ", &v), -1);
    ck_assert_int_eq(workload_parse_size("k", &v), -1);
    ck_assert_int_eq(workload_parse_size("1t", &v), -1);
    /* g, as --size 1g and --image-size 2G are written */
    ck_assert_int_eq(workload_parse_size("1g", &v), 0);
    ck_assert_uint_eq(v, 1073741824);
    ck_assert_int_eq(workload_parse_size("2G", &v), 0);
    ck_assert_uint_eq(v, 2147483648ULL);
    errno = 0;
    ck_assert_int_eq(workload_parse_size("17179869184g", &v), -1);
    ck_assert_int_eq(errno, ERANGE);
}
END_TEST

static const struct {
    const char *text;
    uint64_t ns;
} good_durations[] = {
    {"10", 10000000000ULL},
    {"10s", 10000000000ULL},
    {"250ms", 250000000ULL},
    {"2m", 120000000000ULL},
    {"1.5s", 1500000000ULL},
    {"500us", 500000ULL},
    {"0", 0},
    {"0.1s", 100000000ULL},
    {"7ns", 7},
    {"1h", 3600000000000ULL},
    {"1.25ms", 1250000ULL},
    {"0.0000000004s", 0},
    {"18446744073s", 18446744073000000000ULL},
};

static const char *const bad_durations[] = {
    "",     "s",     "-1s", "1.s",          ".5s",
    "10 s", "10sec", "1x",  "18446744074s", "99999999999999999999",
    "1e3",  "5mss",
};

START_TEST(test_duration_good)
{
    uint64_t ns = 12345;

    ck_assert_msg(workload_parse_duration_ns(good_durations[_i].text, &ns) == 0, "\"%s\" rejected",
                  good_durations[_i].text);
    ck_assert_uint_eq(ns, good_durations[_i].ns);
}
END_TEST

START_TEST(test_duration_bad)
{
    uint64_t ns = 12345;

    ck_assert_msg(workload_parse_duration_ns(bad_durations[_i], &ns) == -1, "\"%s\" accepted",
                  bad_durations[_i]);
    ck_assert_uint_eq(ns, 12345);
}
END_TEST

int main(void)
{
    const TTest *const prng[] = {test_same_seed_same_stream, test_known_answer,
                                 test_range_bounds_and_uniformity, test_normal_moments, NULL};
    const TTest *const size_dist[] = {test_fixed_always_n, test_uniform_stats,
                                      test_lognormal_median_and_clamp, test_parse_size_errno, NULL};
    const TTest *const duration[] = {NULL};
    Suite *s = suite_create("workload");
    TCase *tc;

    tc = check_add_tcase(s, "prng", prng);
    tcase_add_loop_test(tc, test_draws, 0, (int)(sizeof(draws_cases) / sizeof(draws_cases[0])));
    /* Sanitizer builds are several times slower on the 200000-draw tests. */
    tcase_set_timeout(tc, 60);
    tc = check_add_tcase(s, "size_dist", size_dist);
    tcase_add_loop_test(tc, test_size_dist_parse_table, 0,
                        (int)(sizeof(spec_cases) / sizeof(spec_cases[0])));
    tcase_set_timeout(tc, 60);
    tc = check_add_tcase(s, "duration", duration);
    tcase_add_loop_test(tc, test_duration_good, 0,
                        (int)(sizeof(good_durations) / sizeof(good_durations[0])));
    tcase_add_loop_test(tc, test_duration_bad, 0,
                        (int)(sizeof(bad_durations) / sizeof(bad_durations[0])));
    return check_run_suite(s);
}
