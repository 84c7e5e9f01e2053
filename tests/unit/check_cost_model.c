/*
 * check_cost_model - the cost model's reader and arithmetic.
 */
#include "config.h"

#include <check.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "check_main.h"
#include "cost_model.h"
#include "cpu_burn.h"
#include "machine_cost.h"
#include "model_cache.h"

#define FIT(a, b, c) "{\"base_us\": " #a ", \"per_kib_us\": " #b ", \"per_rcpt_us\": " #c "}"
#define STAGE(name, mta, relay) "{\"name\": \"" name "\", \"mta\": " mta ", \"relay\": " relay "}"

static const char two_stages[] =
    "{\"mta\": \"postfix\", \"mta_version\": \"3.7.11\", \"reference_speed\": 400,"
    " \"stages\": [" STAGE("smtpd", FIT(400, 4, 100),
                           FIT(50, 2, 10)) "," STAGE("qmgr", FIT(100, 0, 0), FIT(150, 0, 0)) "]}";

START_TEST(test_parse)
{
    struct cost_model m;
    char err[200];

    ck_assert_int_eq(cost_model_parse(two_stages, &m, err, sizeof(err)), 0);
    ck_assert_str_eq(m.mta, "postfix");
    ck_assert_str_eq(m.mta_version, "3.7.11");
    ck_assert_uint_eq(m.stage_count, 2);
    ck_assert_str_eq(m.stages[0].name, "smtpd");
    ck_assert_int_eq(m.stages[0].place, COST_RECEIVE);
    ck_assert_int_eq(m.stages[1].place, COST_QMGR);
    ck_assert(fabs(m.stages[0].mta.per_rcpt_us - 100) < 1e-9);
    ck_assert(fabs(m.scale - 1.0) < 1e-12);
}
END_TEST

START_TEST(test_burn)
{
    struct cost_model m;
    char err[200];

    ck_assert_int_eq(cost_model_parse(two_stages, &m, err, sizeof(err)), 0);
    /* smtpd, 2 KiB, 3 recipients: (400 + 8 + 200) - (50 + 4 + 20) = 534 us */
    ck_assert_uint_eq(cost_model_burn_ns(&m, 0, 2048, 3), 534000);
    /* the bare relay spends more than the MTA in this role: nothing to burn */
    ck_assert_uint_eq(cost_model_burn_ns(&m, 1, 2048, 3), 0);
    m.scale = 0.5; /* a CPU twice as fast */
    ck_assert_uint_eq(cost_model_burn_ns(&m, 0, 2048, 3), 267000);
    ck_assert(fabs(cost_model_mta_us(&m, 1024, 1) - 504) < 1e-9);
    /* one recipient or none: no per-recipient cost */
    ck_assert(fabs(cost_model_fit_us(&m.stages[0].mta, 0, 0) - 400) < 1e-9);
}
END_TEST

START_TEST(test_places)
{
    ck_assert_int_eq(cost_model_place_of("cleanup"), COST_RECEIVE);
    ck_assert_int_eq(cost_model_place_of("smtp"), COST_DELIVER);
    ck_assert_int_eq(cost_model_place_of("trivial-rewrite"), COST_SERIAL);
    ck_assert_int_eq(cost_model_place_of("postscreen"), COST_SERIAL);
    ck_assert_str_eq(cost_model_place_name(COST_QMGR), "qmgr");
    /* who waits: cleanup for trivial-rewrite, smtp for scache, nobody for master and postlogd */
    ck_assert_int_eq(cost_model_caller_of("trivial-rewrite"), COST_RECEIVE);
    ck_assert_int_eq(cost_model_place_of("scache"), COST_SERIAL);
    ck_assert_int_eq(cost_model_caller_of("scache"), COST_DELIVER);
    ck_assert_int_eq(cost_model_place_of("master"), COST_DAEMON);
    ck_assert_int_eq(cost_model_place_of("postlogd"), COST_DAEMON);
    ck_assert_int_eq(cost_model_caller_of("postscreen"), COST_RECEIVE);
    ck_assert_str_eq(cost_model_place_name(COST_DAEMON), "daemon");
}
END_TEST

