/*
 * Unit tests for common/report/json_read.c: lookups by path, unescaping, number
 * forms, the checks on malformed and truncated texts, and a round trip
 * through our writer (common/report/json.c).
 */
#include "config.h"

#include <check.h>
#include <locale.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "json_read.h"
#include "check_json_text.h"
#include "check_main.h"

/* Shorthands that make a failing lookup fail the test at its own line. */
#define NUM_EQ(text, path, want)                                                                   \
    do {                                                                                           \
        double got_ = -12345.0;                                                                    \
        ck_assert_int_eq(json_read_number((text), (path), &got_), 0);                              \
        ck_assert_double_eq(got_, (want));                                                         \
    } while (0)

#define NUM_FAILS(text, path)                                                                      \
    do {                                                                                           \
        double got_ = -12345.0;                                                                    \
        ck_assert_int_eq(json_read_number((text), (path), &got_), -1);                             \
        ck_assert_double_eq(got_, -12345.0);                                                       \
    } while (0)

#define STR_EQ(text, path, want)                                                                   \
    do {                                                                                           \
        char got_[256];                                                                            \
        ck_assert_int_eq(json_read_string((text), (path), got_, sizeof(got_)), 0);                 \
        ck_assert_str_eq(got_, (want));                                                            \
    } while (0)

#define STR_FAILS(text, path)                                                                      \
    do {                                                                                           \
        char got_[256] = "untouched";                                                              \
        ck_assert_int_eq(json_read_string((text), (path), got_, sizeof(got_)), -1);                \
        ck_assert_str_eq(got_, "");                                                                \
    } while (0)

static const char *report = "{\n"
                            "  \"name\": \"run 1\",\n"
                            "  \"delivered\": 500,\n"
                            "  \"latency\": {\n"
                            "    \"connect\": {\"p50_ms\": 0.25},\n"
                            "    \"end_to_end\": {\"p50_ms\": 12.5, \"p99_ms\": 80}\n"
                            "  },\n"
                            "  \"queue_depth\": [\n"
                            "    {\"t\": 0, \"n\": 3},\n"
                            "    {\"t\": 1.5, \"n\": [7, 8, [9]]}\n"
                            "  ],\n"
                            "  \"ok\": true,\n"
                            "  \"none\": null\n"
                            "}\n";

START_TEST(test_nested_objects)
{
    NUM_EQ(report, "delivered", 500);
    NUM_EQ(report, "latency.connect.p50_ms", 0.25);
    NUM_EQ(report, "latency.end_to_end.p50_ms", 12.5);
    NUM_EQ(report, "latency.end_to_end.p99_ms", 80);
    STR_EQ(report, "name", "run 1");
}
END_TEST

START_TEST(test_arrays)
{
    NUM_EQ(report, "queue_depth.0.t", 0);
    NUM_EQ(report, "queue_depth.0.n", 3);
    NUM_EQ(report, "queue_depth.1.t", 1.5);
    NUM_EQ(report, "queue_depth.1.n.0", 7);
    NUM_EQ(report, "queue_depth.1.n.1", 8);
    NUM_EQ(report, "queue_depth.1.n.2.0", 9);
    NUM_FAILS(report, "queue_depth.2.t"); /* past the end */
    NUM_FAILS(report, "queue_depth.1.n.3");
    NUM_FAILS(report, "queue_depth.-1.t"); /* not an index */
    NUM_FAILS(report, "queue_depth.x.t");
    NUM_FAILS(report, "queue_depth.t");
    NUM_FAILS("[]", "0");
    NUM_EQ("[5]", "0", 5);
    NUM_EQ("[1,2,3]", "2", 3);
    NUM_EQ(" [ 1 , [ ] , { } , 4 ] ", "3", 4);
    /* On an object a numeric component is a key like any other. */
    NUM_EQ("{\"0\": 6, \"1\": 7}", "1", 7);
}
END_TEST

