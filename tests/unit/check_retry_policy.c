/*
 * Unit tests for spoolsim/relay/retry_policy.c: the back-off's doubling
 * and its bound, the stamp of a deferred file, and the wait from a stamp
 * at a restart.
 */
#include "config.h"

#include <check.h>
#include <stdint.h>

#include "check_main.h"
#include "clock.h"
#include "retry_policy.h"

#define S CLOCK_NS_PER_SEC

START_TEST(test_doubling)
{
    const struct retry_policy p = {1 * S, 10 * S};
    static const struct {
        unsigned attempts;
        uint64_t wait;
    } rows[] = {{0, 1 * S}, {1, 1 * S},  {2, 2 * S},  {3, 4 * S},
                {4, 8 * S}, {5, 10 * S}, {6, 10 * S}, {4000000000u, 10 * S}};

    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
        ck_assert_msg(retry_policy_backoff_ns(&p, rows[i].attempts) == rows[i].wait,
                      "attempt %u: %llu", rows[i].attempts,
                      (unsigned long long)retry_policy_backoff_ns(&p, rows[i].attempts));
}
END_TEST

/* Bounds near the top of the range: doubling must not wrap round to a short wait. */
START_TEST(test_no_overflow)
{
    const struct retry_policy p = {UINT64_MAX / 3, UINT64_MAX - 1};
    const struct retry_policy fixed = {5 * S, 5 * S};

    ck_assert(retry_policy_backoff_ns(&p, 2) == 2 * (UINT64_MAX / 3));
    ck_assert(retry_policy_backoff_ns(&p, 3) == UINT64_MAX - 1);
    ck_assert(retry_policy_backoff_ns(&p, 100) == UINT64_MAX - 1);
    ck_assert(retry_policy_backoff_ns(&fixed, 1) == 5 * S);
    ck_assert(retry_policy_backoff_ns(&fixed, 9) == 5 * S);
}
END_TEST

START_TEST(test_due_and_wait)
{
    const struct retry_policy p = {1 * S, 10 * S};
    long now = 1700000000;

    ck_assert_int_eq(retry_policy_due_s(now, 4 * S), now + 4);
    ck_assert_int_eq(retry_policy_due_s(now, S / 2), now); /* whole seconds, as an mtime */
    ck_assert(retry_policy_wait_until_ns(&p, now + 4, now) == 4 * S);
    ck_assert(retry_policy_wait_until_ns(&p, now, now) == 0);        /* due */
    ck_assert(retry_policy_wait_until_ns(&p, now - 3600, now) == 0); /* long due */
    /* a stamp far ahead (a clock that moved): the longest back-off, not a day */
    ck_assert(retry_policy_wait_until_ns(&p, now + 86400, now) == 10 * S);
    ck_assert(retry_policy_wait_until_ns(&p, now + 10, now) == 10 * S);
    /* what was stamped is what a restart waits for, within the bound */
    for (unsigned a = 1; a < 8; a++) {
        uint64_t wait = retry_policy_backoff_ns(&p, a);

        ck_assert(retry_policy_wait_until_ns(&p, retry_policy_due_s(now, wait), now) == wait);
    }
}
END_TEST

int main(void)
{
    const TTest *const tests[] = {test_doubling, test_no_overflow, test_due_and_wait, NULL};

    return check_run_tests("retry_policy", tests);
}
