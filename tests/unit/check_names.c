/*
 * check_names - names_index(): a name's index, the first of two alike,
 * whole names only, case and all, NULL entries passed over, -1 for none.
 */
#include "config.h"

#include <check.h>

#include "check_main.h"
#include "names.h"

START_TEST(test_index)
{
    static const char *const names[] = {"fsync", "fdatasync", NULL, "none", "fsync"};
    const size_t n = sizeof(names) / sizeof(names[0]);

    ck_assert_int_eq(names_index(names, n, "fsync"), 0); /* the first of the two */
    ck_assert_int_eq(names_index(names, n, "fdatasync"), 1);
    ck_assert_int_eq(names_index(names, n, "none"), 3);
    ck_assert_int_eq(names_index(names, n, "fdata"), -1); /* a prefix is not the name */
    ck_assert_int_eq(names_index(names, n, "fsyncs"), -1);
    ck_assert_int_eq(names_index(names, n, "FSYNC"), -1);
    ck_assert_int_eq(names_index(names, n, ""), -1);
    ck_assert_int_eq(names_index(names, 3, "none"), -1); /* beyond n: not looked at */
    ck_assert_int_eq(names_index(names, 0, "fsync"), -1);
}
END_TEST

int main(void)
{
    const TTest *const tests[] = {test_index, NULL};

    return check_run_tests("names", tests);
}
