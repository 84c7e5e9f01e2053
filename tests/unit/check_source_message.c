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
    ck_assert_int_eq(workload_size_parse("1024", &o->size, err, sizeof(err)), 0);
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
    o.tool.lmtp = 1;
    o.from = o.to = NULL;
    source_message_init(&m, &o, "me.example");
    ck_assert_str_eq(m.helo_cmd, "LHLO me.example\r\n");
    ck_assert_str_eq(m.mail_cmd, "MAIL FROM:<foo@me.example>\r\n");
    source_message_free(&m);
}
END_TEST

/*
 * Worker threads' copies write only their own header cache: the original
 * and a second copy are untouched (smtp-source --threads shared it once,
 * a data race on Date and Message-Id), and each copy makes the same header.
 */
START_TEST(test_copies_own_their_cache)
{
    struct source_options o;
    struct source_message m, a, b;
    char got_a[SOURCE_HEADER_MAX], got_b[SOURCE_HEADER_MAX], want[SOURCE_HEADER_MAX];
    char id_a[SOURCE_MSGID_MAX], id_b[SOURCE_MSGID_MAX], want_id[SOURCE_MSGID_MAX];
    size_t na, nb, w;

    opts_init(&o);
    source_message_init(&m, &o, "host.example");
    source_message_copy(&a, &m);
    source_message_copy(&b, &m);
    ck_assert_ptr_ne(a.head, m.head);
    ck_assert_ptr_ne(a.head, b.head);
    na = source_message_header(&a, 7, got_a, sizeof(got_a), id_a, sizeof(id_a));
    ck_assert_int_eq(m.date_second, -1);
    ck_assert_int_eq(b.date_second, -1);
    nb = source_message_header(&b, 7, got_b, sizeof(got_b), id_b, sizeof(id_b));
    w = reference(&b, 7, NULL, want, sizeof(want), want_id);
    ck_assert_uint_eq(nb, w);
    ck_assert_msg(memcmp(got_b, want, nb) == 0, "header %.*s, want %s", (int)nb, got_b, want);
    ck_assert_str_eq(id_b, want_id);
    if (a.date_second == b.date_second) { /* not across a second's turn */
        ck_assert_uint_eq(na, nb);
        ck_assert_msg(memcmp(got_a, got_b, na) == 0, "copies differ");
    }
    source_message_free_copy(&a);
    source_message_free_copy(&b);
    ck_assert_ptr_null(a.head);
    source_message_free(&m);
}
END_TEST

int main(void)
{
    const TTest *const tests[] = {test_header_plain,
                                  test_header_subject,
                                  test_header_date_is_current,
                                  test_msgid_cut,
                                  test_commands,
                                  test_copies_own_their_cache,
                                  NULL};

    return check_run_tests("source_message", tests);
}