START_TEST(test_root_and_scalars)
{
    NUM_EQ("42", NULL, 42);
    NUM_EQ(" \t\r\n42\n", "", 42);
    STR_EQ("\"top\"", NULL, "top");
    NUM_FAILS("42", "a"); /* a scalar has no members */
    NUM_FAILS("\"s\"", "0");
}
END_TEST

START_TEST(test_prefix_keys)
{
    const char *t = "{\"ab\": 1, \"a\": 2, \"abc\": 3, \"b\": {\"a\": 4}}";

    NUM_EQ(t, "a", 2);
    NUM_EQ(t, "ab", 1);
    NUM_EQ(t, "abc", 3);
    NUM_EQ(t, "b.a", 4);
    NUM_FAILS(t, "abcd");
    NUM_FAILS(t, ""); /* the root is an object, not a number */
    NUM_FAILS(t, "a.b");
    NUM_FAILS(t, "b.ab");
    /* The key is compared unescaped: "\u0061" is "a". */
    NUM_EQ("{\"x\\u0061\": 5}", "xa", 5);
}
END_TEST

START_TEST(test_missing_and_types)
{
    char buf[16];
    double d = 0;

    NUM_FAILS(report, "nope");
    NUM_FAILS(report, "latency.nope.p50_ms");
    NUM_FAILS(report, "latency.connect"); /* an object */
    NUM_FAILS(report, "queue_depth");     /* an array */
    NUM_FAILS(report, "name");            /* a string */
    NUM_FAILS(report, "ok");
    NUM_FAILS(report, "none");
    NUM_FAILS("{\"n\": \"5\"}", "n");
    STR_FAILS(report, "delivered");
    STR_FAILS(report, "none"); /* null is not a string */
    STR_FAILS(report, "ok");
    STR_FAILS(report, "latency");
    STR_FAILS(report, "nope");
    /* First of two equal keys. */
    NUM_EQ("{\"k\": 1, \"k\": 2}", "k", 1);
    /* No room even for the NUL. */
    ck_assert_int_eq(json_read_string(report, "name", buf, 0), -1);
    ck_assert_int_eq(json_read_number(NULL, "a", &d), -1);
    ck_assert_int_eq(json_read_string(NULL, "a", buf, sizeof(buf)), -1);
}
END_TEST

START_TEST(test_escapes)
{
    STR_EQ("\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"", NULL, "\"\\/\b\f\n\r\t");
    STR_EQ("\"caf\\u00e9\"", NULL, "caf\xc3\xa9");
    STR_EQ("\"caf\\u00E9\"", NULL, "caf\xc3\xa9");
    STR_EQ("\"\\u20ac\"", NULL, "\xe2\x82\xac");
    STR_EQ("\"\\u007f\\u0080\\u07ff\\u0800\\uffff\"", NULL,
           "\x7f\xc2\x80\xdf\xbf\xe0\xa0\x80\xef\xbf\xbf");
    /* U+1F4E7 as a surrogate pair, and the highest code point. */
    STR_EQ("\"\\ud83d\\udce7\"", NULL, "\xf0\x9f\x93\xa7");
    STR_EQ("\"\\uDBFF\\uDFFF\"", NULL, "\xf4\x8f\xbf\xbf");
    /* Raw UTF-8 passes through. */
    STR_EQ("\"caf\xc3\xa9\"", NULL, "caf\xc3\xa9");
    STR_EQ("\"\"", NULL, "");

    /* Lone or reversed surrogates cannot be UTF-8: the text is refused. */
    STR_FAILS("\"\\ud83d\"", NULL);
    STR_FAILS("\"\\ud83dx\"", NULL);
    STR_FAILS("\"\\ud83d\\n\"", NULL);
    STR_FAILS("\"\\ud83d\\ud83d\"", NULL);
    STR_FAILS("\"\\udce7\\ud83d\"", NULL);
    STR_FAILS("{\"a\": \"\\udce7\", \"b\": 1}", "a");
    NUM_FAILS("{\"a\": \"\\udce7\", \"b\": 1}", "b");
    /* Bad escapes and raw control characters. */
    STR_FAILS("\"\\x41\"", NULL);
    STR_FAILS("\"\\u00g1\"", NULL);
    STR_FAILS("\"\\u00\"", NULL);
    STR_FAILS("\"\\U00e9\"", NULL);
    STR_FAILS("\"a\nb\"", NULL);
    STR_FAILS("\"a\tb\"", NULL);
    /* \u0000 is valid JSON but cannot be in a C string; the rest of the text still reads. */
    STR_FAILS("\"a\\u0000b\"", NULL);
    NUM_EQ("{\"s\": \"a\\u0000b\", \"n\": 1}", "n", 1);
}
END_TEST