START_TEST(test_errors)
{
    struct cost_model m;
    char err[200];

    ck_assert_int_eq(cost_model_parse("{\"stages\": []}", &m, err, sizeof(err)), -1);
    ck_assert_str_eq(err, "not a cost model (no \"mta\" string)");
    ck_assert_int_eq(
        cost_model_parse("{\"mta\": \"postfix\", \"reference_speed\": 0}", &m, err, sizeof(err)),
        -1);
    ck_assert_str_eq(err, "reference_speed is 0: no CPU runs the burn loop at that speed (1 to "
                          "100000 iterations a microsecond)");
    ck_assert_int_eq(cost_model_parse("{\"mta\": \"postfix\", \"reference_speed\": 1, "
                                      "\"stages\": []}",
                                      &m, err, sizeof(err)),
                     -1);
    ck_assert_str_eq(err, "no stages");
    ck_assert_int_eq(cost_model_parse("{\"mta\": \"postfix\", \"reference_speed\": 1, \"stages\": "
                                      "[{\"name\": \"smtpd\", \"mta\": " FIT(1, 0, 0) "}]}",
                                      &m, err, sizeof(err)),
                     -1);
    ck_assert_str_eq(err, "no number at stages.0.relay.base_us");
    ck_assert_int_eq(cost_model_parse("{\"mta\": \"postfix\", \"reference_speed\": 1, \"stages\": "
                                      "[" STAGE("smtpd", FIT(-5, 0, 0), FIT(0, 0, 0)) "]}",
                                      &m, err, sizeof(err)),
                     -1);
    ck_assert_str_eq(err, "stages.0.mta.base_us is -5: no real MTA's process costs that (0 to "
                          "1000000 us a message)");
    ck_assert_int_eq(
        cost_model_parse("{\"mta\": \"postfix\", \"reference_speed\": 1, ", &m, err, sizeof(err)),
        -1);
}
END_TEST

/* A model with smtpd's and a relay fit at `mta' and `relay', and a reference speed. */
static int parse_bounded(const char *speed, const char *mta, const char *relay, char *err,
                         size_t errlen)
{
    char json[600];
    struct cost_model m;

    snprintf(json, sizeof(json),
             "{\"mta\": \"postfix\", \"reference_speed\": %s, \"stages\": [{\"name\": "
             "\"smtpd\", \"mta\": %s, \"relay\": %s}]}",
             speed, mta, relay);
    return cost_model_parse(json, &m, err, errlen);
}

/* What the reader says of a figure past its bound (cost_model.h), and of a speed. */
#define OUT_OF(path, v, range)                                                                     \
    "stages.0." path " is " v ": no real MTA's process costs that (" range ")"
#define BASE_RANGE "0 to 1000000 us a message"
#define KIB_RANGE "-1000 to 1000 us a KiB"
#define RCPT_RANGE "-10000 to 10000 us a recipient"
#define SPEED_OUT(v)                                                                               \
    "reference_speed is " v ": no CPU runs the burn loop at that speed (1 to 100000 iterations a " \
    "microsecond)"

START_TEST(test_bounds)
{
    static const struct {
        const char *speed, *mta, *relay, *err;
    } cases[] = {
        /* what a real MTA could cost, up to each bound, and a fit's negative slopes */
        {"400", FIT(1000000, 1000, 10000), FIT(0, -1000, -10000), NULL},
        {"1", FIT(0, 0, 0), FIT(0, 0, 0), NULL},
        {"100000", FIT(0.5, -53.66, -6.6), FIT(0, 0, 0), NULL},
        /* 1,000 s a message: the relay never answered */
        {"400", FIT(1e9, 0, 0), FIT(0, 0, 0), OUT_OF("mta.base_us", "1e+09", BASE_RANGE)},
        /* once past a conversion to nanoseconds out of uint64_t's range */
        {"400", FIT(1e300, 0, 0), FIT(0, 0, 0), OUT_OF("mta.base_us", "1e+300", BASE_RANGE)},
        {"400", FIT(1000000.5, 0, 0), FIT(0, 0, 0), OUT_OF("mta.base_us", "1e+06", BASE_RANGE)},
        {"400", FIT(0, 0, 0), FIT(-0.01, 0, 0), OUT_OF("relay.base_us", "-0.01", BASE_RANGE)},
        {"400", FIT(0, 1001, 0), FIT(0, 0, 0), OUT_OF("mta.per_kib_us", "1001", KIB_RANGE)},
        {"400", FIT(0, -1e300, 0), FIT(0, 0, 0), OUT_OF("mta.per_kib_us", "-1e+300", KIB_RANGE)},
        {"400", FIT(0, 0, 10001), FIT(0, 0, 0), OUT_OF("mta.per_rcpt_us", "10001", RCPT_RANGE)},
        {"400", FIT(0, 0, 0), FIT(0, 0, -1e300),
         OUT_OF("relay.per_rcpt_us", "-1e+300", RCPT_RANGE)},
        /* JSON has no NaN or infinity (the document is none), and 1e999 is no number */
        {"400", FIT(NaN, 0, 0), FIT(0, 0, 0), "not a cost model (no \"mta\" string)"},
        {"400", FIT(0, Infinity, 0), FIT(0, 0, 0), "not a cost model (no \"mta\" string)"},
        {"400", FIT(0, 0, -1e999), FIT(0, 0, 0), "no number at stages.0.mta.per_rcpt_us"},
        {"1e300", FIT(0, 0, 0), FIT(0, 0, 0), SPEED_OUT("1e+300")},
        {"100001", FIT(0, 0, 0), FIT(0, 0, 0), SPEED_OUT("100001")},
        {"0.5", FIT(0, 0, 0), FIT(0, 0, 0), SPEED_OUT("0.5")},
        {"-400", FIT(0, 0, 0), FIT(0, 0, 0), SPEED_OUT("-400")},
        {"NaN", FIT(0, 0, 0), FIT(0, 0, 0), "not a cost model (no \"mta\" string)"},
        {"1e999", FIT(0, 0, 0), FIT(0, 0, 0), "no reference_speed"},
    };
    char err[300];

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        int got = parse_bounded(cases[i].speed, cases[i].mta, cases[i].relay, err, sizeof(err));

        ck_assert_msg(got == (cases[i].err ? -1 : 0), "case %zu: %d (%s)", i, got,
                      got ? err : "taken");
        if (cases[i].err)
            ck_assert_str_eq(err, cases[i].err);
    }
}
END_TEST

