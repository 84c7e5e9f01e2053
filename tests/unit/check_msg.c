/*
 * check_msg - an error said in the caller's buffer (msg_set_error).
 */
#include "config.h"

#include <check.h>
#include <string.h>

#include "check_main.h"
#include "msg.h"

START_TEST(test_set_error)
{
    char err[64];

    memset(err, 'x', sizeof(err));
    ck_assert_int_eq(msg_set_error(err, sizeof(err), "bad port \"%s\" (%d)", "99999", 2), -1);
    ck_assert_str_eq(err, "bad port \"99999\" (2)");
}
END_TEST

START_TEST(test_set_error_truncated)
{
    char err[8];

    ck_assert_int_eq(msg_set_error(err, sizeof(err), "%s", "a longer message"), -1);
    ck_assert_str_eq(err, "a longe");
}
END_TEST

/* A caller that wants no message passes no buffer, or one of no length. */
START_TEST(test_set_error_no_buffer)
{
    char err[4] = "abc";

    ck_assert_int_eq(msg_set_error(NULL, 100, "%s", "nowhere"), -1);
    ck_assert_int_eq(msg_set_error(err, 0, "%s", "nowhere"), -1);
    ck_assert_str_eq(err, "abc");
}
END_TEST

int main(void)
{
    const TTest *const tests[] = {test_set_error, test_set_error_truncated,
                                  test_set_error_no_buffer, NULL};

    return check_run_tests("msg", tests);
}
