/*
 * check_progress - the live status line as text: its parts, times,
 * latencies, the cut to a terminal's width, ETAs, rates, the mode, and
 * finding a child's last line in its standard error.
 */
#include "config.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check_main.h"
#include "progress.h"

/* Durations as the line shows them (seconds, rounded), and what is not one. */
static const struct {
    double s;
    const char *want;
} times[] = {
    {0, "0:00"},           {7.4, "0:07"},  {7.5, "0:08"},   {59.99, "1:00"},   {59.4, "0:59"},
    {60, "1:00"},          {754, "12:34"}, {3599, "59:59"}, {3600, "1:00:00"}, {3723, "1:02:03"},
    {360000, "100:00:00"}, {-1, "-"},      {NAN, "-"},
};

START_TEST(test_time)
{
    char buf[32];
    size_t n = progress_format_time(times[_i].s, buf, sizeof(buf));

    ck_assert_str_eq(buf, times[_i].want);
    ck_assert_uint_eq(n, strlen(times[_i].want));
}
END_TEST

/* A small buffer: cut, terminated, the length it needed. */
START_TEST(test_time_cut)
{
    char buf[4];

    ck_assert_uint_eq(progress_format_time(3723, buf, sizeof(buf)), 7);
    ck_assert_str_eq(buf, "1:0");
}
END_TEST

/* Latencies in three significant digits, in the unit that keeps them short. */
static const struct {
    uint64_t ns;
    const char *want;
} latencies[] = {
    {0, "0us"},          {850000, "850us"},    {999999, "999us"},    {1000000, "1.00ms"},
    {4213000, "4.21ms"}, {31500000, "31.5ms"}, {250400000, "250ms"}, {1250000000, "1.25s"},
};

START_TEST(test_latency)
{
    char buf[32];

    progress_format_latency(latencies[_i].ns, buf, sizeof(buf));
    ck_assert_str_eq(buf, latencies[_i].want);
}
END_TEST

START_TEST(test_format_relay)
{
    struct progress_stats s = {
        .label = "relay",
        .elapsed_s = 7.2,
        .eta_s = NAN,
        .has_rates = 1,
        .in_per_s = 1203.4,
        .out_per_s = 1198,
        .has_queues = 1,
        .incoming = 0,
        .active = 12,
        .deferred = 3,
        .has_latency = 1,
        .p99_ns = 4213000,
        .has_failures = 1,
        .failures = 2,
    };
    char buf[PROGRESS_LINE_MAX];
    size_t n = progress_format(&s, buf, sizeof(buf));

    ck_assert_str_eq(buf,
                     "relay 0:07 | in 1203/s out 1198/s | queue 0/12/3 | p99 4.21ms | failed 2");
    ck_assert_uint_eq(n, strlen(buf));
}
END_TEST

START_TEST(test_format_parts)
{
    struct progress_stats s = {.label = "smtp-source", .elapsed_s = 5, .eta_s = 3.5};
    char buf[PROGRESS_LINE_MAX];

    /* what is not known is left out */
    progress_format(&s, buf, sizeof(buf));
    ck_assert_str_eq(buf, "smtp-source 0:05 ETA 0:04");
    s.done = 12000;
    s.total = 20000;
    s.count_noun = "msgs";
    s.has_rates = 1;
    s.in_per_s = 2.25;
    s.out_per_s = 0;
    s.has_failures = 1;
    progress_format(&s, buf, sizeof(buf));
    ck_assert_str_eq(buf, "smtp-source 0:05 ETA 0:04 | 12000/20000 msgs | in 2.2/s out 0.0/s | "
                          "failed 0");
    s.eta_s = -1;
    s.count_noun = NULL;
    s.has_rates = 0;
    s.has_failures = 0;
    progress_format(&s, buf, sizeof(buf));
    ck_assert_str_eq(buf, "smtp-source 0:05 | 12000/20000");
}
END_TEST

