/*
 * check_model_fit - the calibration's points, the least-squares fit and the
 * stages it makes of them, against figures worked out by hand.
 */
#include "config.h"

#include <check.h>
#include <math.h>
#include <string.h>

#include "check_main.h"
#include "model_fit.h"

#define HZ 100

static const char postfix_roles[] = "{\"cleanup\": [\"cleanup\"], \"qmgr\": [\"qmgr\"], \"smtpd\": "
                                    "[\"loop\"], \"smtp\": [\"loop\"]}";

static void row(struct model_fit_row *r, const char *line)
{
    char err[200] = "";

    ck_assert_msg(model_fit_parse_line(line, "postfix", HZ, r, err, sizeof(err)) == 0, "%s: %s",
                  line, err);
}

static void roles(struct model_fit_roles *r, const char *json)
{
    char err[200] = "";

    ck_assert_msg(model_fit_parse_roles(json, r, err, sizeof(err)) == 0, "%s", err);
}

START_TEST(test_parse_line)
{
    struct model_fit_row r;

    /* nanoseconds for the MTA: 2000 messages, 500000 ns more: 0.25 us each */
    row(&r,
        "postfix 20 15360 1 2000 smtpd 1000000 qmgr 7 / smtpd 1500000 qmgr 7 cleanup 4000000\n");
    ck_assert_str_eq(r.system, "postfix");
    ck_assert_double_eq_tol(r.kib, 15.0, 1e-12);
    ck_assert_uint_eq(r.rcpts, 1);
    ck_assert_uint_eq(r.count, 3);
    ck_assert_double_eq_tol(model_fit_cpu_of(&r, "smtpd"), 0.25, 1e-12);
    ck_assert_double_eq_tol(model_fit_cpu_of(&r, "qmgr"), 0.0, 1e-12);
    /* absent from the first snapshot: counted from 0 */
    ck_assert_double_eq_tol(model_fit_cpu_of(&r, "cleanup"), 2.0, 1e-12);
    ck_assert_double_eq_tol(model_fit_cpu_of(&r, "smtp"), 0.0, 1e-12);

    /* clock ticks for the relay: 3 ticks of 10 ms over 1000 messages, 30 us each */
    row(&r, "relay 20 1024 5 1000 loop 2.5 cleanup 1 / loop 5.5 cleanup 1");
    ck_assert_str_eq(r.system, "relay");
    ck_assert_uint_eq(r.rcpts, 5);
    ck_assert_double_eq_tol(model_fit_cpu_of(&r, "loop"), 30.0, 1e-9);
    ck_assert_double_eq_tol(model_fit_cpu_of(&r, "cleanup"), 0.0, 1e-12);
}
END_TEST

START_TEST(test_parse_line_bad)
{
    static const char *const bad[] = {
        "",
        "postfix 20 1024 1 0 a 1 / a 2",    /* no messages */
        "postfix 20 1024 0 10 a 1 / a 2",   /* no recipients */
        "postfix 20 1024 1 10 a 1 a 2",     /* no second snapshot */
        "postfix 20 1024 1 10 a 1 / a",     /* a class without a value */
        "postfix 20 1024 1 10 a 1 / a x",   /* not a number */
        "postfix 20 1024 1.5 10 a 1 / a 2", /* half a recipient */
        "postfix 20 1024 1 10 / a 1 / a 2", /* three snapshots */
        "postfix 20 1024",                  /* cut short */
    };
    struct model_fit_row r;
    char err[200];

    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        err[0] = 0;
        ck_assert_msg(model_fit_parse_line(bad[i], "postfix", HZ, &r, err, sizeof(err)) == -1,
                      "accepted \"%s\"", bad[i]);
        ck_assert_msg(err[0] != 0, "no reason for \"%s\"", bad[i]);
    }
}
END_TEST

START_TEST(test_parse_roles)
{
    struct model_fit_roles r;
    char err[200];

    roles(&r, "{\"daemon\": [], \"receive\": [\"loop\", \"cleanup\"], \"delivery\": [\"loop\", "
              "\"qmgr\"]}");
    ck_assert_uint_eq(r.count, 3);
    ck_assert_str_eq(r.classes[0].name, "daemon");
    ck_assert_uint_eq(r.classes[0].count, 0);
    ck_assert_str_eq(r.classes[2].roles[1], "qmgr");
    ck_assert_int_eq(model_fit_parse_roles("[\"loop\"]", &r, err, sizeof(err)), -1);
    ck_assert_int_eq(model_fit_parse_roles("{\"a\": \"loop\"}", &r, err, sizeof(err)), -1);
    ck_assert_int_eq(model_fit_parse_roles("{\"a\": [1]}", &r, err, sizeof(err)), -1);
    ck_assert_int_eq(model_fit_parse_roles("{\"a\": [], \"a\": []}", &r, err, sizeof(err)), -1);
    ck_assert_int_eq(model_fit_parse_roles("{\"a\": [", &r, err, sizeof(err)), -1);
}
END_TEST