START_TEST(test_truncated_output)
{
    char buf[6];

    ck_assert_int_eq(json_read_string("\"abcdefgh\"", NULL, buf, sizeof(buf)), 0);
    ck_assert_str_eq(buf, "abcde");
    ck_assert_int_eq(json_read_string("\"abcdefgh\"", NULL, buf, 1), 0);
    ck_assert_str_eq(buf, "");
    /* "abcd" + the first byte of a 2-byte character: the half is dropped. */
    ck_assert_int_eq(json_read_string("\"abcd\\u00e9\"", NULL, buf, sizeof(buf)), 0);
    ck_assert_str_eq(buf, "abcd");
    ck_assert_int_eq(json_read_string("\"abc\\u00e9\"", NULL, buf, sizeof(buf)), 0);
    ck_assert_str_eq(buf, "abc\xc3\xa9");
    ck_assert_int_eq(json_read_string("\"ab\xf0\x9f\x93\xa7\"", NULL, buf, sizeof(buf)), 0);
    ck_assert_str_eq(buf, "ab");
    ck_assert_int_eq(json_read_string("\"a\xf0\x9f\x93\xa7\"", NULL, buf, sizeof(buf)), 0);
    ck_assert_str_eq(buf, "a\xf0\x9f\x93\xa7");
    ck_assert_int_eq(json_read_string("\"\\u20ac\\u20ac\"", NULL, buf, sizeof(buf)), 0);
    ck_assert_str_eq(buf, "\xe2\x82\xac");
}
END_TEST

/* true and false, and nothing else, at a path: what bench asks of msg_log_complete */
START_TEST(test_bools)
{
    const char *doc = "{\"a\": true, \"b\": false, \"c\": null, \"d\": 0, \"e\": \"true\"}";
    int v = 7;

    ck_assert_int_eq(json_read_bool(doc, "a", &v), 0);
    ck_assert_int_eq(v, 1);
    ck_assert_int_eq(json_read_bool(doc, "b", &v), 0);
    ck_assert_int_eq(v, 0);
    v = 7;
    ck_assert_int_eq(json_read_bool(doc, "c", &v), -1);
    ck_assert_int_eq(json_read_bool(doc, "d", &v), -1);
    ck_assert_int_eq(json_read_bool(doc, "e", &v), -1);
    ck_assert_int_eq(json_read_bool(doc, "missing", &v), -1);
    ck_assert_int_eq(json_read_bool("{\"a\": tru", "a", &v), -1);
    ck_assert_int_eq(v, 7);
}
END_TEST

START_TEST(test_numbers)
{
    NUM_EQ("0", NULL, 0);
    NUM_EQ("-0", NULL, 0);
    NUM_EQ("-42", NULL, -42);
    NUM_EQ("3.25", NULL, 3.25);
    NUM_EQ("-0.5", NULL, -0.5);
    NUM_EQ("1e3", NULL, 1000);
    NUM_EQ("1E3", NULL, 1000);
    NUM_EQ("1e+3", NULL, 1000);
    NUM_EQ("25e-2", NULL, 0.25);
    NUM_EQ("-1.5E-3", NULL, -0.0015);
    NUM_EQ("18446744073709551615", NULL, 18446744073709551615.0);
    NUM_EQ("1e-400", NULL, 0); /* underflow reads as zero */
    NUM_FAILS("1e400", NULL);  /* overflow does not read as infinity */
    NUM_FAILS("-1e400", NULL);

    /* Not JSON numbers, though strtod() would take most of them. */
    NUM_FAILS("+1", NULL);
    NUM_FAILS("01", NULL);
    NUM_FAILS("-01", NULL);
    NUM_FAILS("1.", NULL);
    NUM_FAILS(".5", NULL);
    NUM_FAILS("1.e3", NULL);
    NUM_FAILS("1e", NULL);
    NUM_FAILS("1e+", NULL);
    NUM_FAILS("-", NULL);
    NUM_FAILS("0x10", NULL);
    NUM_FAILS("inf", NULL);
    NUM_FAILS("nan", NULL);
    NUM_FAILS("NaN", NULL);
    NUM_FAILS("Infinity", NULL);
    NUM_FAILS(" 1 2", NULL);
    NUM_FAILS("1,", NULL);
}
END_TEST