static void *stop_soon(void *arg)
{
    struct timespec t = {0, 100000000}; /* 0.1 s */

    nanosleep(&t, NULL);
    atomic_store((atomic_int *)arg, 1);
    return NULL;
}

/* A burn of a minute ends when it is told to stop, from another thread too. */
START_TEST(test_burn_stop)
{
    atomic_int stop = 1;
    pthread_t t;
    uint64_t start = cpu_burn_thread_ns();

    cpu_burn_until(start + 60000000000ULL, 0, &stop);
    ck_assert_uint_lt(cpu_burn_thread_ns() - start, 1000000000ULL);
    atomic_store(&stop, 0);
    ck_assert_int_eq(pthread_create(&t, NULL, stop_soon, &stop), 0);
    start = cpu_burn_thread_ns();
    cpu_burn_until(start + 60000000000ULL, 0, &stop);
    pthread_join(t, NULL);
    /* 0.1 s of wall time, and the CPU clock cannot run ahead of it */
    ck_assert_uint_lt(cpu_burn_thread_ns() - start, 10000000000ULL);
    /* no flag: the whole amount */
    start = cpu_burn_thread_ns();
    cpu_burn_until(start + 20000000ULL, 0, NULL);
    ck_assert_uint_ge(cpu_burn_thread_ns() - start, 20000000ULL);
}
END_TEST

/* The burn of a model at its bounds stays in range, whatever the message and the scale. */
START_TEST(test_burn_bounded)
{
    struct cost_model m;
    char err[200];

    ck_assert_int_eq(cost_model_parse("{\"mta\": \"postfix\", \"reference_speed\": 400, "
                                      "\"stages\": [" STAGE("smtpd", FIT(1000000, 1000, 10000),
                                                            FIT(0, 0, 0)) "]}",
                                      &m, err, sizeof(err)),
                     0);
    ck_assert_uint_eq(cost_model_burn_ns(&m, 0, 0, 1), 1000000000ULL);
    ck_assert_uint_eq(cost_model_burn_ns(&m, 0, UINT64_MAX, UINT32_MAX), COST_BURN_NS_MAX);
    m.scale = 1e300;
    ck_assert_uint_eq(cost_model_burn_ns(&m, 0, 0, 1), COST_BURN_NS_MAX);
    m.scale = NAN;
    ck_assert_uint_eq(cost_model_burn_ns(&m, 0, 0, 1), 0);
}
END_TEST

/* The model shipped in data/ is a model, with Postfix's main stages in their places. */
START_TEST(test_builtin)
{
    struct cost_model m;
    char err[200];
    int seen = 0;

    ck_assert_msg(cost_model_parse(cost_model_postfix_json, &m, err, sizeof(err)) == 0, "%s", err);
    ck_assert_str_eq(m.mta, "postfix");
    for (unsigned i = 0; i < m.stage_count; i++) {
        if (strcmp(m.stages[i].name, "smtpd") == 0 || strcmp(m.stages[i].name, "cleanup") == 0 ||
            strcmp(m.stages[i].name, "qmgr") == 0 || strcmp(m.stages[i].name, "smtp") == 0)
            seen++;
        ck_assert(m.stages[i].mta.base_us >= 0);
    }
    ck_assert_int_eq(seen, 4);
    ck_assert(cost_model_mta_us(&m, 1024, 1) > 100);
}
END_TEST

/* Exim's classes: receive before the 250 and by command, delivery per delivery, the daemon alone.
 */
static const char exim_stages[] =
    "{\"mta\": \"exim\", \"mta_version\": \"4.96\", \"reference_speed\": 400,"
    " \"stages\": [" STAGE("daemon", FIT(600, 0, 0), FIT(0, 0, 0)) "," STAGE(
        "delivery", FIT(9000, 4, 100), FIT(200, 2, 10)) "," STAGE("receive", FIT(2500, 8, 1),
                                                                  FIT(80, 3, 3)) "]}";