/*
 * By hand: base alone at 0 KiB and 1 recipient sees 10 and 20, so base =
 * 15; 2 KiB sees 40 = 15 + 2 * per_kib, per_kib = 12.5; 2 recipients see
 * 30 = 15 + per_rcpt, per_rcpt = 15. Least squares leaves the two base
 * loads 5 off each and the others exact.
 */
static const double by_hand[][3] = {{0, 1, 10}, {0, 1, 20}, {2, 1, 40}, {0, 2, 30}};
/* The calibration's four loads on an exact line come back as that line. */
static const double exact[][3] = {{1, 1, 55}, {15, 1, 125}, {1, 1, 55}, {1, 5, 135}};
/* What the loads cannot tell is 0: one point is all base; no load with several recipients. */
static const double one[][3] = {{1, 1, 42}};
static const double no_rcpts[][3] = {{1, 1, 10}, {3, 1, 20}};

/* Loads (KiB, recipients, us) and the line through them. */
static const struct line_case {
    const char *what;
    const double (*loads)[3];
    size_t n;
    double base_us, per_kib_us, per_rcpt_us;
} line_cases[] = {
    {"by hand", by_hand, 4, 15.0, 12.5, 15.0},
    {"an exact line", exact, 4, 50.0, 5.0, 20.0},
    {"one load", one, 1, 42.0, 0, 0},
    {"no load with several recipients", no_rcpts, 2, 5.0, 5.0, 0},
    {"no loads", one, 0, 0, 0, 0},
};

/* got is want: within 1e-9, and exactly 0 where 0 is what cannot be told. */
static void expect_us(const char *what, const char *name, double got, double want)
{
    if (want == 0)
        ck_assert_msg(got == 0, "%s: %s %g, not 0", what, name, got);
    else
        ck_assert_msg(fabs(got - want) <= 1e-9, "%s: %s %g, not %g", what, name, got, want);
}

START_TEST(test_line)
{
    const struct line_case *c = &line_cases[_i];
    struct cost_fit f = model_fit_line(c->loads, c->n);

    expect_us(c->what, "base", f.base_us, c->base_us);
    expect_us(c->what, "per KiB", f.per_kib_us, c->per_kib_us);
    expect_us(c->what, "per recipient", f.per_rcpt_us, c->per_rcpt_us);
}
END_TEST

/*
 * Two loads by hand. smtpd and smtp share the relay's loop 3 to 1 (300 us
 * to 100 us); qmgr's relay role is its own; trivial-rewrite spends less
 * than 1 us a message and is no stage; cleanup is missing from the second
 * load (0 there) but averages 1.5 us.
 */
START_TEST(test_stages)
{
    struct model_fit_row mta[2], relay[2];
    struct model_fit_roles r;
    struct model_fit_stage st[8];
    char err[200] = "";
    int n;

    /* 1000 messages: 300000 ns is 300 us each */
    row(&mta[0], "postfix 20 1024 1 1000 / smtpd 300000000 smtp 100000000 qmgr 50000000 "
                 "trivial-rewrite 500000 cleanup 3000000");
    row(&mta[1], "postfix 20 1024 5 1000 / smtpd 500000000 smtp 100000000 qmgr 90000000 "
                 "trivial-rewrite 500000");
    /* 100 Hz: 4 ticks are 40 ms, 40 us a message */
    row(&relay[0], "relay 20 1024 1 1000 loop 1 / loop 5 qmgr 1");
    row(&relay[1], "relay 20 1024 5 1000 loop 1 / loop 7 qmgr 1");
    roles(&r, postfix_roles);
    n = model_fit_stages(mta, 2, relay, 2, &r, st, 8, err, sizeof(err));
    ck_assert_msg(n == 4, "%d stages: %s", n, err);
    /* sorted by name, trivial-rewrite left out */
    ck_assert_str_eq(st[0].name, "cleanup");
    ck_assert_str_eq(st[1].name, "qmgr");
    ck_assert_str_eq(st[2].name, "smtp");
    ck_assert_str_eq(st[3].name, "smtpd");
    /* cleanup: 3 us at 1 recipient, 0 at 5: -0.75 us a recipient; no relay CPU in its role */
    ck_assert_double_eq_tol(st[0].mta.base_us, 3.0, 1e-9);
    ck_assert_double_eq_tol(st[0].mta.per_rcpt_us, -0.75, 1e-9);
    ck_assert_double_eq(st[0].relay.base_us, 0.0);
    /* qmgr: 50 -> 90 us (10 a recipient); the relay's qmgr 10 -> 10 us */
    ck_assert_double_eq_tol(st[1].mta.base_us, 50.0, 1e-9);
    ck_assert_double_eq_tol(st[1].mta.per_rcpt_us, 10.0, 1e-9);
    ck_assert_double_eq_tol(st[1].relay.base_us, 10.0, 1e-9);
    ck_assert_double_eq_tol(st[1].relay.per_rcpt_us, 0.0, 1e-9);
    /* the loop, 40 then 60 us: smtp's share 100/400 then 100/600, smtpd's the rest */
    ck_assert_double_eq_tol(st[2].relay.base_us, 10.0, 1e-9);
    ck_assert_double_eq_tol(st[2].relay.per_rcpt_us, 0.0, 1e-9);
    ck_assert_double_eq_tol(st[3].relay.base_us, 30.0, 1e-9);
    ck_assert_double_eq_tol(st[3].relay.per_rcpt_us, 5.0, 1e-9);
    ck_assert_double_eq_tol(st[3].mta.base_us, 300.0, 1e-9);
    ck_assert_double_eq_tol(st[3].mta.per_rcpt_us, 50.0, 1e-9);
    /* one load only: its figures as the base */
    n = model_fit_stages(mta, 1, relay, 1, &r, st, 8, err, sizeof(err));
    ck_assert_int_eq(n, 4);
    ck_assert_double_eq_tol(st[3].mta.base_us, 300.0, 1e-9);
    ck_assert_double_eq(st[3].mta.per_rcpt_us, 0.0);
    ck_assert_double_eq_tol(st[3].relay.base_us, 30.0, 1e-9);
    /* no relay loads: the relay's fits are 0 */
    n = model_fit_stages(mta, 2, relay, 0, &r, st, 8, err, sizeof(err));
    ck_assert_int_eq(n, 4);
    ck_assert_double_eq(st[3].relay.base_us, 0.0);
    /* too many stages for the room given */
    ck_assert_int_eq(model_fit_stages(mta, 2, relay, 2, &r, st, 2, err, sizeof(err)), -1);
}
END_TEST

