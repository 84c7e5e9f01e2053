/*
 * check_main - the one way every Check unit test runs its suite.
 *
 * check_run_suite() runs the suite (forking per test, as Check does by
 * default), frees it, and returns the process exit status;
 * check_add_tcase() adds a test case of listed tests to a suite;
 * check_run_tests() does it for a suite of one test case, the tests of a
 * NULL-terminated list; check_run_cases() for one with a timeout (0:
 * Check's default) and table-driven loop tests besides (CHECK_LOOP(test,
 * table): the test once per row); check_run_loop() for one with a single
 * loop test (its table's CHECK_ROWS()).
 */
#ifndef SPOOLSIM_CHECK_MAIN_H
#define SPOOLSIM_CHECK_MAIN_H

#include <check.h>
#include <stdlib.h>

static inline int check_run_suite(Suite *suite)
{
    SRunner *runner = srunner_create(suite);
    int failed;

    srunner_run_all(runner, CK_NORMAL);
    failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

/*
 * A test case `name' in `suite' with the tests of a NULL-terminated list;
 * loop tests, fixtures and a timeout go on what it returns.
 */
static inline TCase *check_add_tcase(Suite *suite, const char *name, const TTest *const tests[])
{
    TCase *tc = tcase_create(name);

    for (size_t i = 0; tests[i]; i++)
        tcase_add_test(tc, tests[i]);
    suite_add_tcase(suite, tc);
    return tc;
}

struct check_loop {
    const TTest *test;
    int rows;
};
#define CHECK_ROWS(table) ((int)(sizeof(table) / sizeof((table)[0])))
#define CHECK_LOOP(test, table)                                                                    \
    {                                                                                              \
        (test), CHECK_ROWS(table)                                                                  \
    }

static inline int check_run_cases(const char *name, int timeout_s, const TTest *const tests[],
                                  const struct check_loop *loops, size_t nloops)
{
    Suite *suite = suite_create(name);
    TCase *tc = check_add_tcase(suite, "core", tests);

    if (timeout_s > 0)
        tcase_set_timeout(tc, timeout_s);
    for (size_t i = 0; i < nloops; i++)
        tcase_add_loop_test(tc, loops[i].test, 0, loops[i].rows);
    return check_run_suite(suite);
}

static inline int check_run_loop(const char *name, int timeout_s, const TTest *const tests[],
                                 const TTest *test, int rows)
{
    const struct check_loop loop = {test, rows};

    return check_run_cases(name, timeout_s, tests, &loop, 1);
}

static inline int check_run_tests(const char *name, const TTest *const tests[])
{
    return check_run_cases(name, 0, tests, NULL, 0);
}

#endif