START_TEST(test_exim_stages)
{
    struct cost_model m;
    char err[200];

    ck_assert_msg(cost_model_parse(exim_stages, &m, err, sizeof(err)) == 0, "%s", err);
    ck_assert_str_eq(m.mta, "exim");
    ck_assert_uint_eq(m.stage_count, 3);
    ck_assert_int_eq(m.stages[0].place, COST_SERIAL);
    ck_assert_int_eq(m.stages[1].place, COST_DELIVER);
    ck_assert_int_eq(m.stages[2].place, COST_RECEIVE);
    /* the SMTP dialogue is receive's: its replies wait for its CPU */
    ck_assert_int_eq(cost_model_session_stage(&m), 2);
    /* delivery, 1 KiB, 1 recipient: 9004 - 202 */
    ck_assert_uint_eq(cost_model_burn_ns(&m, 1, 1024, 1), 8802000);
    ck_assert(fabs(cost_model_mta_us(&m, 1024, 1) - (600 + 9004 + 2508)) < 1e-9);
    /* Postfix's session stage is smtpd; a model with neither has none */
    ck_assert_int_eq(cost_model_parse(two_stages, &m, err, sizeof(err)), 0);
    ck_assert_int_eq(cost_model_session_stage(&m), 0);
    m.stage_count = 0;
    ck_assert_int_eq(cost_model_session_stage(&m), -1);
}
END_TEST

/* The shipped models, by the name --model takes. */
START_TEST(test_builtin_by_name)
{
    struct cost_model m;
    char err[200];

    ck_assert_ptr_eq(cost_model_builtin("postfix"), cost_model_postfix_json);
    ck_assert_ptr_eq(cost_model_builtin("exim"), cost_model_exim_json);
    ck_assert_ptr_null(cost_model_builtin("sendmail"));
    ck_assert_ptr_null(cost_model_builtin("exim-4.98"));
    ck_assert_str_eq(cost_model_builtin_name("exim"), "exim");
    ck_assert_ptr_null(cost_model_builtin_name("qmail"));
    ck_assert_msg(cost_model_parse(cost_model_exim_json, &m, err, sizeof(err)) == 0, "%s", err);
    ck_assert_str_eq(m.mta, "exim");
    ck_assert_int_ge(cost_model_session_stage(&m), 0);
    ck_assert(m.machine.cpu_model[0] != 0); /* it says where it was measured */
}
END_TEST

/* m from a one-stage model that says where it was measured only in measured_on. */
static void parse_measured_on(struct cost_model *m, const char *measured_on)
{
    char err[200], json[1024];

    snprintf(json, sizeof(json),
             "{\"mta\": \"postfix\", \"reference_speed\": 400, \"measured_on\": \"%s\", "
             "\"stages\": [%s]}",
             measured_on, STAGE("smtpd", FIT(400, 4, 100), FIT(50, 2, 10)));
    ck_assert_msg(cost_model_parse(json, m, err, sizeof(err)) == 0, "%s", err);
}

/* A model from before "machine": where it was measured is read from measured_on. */
START_TEST(test_machine_from_measured_on)
{
    struct cost_model m;
    char err[200];

    parse_measured_on(&m, "Intel(R) Xeon(R) Processor, 2 CPUs, Linux 6.18.44-fc-v657");
    ck_assert_str_eq(m.machine.cpu_model, "Intel(R) Xeon(R) Processor");
    ck_assert_int_eq(m.machine.cpus, 2);
    ck_assert_str_eq(m.machine.kernel, "Linux 6.18.44-fc-v657");
    ck_assert_int_eq(m.machine.has_costs, 0);
    /* a CPU name with commas of its own keeps them */
    parse_measured_on(&m, "Acme, Inc. X1, 64 CPUs, Linux 6.1");
    ck_assert_str_eq(m.machine.cpu_model, "Acme, Inc. X1");
    ck_assert_int_eq(m.machine.cpus, 64);
    /* nothing to read: no identity, and then no machine is called the same */
    ck_assert_int_eq(cost_model_parse(two_stages, &m, err, sizeof(err)), 0);
    ck_assert_str_eq(m.machine.cpu_model, "");
    ck_assert_int_eq(cost_model_machine_same(&m.machine, &m.machine, err, sizeof(err)), -1);
}
END_TEST

#define MACHINE(costs)                                                                             \
    "\"machine\": {\"cpu_model\": \"AMD EPYC\", \"cpus\": 2, \"kernel\": \"Linux 6.1\"" costs "}"