START_TEST(test_format_small_buffer)
{
    struct progress_stats s = {.label = "raw", .elapsed_s = 65, .eta_s = NAN, .has_failures = 1};
    char buf[8];
    size_t n = progress_format(&s, buf, sizeof(buf));

    ck_assert_uint_eq(n, strlen("raw 1:05 | failed 0"));
    ck_assert_str_eq(buf, "raw 1:0");
    ck_assert_uint_eq(progress_format(&s, NULL, 0), n);
}
END_TEST

START_TEST(test_fit)
{
    static const char line[] = "relay 0:07 | in 1203/s out 1198/s | queue 0/12/3 | p99 4.21ms";
    static const struct {
        size_t width;
        const char *want;
    } cases[] = {
        {sizeof(line) - 1, line}, /* fits: untouched */
        {sizeof(line) - 2, "relay 0:07 | in 1203/s out 1198/s | queue 0/12/3"},
        {40, "relay 0:07 | in 1203/s out 1198/s"},
        {10, "relay 0:07"}, /* the separator would start at 10: it fits exactly */
        {6, "relay "},      /* not even the head: cut in its middle */
    };
    char buf[128];

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        snprintf(buf, sizeof(buf), "%s", line);
        progress_fit(buf, cases[i].width);
        ck_assert_msg(strcmp(buf, cases[i].want) == 0, "width %zu: \"%s\", not \"%s\"",
                      cases[i].width, buf, cases[i].want);
        ck_assert_uint_le(strlen(buf), cases[i].width);
    }
}
END_TEST

START_TEST(test_eta)
{
    ck_assert(fabs(progress_eta_time(4, 12) - 8) < 1e-9);
    ck_assert(progress_eta_time(13, 12) == 0);
    /* 5000 of 20000 in 10 s: 30 s more */
    ck_assert(fabs(progress_eta_count(10, 5000, 20000) - 30) < 1e-9);
    ck_assert(isnan(progress_eta_count(10, 0, 20000)));
    ck_assert(progress_eta_count(10, 20000, 20000) == 0);
    ck_assert(progress_eta_count(10, 25000, 20000) == 0);
    /* 3 of 10 runs done in 30 s, the fourth 4 s in: 7 x 10 - 4 */
    ck_assert(fabs(progress_eta_runs(3, 10, 30, 4) - 66) < 1e-9);
    ck_assert(isnan(progress_eta_runs(0, 10, 0, 4)));
    ck_assert(progress_eta_runs(9, 10, 90, 50) == 0); /* the last run is slow: not negative */
    ck_assert(progress_eta_runs(10, 10, 100, 0) == 0);
}
END_TEST

START_TEST(test_rate)
{
    struct progress_rate r;
    double in, out;

    progress_rate_init(&r);
    progress_rate_update(&r, 2, 100, 50, &in, &out); /* the first: since the start */
    ck_assert(fabs(in - 50) < 1e-9 && fabs(out - 25) < 1e-9);
    progress_rate_update(&r, 2.5, 400, 50, &in, &out); /* the last half second only */
    ck_assert(fabs(in - 600) < 1e-9 && out == 0);
    progress_rate_update(&r, 2.5, 500, 60, &in, &out); /* no time passed */
    ck_assert(in == 0 && out == 0);
    progress_rate_update(&r, 3.5, 10, 70, &in, &out); /* in went back */
    ck_assert(in == 0 && fabs(out - 10) < 1e-9);
}
END_TEST

