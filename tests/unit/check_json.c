/*
 * Unit tests for common/report/json.c: exact output text, escaping, commas,
 * indentation and the panics on misuse.
 */
#include "config.h"

#include <check.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "json.h"
#include "utf8.h"
#include "check_main.h"

/* Each test writes into a memory stream and compares the text at the end. */
static FILE *mem_fp;
static char *mem_buf;
static size_t mem_len;
static struct json_writer w;

static void mem_open(void)
{
    mem_buf = NULL;
    mem_len = 0;
    mem_fp = open_memstream(&mem_buf, &mem_len);
    ck_assert_ptr_nonnull(mem_fp);
    json_init(&w, mem_fp);
}

static void mem_expect(const char *want)
{
    ck_assert_int_eq(json_finish(&w), 0);
    ck_assert_int_eq(fclose(mem_fp), 0);
    ck_assert_str_eq(mem_buf, want);
    free(mem_buf);
}

START_TEST(test_escape)
{
    mem_open();
    json_string(&w, NULL, "\"\\\n\x01");
    mem_expect("\"\\\"\\\\\\n\\u0001\"\n");

    mem_open();
    json_string(&w, NULL, "\b\f\r\t\x1f\x7f/");
    mem_expect("\"\\b\\f\\r\\t\\u001f\x7f/\"\n");
}
END_TEST

START_TEST(test_utf8_passthrough)
{
    mem_open();
    json_begin_object(&w, NULL);
    json_string(&w, "caf\xc3\xa9", "\xe2\x82\xac 5 \xf0\x9f\x93\xa7");
    json_string(&w, "k\"ey", "");
    json_end_object(&w);
    mem_expect("{\n"
               "  \"caf\xc3\xa9\": \"\xe2\x82\xac 5 \xf0\x9f\x93\xa7\",\n"
               "  \"k\\\"ey\": \"\"\n"
               "}\n");
}
END_TEST

/*
 * A path is bytes: one in Latin-1 (/tmp/caf\xe9), a cut sequence or a
 * surrogate made invalid JSON that readers refused whole (issue 35). Each
 * byte that starts no character becomes U+FFFD; good UTF-8 stays.
 */
#define FFFD "\xef\xbf\xbd"
START_TEST(test_utf8_invalid)
{
    mem_open();
    json_begin_object(&w, NULL);
    json_string(&w, "path", "/tmp/caf\xe9/spool");
    json_string(&w, "k\xff", "cut \xe2\x82");
    json_string(&w, "surrogate", "\xed\xa0\x80");
    json_string(&w, "overlong", "\xc0\xaf \xe0\x80\xaf \xf0\x80\x80\xaf");
    json_string(&w, "past", "\xf4\x90\x80\x80 \xf5\x80");
    json_string(&w, "good", "\xc3\xa9\xe2\x82\xac\xf0\x9f\x93\xa7\xf4\x8f\xbf\xbf\x7f");
    json_string(&w, "lone", "\x80x\xbf");
    json_end_object(&w);
    mem_expect("{\n"
               "  \"path\": \"/tmp/caf" FFFD "/spool\",\n"
               "  \"k" FFFD "\": \"cut " FFFD FFFD "\",\n"
               "  \"surrogate\": \"" FFFD FFFD FFFD "\",\n"
               "  \"overlong\": \"" FFFD FFFD " " FFFD FFFD FFFD " " FFFD FFFD FFFD FFFD "\",\n"
               "  \"past\": \"" FFFD FFFD FFFD FFFD " " FFFD FFFD "\",\n"
               "  \"good\": \"\xc3\xa9\xe2\x82\xac\xf0\x9f\x93\xa7\xf4\x8f\xbf\xbf\x7f\",\n"
               "  \"lone\": \"" FFFD "x" FFFD "\"\n"
               "}\n");
    /* the module itself: lengths, and never a read past a NUL */
    ck_assert_uint_eq(utf8_char_len((const unsigned char *)"a"), 1);
    ck_assert_uint_eq(utf8_char_len((const unsigned char *)"\xc3\xa9"), 2);
    ck_assert_uint_eq(utf8_char_len((const unsigned char *)"\xe2\x82\xac"), 3);
    ck_assert_uint_eq(utf8_char_len((const unsigned char *)"\xf0\x9f\x93\xa7"), 4);
    ck_assert_uint_eq(utf8_char_len((const unsigned char *)"\xf0\x9f\x93"), 0);
    ck_assert_uint_eq(utf8_char_len((const unsigned char *)"\xc3"), 0);
}
END_TEST