#define COSTS                                                                                      \
    ", \"costs\": {\"burn_speed\": 450, \"syscall_ns\": 130, \"round_trip_us\": 9.5,"              \
    " \"spawn_us\": 700, \"fault_ns\": 1400}"

START_TEST(test_machine_object)
{
    struct cost_model m;
    struct cost_machine here;
    char err[300], json[1024];

    snprintf(json, sizeof(json),
             "{\"mta\": \"postfix\", \"reference_speed\": 400, \"measured_on\": \"x, 9 CPUs, "
             "y\", " MACHINE(COSTS) ", \"stages\": [%s]}",
             STAGE("smtpd", FIT(400, 4, 100), FIT(50, 2, 10)));
    ck_assert_int_eq(cost_model_parse(json, &m, err, sizeof(err)), 0);
    ck_assert_str_eq(m.machine.cpu_model, "AMD EPYC"); /* the object wins over measured_on */
    ck_assert_int_eq(m.machine.cpus, 2);
    ck_assert_int_eq(m.machine.has_costs, 1);
    ck_assert(fabs(m.machine.costs.round_trip_us - 9.5) < 1e-9);
    ck_assert(fabs(m.machine.costs.burn_speed - 450) < 1e-9);

    here = m.machine;
    ck_assert_int_eq(cost_model_machine_same(&m.machine, &here, err, sizeof(err)), 1);
    ck_assert_str_eq(err, "");
    snprintf(here.cpu_model, sizeof(here.cpu_model), "Intel(R) Xeon(R) Processor");
    here.cpus = 4;
    ck_assert_int_eq(cost_model_machine_same(&m.machine, &here, err, sizeof(err)), 0);
    ck_assert_str_eq(err,
                     "CPU Intel(R) Xeon(R) Processor here, AMD EPYC there; 4 CPUs here, 2 there");
    here = m.machine;
    snprintf(here.kernel, sizeof(here.kernel), "Linux 6.18");
    ck_assert_int_eq(cost_model_machine_same(&m.machine, &here, err, sizeof(err)), 0);
    ck_assert_str_eq(err, "kernel Linux 6.18 here, Linux 6.1 there");

    /* an identity without all the costs is kept, the costs are not */
    snprintf(json, sizeof(json),
             "{\"mta\": \"postfix\", \"reference_speed\": 400, " MACHINE(
                 ", \"costs\": {\"burn_speed\": 450}") ", \"stages\": [%s]}",
             STAGE("smtpd", FIT(400, 4, 100), FIT(50, 2, 10)));
    ck_assert_int_eq(cost_model_parse(json, &m, err, sizeof(err)), 0);
    ck_assert_str_eq(m.machine.cpu_model, "AMD EPYC");
    ck_assert_int_eq(m.machine.has_costs, 0);
    /* a cost that is not a positive figure is an error */
    snprintf(json, sizeof(json),
             "{\"mta\": \"postfix\", \"reference_speed\": 400, " MACHINE(
                 ", \"costs\": {\"burn_speed\": 450, \"syscall_ns\": -1, \"round_trip_us\": 9.5,"
                 " \"spawn_us\": 700, \"fault_ns\": 1400}") ", \"stages\": [%s]}",
             STAGE("smtpd", FIT(400, 4, 100), FIT(50, 2, 10)));
    ck_assert_int_eq(cost_model_parse(json, &m, err, sizeof(err)), -1);
    ck_assert_str_eq(err, "machine.costs.syscall_ns is not a positive figure");
}
END_TEST

/*
 * Two classes making 300 and 100 system calls a message (plus 10 a KiB in
 * the first), the bare relay 100 of its own: each class makes its calls
 * less its share of the relay's, and burns what is left once they are
 * priced at the model's machine's 130 ns.
 */
