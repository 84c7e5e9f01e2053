/*
 * Unit tests: smtp_reply, the client's reply parser.
 */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "smtp_reply.h"
#include "check_main.h"

static enum smtp_reply_status feed(struct smtp_reply *r, const char *line)
{
    return smtp_reply_line(r, line, strlen(line));
}

START_TEST(test_single_line)
{
    struct smtp_reply r;

    smtp_reply_init(&r);
    ck_assert_int_eq(feed(&r, "250 2.0.0 Ok"), SMTP_REPLY_DONE);
    ck_assert_int_eq(r.code, 250);
    ck_assert_str_eq(r.text, "250 2.0.0 Ok");
    smtp_reply_init(&r);
    ck_assert_int_eq(feed(&r, "354"), SMTP_REPLY_DONE);
    ck_assert_int_eq(r.code, 354);
}
END_TEST

START_TEST(test_ehlo_extensions)
{
    struct smtp_reply r;

    smtp_reply_init(&r);
    ck_assert_int_eq(feed(&r, "250-sink.example"), SMTP_REPLY_MORE);
    ck_assert_int_eq(feed(&r, "250-PIPELINING"), SMTP_REPLY_MORE);
    ck_assert_int_eq(feed(&r, "250-SIZE 10240000"), SMTP_REPLY_MORE);
    ck_assert_int_eq(feed(&r, "250-starttls"), SMTP_REPLY_MORE);
    ck_assert_int_eq(feed(&r, "250-8BITMIME"), SMTP_REPLY_MORE);
    ck_assert_int_eq(feed(&r, "250-X-PIPELINING-NOT"), SMTP_REPLY_MORE);
    ck_assert_int_eq(feed(&r, "250 ENHANCEDSTATUSCODES"), SMTP_REPLY_DONE);
    ck_assert_uint_eq(r.lines, 7);
    ck_assert_uint_eq(r.extensions, SMTP_EXT_PIPELINING | SMTP_EXT_SIZE | SMTP_EXT_STARTTLS |
                                        SMTP_EXT_8BITMIME | SMTP_EXT_ENHANCEDSTATUSCODES);
    ck_assert_uint_eq(r.size_limit, 10240000);
    ck_assert_str_eq(r.text, "250-sink.example");
}
END_TEST

/* The greeting line itself is never read as an extension keyword. */
START_TEST(test_first_line_not_extension)
{
    struct smtp_reply r;

    smtp_reply_init(&r);
    ck_assert_int_eq(feed(&r, "250 PIPELINING"), SMTP_REPLY_DONE);
    ck_assert_uint_eq(r.extensions, 0);
}
END_TEST

START_TEST(test_malformed)
{
    static const char *const bad[] = {"", "25", "abc", "250x", "650 no", "099 low", "2a0 x"};
    struct smtp_reply r;

    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        smtp_reply_init(&r);
        ck_assert_msg(feed(&r, bad[i]) == SMTP_REPLY_MALFORMED, "'%s' accepted", bad[i]);
    }
    smtp_reply_init(&r);
    ck_assert_int_eq(feed(&r, "250-first"), SMTP_REPLY_MORE);
    ck_assert_int_eq(feed(&r, "251 other code"), SMTP_REPLY_MALFORMED);
}
END_TEST

START_TEST(test_long_text_truncated)
{
    char line[1000];
    struct smtp_reply r;

    memset(line, 'x', sizeof(line) - 1);
    memcpy(line, "421 ", 4);
    line[sizeof(line) - 1] = 0;
    smtp_reply_init(&r);
    ck_assert_int_eq(feed(&r, line), SMTP_REPLY_DONE);
    ck_assert_int_eq(r.code, 421);
    ck_assert_uint_eq(strlen(r.text), SMTP_REPLY_TEXT_MAX - 1);
}
END_TEST

/* The name a greeting or an EHLO reply gives, for the relay's loop check. */
START_TEST(test_names)
{
    struct smtp_reply r;
    char line[SMTP_REPLY_TEXT_MAX + 10];

    smtp_reply_init(&r);
    feed(&r, "220 MX.Example ESMTP Postfix");
    ck_assert(smtp_reply_names(&r, "mx.example"));
    ck_assert(!smtp_reply_names(&r, "mx.example.org"));
    ck_assert(!smtp_reply_names(&r, "mx"));
    ck_assert(!smtp_reply_names(&r, "ESMTP"));
    smtp_reply_init(&r);
    feed(&r, "250-mx.example");
    feed(&r, "250 PIPELINING");
    ck_assert(smtp_reply_names(&r, "mx.example")); /* the first line's */
    ck_assert(!smtp_reply_names(&r, "PIPELINING"));
    smtp_reply_init(&r);
    feed(&r, "250 mx.example=x");
    ck_assert(smtp_reply_names(&r, "mx.example"));
    smtp_reply_init(&r);
    feed(&r, "220");
    ck_assert(!smtp_reply_names(&r, ""));
    ck_assert(!smtp_reply_names(&r, "220"));
    /* a name that fills the kept text may be longer on the wire: no match */
    memcpy(line, "220 ", 4);
    memset(line + 4, 'a', sizeof(line) - 5);
    line[sizeof(line) - 1] = 0;
    smtp_reply_init(&r);
    feed(&r, line);
    ck_assert(!smtp_reply_names(&r, r.text + 4));
}
END_TEST

int main(void)
{
    const TTest *const tests[] = {test_single_line,
                                  test_ehlo_extensions,
                                  test_first_line_not_extension,
                                  test_malformed,
                                  test_long_text_truncated,
                                  test_names,
                                  NULL};

    return check_run_tests("smtp_reply", tests);
}