/* The figures are rounded as the model keeps them: 2, 3 and 2 decimals. */
START_TEST(test_stages_rounded)
{
    struct model_fit_row mta[1];
    struct model_fit_roles r;
    struct model_fit_stage st[2];
    char err[200];

    row(&mta[0], "postfix 20 1024 1 3 / smtpd 1000000");
    roles(&r, postfix_roles);
    ck_assert_int_eq(model_fit_stages(mta, 1, NULL, 0, &r, st, 2, err, sizeof(err)), 1);
    ck_assert_double_eq(st[0].mta.base_us, 333.33);
}
END_TEST

/* Zero CPU everywhere: no stage, and no error (the caller says there is nothing to model). */
START_TEST(test_stages_zero)
{
    struct model_fit_row mta[2];
    struct model_fit_roles r;
    struct model_fit_stage st[2];
    char err[200];

    row(&mta[0], "postfix 20 1024 1 100 smtpd 5 / smtpd 5");
    row(&mta[1], "postfix 20 1024 5 100 / smtpd 0");
    roles(&r, "{}");
    ck_assert_int_eq(model_fit_stages(mta, 2, NULL, 0, &r, st, 2, err, sizeof(err)), 0);
    ck_assert_int_eq(model_fit_stages(mta, 0, NULL, 0, &r, st, 2, err, sizeof(err)), 0);
}
END_TEST

/*
 * A load where the MTA spent less than the bare relay (an MTA whose
 * processes escaped their cgroups: 18 us a message, as an Exim calibration
 * once measured)
 * is refused, naming the load; loads that spent more pass.
 */
START_TEST(test_check_loads)
{
    struct model_fit_row mta[2], relay[2];
    char err[300] = "";

    row(&mta[0], "postfix 20 1024 1 1000 / smtpd 300000000 cleanup 900000000 smtp 5000000000");
    row(&mta[1], "postfix 20 15360 1 1000 / smtpd 18200000");
    row(&relay[0], "relay 20 1024 1 1000 loop 1 / loop 21 qmgr 10 cleanup 10");
    row(&relay[1], "relay 20 15360 1 1000 loop 1 / loop 21 qmgr 10 cleanup 10");
    ck_assert_int_eq(model_fit_check_loads(mta, 1, relay, 1, err, sizeof(err)), 0);
    ck_assert_int_eq(model_fit_check_loads(mta, 2, relay, 2, err, sizeof(err)), -1);
    ck_assert_msg(strstr(err, "18.2 us") && strstr(err, "15.00 KiB") && strstr(err, "400.0"), "%s",
                  err);
    /* no relay load to compare with: nothing to refuse */
    ck_assert_int_eq(model_fit_check_loads(mta, 2, relay, 0, err, sizeof(err)), 0);
}
END_TEST

int main(void)
{
    const TTest *const tests[] = {
        test_parse_line,     test_parse_line_bad, test_parse_roles, test_stages,
        test_stages_rounded, test_stages_zero,    test_check_loads, NULL};

    return check_run_loop("model_fit", 0, tests, test_line, CHECK_ROWS(line_cases));
}
