/*
 * check_main - the one way every Check unit test runs its suite.
 *
 * check_run_suite() runs the suite (forking per test, as Check does by
 * default), frees it, and returns the process exit status;
 * check_run_tests() does it for a suite of one test case, the tests of a
 * NULL-terminated list.
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

static inline int check_run_tests(const char *name, const TTest *const tests[])
{
    Suite *suite = suite_create(name);
    TCase *tc = tcase_create("core");

    for (size_t i = 0; tests[i]; i++)
        tcase_add_test(tc, tests[i]);
    suite_add_tcase(suite, tc);
    return check_run_suite(suite);
}

#endif
