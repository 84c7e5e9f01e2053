/*
 * Unit tests: sink_text, smtp-sink's reply texts and Message-ID scanner.
 */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sink_text.h"
#include "check_main.h"

/*
 * A reply's leading text read both ways: its code as a number (as atoi()
 * reads whatever else a -b or -B text starts with), and the length of its
 * enhanced status code with the space after it (0: none).
 */
static const struct {
    const char *reply;
    int code;
    size_t enhanced_len;
} replies[] = {
    {"250 2.1.0 Ok", 250, 6},  {"452 4.5.3 Error: too many recipients", 452, 6},
    {"550 5.7.100 x", 550, 8}, {"250 smtp-sink", 250, 0},
    {"250 2.1 Ok", 250, 0},    {"250 2.1.0", 250, 0},
    {"250-2.1.0 x", 250, 0},   {"25", 25, 0},
    {"250 2.0.0 Ok", 250, 6},  {"250-PIPELINING\r\n250 8BITMIME\r\n", 250, 0},
    {"421", 421, 0},           {"4501 x", 4501, 0},
    {" 450 x", 450, 0},        {"45 x", 45, 0},
    {"Error", 0, 0},           {"", 0, 0},
};

START_TEST(test_reply_code)
{
    const char *reply = replies[_i].reply;

    ck_assert_msg(sink_text_code(reply) == replies[_i].code, "\"%s\": code %d", reply,
                  sink_text_code(reply));
    ck_assert_msg(sink_text_enhanced_len(reply) == replies[_i].enhanced_len,
                  "\"%s\": enhanced code of %zu", reply, sink_text_enhanced_len(reply));
}
END_TEST

START_TEST(test_queued)
{
    static const uint64_t ids[] = {0,          1,           0xabcdef,          0x12345678,
                                   0xffffffff, 0x100000000, 0xfedcba9876543210};
    char got[SINK_TEXT_QUEUED_MAX], want[SINK_TEXT_QUEUED_MAX];

    for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
        size_t len = sink_text_queued(got, ids[i]);

        snprintf(want, sizeof(want), "250 2.0.0 Ok: queued as %08llX", (unsigned long long)ids[i]);
        ck_assert_str_eq(got, want);
        ck_assert_uint_eq(len, strlen(want));
    }
}
END_TEST

static void message_id_of(const char *header, const char *want)
{
    char out[64];

    sink_text_message_id(header, strlen(header), out, sizeof(out));
    ck_assert_msg(strcmp(out, want) == 0, "got \"%s\", want \"%s\"", out, want);
}

START_TEST(test_message_id)
{
    message_id_of("From: a\r\nMessage-Id: <1.2@x>\r\n\r\nbody", "<1.2@x>");
    message_id_of("message-id:\t<lower@x>\r\nTo: b\r\n\r\n", "<lower@x>");
    message_id_of("From: a\r\n\r\nMessage-Id: <in-body@x>\r\n", "-");
    message_id_of("From: a\r\nX-Message-Id: <no@x>\r\n\r\n", "-");
    message_id_of("Message-Id: <cut-off", "-");
    message_id_of("", "-");
    message_id_of("Message-ID: <bare-lf@x>\nSubject: s\n\n", "<bare-lf@x>");
}
END_TEST

/* Options all zero (every extension offered, no SIZE) but for the host name. */
static void options_named(struct sink_options *opts, const char *hostname)
{
    memset(opts, 0, sizeof(*opts));
    opts->hostname = hostname;
}

START_TEST(test_ehlo_reply)
{
    struct sink_options opts;
    char *ehlo;

    options_named(&opts, "sink.test");
    opts.server.max_size = 1000;
    ehlo = sink_text_ehlo(&opts, 1);
    ck_assert_ptr_nonnull(strstr(ehlo, "250-sink.test\r\n250-PIPELINING\r\n250-SIZE 1000\r\n"));
    ck_assert_ptr_nonnull(strstr(ehlo, "250-STARTTLS\r\n"));
    ck_assert_ptr_nonnull(strstr(ehlo, "250 DSN\r\n"));
    free(ehlo);
    opts.no_pipelining = opts.no_dsn = opts.no_auth = opts.no_xclient = opts.no_xforward = 1;
    opts.no_8bitmime = opts.no_enhanced = 1;
    opts.server.max_size = 0;
    ehlo = sink_text_ehlo(&opts, 0);
    ck_assert_str_eq(ehlo, "250 sink.test\r\n");
    free(ehlo);
}
END_TEST

START_TEST(test_greeting)
{
    struct sink_options opts;
    char *text;

    options_named(&opts, "h");
    text = sink_text_greeting(&opts);
    ck_assert_str_eq(text, "220 h ESMTP");
    free(text);
    opts.tool.lmtp = 1;
    text = sink_text_greeting(&opts);
    ck_assert_str_eq(text, "220 h LMTP");
    free(text);
    opts.pix_banner = 1;
    text = sink_text_greeting(&opts);
    ck_assert_str_eq(text, "220 ********************************");
    free(text);
}
END_TEST

int main(void)
{
    const TTest *const tests[] = {test_message_id, test_queued, test_ehlo_reply, test_greeting,
                                  NULL};

    return check_run_loop("sink_text", 0, tests, test_reply_code, CHECK_ROWS(replies));
}