/* A program that called setlocale() still reads the '.' json_double() wrote. */
START_TEST(test_decimal_comma_locale)
{
    static const char *const names[] = {"de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8", "fr_FR.utf8"};
    size_t i;

    for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (setlocale(LC_NUMERIC, names[i]) != NULL)
            break;
    if (i == sizeof(names) / sizeof(names[0]))
        return; /* no such locale installed here: nothing to test */
    NUM_EQ("{\"p50_ms\": 12.5}", "p50_ms", 12.5);
    NUM_EQ("-1.25e-3", NULL, -0.00125);
    NUM_FAILS("12,5", NULL);
    setlocale(LC_NUMERIC, "C");
}
END_TEST

START_TEST(test_malformed)
{
    static const char *bad[] = {
        "",
        "   ",
        "{",
        "}",
        "[",
        "[1,]",
        "[,1]",
        "[1 2]",
        "{\"a\" 1}",
        "{\"a\" 12}",
        "{\"a\";12}",
        "{\"a\": 1,}",
        "{\"a\": 1 \"b\": 2}",
        "{a: 1}",
        "{'a': 1}",
        "{\"a\": 1]",
        "[1}",
        "{\"a\": 1}}",
        "{\"a\": 1} x",
        "{\"a\": 1}{}",
        "{\"a\": tru}",
        "{\"a\": truex}",
        "{\"a\": nul}",
        "{\"a\": True}",
        "{\"a\": \"x}",
        "{\"a\": 1, \"b\": [1, 2}",
        "{1: 2}",
        "{\"a\"}",
        "{\"a\":}",
        "\xef\xbb\xbf{\"a\": 1}", /* a byte order mark is not JSON */
        "{\"a\": 1}\v",
    };

    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        double d = -1;
        char s[8] = "x";

        if (json_read_number(bad[i], "a", &d) != -1 || json_read_number(bad[i], NULL, &d) != -1 ||
            json_read_string(bad[i], "a", s, sizeof(s)) != -1)
            ck_abort_msg("accepted malformed text #%zu: %s", i, bad[i]);
    }
    /* Malformed after the value looked for is still malformed. */
    NUM_FAILS("{\"a\": 1, \"b\": [}", "a");
    NUM_FAILS("[1, 2, x]", "0");
}
END_TEST

/* Nested `depth' arrays around a 1: "[[[1]]]". */
static char *nested(int depth)
{
    char *t = malloc((size_t)depth * 2 + 2);
    int i;

    ck_assert_ptr_nonnull(t);
    for (i = 0; i < depth; i++)
        t[i] = '[';
    t[i] = '1';
    for (i = 0; i < depth; i++)
        t[depth + 1 + i] = ']';
    t[2 * depth + 1] = '\0';
    return t;
}

START_TEST(test_depth_limit)
{
    char path[2 * JSON_READ_MAX_DEPTH + 1];
    char *t;
    size_t i;

    for (i = 0; i < JSON_READ_MAX_DEPTH; i++)
        memcpy(path + 2 * i, "0.", 2);
    path[2 * JSON_READ_MAX_DEPTH - 1] = '\0';
    t = nested(JSON_READ_MAX_DEPTH);
    NUM_EQ(t, path, 1);
    free(t);
    t = nested(JSON_READ_MAX_DEPTH + 1);
    NUM_FAILS(t, "0");
    free(t);
    /* Far past the limit it is refused the same way, without a deep recursion. */
    t = nested(1000000);
    NUM_FAILS(t, "0");
    free(t);
}
END_TEST

