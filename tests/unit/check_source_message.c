/*
 * Unit tests: source_message, the prebuilt commands and the per-message
 * header of smtp-source, against the printf formats they replaced.
 */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "check_main.h"
#include "source_message.h"

static void opts_init(struct source_options *o)
{
    char err[128];

    memset(o, 0, sizeof(*o));
    ck_assert_int_eq(size_dist_parse("1024", &o->size, err, sizeof(err)), 0);
}

/* The header as the old snprintf made it, for message `seq' of `m'. */
static size_t reference(const struct source_message *m, uint64_t seq, const char *subject,
                        char *buf, size_t len, char *msgid)
{
    snprintf(msgid, SOURCE_MSGID_MAX, "<%lx.%llu@%s>", m->run_tag, (unsigned long long)seq,
             m->helo_name);
    return (size_t)snprintf(buf, len,
                            "From: <%s>\r\nTo: <%s>\r\nDate: %s\r\nMessage-Id: %s\r\n%s%s%s\r\n",
                            m->from, m->to, m->date, msgid, subject ? "Subject: " : "",
                            subject ? subject : "", subject ? "\r\n" : "");
}

static void header_matches(const char *subject, const char *helo)
{
    static const uint64_t seqs[] = {0, 1, 9, 10, 12345, 18446744073709551615ULL};
    struct source_options o;
    struct source_message m;

    opts_init(&o);
    o.subject = subject;
    o.helo_name = helo;
    source_message_init(&m, &o, "host.example");
    for (size_t i = 0; i < sizeof(seqs) / sizeof(seqs[0]); i++) {
        char got[SOURCE_HEADER_MAX], want[SOURCE_HEADER_MAX];
        char got_id[SOURCE_MSGID_MAX], want_id[SOURCE_MSGID_MAX];
        size_t n = source_message_header(&m, seqs[i], got, sizeof(got), got_id, sizeof(got_id));
        /* The Date was made by this call, for this second: the reference takes the same. */
        size_t w = reference(&m, seqs[i], subject, want, sizeof(want), want_id);

        ck_assert_uint_eq(n, w);
        ck_assert_msg(memcmp(got, want, n) == 0, "header %.*s, want %s", (int)n, got, want);
        ck_assert_str_eq(got_id, want_id);
    }
    source_message_free(&m);
}

START_TEST(test_header_plain)
{
    header_matches(NULL, NULL);
}
END_TEST

START_TEST(test_header_subject)
{
    header_matches("a test", "client.example");
}
END_TEST

START_TEST(test_header_date_is_current)
{
    struct source_options o;
    struct source_message m;
    char buf[SOURCE_HEADER_MAX], id[SOURCE_MSGID_MAX], date[64];
    struct tm tm;
    time_t before = time(NULL), after;

    opts_init(&o);
    source_message_init(&m, &o, "h");
    source_message_header(&m, 1, buf, sizeof(buf), id, sizeof(id));
    after = time(NULL);
    /* The Date line is the wall clock's second, in the format Postfix's smtp-source uses. */
    localtime_r(&after, &tm);
    strftime(date, sizeof(date), "%a, %d %b %Y %H:%M:%S %z", &tm);
    if (before == after)
        ck_assert_ptr_nonnull(strstr(buf, date));
    ck_assert_ptr_nonnull(strstr(buf, "\r\nDate: "));
    source_message_free(&m);
}
END_TEST

START_TEST(test_msgid_cut)
{
    struct source_options o;
    struct source_message m;
    char buf[SOURCE_HEADER_MAX], id[8];

    opts_init(&o);
    source_message_init(&m, &o, "h");
    source_message_header(&m, 42, buf, sizeof(buf), id, sizeof(id));
    ck_assert_uint_eq(strlen(id), sizeof(id) - 1);
    ck_assert_int_eq(id[0], '<');
    o.old_mode = 1;
    ck_assert_uint_eq(source_message_header(&m, 42, buf, sizeof(buf), id, sizeof(id)), 0);
    ck_assert_str_eq(id, "-");
    source_message_free(&m);
}
END_TEST

START_TEST(test_commands)
{
    struct source_options o;
    struct source_message m;

    opts_init(&o);
    o.from = "a@b";
    o.to = "c@d";
    source_message_init(&m, &o, "me.example");
    ck_assert_str_eq(m.helo_cmd, "EHLO me.example\r\n");
    ck_assert_uint_eq(m.helo_cmd_len, strlen(m.helo_cmd));
    ck_assert_str_eq(m.mail_cmd, "MAIL FROM:<a@b>\r\n");
    ck_assert_uint_eq(m.mail_cmd_len, strlen(m.mail_cmd));
    ck_assert_str_eq(m.rcpt_cmd, "RCPT TO:<c@d>\r\n");
    ck_assert_uint_eq(m.rcpt_cmd_len, strlen(m.rcpt_cmd));
    source_message_free(&m);
    o.lmtp = 1;
    o.from = o.to = NULL;
    source_message_init(&m, &o, "me.example");
    ck_assert_str_eq(m.helo_cmd, "LHLO me.example\r\n");
    ck_assert_str_eq(m.mail_cmd, "MAIL FROM:<foo@me.example>\r\n");
    source_message_free(&m);
}
END_TEST

int main(void)
{
    const TTest *const tests[] = {
        test_header_plain, test_header_subject, test_header_date_is_current,
        test_msgid_cut,    test_commands,       NULL};

    return check_run_tests("source_message", tests);
}
