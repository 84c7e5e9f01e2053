/*
 * Unit tests for spoolsim/drive/netem.c's pure part: the option parsers,
 * the names and commands of a run's hop, and the fallback's sink delays.
 */
#include "config.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "netem.h"
#include "check_main.h"

/* argv joined by spaces */
static void join(const char *const argv[], char *out, size_t len)
{
    out[0] = 0;
    for (size_t i = 0; argv[i]; i++)
        snprintf(out + strlen(out), len - strlen(out), "%s%s", i ? " " : "", argv[i]);
}

/* Step i of p's set-up (of its teardown, with teardown set) is the command `want'. */
static void expect_step(const struct netem_plan *p, int teardown, size_t i, const char *want)
{
    const char *argv[NETEM_ARGV_MAX];
    char line[400];

    if (teardown)
        netem_teardown_argv(p, i, argv);
    else
        netem_setup_argv(p, i, argv);
    join(argv, line, sizeof(line));
    ck_assert_msg(strcmp(line, want) == 0, "%s %s step %zu: \"%s\", not \"%s\"", p->ns,
                  teardown ? "teardown" : "set-up", i, line, want);
}

/* The option parsers, both (text, value) -> 0 or -1: `want' is the value when 0. */
static const struct {
    int (*parse)(const char *text, double *value);
    const char *text;
    int rc;
    double want;
} parses[] = {
    {netem_parse_loss, "0.1%", 0, 0.1},
    {netem_parse_loss, "100", 0, 100},
    {netem_parse_loss, "0", 0, 0},
    {netem_parse_loss, "100.5%", -1, 0},
    {netem_parse_loss, "-1%", -1, 0},
    {netem_parse_loss, "foo", -1, 0},
    {netem_parse_loss, "1%%", -1, 0},
    {netem_parse_loss, "", -1, 0},
    {netem_parse_loss, "nan", -1, 0},
    {netem_parse_rate, "100mbit", 0, 100e6},
    {netem_parse_rate, "512kbit", 0, 512e3},
    {netem_parse_rate, "1.5gbit", 0, 1.5e9},
    {netem_parse_rate, "64000bit", 0, 64000},
    {netem_parse_rate, "100", -1, 0},     /* no unit: bits or bytes? */
    {netem_parse_rate, "100mbps", -1, 0}, /* tc's bps are bytes: refused */
    {netem_parse_rate, "0mbit", -1, 0},
    {netem_parse_rate, "-5mbit", -1, 0},
    {netem_parse_rate, "1bit", -1, 0},
    {netem_parse_rate, "inf", -1, 0},
};

START_TEST(test_parse)
{
    const char *text = parses[_i].text;
    double v = -1;

    ck_assert_msg(parses[_i].parse(text, &v) == parses[_i].rc, "\"%s\": not %d", text,
                  parses[_i].rc);
    if (parses[_i].rc == 0)
        ck_assert_msg(fabs(v - parses[_i].want) <= 1e-12 * (1 + parses[_i].want),
                      "\"%s\": %g, not %g", text, v, parses[_i].want);
}
END_TEST

START_TEST(test_plan_names)
{
    struct netem_spec s = {.delay_s = 0.040};
    struct netem_plan p, q;

    netem_plan_make(&p, 4194303, &s, "/sbin/ip", "/sbin/tc");
    ck_assert_str_eq(p.ns, "spoolsim-4194303");
    ck_assert_str_eq(p.veth_host, "ssv4194303h");
    ck_assert_uint_lt(strlen(p.veth_host), 16); /* IFNAMSIZ, with its NUL */
    ck_assert_str_eq(p.addr_host, "10.255.255.253");
    ck_assert_str_eq(p.addr_ns, "10.255.255.254");
    ck_assert_str_eq(p.cidr_ns, "10.255.255.254/30");
    /* neighbouring runs: neighbouring subnets, not the same one */
    netem_plan_make(&p, 1, &s, "ip", "tc");
    netem_plan_make(&q, 2, &s, "ip", "tc");
    ck_assert_str_eq(p.addr_ns, "10.0.0.6");
    ck_assert_str_eq(q.addr_ns, "10.0.0.10");
    netem_plan_make(&p, 64, &s, "ip", "tc");
    ck_assert_str_eq(p.addr_host, "10.0.1.1");
}
END_TEST