/*
 * Every prefix of a valid text, copied to a buffer of its exact size (so
 * that a read past its NUL shows under a sanitizer or valgrind): -1, or the
 * value the whole text has.
 */
static void check_prefixes(const char *full, const char *path, int is_string)
{
    size_t n = strlen(full);
    double want_d = 0;
    char want_s[64];

    if (is_string)
        ck_assert_int_eq(json_read_string(full, path, want_s, sizeof(want_s)), 0);
    else
        ck_assert_int_eq(json_read_number(full, path, &want_d), 0);
    for (size_t len = 0; len <= n; len++) {
        char *t = malloc(len + 1);
        double d;
        char s[64];

        ck_assert_ptr_nonnull(t);
        memcpy(t, full, len);
        t[len] = '\0';
        if (is_string) {
            if (json_read_string(t, path, s, sizeof(s)) == 0)
                ck_assert_str_eq(s, want_s);
        } else if (json_read_number(t, path, &d) == 0) {
            ck_assert_double_eq(d, want_d);
        }
        free(t);
    }
}

START_TEST(test_truncated_texts)
{
    check_prefixes(report, "latency.end_to_end.p99_ms", 0);
    check_prefixes(report, "queue_depth.1.n.2.0", 0);
    check_prefixes(report, "name", 1);
    check_prefixes("{\"s\": \"\\ud83d\\udce7 caf\\u00e9 \\\"q\\\"\", \"n\": -1.25e-3}", "s", 1);
    check_prefixes("{\"s\": \"\\ud83d\\udce7 caf\\u00e9 \\\"q\\\"\", \"n\": -1.25e-3}", "n", 0);
}
END_TEST

/* Every byte value in every position of a small text: never a crash. */
START_TEST(test_mutations)
{
    const char *base = "{\"a\": [1, -2.5e3, \"x\\u00e9\\n\", true, null], \"b\": {\"c\": \"d\"}}";
    size_t n = strlen(base);
    char *t = malloc(n + 1);

    ck_assert_ptr_nonnull(t);
    for (size_t i = 0; i < n; i++) {
        for (int c = 1; c < 256; c++) {
            double d;
            char s[4];

            memcpy(t, base, n + 1);
            t[i] = (char)c;
            (void)json_read_number(t, "a.1", &d);
            (void)json_read_string(t, "a.2", s, sizeof(s));
            (void)json_read_string(t, "b.c", s, sizeof(s));
        }
    }
    free(t);
}
END_TEST

START_TEST(test_round_trip)
{
    struct json_text text;
    struct json_writer *w = json_text_begin(&text);
    char s[128], *buf;
    double d;

    json_string(w, "name", "caf\xc3\xa9 \"q\" \\ \n\t\x01 \xf0\x9f\x93\xa7");
    json_string(w, "null", NULL);
    json_uint(w, "umax", UINT64_MAX);
    json_int(w, "neg", -42);
    json_double(w, "small", 0.000123);
    json_double(w, "third", 1.0 / 3.0);
    json_double(w, "big", 1e300);
    json_double(w, "nan", NAN);
    json_bool(w, "t", 1);
    json_begin_object(w, "latency");
    json_begin_object(w, "end_to_end");
    json_double(w, "p50_ms", 12.5);
    json_end_object(w);
    json_end_object(w);
    json_begin_array(w, "queue_depth");
    for (int i = 0; i < 3; i++) {
        json_begin_object(w, NULL);
        json_double(w, "t", i * 0.5);
        json_uint(w, "n", (uint64_t)i * 10);
        json_end_object(w);
    }
    json_end_array(w);
    json_begin_array(w, "empty");
    json_end_array(w);
    buf = json_text_end(&text);

    ck_assert_int_eq(json_read_string(buf, "name", s, sizeof(s)), 0);
    ck_assert_str_eq(s, "caf\xc3\xa9 \"q\" \\ \n\t\x01 \xf0\x9f\x93\xa7");
    STR_FAILS(buf, "null");
    NUM_FAILS(buf, "null");
    NUM_EQ(buf, "umax", 18446744073709551615.0);
    NUM_EQ(buf, "neg", -42);
    NUM_EQ(buf, "small", 0.000123);
    ck_assert_int_eq(json_read_number(buf, "third", &d), 0);
    ck_assert_double_eq_tol(d, 1.0 / 3.0, 1e-9); /* written with %.9g */
    NUM_EQ(buf, "big", 1e300);
    NUM_FAILS(buf, "nan"); /* written as null */
    NUM_FAILS(buf, "t");
    NUM_EQ(buf, "latency.end_to_end.p50_ms", 12.5);
    for (int i = 0; i < 3; i++) {
        char path[32];

        snprintf(path, sizeof(path), "queue_depth.%d.t", i);
        NUM_EQ(buf, path, i * 0.5);
        snprintf(path, sizeof(path), "queue_depth.%d.n", i);
        NUM_EQ(buf, path, i * 10);
    }
    NUM_FAILS(buf, "queue_depth.3.t");
    NUM_FAILS(buf, "empty.0");
    free(buf);
}
END_TEST

