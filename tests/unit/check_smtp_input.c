/*
 * Unit tests: smtp_input, the SMTP readers fed from a libevent buffer.
 * An evbuffer is memory only: no socket is involved.
 */
#include "config.h"

#include <check.h>
#include <event2/buffer.h>
#include <string.h>

#include "check_collect.h"
#include "check_main.h"
#include "smtp_input.h"

static struct evbuffer *buffer_of(const char *text, size_t len)
{
    struct evbuffer *in = evbuffer_new();

    evbuffer_add(in, text, len);
    return in;
}

START_TEST(test_lines_in_order_and_partial_waits)
{
    const char text[] = "EHLO a\r\nMAIL FROM:<x@y>\r\nRCPT TO";
    struct evbuffer *in = buffer_of(text, strlen(text));
    struct smtp_line_reader rd;
    char line[SMTP_COMMAND_LINE_LIMIT];
    size_t len;

    smtp_line_init(&rd, SMTP_COMMAND_LINE_LIMIT);
    ck_assert_int_eq(smtp_input_line(&rd, in, line, sizeof(line), &len), SMTP_LINE_OK);
    ck_assert_uint_eq(len, 6);
    ck_assert(memcmp(line, "EHLO a", 6) == 0);
    ck_assert_int_eq(smtp_input_line(&rd, in, line, sizeof(line), &len), SMTP_LINE_OK);
    ck_assert(len == 15 && memcmp(line, "MAIL FROM:<x@y>", 15) == 0);
    ck_assert_int_eq(smtp_input_line(&rd, in, line, sizeof(line), &len), SMTP_LINE_NEED_MORE);
    ck_assert_uint_eq(evbuffer_get_length(in), 7); /* the partial line stays */
    evbuffer_add(in, ":<z@y>\r\n", 8);
    ck_assert_int_eq(smtp_input_line(&rd, in, line, sizeof(line), &len), SMTP_LINE_OK);
    ck_assert(len == 13 && memcmp(line, "RCPT TO:<z@y>", 13) == 0);
    ck_assert_uint_eq(evbuffer_get_length(in), 0);
    evbuffer_free(in);
}
END_TEST

/* 100 kB with no LF: one TOO_LONG, the tail skipped, the next command intact. */
START_TEST(test_overlong_line_skipped_in_bounded_steps)
{
    struct evbuffer *in = evbuffer_new();
    struct smtp_line_reader rd;
    char line[SMTP_COMMAND_LINE_LIMIT];
    char chunk[1000];
    size_t len;

    memset(chunk, 'A', sizeof(chunk));
    memcpy(chunk, "MAIL ", 5);
    for (int i = 0; i < 100; i++)
        evbuffer_add(in, chunk, sizeof(chunk));
    smtp_line_init(&rd, SMTP_COMMAND_LINE_LIMIT);
    ck_assert_int_eq(smtp_input_line(&rd, in, line, sizeof(line), &len), SMTP_LINE_TOO_LONG);
    ck_assert_int_eq(smtp_input_line(&rd, in, line, sizeof(line), &len), SMTP_LINE_NEED_MORE);
    ck_assert_uint_eq(evbuffer_get_length(in), 0); /* nothing of it is kept */
    evbuffer_add(in, "AAAA\r\nNOOP\r\n", 12);
    ck_assert_int_eq(smtp_input_line(&rd, in, line, sizeof(line), &len), SMTP_LINE_OK);
    ck_assert(len == 4 && memcmp(line, "NOOP", 4) == 0);
    evbuffer_free(in);
}
END_TEST

/* Text in many chunks: the message ends at CRLF.CRLF, the pipelined QUIT stays. */
START_TEST(test_data_stops_at_the_end_across_chunks)
{
    const char *parts[] = {"Subject: a\r\n\r\n..b", "ody\r", "\n.", "\r\nQUIT\r\n"};
    struct evbuffer *in = evbuffer_new();
    struct smtp_data_reader rd;
    struct collected out = {.len = 0};
    int done = 0;

    smtp_data_init(&rd, SMTP_BARE_LF_NORMALIZE);
    for (unsigned i = 0; i < 4; i++) {
        struct evbuffer *part = buffer_of(parts[i], strlen(parts[i]));

        evbuffer_add_buffer(in, part); /* separate chains, as reads make them */
        evbuffer_free(part);
        ck_assert_int_eq(done, 0);
        done = smtp_input_data(&rd, in, collect, &out);
    }
    ck_assert_int_eq(done, 1);
    ck_assert_uint_eq(out.len, strlen("Subject: a\r\n\r\n.body\r\n"));
    ck_assert(memcmp(out.buf, "Subject: a\r\n\r\n.body\r\n", out.len) == 0);
    ck_assert_uint_eq(evbuffer_get_length(in), 6);
    ck_assert(memcmp(evbuffer_pullup(in, 6), "QUIT\r\n", 6) == 0);
    evbuffer_free(in);
}
END_TEST

int main(void)
{
    const TTest *const tests[] = {test_lines_in_order_and_partial_waits,
                                  test_overlong_line_skipped_in_bounded_steps,
                                  test_data_stops_at_the_end_across_chunks, NULL};

    return check_run_tests("smtp_input", tests);
}
