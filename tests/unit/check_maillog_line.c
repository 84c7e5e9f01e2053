/*
 * Unit tests for spoolsim/workload/maillog_line.c: the lines of Postfix
 * 3.7 (syslog's stamp and rsyslog's RFC 3339 one) and of Exim 4.96's
 * main log, each kind of event and its fields; the year of a syslog stamp
 * across December and January; and the odd lines a real log holds
 * (NOQUEUE rejects, warnings, other programs, lines cut short anywhere,
 * very long lines, bytes that are not UTF-8, NUL) read without a crash
 * and never taken for an event they are not.
 */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "maillog_line.h"

#define T_0801 1796544001.0 /* 2026-12-06T08:00:01Z */

/* line, parsed with the year fixed at 2026, from a buffer of exactly its length (no NUL). */
static enum maillog_kind parse(const char *line, struct maillog_event *ev)
{
    struct maillog_year y;
    size_t len = strlen(line);
    char *copy = malloc(len ? len : 1);
    enum maillog_kind k;

    ck_assert_ptr_nonnull(copy);
    memcpy(copy, line, len);
    maillog_line_year_fixed(&y, 2026);
    k = maillog_line_parse(copy, len, &y, ev);
    free(copy);
    return k;
}

static const char *const postfix_lines[] = {
    "Dec  6 08:00:01 mx1 postfix/smtpd[2101]: connect from mail.example.org[192.0.2.10]",
    "Dec  6 08:00:01 mx1 postfix/smtpd[2101]: 4R9xQk1Zl3z9sVq: client=mail.example.org[192.0.2.10]",
    "Dec  6 08:00:01 mx1 postfix/cleanup[2105]: 4R9xQk1Zl3z9sVq: "
    "message-id=<20261206080001.1@example.org>",
    "Dec  6 08:00:01 mx1 postfix/qmgr[1023]: 4R9xQk1Zl3z9sVq: from=<alice@example.org>, size=4213, "
    "nrcpt=2 (queue active)",
    "Dec  6 08:00:02 mx1 postfix/smtpd[2101]: disconnect from mail.example.org[192.0.2.10] ehlo=1 "
    "mail=1 rcpt=2 data=1 quit=1 commands=6",
    "Dec  6 08:00:02 mx1 postfix/smtp[2110]: 4R9xQk1Zl3z9sVq: to=<bob@example.net>, "
    "relay=mx.example.net[198.51.100.7]:25, delay=0.52, delays=0.08/0.01/0.21/0.22, dsn=2.0.0, "
    "status=sent (250 2.0.0 Ok: queued as 9F1E2C0)",
    "Dec  6 08:00:32 mx1 postfix/smtp[2110]: 4R9xQk1Zl3z9sVq: to=<carol@example.com>, relay=none, "
    "delay=30, delays=0.08/0/30/0, dsn=4.4.1, status=deferred (connect to "
    "example.com[203.0.113.5]:25: Connection timed out)",
    "Dec  6 08:00:33 mx1 postfix/qmgr[1023]: 4R9xQk1Zl3z9sVq: removed",
};

START_TEST(test_postfix_events)
{
    struct maillog_event ev;

    ck_assert_int_eq(parse(postfix_lines[0], &ev), MAILLOG_CONNECT);
    ck_assert_int_eq(ev.mta, MAILLOG_POSTFIX);
    ck_assert_double_eq(ev.time, T_0801);
    ck_assert_int_eq(parse(postfix_lines[1], &ev), MAILLOG_IGNORED);
    ck_assert_int_eq(parse(postfix_lines[2], &ev), MAILLOG_IGNORED);

    ck_assert_int_eq(parse(postfix_lines[3], &ev), MAILLOG_ARRIVAL);
    ck_assert_str_eq(ev.qid, "4R9xQk1Zl3z9sVq");
    ck_assert_uint_eq(ev.size, 4213);
    ck_assert_uint_eq(ev.nrcpt, 2);

    ck_assert_int_eq(parse(postfix_lines[4], &ev), MAILLOG_DISCONNECT);
    ck_assert_int_eq(ev.data_ok, 1);

    ck_assert_int_eq(parse(postfix_lines[5], &ev), MAILLOG_DELIVERY);
    ck_assert_int_eq(ev.status, MAILLOG_SENT);
    ck_assert_str_eq(ev.qid, "4R9xQk1Zl3z9sVq");
    ck_assert_int_eq(ev.has_delay, 1);
    ck_assert_double_eq_tol(ev.delay, 0.52, 1e-9);
    ck_assert_double_eq_tol(ev.delays[0], 0.08, 1e-9);
    ck_assert_double_eq_tol(ev.delays[1], 0.01, 1e-9);
    ck_assert_double_eq_tol(ev.delays[2], 0.21, 1e-9);
    ck_assert_double_eq_tol(ev.delays[3], 0.22, 1e-9);

    ck_assert_int_eq(parse(postfix_lines[6], &ev), MAILLOG_DELIVERY);
    ck_assert_int_eq(ev.status, MAILLOG_DEFERRED);
    ck_assert_double_eq_tol(ev.delays[2], 30, 1e-9);
    ck_assert_int_eq(parse(postfix_lines[7], &ev), MAILLOG_REMOVED);
    ck_assert_str_eq(ev.qid, "4R9xQk1Zl3z9sVq");
}
END_TEST