START_TEST(test_array_length)
{
    ck_assert_int_eq(json_read_array_length("[]", NULL), 0);
    ck_assert_int_eq(json_read_array_length("{\"a\": [1, [2, 3], {\"b\": 4}]}", "a"), 3);
    ck_assert_int_eq(json_read_array_length("{\"a\": {}}", "a"), -1);
    ck_assert_int_eq(json_read_array_length("{\"a\": [1, 2}", "a"), -1);
    ck_assert_int_eq(json_read_array_length("{\"a\": 5}", "b"), -1);
}
END_TEST

START_TEST(test_item_spans)
{
    const char *text = "{\"s\": [ {\"r\": \"held\", \"x\": [1, 2]} ,\"b\",\n 7 ], \"t\": 0}";
    size_t off[3], len[3];
    char item[64], r[16];

    ck_assert_int_eq(json_read_item_spans(text, "s", off, len, 3), 3);
    ck_assert_int_eq((int)len[0], (int)strlen("{\"r\": \"held\", \"x\": [1, 2]}"));
    ck_assert(strncmp(text + off[1], "\"b\"", len[1]) == 0 && len[1] == 3);
    ck_assert(strncmp(text + off[2], "7", len[2]) == 0 && len[2] == 1);
    /* An item's span is a JSON text of its own, read with a path from there. */
    snprintf(item, sizeof(item), "%.*s", (int)len[0], text + off[0]);
    ck_assert_int_eq(json_read_string(item, "r", r, sizeof(r)), 0);
    ck_assert_str_eq(r, "held");
    ck_assert_int_eq(json_read_item_spans(text, "s", off, len, 2), -1); /* more than max */
    ck_assert_int_eq(json_read_item_spans("{\"s\": []}", "s", off, len, 3), 0);
    ck_assert_int_eq(json_read_item_spans(text, "t", off, len, 3), -1); /* not an array */
    ck_assert_int_eq(json_read_item_spans("{\"s\": [1, 2}", "s", off, len, 3), -1);
    ck_assert_int_eq(json_read_item_spans(text, "s", NULL, len, 3), -1);
}
END_TEST

