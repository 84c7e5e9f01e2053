/*
 * Unit tests for spoolsim/drive/sweep_search.c: the verdict on one step of
 * `spoolsim sweep' and the search for the knee, against fake relays (a
 * function from offered rate to what a step would measure).
 */
#include "config.h"

#include <check.h>
#include <math.h>
#include <string.h>

#include "check_main.h"
#include "sweep_search.h"

#define SLO 2.0
#define WINDOW 5.0

/* A relay of capacity cap/s: beyond it the surplus queues up and latency climbs. */
static struct sweep_measure capped(double rate, double cap)
{
    struct sweep_measure m = {.offered_per_s = rate, .window_s = WINDOW, .queue_known = 1};
    double over = rate > cap ? rate - cap : 0;

    m.delivered_per_s = rate < cap ? rate : cap;
    m.queue_start = 3;
    m.queue_end = 3 + over * WINDOW;
    m.p99_s = 0.05 + over / cap * 30;
    return m;
}

/* A relay that always keeps up, but whose p99 reaches the SLO at slo_rate/s. */
static struct sweep_measure slow_tail(double rate, double slo_rate)
{
    struct sweep_measure m = {.offered_per_s = rate, .window_s = WINDOW, .queue_known = 1};

    m.delivered_per_s = rate;
    m.queue_start = m.queue_end = 1;
    m.p99_s = SLO * rate / slo_rate;
    return m;
}

enum model { CAPPED, SLOW_TAIL };

static double run_auto(enum model kind, double param, double start, double tol, unsigned max,
                       struct sweep_search *s)
{
    double r;

    sweep_search_init_auto(s, start, 2, tol, max);
    while ((r = sweep_search_next(s)) > 0) {
        struct sweep_measure m = kind == CAPPED ? capped(r, param) : slow_tail(r, param);

        sweep_search_record(s, r, sweep_search_judge(&m, SLO) == SWEEP_HELD);
    }
    return sweep_search_knee(s);
}

START_TEST(test_judge_reasons)
{
    struct sweep_measure m = {.offered_per_s = 100,
                              .delivered_per_s = 100,
                              .window_s = 5,
                              .queue_known = 1,
                              .queue_start = 10,
                              .queue_end = 12,
                              .p99_s = 0.1};
    char text[128];

    ck_assert_int_eq(sweep_search_judge(&m, SLO), SWEEP_HELD);
    m.delivered_per_s = 98.9;
    ck_assert_int_eq(sweep_search_judge(&m, SLO), SWEEP_FELL_BEHIND);
    sweep_search_reason_text(SWEEP_FELL_BEHIND, &m, SLO, text, sizeof(text));
    ck_assert_str_eq(text, "delivered 98.9 % of offered (under 99 %)");
    m.delivered_per_s = 99;
    ck_assert_int_eq(sweep_search_judge(&m, SLO), SWEEP_HELD);
    /* growth: 1 % of the 500 offered in the window is 5, the slack too */
    m.queue_end = 15;
    ck_assert_int_eq(sweep_search_judge(&m, SLO), SWEEP_HELD);
    m.queue_end = 16;
    ck_assert_int_eq(sweep_search_judge(&m, SLO), SWEEP_QUEUE_GREW);
    ck_assert(fabs(sweep_search_growth_per_s(&m) - 1.2) < 1e-9);
    sweep_search_reason_text(SWEEP_QUEUE_GREW, &m, SLO, text, sizeof(text));
    ck_assert_str_eq(text, "the queue grew from 10 to 16 (1.2/s)");
    m.queue_known = 0; /* --target: no spool, growth not judged */
    ck_assert_int_eq(sweep_search_judge(&m, SLO), SWEEP_HELD);
    ck_assert(sweep_search_growth_per_s(&m) == 0);
    m.failures = 1;
    ck_assert_int_eq(sweep_search_judge(&m, SLO), SWEEP_FAILURES);
    m.failures = 0;
    m.p99_s = 2.5;
    ck_assert_int_eq(sweep_search_judge(&m, SLO), SWEEP_SLO);
    sweep_search_reason_text(SWEEP_SLO, &m, SLO, text, sizeof(text));
    ck_assert_str_eq(text, "p99 2500 ms over the SLO of 2000 ms");
}
END_TEST