START_TEST(test_postfix_more)
{
    struct maillog_event ev;

    /* a bounce, qmgr's expiry, a multi-instance name, a submission smtpd, short hex IDs */
    ck_assert_int_eq(parse("Dec  6 08:00:06 mx1 postfix-out/smtp[2110]: 3F2A81C0D: "
                           "to=<dave@example.com>, relay=mx.example.com[203.0.113.5]:25, "
                           "delay=1.1, delays=0.1/0/0.5/0.5, dsn=5.1.1, status=bounced (host "
                           "said: 550 5.1.1 User unknown (in reply to RCPT TO command))",
                           &ev),
                     MAILLOG_DELIVERY);
    ck_assert_int_eq(ev.status, MAILLOG_BOUNCED);
    ck_assert_str_eq(ev.qid, "3F2A81C0D");
    ck_assert_int_eq(parse("Dec  9 08:00:06 mx1 postfix/qmgr[1023]: 3F2A81C0D: "
                           "from=<alice@example.org>, status=expired, returned to sender",
                           &ev),
                     MAILLOG_DELIVERY);
    ck_assert_int_eq(ev.status, MAILLOG_EXPIRED);
    ck_assert_int_eq(ev.has_delay, 0);
    ck_assert_int_eq(parse("Dec  6 08:00:07 mx1 postfix/submission/smtpd[77]: disconnect from "
                           "laptop[192.0.2.77] ehlo=2 starttls=1 auth=1 mail=3/4 rcpt=3/4 "
                           "data=2/3 rset=1 quit=1 commands=14/16",
                           &ev),
                     MAILLOG_DISCONNECT);
    ck_assert_int_eq(ev.data_ok, 2);
    /* a client that sent no DATA, and a Postfix before 3.0 that logs no counts */
    ck_assert_int_eq(parse("Dec  6 08:00:08 mx1 postfix/smtpd[78]: disconnect from "
                           "unknown[203.0.113.9] ehlo=1 quit=1 commands=2",
                           &ev),
                     MAILLOG_DISCONNECT);
    ck_assert_int_eq(ev.data_ok, 0);
    ck_assert_int_eq(
        parse("Dec  6 08:00:08 mx1 postfix/smtpd[78]: disconnect from unknown[203.0.113.9]", &ev),
        MAILLOG_DISCONNECT);
    ck_assert_int_eq(ev.data_ok, -1);
    /* a null sender, and the address probe's outcome that is no delivery */
    ck_assert_int_eq(parse("Dec  6 08:00:09 mx1 postfix/qmgr[1023]: 4R9y0B2x7Mz9sVr: from=<>, "
                           "size=3120, nrcpt=1 (queue active)",
                           &ev),
                     MAILLOG_ARRIVAL);
    ck_assert_uint_eq(ev.size, 3120);
    ck_assert_int_eq(parse("Dec  6 08:00:09 mx1 postfix/smtp[2110]: 4R9y0B2x7Mz9sVr: "
                           "to=<x@example.net>, relay=mx[198.51.100.7]:25, delay=0.1, "
                           "delays=0/0/0.05/0.05, dsn=2.1.5, status=deliverable (250 2.1.5 Ok)",
                           &ev),
                     MAILLOG_IGNORED);
}
END_TEST

