/*
 * check_quote - user text made safe to print (quote_text): terminal
 * escapes, C1 controls, line ends and invalid UTF-8 escaped as \xNN,
 * well-formed text kept, long runs cut with "...", the buffer never
 * overrun nor an escape or a character split where it is full.
 */
#include "config.h"

#include <check.h>
#include <string.h>

#include "check_main.h"
#include "quote.h"

static const char *q(const char *in, size_t max_run, int flags)
{
    static char out[256];

    return quote_text(in, max_run, flags, out, sizeof(out));
}

START_TEST(test_plain_kept)
{
    ck_assert_str_eq(q("/tmp/a b", 0, 0), "/tmp/a b");
    ck_assert_str_eq(q("", 0, 0), "");
    /* UTF-8 that is well formed, Japanese and a U+00A0, stays as it is */
    ck_assert_str_eq(q("/tmp/\xe6\x97\xa5\xe6\x9c\xac \xc2\xa0", 0, 0),
                     "/tmp/\xe6\x97\xa5\xe6\x9c\xac \xc2\xa0");
}
END_TEST

START_TEST(test_controls_escaped)
{
    ck_assert_str_eq(q("/tmp/\033[31mx", 0, 0), "/tmp/\\x1b[31mx");
    ck_assert_str_eq(q("a\rb\nc\td\x7f", 0, 0), "a\\x0db\\x0ac\\x09d\\x7f");
    /* U+009B, CSI on terminals that take C1 controls */
    ck_assert_str_eq(q("x\xc2\x9b"
                       "31m",
                       0, 0),
                     "x\\xc2\\x9b31m");
    /* a child's lines: line feeds and tabs kept, the escape not */
    ck_assert_str_eq(q("a\nb\tc\033", 0, QUOTE_KEEP_LINES), "a\nb\tc\\x1b");
}
END_TEST

START_TEST(test_invalid_utf8_escaped)
{
    ck_assert_str_eq(q("caf\xe9", 0, 0), "caf\\xe9");
    ck_assert_str_eq(q("\xc0\xaf", 0, 0), "\\xc0\\xaf");          /* overlong */
    ck_assert_str_eq(q("\xed\xa0\x80", 0, 0), "\\xed\\xa0\\x80"); /* a surrogate */
    ck_assert_str_eq(q("\xe6\x97", 0, 0), "\\xe6\\x97");          /* cut short */
}
END_TEST

START_TEST(test_long_runs_cut)
{
    char in[300], want[300];

    memset(in, 'a', 200);
    in[200] = 0;
    memset(want, 'a', 80);
    strcpy(want + 80, "...");
    ck_assert_str_eq(q(in, QUOTE_RUN_MAX, 0), want);
    /* a space starts a new run; what is at most max_run long is whole */
    ck_assert_str_eq(q("abcdef ghi", 3, 0), "abc... ghi");
    ck_assert_str_eq(q("abc def", 3, 0), "abc def");
    /* characters are counted, not bytes; an escape is one */
    ck_assert_str_eq(q("\xe6\x97\xa5\xe6\x9c\xac\xe6\x97\xa5", 2, 0),
                     "\xe6\x97\xa5\xe6\x9c\xac...");
    ck_assert_str_eq(q("\033\033\033", 2, 0), "\\x1b\\x1b...");
}
END_TEST

START_TEST(test_small_buffer)
{
    char out[6];

    /* full: "ab" and no half escape, nor half a character */
    ck_assert_str_eq(quote_text("ab\033cd", 0, 0, out, sizeof(out)), "ab");
    ck_assert_str_eq(quote_text("abcd\xe6\x97\xa5", 0, 0, out, sizeof(out)), "abcd");
    ck_assert_str_eq(quote_text("abcdefgh", 0, 0, out, sizeof(out)), "abcde");
    ck_assert_str_eq(quote_text("abc", 0, 0, out, 1), "");
}
END_TEST

int main(void)
{
    const TTest *const tests[] = {test_plain_kept,           test_controls_escaped,
                                  test_invalid_utf8_escaped, test_long_runs_cut,
                                  test_small_buffer,         NULL};

    return check_run_tests("quote", tests);
}