START_TEST(test_number_rows)
{
    double out[6];
    const char *text = "{\"c\": [[128, 3], [ 1.5e3 ,-2 ], [0, 0]]}";

    ck_assert_int_eq(json_read_number_rows(text, "c", 2, out, 3), 3);
    ck_assert(out[0] == 128 && out[1] == 3 && out[2] == 1500 && out[3] == -2 && out[4] == 0);
    /* one row too many for the room given */
    ck_assert_int_eq(json_read_number_rows(text, "c", 2, out, 2), -1);
    ck_assert_int_eq(json_read_number_rows("{\"c\": []}", "c", 2, out, 3), 0);
    /* every row must have exactly the width, of numbers only */
    ck_assert_int_eq(json_read_number_rows("[[1, 2], [3]]", NULL, 2, out, 3), -1);
    ck_assert_int_eq(json_read_number_rows("[[1, 2, 3]]", NULL, 2, out, 3), -1);
    ck_assert_int_eq(json_read_number_rows("[[1, null]]", NULL, 2, out, 3), -1);
    ck_assert_int_eq(json_read_number_rows("[[1, \"2\"]]", NULL, 2, out, 3), -1);
    ck_assert_int_eq(json_read_number_rows("[1, 2]", NULL, 1, out, 3), -1);
    ck_assert_int_eq(json_read_number_rows("[[1]]", NULL, 0, out, 3), -1);
    ck_assert_int_eq(json_read_number_rows("[[1, 2], [3, 4]", NULL, 2, out, 3), -1);
    ck_assert_int_eq(json_read_number_rows("{\"c\": 1}", "c", 1, out, 3), -1);
}
END_TEST

START_TEST(test_table)
{
    static const char *const keys[] = {"t", "n", "p99_ms"};
    double out[9];
    const char *text = "{\"timeline\": [{\"t\": 0, \"n\": 5, \"p99_ms\": null},"
                       " {\"x\": {\"t\": 9}, \"n\": 7, \"t\": 1, \"t\": 8},"
                       " {}]}";

    ck_assert_int_eq(json_read_table(text, "timeline", keys, 3, out, 3), 3);
    ck_assert(out[0] == 0 && out[1] == 5 && isnan(out[2]));
    /* a nested object's member is not the row's; the first of a repeated key counts */
    ck_assert(out[3] == 1 && out[4] == 7 && isnan(out[5]));
    ck_assert(isnan(out[6]) && isnan(out[7]) && isnan(out[8]));
    ck_assert_int_eq(json_read_table(text, "timeline", keys, 3, out, 2), -1);
    ck_assert_int_eq(json_read_table("[{\"t\": 1}, 2]", NULL, keys, 3, out, 3), -1);
    ck_assert_int_eq(json_read_table("[{\"t\": \"1\"}]", NULL, keys, 3, out, 3), 1);
    ck_assert(isnan(out[0]));
    ck_assert_int_eq(json_read_table("[{\"t\": 1,}]", NULL, keys, 3, out, 3), -1);
}
END_TEST

START_TEST(test_keys)
{
    char key[8] = "x";

    ck_assert_int_eq(json_read_key(report, "latency", 0, key, sizeof(key)), 0);
    ck_assert_str_eq(key, "connect");
    /* truncated to fit, as json_read_string() does */
    ck_assert_int_eq(json_read_key(report, "latency", 1, key, sizeof(key)), 0);
    ck_assert_str_eq(key, "end_to_");
    ck_assert_int_eq(json_read_key(report, "latency", 2, key, sizeof(key)), -1);
    ck_assert_str_eq(key, "");
    ck_assert_int_eq(json_read_key(report, NULL, 0, key, sizeof(key)), 0);
    ck_assert_str_eq(key, "name");
    ck_assert_int_eq(json_read_key("{\"a\\u00e9\": 1}", NULL, 0, key, sizeof(key)), 0);
    ck_assert_str_eq(key, "a\xc3\xa9");
    /* not an object, empty, missing, a key with a NUL, malformed, len 0 */
    ck_assert_int_eq(json_read_key(report, "queue_depth", 0, key, sizeof(key)), -1);
    ck_assert_int_eq(json_read_key("{}", NULL, 0, key, sizeof(key)), -1);
    ck_assert_int_eq(json_read_key(report, "nothing", 0, key, sizeof(key)), -1);
    ck_assert_int_eq(json_read_key("{\"a\\u0000\": 1}", NULL, 0, key, sizeof(key)), -1);
    ck_assert_int_eq(json_read_key("{\"a\": 1", NULL, 0, key, sizeof(key)), -1);
    ck_assert_int_eq(json_read_key(report, "latency", 0, key, 0), -1);
}
END_TEST

