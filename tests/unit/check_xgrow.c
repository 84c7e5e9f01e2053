/*
 * check_xgrow - xgrow(): the first capacity, doubling, a jump of many at
 * once, the contents kept, and nothing moved when there is room.
 */
#include "config.h"

#include <check.h>
#include <stdint.h>
#include <stdlib.h>

#include "check_main.h"
#include "xgrow.h"

START_TEST(test_first_then_doubling)
{
    uint32_t *v = NULL;
    size_t n = 0, cap = 0;

    for (uint32_t i = 0; i < 100; i++) {
        v = xgrow(v, &cap, n + 1, 8, sizeof(*v));
        v[n++] = i;
        /* 8, then 16, 32, 64, 128: the least power-of-two multiple of 8 that holds n */
        ck_assert_uint_eq(cap, n <= 8 ? 8 : n <= 16 ? 16 : n <= 32 ? 32 : n <= 64 ? 64 : 128);
    }
    for (uint32_t i = 0; i < 100; i++)
        ck_assert_uint_eq(v[i], i);
    free(v);
}
END_TEST

START_TEST(test_room_already)
{
    size_t cap = 0;
    char *v = xgrow(NULL, &cap, 3, 4, 1);
    char *same;

    ck_assert_uint_eq(cap, 4);
    same = xgrow(v, &cap, 4, 4, 1);
    ck_assert_ptr_eq(same, v);
    ck_assert_uint_eq(cap, 4);
    same = xgrow(v, &cap, 0, 4, 1);
    ck_assert_ptr_eq(same, v);
    ck_assert_uint_eq(cap, 4);
    free(v);
}
END_TEST

START_TEST(test_jump)
{
    size_t cap = 0;
    double *v = xgrow(NULL, &cap, 1000, 4, sizeof(*v));

    /* 4 doubled until 1000 fits: 1024, not 1000 (the next append must not realloc) */
    ck_assert_uint_eq(cap, 1024);
    v[999] = 1.5;
    v = xgrow(v, &cap, 1025, 4, sizeof(*v));
    ck_assert_uint_eq(cap, 2048);
    ck_assert(v[999] == 1.5);
    free(v);
    cap = 0;
    v = xgrow(NULL, &cap, 1, 0, sizeof(*v)); /* a first of 0 is 1 */
    ck_assert_uint_eq(cap, 1);
    free(v);
}
END_TEST

int main(void)
{
    const TTest *const tests[] = {test_first_then_doubling, test_room_already, test_jump, NULL};

    return check_run_tests("xgrow", tests);
}