START_TEST(test_syscalls)
{
    struct cost_model m;
    char err[300], json[1400];

    snprintf(json, sizeof(json),
             "{\"mta\": \"postfix\", \"reference_speed\": 400, " MACHINE(
                 COSTS) ", \"stages\": ["
                        "{\"name\": \"smtpd\", \"mta\": " FIT(400, 0, 0) ", \"relay\": " FIT(
                            50, 0,
                            0) ","
                               " \"syscalls\": {\"base\": 290, \"per_kib\": 10}},"
                               "{\"name\": \"qmgr\", \"mta\": " FIT(100, 0, 0) ", \"relay\": " FIT(
                                   0, 0, 0) ","
                                            " \"syscalls\": {\"base\": 100}}],"
                                            " \"relay_syscalls\": {\"base\": 100}}");
    ck_assert_int_eq(cost_model_parse(json, &m, err, sizeof(err)), 0);
    /* 1 KiB: 300 + 100 calls, the relay's 100 are a quarter: 225 and 75 made */
    ck_assert_uint_eq(cost_model_syscalls(&m, 0, 1024, 1), 225);
    ck_assert_uint_eq(cost_model_syscalls(&m, 1, 1024, 1), 75);
    /* burned: 350 us - 225 * 0.13 = 320.75 us; 100 - 75 * 0.13 = 90.25 */
    ck_assert_uint_eq(cost_model_burn_ns(&m, 0, 1024, 1), 320750);
    ck_assert_uint_eq(cost_model_burn_ns(&m, 1, 1024, 1), 90250);
    /* the scale is the loop's: it applies to the burn, not to the calls */
    m.scale = 2;
    ck_assert_uint_eq(cost_model_burn_ns(&m, 1, 1024, 1), 180500);
    ck_assert_uint_eq(cost_model_syscalls(&m, 1, 1024, 1), 75);
    /* a model with no system call price makes none (the burn would count them twice) */
    m.machine.has_costs = 0;
    ck_assert_uint_eq(cost_model_syscalls(&m, 0, 1024, 1), 0);
    ck_assert_uint_eq(cost_model_burn_ns(&m, 1, 1024, 1), 200000);
    /* nor does one whose relay makes more calls than the classes */
    m.machine.has_costs = 1;
    m.relay_syscalls.base = 1000;
    ck_assert_uint_eq(cost_model_syscalls(&m, 0, 1024, 1), 0);
    /* a count that is not one is an error */
    snprintf(json, sizeof(json),
             "{\"mta\": \"postfix\", \"reference_speed\": 400, \"stages\": ["
             "{\"name\": \"smtpd\", \"mta\": " FIT(400, 0, 0) ", \"relay\": " FIT(
                 50, 0, 0) ","
                           " \"syscalls\": {\"base\": -3}}]}");
    ck_assert_int_eq(cost_model_parse(json, &m, err, sizeof(err)), -1);
    ck_assert_str_eq(err, "stages.0.syscalls.base is not a count of system calls");
}
END_TEST

START_TEST(test_machine_compare)
{
    struct machine_cost there = {400, 100, 4, 500, 200}, here = {500, 110, 12, 1000, 200};
    char out[300];

    machine_cost_compare(&here, &there, out, sizeof(out));
    /* largest first; a faster integer loop is a ratio below 1 */
    ck_assert_str_eq(out, "process round trip 3.0x, spawn 2.0x, system call 1.1x, page fault "
                          "1.0x, integer work 0.8x");
    ck_assert(fabs(machine_cost_worst_ratio(&here, &there) - 3.0) < 1e-9);
    here.round_trip_us = 0; /* not measured: left out */
    machine_cost_compare(&here, &there, out, sizeof(out));
    ck_assert_str_eq(out, "spawn 2.0x, system call 1.1x, page fault 1.0x, integer work 0.8x");
    machine_cost_compare(&here, &there, out, 12); /* a short buffer is cut, not overrun */
    ck_assert_uint_eq(strlen(out), 11);
    memset(&here, 0, sizeof(here));
    machine_cost_compare(&here, &there, out, sizeof(out));
    ck_assert_str_eq(out, "");
    ck_assert(machine_cost_worst_ratio(&here, &there) == 0);
}
END_TEST

START_TEST(test_machine_agree)
{
    struct machine_cost there = {400, 100, 4, 500, 200}, here = there;
    char why[200];

    ck_assert_int_eq(machine_cost_agree(&here, &there, why, sizeof(why)), 1);
    ck_assert_str_eq(why, "");
    here.spawn_us = 5000; /* spawn follows the load: not a verdict */
    here.syscall_ns = 149;
    ck_assert_int_eq(machine_cost_agree(&here, &there, why, sizeof(why)), 1);
    here.burn_speed = 200; /* half as fast: integer work 2.0x dearer */
    here.round_trip_us = 1;
    ck_assert_int_eq(machine_cost_agree(&here, &there, why, sizeof(why)), 0);
    ck_assert_str_eq(why,
                     "integer work 2.0x, process round trip 0.2x"); /* cheaper is different too */
    here = there;
    here.fault_ns = 301;
    ck_assert_int_eq(machine_cost_agree(&here, &there, why, sizeof(why)), 0);
    ck_assert_str_eq(why, "page fault 1.5x");
    ck_assert_int_eq(machine_cost_agree(&here, &there, NULL, 0), 0); /* no reason asked for */
    ck_assert_int_eq(machine_cost_agree(&there, &there, NULL, 0), 1);
}
END_TEST