/* A walk over an object's members: keys as json_read_key() gives them, values as spans. */
START_TEST(test_members)
{
    static const char text[] = "{\"a\": 1, \"b\\u00e9\" : [1, {\"x\": 2}] ,\"long key\": \"s\", "
                               "\"n\\u0000\": null, \"o\": {\"p\": {}}}";
    struct json_members it;
    char key[8];
    size_t off, len;

    ck_assert_int_eq(json_read_members_begin(&it, text, NULL), 0);
    ck_assert_int_eq(json_read_members_next(&it, key, sizeof(key), &off, &len), 1);
    ck_assert_str_eq(key, "a");
    ck_assert_int_eq(len, 1);
    ck_assert_int_eq(text[off], '1');
    ck_assert_int_eq(json_read_members_next(&it, key, sizeof(key), &off, &len), 1);
    ck_assert_str_eq(key, "b\xc3\xa9");
    ck_assert_int_eq(strncmp(text + off, "[1, {\"x\": 2}]", len), 0);
    ck_assert_int_eq(len, strlen("[1, {\"x\": 2}]"));
    /* cut: its start, and 0, never taken for a key "long ke" */
    ck_assert_int_eq(json_read_members_next(&it, key, sizeof(key), &off, &len), 0);
    ck_assert_str_eq(key, "long ke");
    ck_assert_int_eq(json_read_members_next(&it, key, sizeof(key), &off, &len), 0);
    ck_assert_str_eq(key, "");
    ck_assert_int_eq(strncmp(text + off, "null", len), 0);
    ck_assert_int_eq(json_read_members_next(&it, key, sizeof(key), &off, &len), 1);
    ck_assert_str_eq(key, "o");
    ck_assert_int_eq(json_read_members_next(&it, key, sizeof(key), &off, &len), -1);
    ck_assert_str_eq(key, "");
    ck_assert_int_eq(json_read_members_next(&it, key, sizeof(key), &off, &len), -1);

    /* nested, empty */
    ck_assert_int_eq(json_read_members_begin(&it, text, "o"), 0);
    ck_assert_int_eq(json_read_members_next(&it, key, sizeof(key), &off, &len), 1);
    ck_assert_str_eq(key, "p");
    ck_assert_int_eq(json_read_members_next(&it, key, sizeof(key), &off, &len), -1);
    ck_assert_int_eq(json_read_members_begin(&it, text, "o.p"), 0);
    ck_assert_int_eq(json_read_members_next(&it, key, sizeof(key), &off, &len), -1);

    /* not an object, missing, or a text not whole: no walk at all */
    ck_assert_int_eq(json_read_members_begin(&it, text, "a"), -1);
    ck_assert_int_eq(json_read_members_next(&it, key, sizeof(key), &off, &len), -1);
    ck_assert_int_eq(json_read_members_begin(&it, text, "none"), -1);
    ck_assert_int_eq(json_read_members_begin(&it, "{\"a\": 1, \"b\": ", NULL), -1);
    ck_assert_int_eq(json_read_members_begin(&it, "{\"a\": 1} x", NULL), -1);
    ck_assert_int_eq(json_read_members_begin(&it, NULL, NULL), -1);
}
END_TEST

int main(void)
{
    const TTest *const lookup[] = {test_nested_objects,
                                   test_arrays,
                                   test_root_and_scalars,
                                   test_prefix_keys,
                                   test_missing_and_types,
                                   test_escapes,
                                   test_truncated_output,
                                   test_numbers,
                                   test_bools,
                                   test_decimal_comma_locale,
                                   test_round_trip,
                                   test_array_length,
                                   test_item_spans,
                                   test_number_rows,
                                   test_table,
                                   test_keys,
                                   test_members,
                                   NULL};
    const TTest *const malformed[] = {test_malformed, test_depth_limit, test_truncated_texts,
                                      test_mutations, NULL};
    Suite *s = suite_create("json_read");
    TCase *tc;

    check_add_tcase(s, "lookup", lookup);
    tc = check_add_tcase(s, "malformed", malformed);
    tcase_set_timeout(tc, 60);
    return check_run_suite(s);
}
