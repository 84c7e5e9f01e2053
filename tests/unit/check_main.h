/*
 * check_main - the one way every Check unit test runs its suite.
 *
 * check_run_suite() runs the suite (forking per test, as Check does by
 * default), frees it, and returns the process exit status.
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

#endif