START_TEST(test_odd_lines)
{
    struct maillog_event ev;

    ck_assert_int_eq(parse("Dec  6 08:00:03 mx1 postfix/smtpd[2101]: NOQUEUE: reject: RCPT from "
                           "unknown[203.0.113.9]: 554 5.7.1 <x@example.org>: Relay access denied; "
                           "from=<spam@example.biz> to=<x@example.org> proto=ESMTP helo=<spam>",
                           &ev),
                     MAILLOG_IGNORED);
    ck_assert_int_eq(
        parse("Dec  6 08:00:03 mx1 postfix/smtpd[2101]: warning: hostname unknown does "
              "not resolve to address 203.0.113.9",
              &ev),
        MAILLOG_IGNORED);
    ck_assert_int_eq(parse("Dec  6 08:00:03 mx1 postfix/anvil[2000]: statistics: max connection "
                           "rate 3/60s for (smtp:203.0.113.9) at Dec  6 07:58:11",
                           &ev),
                     MAILLOG_IGNORED);
    ck_assert_int_eq(parse("Dec  6 08:00:04 mx1 kernel: [12345.6789] eth0: link up", &ev),
                     MAILLOG_OTHER);
    ck_assert_int_eq(
        parse("Dec  6 08:00:04 mx1 CRON[999]: (root) CMD (run-parts /etc/cron.hourly)", &ev),
        MAILLOG_OTHER);
    /* another program that says from=, size= is still another program */
    ck_assert_int_eq(parse("Dec  6 08:00:04 mx1 notpostfix[1]: 4R9xQk1Zl3z9sVq: from=<a@b>, "
                           "size=1, nrcpt=1 (queue active)",
                           &ev),
                     MAILLOG_OTHER);
    ck_assert_int_eq(parse("", &ev), MAILLOG_OTHER);
    ck_assert_int_eq(parse("-- MARK --", &ev), MAILLOG_OTHER);
    ck_assert_int_eq(parse("Foo  6 08:00:04 mx1 postfix/qmgr[1]: removed", &ev), MAILLOG_OTHER);
    ck_assert_int_eq(parse("Dec 36 08:00:04 mx1 postfix/qmgr[1]: X: removed", &ev), MAILLOG_OTHER);
    /* a qmgr line broken where its numbers are */
    ck_assert_int_eq(parse("Dec  6 08:00:04 mx1 postfix/qmgr[1]: 4R9xQk1Zl3z9sVq: from=<a@b>, "
                           "size=, nrcpt=1 (queue active)",
                           &ev),
                     MAILLOG_UNPARSED);
    ck_assert_int_eq(parse("Dec  6 08:00:04 mx1 postfix/qmgr[1]: 4R9xQk1Zl3z9sVq: from=<a@b>, "
                           "size=99999999999999999999999, nrcpt=1 (queue active)",
                           &ev),
                     MAILLOG_UNPARSED);
    /* not UTF-8 in the sender: the counts are still read */
    ck_assert_int_eq(parse("Dec  6 08:00:04 mx1 postfix/qmgr[1]: 4R9xQk1Zl3z9sVq: "
                           "from=<\xff\xfe\xc3(@exa\x80mple.org>, size=77, nrcpt=3 (queue active)",
                           &ev),
                     MAILLOG_ARRIVAL);
    ck_assert_uint_eq(ev.size, 77);
    ck_assert_uint_eq(ev.nrcpt, 3);
    /* a queue ID longer than any MTA's */
    ck_assert_int_eq(parse("Dec  6 08:00:04 mx1 postfix/qmgr[1]: "
                           "ABCDEFGHIJABCDEFGHIJABCDEFGHIJABCDEFGHIJ: removed",
                           &ev),
                     MAILLOG_IGNORED);
}
END_TEST

/* Every prefix of every line, from a buffer of exactly that length: no read past it, no event made
 * up. */
START_TEST(test_cut_short)
{
    static const char *const more[] = {
        "2026-12-06 08:00:01 1tJqAB-000Abc-2X <= alice@example.org H=mail.example.org "
        "[192.0.2.10] P=esmtps S=5120 id=1@example.org",
        "2026-12-06T08:00:05.123456+01:00 mx1 postfix/qmgr[1023]: ABCDEF1234: from=<>, size=999, "
        "nrcpt=1 (queue active)",
        "2026-12-06 08:00:05.123 +0100 [4242] 1tJqAC-000Abd-3Y <= <> R=1tJqAB-000Abc-2X P=local "
        "S=1873",
    };
    const char *all[sizeof(postfix_lines) / sizeof(postfix_lines[0]) + 3];
    size_t n = 0;

    for (size_t i = 0; i < sizeof(postfix_lines) / sizeof(postfix_lines[0]); i++)
        all[n++] = postfix_lines[i];
    for (size_t i = 0; i < 3; i++)
        all[n++] = more[i];
    for (size_t i = 0; i < n; i++) {
        size_t len = strlen(all[i]);

        for (size_t cut = 0; cut <= len; cut++) {
            struct maillog_year y;
            struct maillog_event ev;
            char *copy = malloc(cut ? cut : 1);
            enum maillog_kind k;

            ck_assert_ptr_nonnull(copy);
            memcpy(copy, all[i], cut);
            maillog_line_year_fixed(&y, 2026);
            k = maillog_line_parse(copy, cut, &y, &ev);
            free(copy);
            ck_assert_msg(k >= MAILLOG_OTHER && k <= MAILLOG_REMOVED, "line %zu cut at %zu", i,
                          cut);
            /* an arrival needs its size whole: never one cut inside "size=4213" */
            if (k == MAILLOG_ARRIVAL && ev.mta == MAILLOG_POSTFIX)
                ck_assert_msg(memmem(all[i], cut, ", nrcpt=", 8) != NULL, "line %zu at %zu", i,
                              cut);
        }
    }
}
END_TEST

