/*
 * check_clock - durations as libevent's timevals, from seconds and from
 * nanoseconds.
 */
#include "config.h"

#include <check.h>
#include <math.h>
#include <stdio.h>

#include "check_main.h"
#include "clock.h"

/* A duration in seconds (S) or nanoseconds (NS), and the timeval it must give. */
struct tv_case {
    int in_ns;
    double seconds;
    uint64_t ns;
    long long sec, usec;
};
#define S(x) 0, (x), 0
#define NS(x) 1, 0, (x)

static const struct tv_case cases[] = {
    {S(0), 0, 0},
    {S(5), 5, 0},
    {S(1.5), 1, 500000},
    {S(0.000001), 0, 1},
    {S(300.25), 300, 250000},
    /* 4.35 - 4 is 0.34999999999999965 in binary: truncating would make it 349999 us. */
    {S(4.35), 4, 350000},
    {S(1.001), 1, 1000},
    {S(1.13), 1, 130000},
    {S(0.0000004), 0, 0},
    {S(0.9999996), 1, 0}, /* not 0 s and 1000000 us */
    {S(41.99999999), 42, 0},
    /* out of range: a past deadline fires at once, a huge one does not overflow */
    {S(-1), 0, 0},
    {S(-0.5), 0, 0},
    {S(NAN), 0, 0},
    {S(1e300), 2147483647LL, 0},
    {S(INFINITY), 2147483647LL, 0},
    {NS(0), 0, 0},
    {NS(499), 0, 0},
    {NS(500), 0, 1},
    {NS(20 * CLOCK_NS_PER_MS), 0, 20000},
    {NS(3 * CLOCK_NS_PER_SEC + 1234567), 3, 1235},
    {NS(CLOCK_NS_PER_SEC - 1), 1, 0},
    {NS(UINT64_MAX), 2147483647LL, 0},
};

START_TEST(test_timeval)
{
    const struct tv_case *c = &cases[_i];
    struct timeval tv = c->in_ns ? clock_timeval_ns(c->ns) : clock_timeval(c->seconds);
    char input[64];

    if (c->in_ns)
        snprintf(input, sizeof(input), "%llu ns", (unsigned long long)c->ns);
    else
        snprintf(input, sizeof(input), "%.10g s", c->seconds);
    ck_assert_msg((long long)tv.tv_sec == c->sec && (long long)tv.tv_usec == c->usec,
                  "%s: %lld s %lld us, want %lld s %lld us", input, (long long)tv.tv_sec,
                  (long long)tv.tv_usec, c->sec, c->usec);
}
END_TEST

struct instant_case {
    const char *text;
    int ok;
    double unix_s;
};

static const struct instant_case instants[] = {
    {"1970-01-01T00:00:00Z", 1, 0},
    {"2026-12-01T12:00:00Z", 1, 1796126400},
    {"2026-12-01t12:00:00z", 1, 1796126400},
    {"2026-12-01 12:00:00Z", 1, 1796126400},
    {"2026-12-01T13:30:00+01:30", 1, 1796126400},
    {"2026-12-01T07:00:00-05:00", 1, 1796126400},
    {"2024-02-29T00:00:00.25Z", 1, 1709164800.25},
    {"2000-03-01T00:00:00Z", 1, 951868800},
    {"1969-12-31T23:59:59Z", 1, -1},
    {"@1764590400.5", 1, 1764590400.5},
    {"@0", 1, 0},
    {"2025-02-29T00:00:00Z", 0, 0}, /* not a leap year */
    {"2100-02-29T00:00:00Z", 0, 0},
    {"2026-13-01T00:00:00Z", 0, 0},
    {"2026-12-01T24:00:00Z", 0, 0},
    {"2026-12-01T23:59:60Z", 0, 0},
    {"2026-12-01T12:00:00", 0, 0}, /* no zone */
    {"2026-12-01T12:00:00.Z", 0, 0},
    {"2026-12-01T12:00:00Zx", 0, 0},
    {"2026-12-01T12:00:00+0100", 0, 0},
    {"2026-12-01", 0, 0},
    {"12:00:00Z", 0, 0},
    {"", 0, 0},
    {"@", 0, 0},
    {"@-5", 0, 0},
    {"@1.2.3", 0, 0},
    {"@inf", 0, 0},
    {"@ 5", 0, 0},
    {"@0x10", 0, 0},
    {"@5s", 0, 0},
};

START_TEST(test_instant)
{
    const struct instant_case *c = &instants[_i];
    double v = -12345;
    int rc = clock_parse_instant(c->text, &v);

    if (!c->ok) {
        ck_assert_msg(rc == -1 && v == -12345, "\"%s\": accepted as %.3f", c->text, v);
        return;
    }
    ck_assert_msg(rc == 0, "\"%s\": refused", c->text);
    ck_assert_msg(fabs(v - c->unix_s) < 1e-6, "\"%s\": %.6f, want %.6f", c->text, v, c->unix_s);
}
END_TEST

/* The process's CPU grows with work done, and by no more than the time passed per thread. */
START_TEST(test_process_cpu)
{
    double before = clock_process_cpu_s(), after;
    uint64_t start = clock_now_ns();
    volatile unsigned long spin = 0;

    do {
        for (int i = 0; i < 100000; i++)
            spin += (unsigned long)i;
        after = clock_process_cpu_s();
    } while (after - before < 0.02 && clock_now_ns() - start < 10 * CLOCK_NS_PER_SEC);
    ck_assert_msg(after - before >= 0.02, "%.6f s of CPU in 10 s of spinning", after - before);
    ck_assert(after - before <= (double)(clock_now_ns() - start) / 1e9 + 0.01);
}
END_TEST

int main(void)
{
    const TTest *const tests[] = {test_process_cpu, NULL};
    const struct check_loop loops[] = {CHECK_LOOP(test_timeval, cases),
                                       CHECK_LOOP(test_instant, instants)};

    return check_run_cases("clock", 0, tests, loops, 2);
}
