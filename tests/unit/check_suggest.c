/*
 * check_suggest - the nearest word to a mistyped one: the distance
 * (insertions, deletions, changes, two neighbours swapped), and which word
 * is suggested, if any is near enough.
 */
#include "config.h"

#include <check.h>
#include <stdint.h>
#include <string.h>

#include "check_main.h"
#include "suggest.h"

START_TEST(test_distance)
{
    ck_assert_uint_eq(suggest_distance("bench", "bench"), 0);
    ck_assert_uint_eq(suggest_distance("bnech", "bench"), 1); /* a swap */
    ck_assert_uint_eq(suggest_distance("dri", "dir"), 1);
    ck_assert_uint_eq(suggest_distance("rellay", "relay"), 1);
    ck_assert_uint_eq(suggest_distance("ra", "raw"), 1);
    ck_assert_uint_eq(suggest_distance("kitten", "sitting"), 3);
    ck_assert_uint_eq(suggest_distance("", "abc"), 3);
    ck_assert_uint_eq(suggest_distance("abc", ""), 3);
    ck_assert_uint_eq(suggest_distance("ca", "abc"), 3); /* a swap is not edited again */
}
END_TEST

START_TEST(test_distance_long)
{
    char big[SUGGEST_WORD_MAX + 2];

    memset(big, 'a', sizeof(big) - 1);
    big[sizeof(big) - 1] = 0;
    ck_assert_uint_eq(suggest_distance(big, "a"), SIZE_MAX);
    big[SUGGEST_WORD_MAX] = 0;
    ck_assert_uint_eq(suggest_distance(big, big), 0);
}
END_TEST

START_TEST(test_nearest)
{
    static const char *const commands[] = {"bench", "sweep", "raw", "relay", "crash", "calibrate"};
    const size_t n = sizeof(commands) / sizeof(commands[0]);

    ck_assert_str_eq(suggest_nearest("bnech", commands, n), "bench");
    ck_assert_str_eq(suggest_nearest("rely", commands, n), "relay");
    ck_assert_str_eq(suggest_nearest("calibrat", commands, n), "calibrate");
    ck_assert_str_eq(suggest_nearest("rwa", commands, n), "raw");
    /* too far to be meant */
    ck_assert_ptr_null(suggest_nearest("postmark", commands, n));
    ck_assert_ptr_null(suggest_nearest("x", commands, n));
    ck_assert_ptr_null(suggest_nearest("", commands, n));
    ck_assert_ptr_null(suggest_nearest("bench", commands, 0));
    /* of two as near, the first */
    ck_assert_str_eq(suggest_nearest("rax", (const char *const[]){"rab", "raw"}, 2), "rab");
}
END_TEST

int main(void)
{
    const TTest *const tests[] = {test_distance, test_distance_long, test_nearest, NULL};

    return check_run_tests("suggest", tests);
}