START_TEST(test_plan_client)
{
    struct netem_spec s = {.delay_s = 0.040};
    struct netem_plan p, h;

    /* the same run's client and hop: other names, another subnet */
    netem_plan_make_client(&p, 77, &s, "ip", "tc");
    netem_plan_make(&h, 77, &s, "ip", "tc");
    ck_assert_str_eq(p.ns, "spoolsim-c77");
    ck_assert_str_eq(p.veth_host, "ssc77h");
    ck_assert_str_eq(p.veth_ns, "ssc77n");
    ck_assert_str_eq(p.addr_host, "172.16.1.53");
    ck_assert_str_eq(p.addr_ns, "172.16.1.54");
    ck_assert_str_ne(p.ns, h.ns);
    ck_assert_str_ne(p.veth_host, h.veth_host);
    /* the top of 18 bits is the top of 172.16.0.0/12; a PID above wraps */
    netem_plan_make_client(&p, 262143, &s, "ip", "tc");
    ck_assert_str_eq(p.addr_ns, "172.31.255.254");
    netem_plan_make_client(&p, 4194303, &s, "ip", "tc");
    ck_assert_str_eq(p.ns, "spoolsim-c4194303");
    ck_assert_uint_lt(strlen(p.veth_host), 16); /* IFNAMSIZ, with its NUL */
    ck_assert_str_eq(p.addr_ns, "172.31.255.254");
    /* its commands are the hop's, with its names */
    netem_plan_make_client(&p, 5, &s, "ip", "tc");
    expect_step(&p, 0, 1, "ip link add ssc5h type veth peer name ssc5n netns spoolsim-c5");
    expect_step(&p, 0, 8, "tc -n spoolsim-c5 qdisc add dev ssc5n root netem delay 20.000ms");
}
END_TEST

START_TEST(test_setup_commands)
{
    struct netem_spec s = {.delay_s = 0.040, .jitter_s = 0.005, .loss_pct = 0.1, .rate_bit_s = 1e8};
    struct netem_plan p;

    netem_plan_make(&p, 77, &s, "ip", "tc");
    expect_step(&p, 0, 0, "ip netns add spoolsim-77");
    expect_step(&p, 0, 1, "ip link add ssv77h type veth peer name ssv77n netns spoolsim-77");
    expect_step(&p, 0, 2, "ip addr add 10.0.1.53/30 dev ssv77h");
    expect_step(&p, 0, 4, "ip -n spoolsim-77 addr add 10.0.1.54/30 dev ssv77n");
    expect_step(&p, 0, 6, "ip -n spoolsim-77 link set lo up");
    /* half the round trip and half the jitter on each end */
    expect_step(&p, 0, 7,
                "tc qdisc add dev ssv77h root netem delay 20.000ms 2.500ms loss 0.1% "
                "rate 100000000bit");
    expect_step(&p, 0, 8,
                "tc -n spoolsim-77 qdisc add dev ssv77n root netem delay 20.000ms "
                "2.500ms loss 0.1% rate 100000000bit");
    expect_step(&p, 1, 0, "ip netns del spoolsim-77");
    expect_step(&p, 1, 1, "ip link del ssv77h");
}
END_TEST

START_TEST(test_setup_delay_only)
{
    struct netem_spec s = {.delay_s = 0.040};
    struct netem_plan p;

    netem_plan_make(&p, 5, &s, "ip", "tc");
    expect_step(&p, 0, 7, "tc qdisc add dev ssv5h root netem delay 20.000ms");
}
END_TEST

START_TEST(test_sink_delays)
{
    struct netem_spec none = {0}, s = {.delay_s = 0.040};
    char words[16][32], line[600] = "";
    size_t n;

    ck_assert_uint_eq(netem_sink_delays(&none, words, 16), 0);
    n = netem_sink_delays(&s, words, 16);
    ck_assert_uint_eq(n, 12);
    for (size_t i = 0; i < n; i++)
        snprintf(line + strlen(line), sizeof(line) - strlen(line), "%s%s", i ? " " : "", words[i]);
    ck_assert_str_eq(line, "-W CONNECT:0.080000 -W EHLO:0.040000 -W DATA:0.040000 -W .:0.040000 "
                           "-W RSET:0.040000 -W QUIT:0.040000");
    ck_assert_uint_eq(netem_sink_delays(&s, words, 5), 4); /* only whole pairs */
}
END_TEST

START_TEST(test_fallback_cannot)
{
    struct netem_spec s = {.delay_s = 0.040};

    ck_assert_ptr_null(netem_fallback_cannot(&s));
    s.loss_pct = 0.1;
    ck_assert_str_eq(netem_fallback_cannot(&s), "--hop-loss");
    s.loss_pct = 0;
    s.rate_bit_s = 1e6;
    ck_assert_str_eq(netem_fallback_cannot(&s), "--hop-rate");
    s.rate_bit_s = 0;
    s.jitter_s = 0.005;
    ck_assert_str_eq(netem_fallback_cannot(&s), "--hop-jitter");
    ck_assert_int_eq(netem_spec_wanted(&s), 1);
    memset(&s, 0, sizeof(s));
    ck_assert_int_eq(netem_spec_wanted(&s), 0);
}
END_TEST

int main(void)
{
    const TTest *const tests[] = {test_plan_names,
                                  test_plan_client,
                                  test_setup_commands,
                                  test_setup_delay_only,
                                  test_sink_delays,
                                  test_fallback_cannot,
                                  NULL};

    return check_run_loop("netem", 0, tests, test_parse, CHECK_ROWS(parses));
}
