/*
 * check_msg - an error said in the caller's buffer (msg_set_error), and
 * the limiter that says a repeating warning once, then counts it
 * (msg_limit_pass, msg_limit_take).
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

#define SEC 1000000000ULL

/* A limiter that says a count at most every 10 s, as the relay's. */
static struct msg_limit limit_10s(void)
{
    struct msg_limit l;

    msg_limit_init(&l, 10 * SEC);
    return l;
}

/* A dead disk's flood: 55,348 failures in 5 s, one every 90 us. */
START_TEST(test_limit_flood)
{
    struct msg_limit l = limit_10s();
    struct msg_limit_held h;
    unsigned long printed = 0, counted = 0, summaries = 0;
    uint64_t t = 1000 * SEC;

    for (unsigned i = 0; i < 55348; i++, t += 90000) {
        printed += (unsigned long)msg_limit_pass(&l, "cannot create a queue file: EIO", t, &h);
        counted += h.count;
        summaries += h.count > 0;
    }
    ck_assert_uint_eq(printed, 1); /* 5 s: within one interval */
    ck_assert_uint_eq(summaries, 0);
    msg_limit_take(&l, t, &h);
    ck_assert_uint_eq(h.count, 55347);
    ck_assert_str_eq(h.key, "cannot create a queue file: EIO");
    ck_assert_uint_ge(h.span_ns, 4 * SEC);
    ck_assert_uint_le(h.span_ns, 5 * SEC);
    /* taken: nothing is held, and the next one is said again */
    msg_limit_take(&l, t, &h);
    ck_assert_uint_eq(h.count, 0);
    ck_assert_int_eq(msg_limit_pass(&l, "cannot create a queue file: EIO", t, &h), 1);
    ck_assert_uint_eq(h.count, 0);
}
END_TEST

/* Longer than an interval: a count a line each interval, and nothing lost from the total. */
START_TEST(test_limit_interval)
{
    struct msg_limit l = limit_10s();
    struct msg_limit_held h;
    unsigned long printed = 0, counted = 0, summaries = 0, n = 0;
    uint64_t t = 5 * SEC;

    for (; t < 5 * SEC + 35 * SEC; t += SEC / 100, n++) {
        printed += (unsigned long)msg_limit_pass(&l, "x", t, &h);
        if (h.count) {
            summaries++;
            counted += h.count;
            ck_assert_uint_ge(h.span_ns, 10 * SEC);
            ck_assert_uint_lt(h.span_ns, 10 * SEC + SEC / 50);
        }
    }
    msg_limit_take(&l, t, &h);
    counted += h.count;
    ck_assert_uint_eq(printed, 1);
    ck_assert_uint_eq(summaries, 3); /* at 10, 20 and 30 s */
    ck_assert_uint_eq(printed + counted, n);
}
END_TEST

/* A warning that comes seldom is said each time. */
START_TEST(test_limit_seldom)
{
    struct msg_limit l = limit_10s();
    struct msg_limit_held h;

    for (uint64_t t = 0; t < 100 * SEC; t += 11 * SEC) {
        ck_assert_int_eq(msg_limit_pass(&l, "seldom", t, &h), 1);
        ck_assert_uint_eq(h.count, 0);
    }
}
END_TEST

/* Another warning ends the run: the count of the first is said before it. */
START_TEST(test_limit_other_key)
{
    struct msg_limit l = limit_10s();
    struct msg_limit_held h;

    ck_assert_int_eq(msg_limit_pass(&l, "EIO", SEC, &h), 1);
    ck_assert_int_eq(msg_limit_pass(&l, "EIO", 2 * SEC, &h), 0);
    ck_assert_int_eq(msg_limit_pass(&l, "EIO", 3 * SEC, &h), 0);
    ck_assert_uint_eq(h.count, 0);
    ck_assert_int_eq(msg_limit_pass(&l, "ENOSPC", 4 * SEC, &h), 1);
    ck_assert_uint_eq(h.count, 2);
    ck_assert_str_eq(h.key, "EIO");
    ck_assert_uint_eq(h.span_ns, 3 * SEC);
    /* the new run holds only its own */
    ck_assert_int_eq(msg_limit_pass(&l, "ENOSPC", 5 * SEC, &h), 0);
    msg_limit_take(&l, 6 * SEC, &h);
    ck_assert_uint_eq(h.count, 1);
    ck_assert_str_eq(h.key, "ENOSPC");
}
END_TEST

/* Keys longer than the limiter keeps compare by what it keeps; a clock that steps back holds. */
START_TEST(test_limit_long_key)
{
    struct msg_limit l = limit_10s();
    struct msg_limit_held h;
    char a[400], b[400];

    memset(a, 'a', sizeof(a) - 1);
    a[sizeof(a) - 1] = 0;
    memcpy(b, a, sizeof(b));
    b[sizeof(b) - 2] = 'b'; /* past what is kept */
    ck_assert_int_eq(msg_limit_pass(&l, a, 5 * SEC, &h), 1);
    ck_assert_int_eq(msg_limit_pass(&l, b, 4 * SEC, &h), 0);
    msg_limit_take(&l, 3 * SEC, &h);
    ck_assert_uint_eq(h.count, 1);
    ck_assert_uint_eq(h.span_ns, 0);
    ck_assert_uint_eq(strlen(h.key), MSG_LIMIT_KEY - 1);
}
END_TEST

int main(void)
{
    const TTest *const tests[] = {
        test_set_error,       test_set_error_truncated, test_set_error_no_buffer,
        test_limit_flood,     test_limit_interval,      test_limit_seldom,
        test_limit_other_key, test_limit_long_key,      NULL};

    return check_run_tests("msg", tests);
}