START_TEST(test_long_and_binary)
{
    size_t len = 200000;
    char *line = malloc(len);
    const char *head = "Dec  6 08:00:04 mx1 postfix/qmgr[1]: 4R9xQk1Zl3z9sVq: from=<";
    struct maillog_year y;
    struct maillog_event ev;

    ck_assert_ptr_nonnull(line);
    memset(line, 'a', len);
    memcpy(line, head, strlen(head));
    maillog_line_year_fixed(&y, 2026);
    ck_assert_int_eq(maillog_line_parse(line, len, &y, &ev), MAILLOG_UNPARSED);
    for (size_t i = 0; i < len; i++)
        line[i] = (char)(i * 131 + 7); /* every byte value, NUL among them */
    maillog_line_parse(line, len, &y, &ev);
    memcpy(line, "Dec  6 08:00:04 mx1 postfix/qmgr[1]: A\0B: removed", 50);
    ck_assert_int_eq(maillog_line_parse(line, 50, &y, &ev), MAILLOG_IGNORED);
    free(line);
}
END_TEST

START_TEST(test_exim)
{
    struct maillog_event ev;

    ck_assert_int_eq(parse("2026-12-06 08:00:01 1tJqAB-000Abc-2X <= alice@example.org "
                           "H=mail.example.org [192.0.2.10] P=esmtps "
                           "X=TLS1.3:TLS_AES_256_GCM_SHA384:256 CV=no S=5120 id=1@example.org",
                           &ev),
                     MAILLOG_ARRIVAL);
    ck_assert_int_eq(ev.mta, MAILLOG_EXIM);
    ck_assert_str_eq(ev.qid, "1tJqAB-000Abc-2X");
    ck_assert_uint_eq(ev.size, 5120);
    ck_assert_double_eq(ev.time, T_0801);
    ck_assert_int_eq(parse("2026-12-06 08:00:02 1tJqAB-000Abc-2X => bob@example.net R=dnslookup "
                           "T=remote_smtp H=mx.example.net [198.51.100.7] C=\"250 2.0.0 Ok\"",
                           &ev),
                     MAILLOG_DELIVERY);
    ck_assert_int_eq(ev.status, MAILLOG_SENT);
    ck_assert_int_eq(parse("2026-12-06 08:00:02 1tJqAB-000Abc-2X -> carol@example.net "
                           "R=dnslookup T=remote_smtp H=mx.example.net [198.51.100.7]",
                           &ev),
                     MAILLOG_DELIVERY);
    ck_assert_int_eq(ev.status, MAILLOG_SENT);
    ck_assert_int_eq(parse("2026-12-06 08:00:02 1tJqAB-000Abc-2X == dave@example.com "
                           "R=dnslookup T=remote_smtp defer (-44) H=mx.example.com "
                           "[203.0.113.5]: SMTP error from remote mail server after RCPT "
                           "TO:<dave@example.com>: 451 4.7.1 Try again later",
                           &ev),
                     MAILLOG_DELIVERY);
    ck_assert_int_eq(ev.status, MAILLOG_DEFERRED);
    ck_assert_int_eq(parse("2026-12-06 08:00:03 1tJqAB-000Abc-2X ** erin@example.com "
                           "R=dnslookup T=remote_smtp: SMTP error from remote mail server after "
                           "RCPT TO:<erin@example.com>: 550 5.1.1 User unknown",
                           &ev),
                     MAILLOG_DELIVERY);
    ck_assert_int_eq(ev.status, MAILLOG_BOUNCED);
    ck_assert_int_eq(parse("2026-12-06 08:00:03 1tJqAB-000Abc-2X Completed", &ev), MAILLOG_REMOVED);
    ck_assert_int_eq(parse("2026-12-06 08:00:04 SMTP connection from [192.0.2.10]:41234 (TCP/IP "
                           "connection count = 1)",
                           &ev),
                     MAILLOG_CONNECT);
    ck_assert_int_eq(parse("2026-12-06 08:00:04 SMTP connection from mail.example.org "
                           "[192.0.2.10]:41234 closed by QUIT",
                           &ev),
                     MAILLOG_IGNORED);
    ck_assert_int_eq(parse("2026-12-06 08:00:04 H=(spam) [203.0.113.9] F=<spam@example.biz> "
                           "rejected RCPT <x@example.org>: relay not permitted",
                           &ev),
                     MAILLOG_IGNORED);
    ck_assert_int_eq(parse("2026-12-06 08:00:04 1tJqAB-000Abc-2X <= alice@example.org H=x", &ev),
                     MAILLOG_UNPARSED);
    /* +subsecond, log_timezone and +pid, a bounce's arrival */
    ck_assert_int_eq(parse("2026-12-06 08:00:05.123 +0100 [4242] 1tJqAC-000Abd-3Y <= <> "
                           "R=1tJqAB-000Abc-2X U=Debian-exim P=local S=1873",
                           &ev),
                     MAILLOG_ARRIVAL);
    ck_assert_double_eq_tol(ev.time, 1796540405.123, 1e-6);
    ck_assert_uint_eq(ev.size, 1873);
}
END_TEST