START_TEST(test_machine_keep_best)
{
    struct machine_cost best = {400, 100, 4, 500, 0}, more = {450, 120, 3, 0, 200};

    machine_cost_keep_best(&best, &more);
    /* the faster loop, the cheaper costs; a kind one side lacks comes from the other */
    ck_assert(best.burn_speed == 450 && best.syscall_ns == 100 && best.round_trip_us == 3);
    ck_assert(best.spawn_us == 500 && best.fault_ns == 200);
    more = (struct machine_cost){300, 150, 9, 900, 250}; /* a slower run changes nothing */
    machine_cost_keep_best(&best, &more);
    ck_assert(best.burn_speed == 450 && best.syscall_ns == 100 && best.round_trip_us == 3);
    ck_assert(best.spawn_us == 500 && best.fault_ns == 200);
}
END_TEST

START_TEST(test_cache_key)
{
    struct cost_machine mc = {.cpu_model = "Intel(R) Xeon(R) Gold 6230 CPU @ 2.10GHz",
                              .cpus = 2,
                              .kernel = "Linux 6.1.0-18-amd64"};
    char key[200], path[300];

    model_cache_key(&mc, key, sizeof(key));
    ck_assert_str_eq(key, "intel-r-xeon-r-gold-6230-cpu-2.10ghz-2cpus-linux-6.1.0-18-amd64");
    /* no slash, space or dot-dot can reach the file name from a hostile cpuinfo */
    snprintf(mc.cpu_model, sizeof(mc.cpu_model), "../../etc/x y");
    model_cache_key(&mc, key, sizeof(key));
    ck_assert_ptr_null(strchr(key, '/'));
    ck_assert_ptr_null(strchr(key, ' '));
    model_cache_key(&mc, key, 8);
    ck_assert_uint_eq(strlen(key), 7);
    memset(&mc, 0, sizeof(mc));
    model_cache_key(&mc, key, sizeof(key));
    ck_assert_str_eq(key, "unknown-cpu-0cpus-unknown-kernel");

    setenv("SPOOLSIM_CACHE_DIR", "/var/cache/x", 1);
    ck_assert_int_eq(model_cache_path("postfix", &mc, path, sizeof(path)), 0);
    ck_assert_str_eq(path, "/var/cache/x/postfix-model-unknown-cpu-0cpus-unknown-kernel.json");
    unsetenv("SPOOLSIM_CACHE_DIR");
    setenv("XDG_CACHE_HOME", "/c", 1);
    ck_assert_int_eq(model_cache_dir(path, sizeof(path)), 0);
    ck_assert_str_eq(path, "/c/spoolsim");
    unsetenv("XDG_CACHE_HOME");
    setenv("HOME", "relative", 1); /* not a place to write to */
    ck_assert_int_eq(model_cache_dir(path, sizeof(path)), -1);
}
END_TEST

/* st: a node of mode `mode' (type and permissions), owned by uid, of size bytes. */
static struct stat node_of(mode_t mode, uid_t uid, off_t size)
{
    struct stat st;

    memset(&st, 0, sizeof(st));
    st.st_mode = mode;
    st.st_uid = uid;
    st.st_size = size;
    return st;
}

