/*
 * check_clock - durations as libevent's timevals, from seconds and from
 * nanoseconds.
 */
#include "config.h"

#include <check.h>
#include <math.h>

#include "check_main.h"
#include "clock.h"

#define ck_assert_tv(tv, s, us)                                                                    \
    do {                                                                                           \
        struct timeval tv_ = (tv);                                                                 \
        ck_assert_int_eq((long long)tv_.tv_sec, (s));                                              \
        ck_assert_int_eq((long long)tv_.tv_usec, (us));                                            \
    } while (0)

START_TEST(test_seconds)
{
    ck_assert_tv(clock_timeval(0), 0, 0);
    ck_assert_tv(clock_timeval(5), 5, 0);
    ck_assert_tv(clock_timeval(1.5), 1, 500000);
    ck_assert_tv(clock_timeval(0.000001), 0, 1);
    ck_assert_tv(clock_timeval(300.25), 300, 250000);
}
END_TEST

/* 4.35 - 4 is 0.34999999999999965 in binary: truncating would make it 349999 us. */
START_TEST(test_seconds_rounded)
{
    ck_assert_tv(clock_timeval(4.35), 4, 350000);
    ck_assert_tv(clock_timeval(1.001), 1, 1000);
    ck_assert_tv(clock_timeval(1.13), 1, 130000);
    ck_assert_tv(clock_timeval(0.0000004), 0, 0);
    ck_assert_tv(clock_timeval(0.9999996), 1, 0);
    ck_assert_tv(clock_timeval(41.99999999), 42, 0);
}
END_TEST

START_TEST(test_seconds_out_of_range)
{
    ck_assert_tv(clock_timeval(-1), 0, 0);
    ck_assert_tv(clock_timeval(-0.5), 0, 0);
    ck_assert_tv(clock_timeval(NAN), 0, 0);
    ck_assert_tv(clock_timeval(1e300), 2147483647LL, 0);
    ck_assert_tv(clock_timeval(INFINITY), 2147483647LL, 0);
}
END_TEST

START_TEST(test_nanoseconds)
{
    ck_assert_tv(clock_timeval_ns(0), 0, 0);
    ck_assert_tv(clock_timeval_ns(499), 0, 0);
    ck_assert_tv(clock_timeval_ns(500), 0, 1);
    ck_assert_tv(clock_timeval_ns(20 * CLOCK_NS_PER_MS), 0, 20000);
    ck_assert_tv(clock_timeval_ns(3 * CLOCK_NS_PER_SEC + 1234567), 3, 1235);
    ck_assert_tv(clock_timeval_ns(CLOCK_NS_PER_SEC - 1), 1, 0);
    ck_assert_tv(clock_timeval_ns(UINT64_MAX), 2147483647LL, 0);
}
END_TEST

static Suite *clock_suite(void)
{
    Suite *s = suite_create("clock");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, test_seconds);
    tcase_add_test(tc, test_seconds_rounded);
    tcase_add_test(tc, test_seconds_out_of_range);
    tcase_add_test(tc, test_nanoseconds);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return check_run_suite(clock_suite());
}