START_TEST(test_auto_finds_capacity_knee)
{
    static const double caps[] = {37, 180, 333, 1000, 4321};

    for (size_t i = 0; i < sizeof(caps) / sizeof(caps[0]); i++) {
        struct sweep_search s;
        double tol = 0.05, truth = caps[i] / SWEEP_DELIVERED_MIN; /* where 99 % stops */
        double knee = run_auto(CAPPED, caps[i], 50, tol, 30, &s);
        double broke = sweep_search_broke(&s);

        ck_assert_msg(knee <= truth && knee >= truth * (1 - tol), "cap %g: knee %g, truth %g",
                      caps[i], knee, truth);
        ck_assert(broke > truth && broke - knee <= tol * broke);
        ck_assert_uint_lt(s.steps, 30); /* the tolerance ended it, not the bound */
    }
}
END_TEST

START_TEST(test_auto_finds_slo_knee)
{
    struct sweep_search s;
    double knee = run_auto(SLOW_TAIL, 700, 100, 0.02, 40, &s);

    ck_assert_msg(knee <= 700 && knee >= 700 * 0.98, "knee %g", knee);
}
END_TEST

START_TEST(test_auto_first_step_fails)
{
    struct sweep_search s;
    double knee = run_auto(CAPPED, 20, 400, 0.1, 30, &s);

    /* bisects down from 400 */
    ck_assert_msg(knee <= 20 / SWEEP_DELIVERED_MIN && knee >= 0.9 * 20 / SWEEP_DELIVERED_MIN,
                  "knee %g", knee);
}
END_TEST

START_TEST(test_auto_bounded_by_max_steps)
{
    struct sweep_search s;
    double knee = run_auto(CAPPED, 1e6, 10, 0.05, 4, &s);

    ck_assert_uint_eq(s.steps, 4); /* 10, 20, 40, 80: all held */
    ck_assert(knee == 80);
    ck_assert(sweep_search_broke(&s) == 0);
}
END_TEST

START_TEST(test_list_knee_below_first_failure)
{
    static const double rates[] = {100, 400, 200, 800};
    struct sweep_search s;
    double r;

    sweep_search_init_list(&s, rates, 4);
    for (size_t i = 0; (r = sweep_search_next(&s)) > 0; i++) {
        ck_assert(r == rates[i]);
        /* 400 fails, 800 passes by luck: the knee is 200 */
        sweep_search_record(&s, r, r != 400);
    }
    ck_assert_uint_eq(s.steps, 4);
    ck_assert(sweep_search_knee(&s) == 200);
    ck_assert(sweep_search_broke(&s) == 400);
}
END_TEST

START_TEST(test_list_none_held)
{
    static const double rates[] = {50, 100};
    struct sweep_search s;
    double r;

    sweep_search_init_list(&s, rates, 2);
    while ((r = sweep_search_next(&s)) > 0)
        sweep_search_record(&s, r, 0);
    ck_assert(sweep_search_knee(&s) == 0);
    ck_assert(sweep_search_broke(&s) == 50);
}
END_TEST

START_TEST(test_parse_rates)
{
    double v[4];

    ck_assert_int_eq(sweep_search_parse_rates("100,200,400", v, 4), 3);
    ck_assert(v[0] == 100 && v[1] == 200 && v[2] == 400);
    ck_assert_int_eq(sweep_search_parse_rates("2.5", v, 4), 1);
    ck_assert(v[0] == 2.5);
    ck_assert_int_eq(sweep_search_parse_rates("", v, 4), -1);
    ck_assert_int_eq(sweep_search_parse_rates("100,", v, 4), -1);
    ck_assert_int_eq(sweep_search_parse_rates("100,,200", v, 4), -1);
    ck_assert_int_eq(sweep_search_parse_rates("0", v, 4), -1);
    ck_assert_int_eq(sweep_search_parse_rates("-5", v, 4), -1);
    ck_assert_int_eq(sweep_search_parse_rates("nan", v, 4), -1);
    ck_assert_int_eq(sweep_search_parse_rates("inf", v, 4), -1);
    ck_assert_int_eq(sweep_search_parse_rates("10x", v, 4), -1);
    ck_assert_int_eq(sweep_search_parse_rates("1,2,3,4,5", v, 4), -1);
}
END_TEST

int main(void)
{
    const TTest *const tests[] = {
        test_judge_reasons,
        test_auto_finds_capacity_knee,
        test_auto_finds_slo_knee,
        test_auto_first_step_fails,
        test_auto_bounded_by_max_steps,
        test_list_knee_below_first_failure,
        test_list_none_held,
        test_parse_rates,
        NULL,
    };

    return check_run_tests("sweep_search", tests);
}