/* What a cache holds is taken only where nobody but root (or, in a user's own, the user) put it. */
START_TEST(test_cache_trust)
{
    static const struct {
        mode_t mode;
        uid_t uid;
        off_t size;
        enum model_cache_node node;
        uid_t euid;
        int system;
        const char *why; /* NULL: trusted */
    } cases[] = {
        /* anybody: a small regular file, and a directory */
        {S_IFREG | 0644, 1000, 4000, MODEL_CACHE_FILE, 1000, 0, NULL},
        {S_IFREG | 0644, 0, MODEL_CACHE_FILE_MAX, MODEL_CACHE_FILE, 0, 0, NULL},
        {S_IFIFO | 0644, 1000, 0, MODEL_CACHE_FILE, 1000, 0, "a FIFO, not a regular file"},
        {S_IFCHR | 0666, 0, 0, MODEL_CACHE_FILE, 1000, 0, "a character device, not a regular file"},
        {S_IFDIR | 0755, 1000, 0, MODEL_CACHE_FILE, 1000, 0, "a directory, not a regular file"},
        {S_IFREG | 0644, 1000, MODEL_CACHE_FILE_MAX + 1, MODEL_CACHE_FILE, 1000, 0,
         "1048577 bytes, more than a model's 1048576 at most"},
        {S_IFREG | 0755, 0, 0, MODEL_CACHE_DIR, 0, 0, "a regular file, not a directory"},
        /* a user's own cache is the user's business, whoever else can write it */
        {S_IFREG | 0666, 2000, 4000, MODEL_CACHE_FILE, 1000, 0, NULL},
        {S_IFDIR | 0777, 2000, 0, MODEL_CACHE_DIR, 1000, 0, NULL},
        /* root: root's alone */
        {S_IFDIR | 0755, 0, 0, MODEL_CACHE_DIR, 0, 0, NULL},
        {S_IFDIR | 0777, 65534, 0, MODEL_CACHE_DIR, 0, 0, "owned by uid 65534, not by root"},
        {S_IFDIR | 0777, 0, 0, MODEL_CACHE_DIR, 0, 0, "writable by every user (mode 0777)"},
        {S_IFDIR | 0775, 0, 0, MODEL_CACHE_DIR, 0, 0, "writable by its group, gid 0 (mode 0775)"},
        {S_IFREG | 0600, 1000, 10, MODEL_CACHE_FILE, 0, 0, "owned by uid 1000, not by root"},
        {S_IFREG | 0646, 0, 10, MODEL_CACHE_FILE, 0, 0, "writable by every user (mode 0646)"},
        /* a sticky directory above (/tmp): nobody else can replace what root made in it */
        {S_IFDIR | 01777, 0, 0, MODEL_CACHE_PARENT, 0, 0, NULL},
        {S_IFDIR | 01777, 0, 0, MODEL_CACHE_DIR, 0, 0, "writable by every user (mode 1777)"},
        {S_IFDIR | 01777, 1000, 0, MODEL_CACHE_PARENT, 0, 0, "owned by uid 1000, not by root"},
        {S_IFDIR | 0757, 0, 0, MODEL_CACHE_PARENT, 0, 0, "writable by every user (mode 0757)"},
        /* the machine's cache, whoever reads it: root's alone */
        {S_IFREG | 0644, 0, 4000, MODEL_CACHE_FILE, 1000, 1, NULL},
        {S_IFREG | 0644, 1000, 4000, MODEL_CACHE_FILE, 1000, 1, "owned by uid 1000, not by root"},
        {S_IFDIR | 0770, 0, 0, MODEL_CACHE_DIR, 1000, 1,
         "writable by its group, gid 0 (mode 0770)"},
    };
    char why[200];

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct stat st = node_of(cases[i].mode, cases[i].uid, cases[i].size);
        int got =
            model_cache_trust(&st, cases[i].node, cases[i].euid, cases[i].system, why, sizeof(why));

        ck_assert_msg(got == (cases[i].why ? -1 : 0), "case %zu: %d (%s)", i, got,
                      got ? why : "trusted");
        if (cases[i].why)
            ck_assert_str_eq(why, cases[i].why);
    }
}
END_TEST

/* Where a calibration goes: the machine's cache for root, unless SPOOLSIM_CACHE_DIR says. */
START_TEST(test_cache_home)
{
    char dir[300];
    int system = -1;

    unsetenv("SPOOLSIM_CACHE_DIR");
    unsetenv("SPOOLSIM_SYSTEM_CACHE");
    setenv("HOME", "/home/u", 1);
    unsetenv("XDG_CACHE_HOME");
    model_cache_system_dir(dir, sizeof(dir));
    ck_assert_str_eq(dir, "/var/cache/spoolsim");
    ck_assert_int_eq(model_cache_home(0, dir, sizeof(dir), &system), 0);
    ck_assert_str_eq(dir, "/var/cache/spoolsim");
    ck_assert_int_eq(system, 1);
    ck_assert_int_eq(model_cache_home(1000, dir, sizeof(dir), &system), 0);
    ck_assert_str_eq(dir, "/home/u/.cache/spoolsim");
    ck_assert_int_eq(system, 0);
    setenv("SPOOLSIM_SYSTEM_CACHE", "/srv/models", 1);
    ck_assert_int_eq(model_cache_home(0, dir, sizeof(dir), NULL), 0);
    ck_assert_str_eq(dir, "/srv/models");
    setenv("SPOOLSIM_SYSTEM_CACHE", "relative", 1); /* no place whose owner can be checked */
    model_cache_system_dir(dir, sizeof(dir));
    ck_assert_str_eq(dir, "/var/cache/spoolsim");
    setenv("SPOOLSIM_CACHE_DIR", "/tmp/mine", 1);
    ck_assert_int_eq(model_cache_home(0, dir, sizeof(dir), &system), 0);
    ck_assert_str_eq(dir, "/tmp/mine");
    ck_assert_int_eq(system, 0);
    unsetenv("SPOOLSIM_CACHE_DIR");
    unsetenv("SPOOLSIM_SYSTEM_CACHE");
}
END_TEST

int main(void)
{
    const TTest *const tests[] = {test_parse,
                                  test_burn,
                                  test_places,
                                  test_errors,
                                  test_bounds,
                                  test_burn_bounded,
                                  test_burn_stop,
                                  test_builtin,
                                  test_exim_stages,
                                  test_builtin_by_name,
                                  test_machine_from_measured_on,
                                  test_machine_object,
                                  test_syscalls,
                                  test_machine_compare,
                                  test_machine_agree,
                                  test_machine_keep_best,
                                  test_cache_key,
                                  test_cache_trust,
                                  test_cache_home,
                                  NULL};

    return check_run_tests("cost_model", tests);
}
