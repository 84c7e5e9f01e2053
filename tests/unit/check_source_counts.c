/*
 * Unit tests: source_counts, the counts smtp-source writes and spoolsim
 * merge adds up: their names in the struct's order, the sum, and the JSON.
 */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "check_memfile.h"
#include "json_read.h"
#include "source_counts.h"

/* Each name reaches its own field, and no two share one. */
START_TEST(test_names_and_fields)
{
    static const char *const expect[SOURCE_COUNTS_N] = {
        "attempted", "delivered", "failed", "bytes", "recipients", "connections", "tls_sessions",
    };
    struct source_counts c;

    memset(&c, 0, sizeof(c));
    for (size_t i = 0; i < SOURCE_COUNTS_N; i++) {
        ck_assert_str_eq(source_counts_name(i), expect[i]);
        *source_counts_at(&c, i) = i + 1;
    }
    ck_assert_uint_eq(c.attempted, 1);
    ck_assert_uint_eq(c.delivered, 2);
    ck_assert_uint_eq(c.failed, 3);
    ck_assert_uint_eq(c.bytes, 4);
    ck_assert_uint_eq(c.recipients, 5);
    ck_assert_uint_eq(c.connections, 6);
    ck_assert_uint_eq(c.tls_sessions, 7);
}
END_TEST

START_TEST(test_add)
{
    struct source_counts a = {1, 2, 3, 4, 5, 6, 7}, b = {10, 20, 30, 40, 50, 60, 70};

    source_counts_add(&a, &b);
    for (size_t i = 0; i < SOURCE_COUNTS_N; i++)
        ck_assert_uint_eq(*source_counts_at(&a, i), 11 * (i + 1));
    ck_assert_uint_eq(b.attempted, 10); /* the source is left alone */
}
END_TEST

/* The JSON names every count, and the rates over the window (0 without one). */
START_TEST(test_json)
{
    /* attempted, delivered, failed, bytes, recipients, connections, tls_sessions */
    struct source_counts c = {12, 10, 2, 10240, 20, 3, 1};
    const double windows[] = {4, 0};

    for (size_t k = 0; k < 2; k++) {
        struct check_memfile m;
        struct json_writer w;
        double v, rate;
        char *text;

        json_init(&w, check_memfile_open(&m));
        json_begin_object(&w, NULL);
        source_counts_write_json(&w, &c, windows[k]);
        json_end_object(&w);
        ck_assert_int_eq(json_finish(&w), 0);
        text = check_memfile_text(&m);
        for (size_t i = 0; i < SOURCE_COUNTS_N; i++) {
            ck_assert_int_eq(json_read_number(text, source_counts_name(i), &v), 0);
            ck_assert_double_eq(v, (double)*source_counts_at(&c, i));
        }
        ck_assert_int_eq(json_read_number(text, "delivered_per_s", &rate), 0);
        ck_assert_double_eq(rate, k == 0 ? 2.5 : 0);
        ck_assert_int_eq(json_read_number(text, "bytes_per_s", &rate), 0);
        ck_assert_double_eq(rate, k == 0 ? 2560 : 0);
        free(text);
    }
}
END_TEST

int main(void)
{
    const TTest *const tests[] = {test_names_and_fields, test_add, test_json, NULL};

    return check_run_tests("source_counts", tests);
}