START_TEST(test_scalars)
{
    mem_open();
    json_begin_object(&w, NULL);
    json_string(&w, "s", "x");
    json_string(&w, "null", NULL);
    json_uint(&w, "u0", 0);
    json_uint(&w, "umax", UINT64_MAX);
    json_int(&w, "neg", -42);
    json_int(&w, "imin", INT64_MIN);
    json_bool(&w, "t", 1);
    json_bool(&w, "f", 0);
    json_end_object(&w);
    mem_expect("{\n"
               "  \"s\": \"x\",\n"
               "  \"null\": null,\n"
               "  \"u0\": 0,\n"
               "  \"umax\": 18446744073709551615,\n"
               "  \"neg\": -42,\n"
               "  \"imin\": -9223372036854775808,\n"
               "  \"t\": true,\n"
               "  \"f\": false\n"
               "}\n");
}
END_TEST

START_TEST(test_doubles)
{
    mem_open();
    json_begin_array(&w, NULL);
    json_double(&w, NULL, 0.0);
    json_double(&w, NULL, 0.000123);
    json_double(&w, NULL, 1.5e-7);
    json_double(&w, NULL, 123456.789);
    json_double(&w, NULL, 1.0 / 3.0);
    json_double(&w, NULL, -2.5);
    json_double(&w, NULL, 1e300);
    json_double(&w, NULL, NAN);
    json_double(&w, NULL, INFINITY);
    json_double(&w, NULL, -INFINITY);
    json_time(&w, NULL, 1796126400.25);
    json_time(&w, NULL, NAN);
    json_end_array(&w);
    mem_expect("[\n"
               "  0,\n"
               "  0.000123,\n"
               "  1.5e-07,\n"
               "  123456.789,\n"
               "  0.333333333,\n"
               "  -2.5,\n"
               "  1e+300,\n"
               "  null,\n"
               "  null,\n"
               "  null,\n"
               "  1796126400.250000,\n"
               "  null\n"
               "]\n");
}
END_TEST

START_TEST(test_nesting)
{
    mem_open();
    json_begin_object(&w, NULL);
    json_string(&w, "name", "run");
    json_begin_array(&w, "matrix");
    json_begin_array(&w, NULL);
    json_uint(&w, NULL, 1);
    json_uint(&w, NULL, 2);
    json_end_array(&w);
    json_begin_array(&w, NULL);
    json_end_array(&w);
    json_begin_object(&w, NULL);
    json_bool(&w, "ok", 1);
    json_end_object(&w);
    json_end_array(&w);
    json_begin_object(&w, "empty");
    json_end_object(&w);
    json_begin_object(&w, "inner");
    json_begin_object(&w, "deeper");
    json_int(&w, "x", -1);
    json_end_object(&w);
    json_uint(&w, "after", 3);
    json_end_object(&w);
    json_end_object(&w);
    mem_expect("{\n"
               "  \"name\": \"run\",\n"
               "  \"matrix\": [\n"
               "    [\n"
               "      1,\n"
               "      2\n"
               "    ],\n"
               "    [],\n"
               "    {\n"
               "      \"ok\": true\n"
               "    }\n"
               "  ],\n"
               "  \"empty\": {},\n"
               "  \"inner\": {\n"
               "    \"deeper\": {\n"
               "      \"x\": -1\n"
               "    },\n"
               "    \"after\": 3\n"
               "  }\n"
               "}\n");
}
END_TEST