START_TEST(test_stamps)
{
    struct maillog_event ev;

    ck_assert_int_eq(parse("2026-12-06T08:00:05.123456+01:00 mx1 postfix/qmgr[1023]: ABCDEF1234: "
                           "from=<>, size=999, nrcpt=1 (queue active)",
                           &ev),
                     MAILLOG_ARRIVAL);
    ck_assert_double_eq_tol(ev.time, 1796540405.123456, 1e-6);
    ck_assert_int_eq(parse("2026-12-06T07:00:05Z mx1 postfix/qmgr[1023]: ABCDEF1234: removed", &ev),
                     MAILLOG_REMOVED);
    ck_assert_double_eq(ev.time, 1796540405.0);
    ck_assert_int_eq(parse("Dec 16 08:00:01 mx1 postfix/qmgr[1]: ABCDEF1234: removed", &ev),
                     MAILLOG_REMOVED);
    ck_assert_double_eq(ev.time, T_0801 + 10 * 86400);
    ck_assert_int_eq(maillog_line_days(1970, 1, 1), 0);
    ck_assert_int_eq(maillog_line_days(2000, 3, 1), 11017);
}
END_TEST

static double stamp(struct maillog_year *y, const char *when)
{
    char line[128];
    struct maillog_event ev;

    snprintf(line, sizeof(line), "%s mx1 postfix/qmgr[1]: ABCDEF1234: removed", when);
    ck_assert_int_eq(maillog_line_parse(line, strlen(line), y, &ev), MAILLOG_REMOVED);
    return ev.time;
}

START_TEST(test_year)
{
    struct maillog_year y;

    /* read on 2027-01-01 12:00: a log from December is last year's, and runs into this one */
    maillog_line_year_init(&y, 1798761600 + 12 * 3600);
    ck_assert_double_eq(stamp(&y, "Dec 31 23:59:59"), 1798761599.0);
    ck_assert_double_eq(stamp(&y, "Jan  1 00:00:00"), 1798761600.0);
    ck_assert_double_eq(stamp(&y, "Dec 31 23:59:58"), 1798761598.0); /* late, still 2026 */
    ck_assert_double_eq(stamp(&y, "Jan  1 00:00:01"), 1798761601.0);
    /* read on 2026-12-06: December is this year */
    maillog_line_year_init(&y, 1796544001);
    ck_assert_double_eq(stamp(&y, "Dec  6 08:00:01"), T_0801);
    /* --year 2026 with a log that begins in January */
    maillog_line_year_fixed(&y, 2026);
    ck_assert_double_eq(stamp(&y, "Jan  1 00:00:00"), 1767225600.0);
}
END_TEST

int main(void)
{
    const TTest *const tests[] = {test_postfix_events,
                                  test_postfix_more,
                                  test_odd_lines,
                                  test_cut_short,
                                  test_long_and_binary,
                                  test_exim,
                                  test_stamps,
                                  test_year,
                                  NULL};

    return check_run_tests("maillog_line", tests);
}
