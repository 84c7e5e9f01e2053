/*
 * Unit tests for common/util/fdlimit.c: what fits under a descriptor limit,
 * and the sentence that says what does not; the raise itself, to the hard
 * limit this process has.
 */
#include "config.h"

#include <check.h>
#include <stdint.h>
#include <string.h>
#include <sys/resource.h>

#include "check_main.h"
#include "fdlimit.h"

START_TEST(test_check)
{
    char msg[400] = "untouched";

    ck_assert_int_eq(fdlimit_check(1024, 1024, 4096, "-s 960", msg, sizeof(msg)), 1);
    ck_assert_str_eq(msg, "untouched");
    ck_assert_int_eq(fdlimit_check(5, FDLIMIT_UNLIMITED, FDLIMIT_UNLIMITED, "x", msg, sizeof(msg)),
                     1);
    ck_assert_int_eq(fdlimit_check(2068, 1024, 1024, "-s 2000", msg, sizeof(msg)), 0);
    ck_assert_str_eq(msg, "-s 2000 needs about 2068 file descriptors, and this process may open "
                          "1024 (ulimit -n; the hard limit is 1024): raise the hard limit (ulimit "
                          "-Hn, as root; LimitNOFILE= for a service), or give fewer");
    ck_assert_int_eq(fdlimit_check(10, 5, FDLIMIT_UNLIMITED, "y", msg, sizeof(msg)), 0);
    ck_assert_ptr_nonnull(strstr(msg, "the hard limit is unlimited"));
    /* cut to fit, never past the buffer */
    ck_assert_int_eq(fdlimit_check(10, 5, 5, "z", msg, 12), 0);
    ck_assert_uint_eq(strlen(msg), 11);
}
END_TEST

START_TEST(test_raise)
{
    struct rlimit rl;
    uint64_t soft, hard;

    ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &rl), 0);
    if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max > 64) {
        rl.rlim_cur = 64; /* as a shell's low default would leave it */
        ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);
    }
    ck_assert_int_eq(fdlimit_raise(&soft, &hard), 0);
    ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &rl), 0);
    ck_assert(rl.rlim_cur == rl.rlim_max);
    ck_assert_uint_eq(soft, hard);
}
END_TEST

int main(void)
{
    const TTest *const tests[] = {test_check, test_raise, NULL};

    return check_run_tests("fdlimit", tests);
}