START_TEST(test_mode)
{
    ck_assert_int_eq(progress_mode_for(-1, 1), PROGRESS_TTY);
    ck_assert_int_eq(progress_mode_for(-1, 0), PROGRESS_OFF);
    ck_assert_int_eq(progress_mode_for(1, 1), PROGRESS_TTY);
    ck_assert_int_eq(progress_mode_for(1, 0), PROGRESS_PLAIN);
    ck_assert_int_eq(progress_mode_for(0, 1), PROGRESS_OFF);
    ck_assert_int_eq(progress_mode_for(0, 0), PROGRESS_OFF);
    ck_assert_int_eq(progress_want(-1, 0), -1);
    ck_assert_int_eq(progress_want(-1, 1), 0); /* -q */
    ck_assert_int_eq(progress_want(1, 1), 1);  /* -q --progress */
    ck_assert_int_eq(progress_want(0, 0), 0);
    /* TERM=dumb or no TERM: a terminal that would print "\033[K" as text */
    ck_assert_int_eq(progress_term_erases("xterm-256color"), 1);
    ck_assert_int_eq(progress_term_erases("linux"), 1);
    ck_assert_int_eq(progress_term_erases("dumb"), 0);
    ck_assert_int_eq(progress_term_erases(""), 0);
    ck_assert_int_eq(progress_term_erases(NULL), 0);
}
END_TEST

START_TEST(test_last)
{
    const char *err = "spoolsim: relay: listening\n"
                      "progress: relay 0:01 | in 5.0/s out 4.0/s\n"
                      "spoolsim: warning: next hop gone\n"
                      "progress: relay 0:02 | in 7.0/s out 6.0/s\n"
                      "progress: relay 0:03 | in 9"; /* being written */
    char out[128];

    ck_assert_int_eq(progress_last(err, strlen(err), out, sizeof(out)), 0);
    ck_assert_str_eq(out, "relay 0:02 | in 7.0/s out 6.0/s");
    ck_assert_str_eq(progress_fields(out), "in 7.0/s out 6.0/s");
    /* only the first two lines */
    ck_assert_int_eq(
        progress_last(err, (size_t)(strstr(err, "spoolsim: warning") - err), out, sizeof(out)), 0);
    ck_assert_str_eq(out, "relay 0:01 | in 5.0/s out 4.0/s");
    ck_assert_int_eq(progress_last(err, 27, out, sizeof(out)), -1);
    ck_assert_str_eq(out, "");
    ck_assert_int_eq(progress_last("", 0, out, sizeof(out)), -1);
    /* a prefix alone, mid-line, is no progress line */
    ck_assert_int_eq(progress_last("x progress: a\n", 14, out, sizeof(out)), -1);
    ck_assert_int_eq(progress_last("progress: \n", 11, out, sizeof(out)), 0);
    ck_assert_str_eq(out, "");
    /* cut to the room there is */
    ck_assert_int_eq(progress_last(err, strlen(err), out, 6), 0);
    ck_assert_str_eq(out, "relay");
    ck_assert_str_eq(progress_fields("ab 0:01"), "");
}
END_TEST

START_TEST(test_append)
{
    char buf[24] = "ab 1/4 A 0:03";

    progress_append(buf, sizeof(buf), "");
    ck_assert_str_eq(buf, "ab 1/4 A 0:03");
    progress_append(buf, sizeof(buf), "raw 0:02 | in 5.0/s");
    ck_assert_str_eq(buf, "ab 1/4 A 0:03 | raw 0:0"); /* cut to the 23 there is room for */
    ck_assert_uint_eq(strlen(buf), sizeof(buf) - 1);
    progress_append(buf, sizeof(buf), "more"); /* full: unchanged */
    ck_assert_str_eq(buf, "ab 1/4 A 0:03 | raw 0:0");
}
END_TEST

int main(void)
{
    const TTest *const tests[] = {
        test_time_cut,
        test_format_relay,
        test_format_parts,
        test_format_small_buffer,
        test_fit,
        test_eta,
        test_rate,
        test_mode,
        test_last,
        test_append,
        NULL,
    };
    const struct check_loop loops[] = {CHECK_LOOP(test_time, times),
                                       CHECK_LOOP(test_latency, latencies)};

    return check_run_cases("progress", 0, tests, loops, CHECK_ROWS(loops));
}