START_TEST(test_inline_array)
{
    mem_open();
    json_begin_object(&w, NULL);
    json_begin_array(&w, "counts");
    json_begin_inline_array(&w, NULL);
    json_uint(&w, NULL, 128);
    json_uint(&w, NULL, 3);
    json_end_array(&w);
    json_begin_inline_array(&w, NULL);
    json_begin_array(&w, NULL); /* a container inside a line stays on it */
    json_end_array(&w);
    json_begin_object(&w, NULL);
    json_double(&w, "x", 0.5);
    json_bool(&w, "y", 0);
    json_end_object(&w);
    json_end_array(&w);
    json_begin_inline_array(&w, NULL);
    json_end_array(&w);
    json_end_array(&w);
    json_uint(&w, "after", 1); /* and the line ends with it */
    json_end_object(&w);
    mem_expect("{\n"
               "  \"counts\": [\n"
               "    [128, 3],\n"
               "    [[], {\"x\": 0.5, \"y\": false}],\n"
               "    []\n"
               "  ],\n"
               "  \"after\": 1\n"
               "}\n");
}
END_TEST

START_TEST(test_top_level_scalar_and_empty)
{
    mem_open();
    json_uint(&w, NULL, 7);
    mem_expect("7\n");

    mem_open();
    json_begin_object(&w, NULL);
    json_end_object(&w);
    mem_expect("{}\n");
}
END_TEST

START_TEST(test_max_depth)
{
    /* Innermost "[]" sits on one line; every other bracket on its own. */
    char want[4096];
    size_t len = 0;
    int i;

    mem_open();
    for (i = 0; i < JSON_MAX_DEPTH; i++)
        json_begin_array(&w, NULL);
    for (i = 0; i < JSON_MAX_DEPTH; i++)
        json_end_array(&w);
    for (i = 0; i < JSON_MAX_DEPTH - 1; i++)
        len += (size_t)snprintf(want + len, sizeof(want) - len, "%*s[\n", 2 * i, "");
    len += (size_t)snprintf(want + len, sizeof(want) - len, "%*s[]\n", 2 * i, "");
    for (i = JSON_MAX_DEPTH - 2; i >= 0; i--)
        len += (size_t)snprintf(want + len, sizeof(want) - len, "%*s]\n", 2 * i, "");
    mem_expect(want);
}
END_TEST

/* Misuse is a programming error: msg_panic() aborts. */
START_TEST(test_too_deep)
{
    mem_open();
    for (int i = 0; i <= JSON_MAX_DEPTH; i++)
        json_begin_array(&w, NULL);
}
END_TEST

START_TEST(test_key_in_array)
{
    mem_open();
    json_begin_array(&w, NULL);
    json_uint(&w, "k", 1);
}
END_TEST

START_TEST(test_no_key_in_object)
{
    mem_open();
    json_begin_object(&w, NULL);
    json_uint(&w, NULL, 1);
}
END_TEST

START_TEST(test_mismatched_end)
{
    mem_open();
    json_begin_object(&w, NULL);
    json_end_array(&w);
}
END_TEST

START_TEST(test_unclosed_finish)
{
    mem_open();
    json_begin_object(&w, NULL);
    json_finish(&w);
}
END_TEST

int main(void)
{
    const TTest *const output[] = {test_escape,       test_utf8_passthrough,
                                   test_utf8_invalid, test_scalars,
                                   test_doubles,      test_nesting,
                                   test_inline_array, test_top_level_scalar_and_empty,
                                   test_max_depth,    NULL};
    const TTest *const misuse[] = {NULL};
    Suite *s = suite_create("json");
    TCase *tc;

    check_add_tcase(s, "output", output);
    tc = check_add_tcase(s, "misuse", misuse);
    tcase_add_test_raise_signal(tc, test_too_deep, SIGABRT);
    tcase_add_test_raise_signal(tc, test_key_in_array, SIGABRT);
    tcase_add_test_raise_signal(tc, test_no_key_in_object, SIGABRT);
    tcase_add_test_raise_signal(tc, test_mismatched_end, SIGABRT);
    tcase_add_test_raise_signal(tc, test_unclosed_finish, SIGABRT);
    return check_run_suite(s);
}
