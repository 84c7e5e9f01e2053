/*
 * Unit tests: smtp_line, the bounded SMTP line reader.
 */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "smtp_line.h"
#include "check_main.h"

START_TEST(test_crlf_and_bare_lf)
{
    struct smtp_line_reader rd;
    struct smtp_line line;
    const char input[] = "HELO a\r\nNOOP\nRSET\r\n";
    size_t used, off = 0;

    smtp_line_init(&rd, 512);
    ck_assert_int_eq(smtp_line_next(&rd, input, strlen(input), &line, &used), SMTP_LINE_OK);
    ck_assert_uint_eq(line.len, 6);
    ck_assert(memcmp(line.text, "HELO a", 6) == 0);
    ck_assert_int_eq(line.bare_lf, 0);
    off += used;
    ck_assert_int_eq(smtp_line_next(&rd, input + off, strlen(input) - off, &line, &used),
                     SMTP_LINE_OK);
    ck_assert_uint_eq(line.len, 4);
    ck_assert_int_eq(line.bare_lf, 1);
    off += used;
    ck_assert_int_eq(smtp_line_next(&rd, input + off, strlen(input) - off, &line, &used),
                     SMTP_LINE_OK);
    ck_assert(memcmp(line.text, "RSET", 4) == 0);
    off += used;
    ck_assert_uint_eq(off, strlen(input));
}
END_TEST

START_TEST(test_partial_line_waits)
{
    struct smtp_line_reader rd;
    struct smtp_line line;
    size_t used;

    smtp_line_init(&rd, 512);
    ck_assert_int_eq(smtp_line_next(&rd, "MAIL FROM:<a", 12, &line, &used), SMTP_LINE_NEED_MORE);
    ck_assert_uint_eq(used, 0);
    ck_assert_int_eq(smtp_line_next(&rd, "", 0, &line, &used), SMTP_LINE_NEED_MORE);
}
END_TEST

/* 510 octets of text plus CRLF is exactly the RFC limit of 512. */
START_TEST(test_limit_boundary)
{
    struct smtp_line_reader rd;
    struct smtp_line line;
    char buf[600];
    size_t used;

    memset(buf, 'a', sizeof(buf));
    memcpy(buf + 510, "\r\n", 2);
    smtp_line_init(&rd, 512);
    ck_assert_int_eq(smtp_line_next(&rd, buf, 512, &line, &used), SMTP_LINE_OK);
    ck_assert_uint_eq(line.len, 510);

    memset(buf, 'a', sizeof(buf));
    memcpy(buf + 511, "\r\n", 2);
    smtp_line_init(&rd, 512);
    ck_assert_int_eq(smtp_line_next(&rd, buf, 513, &line, &used), SMTP_LINE_TOO_LONG);
}
END_TEST

/*
 * A 100 kB command with no LF, fed in small chunks as a socket would, never
 * makes the reader keep more than the limit, is reported once, and its
 * tail ("QUIT" here) is never seen as a command.
 */
START_TEST(test_overlong_tail_never_runs)
{
    struct smtp_line_reader rd;
    struct smtp_line line;
    size_t total = 100 * 1024, held = 0, fed = 0, too_long = 0, used;
    char *stream = malloc(total + 32);
    char pending[1024];
    int lines = 0;

    memset(stream, 'x', total);
    memcpy(stream + total - 6, "QUIT\r\n", 6);
    memcpy(stream + total, "NOOP\r\n", 6);
    total += 6;
    smtp_line_init(&rd, 512);
    while (fed < total || held > 0) {
        size_t chunk = total - fed < 300 ? total - fed : 300;
        enum smtp_line_status st;

        memcpy(pending + held, stream + fed, chunk);
        held += chunk;
        fed += chunk;
        st = smtp_line_next(&rd, pending, held, &line, &used);
        ck_assert_uint_le(held, 512 + 300);
        memmove(pending, pending + used, held - used);
        held -= used;
        if (st == SMTP_LINE_TOO_LONG)
            too_long++;
        if (st == SMTP_LINE_OK) {
            lines++;
            ck_assert_uint_eq(line.len, 4);
            ck_assert(memcmp(line.text, "NOOP", 4) == 0);
        }
        if (st == SMTP_LINE_NEED_MORE && fed == total)
            break;
    }
    ck_assert_uint_eq(too_long, 1);
    ck_assert_int_eq(lines, 1);
    free(stream);
}
END_TEST

START_TEST(test_discard_then_line_in_same_buffer)
{
    struct smtp_line_reader rd;
    struct smtp_line line;
    char buf[700];
    size_t used;

    memset(buf, 'y', 600);
    smtp_line_init(&rd, 512);
    ck_assert_int_eq(smtp_line_next(&rd, buf, 600, &line, &used), SMTP_LINE_TOO_LONG);
    ck_assert_uint_eq(used, 600);
    memcpy(buf, "yyy\r\nRSET\r\n", 11);
    ck_assert_int_eq(smtp_line_next(&rd, buf, 11, &line, &used), SMTP_LINE_OK);
    ck_assert(memcmp(line.text, "RSET", 4) == 0);
    ck_assert_uint_eq(used, 11);
}
END_TEST

/*
 * An over-long line whose LF is already in the buffer, past the limit,
 * with pipelined commands behind it (found by fuzz_smtp_line): TOO_LONG
 * consumes up to that LF and no further, and the next lines are read.
 */
START_TEST(test_overlong_with_lf_then_pipelined)
{
    struct smtp_line_reader rd;
    struct smtp_line line;
    char buf[700];
    size_t used, off;

    memset(buf, 'z', 600);
    memcpy(buf + 600, "\r\nRSET\r\nNOOP\r\n", 14);
    smtp_line_init(&rd, 512);
    ck_assert_int_eq(smtp_line_next(&rd, buf, 614, &line, &used), SMTP_LINE_TOO_LONG);
    ck_assert_uint_eq(used, 602);
    off = used;
    ck_assert_int_eq(smtp_line_next(&rd, buf + off, 614 - off, &line, &used), SMTP_LINE_OK);
    ck_assert_uint_eq(line.len, 4);
    ck_assert(memcmp(line.text, "RSET", 4) == 0);
    off += used;
    ck_assert_int_eq(smtp_line_next(&rd, buf + off, 614 - off, &line, &used), SMTP_LINE_OK);
    ck_assert(memcmp(line.text, "NOOP", 4) == 0);
    ck_assert_uint_eq(off + used, 614);
}
END_TEST

int main(void)
{
    const TTest *const tests[] = {test_crlf_and_bare_lf,
                                  test_partial_line_waits,
                                  test_limit_boundary,
                                  test_overlong_tail_never_runs,
                                  test_discard_then_line_in_same_buffer,
                                  test_overlong_with_lf_then_pipelined,
                                  NULL};

    return check_run_tests("smtp_line", tests);
}
