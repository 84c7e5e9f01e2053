/*
 * check_cost_model - the cost model's reader and arithmetic.
 */
#include "config.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check_main.h"
#include "cost_model.h"

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
    ck_assert(fabs(cost_fit_us(&m.stages[0].mta, 0, 0) - 400) < 1e-9);
}
END_TEST

START_TEST(test_places)
{
    ck_assert_int_eq(cost_place_of("cleanup"), COST_RECEIVE);
    ck_assert_int_eq(cost_place_of("smtp"), COST_DELIVER);
    ck_assert_int_eq(cost_place_of("trivial-rewrite"), COST_SERIAL);
    ck_assert_int_eq(cost_place_of("postscreen"), COST_SERIAL);
    ck_assert_str_eq(cost_place_name(COST_QMGR), "qmgr");
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
    ck_assert_str_eq(err, "no positive reference_speed");
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
    ck_assert_str_eq(err, "stages.0.mta.base_us is negative");
    ck_assert_int_eq(
        cost_model_parse("{\"mta\": \"postfix\", \"reference_speed\": 1, ", &m, err, sizeof(err)),
        -1);
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

static Suite *cost_model_suite(void)
{
    Suite *s = suite_create("cost_model");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, test_parse);
    tcase_add_test(tc, test_burn);
    tcase_add_test(tc, test_places);
    tcase_add_test(tc, test_errors);
    tcase_add_test(tc, test_builtin);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return check_run_suite(cost_model_suite());
}
