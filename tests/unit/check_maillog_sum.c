/*
 * Unit tests for spoolsim/workload/maillog_sum.c: a small Postfix and
 * Exim log summed (messages, a retry counted once, recipients, messages
 * per connection, outcomes and the shares of messages deferred and
 * bounced), arrivals per minute (peak, mean, coefficient of variation, a
 * minute earlier than the first), the bounded table of queue IDs (the
 * oldest evicted and counted), and the JSON's keys.
 */
#include "config.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "check_memfile.h"
#include "json.h"
#include "maillog_line.h"
#include "maillog_sum.h"

static void feed(struct maillog_sum *s, const char *const *lines, size_t n)
{
    struct maillog_year y;

    maillog_line_year_fixed(&y, 2026);
    for (size_t i = 0; i < n; i++) {
        struct maillog_event ev;

        maillog_line_parse(lines[i], strlen(lines[i]), &y, &ev);
        maillog_sum_add(s, &ev);
    }
}

#define PF "Dec  6 08:0"
static const char *const log_lines[] = {
    PF "0:01 mx1 postfix/smtpd[21]: connect from a.example[192.0.2.1]",
    PF "0:01 mx1 postfix/qmgr[10]: 1111AAAA: from=<a@example.org>, size=1000, nrcpt=1 (queue "
       "active)",
    PF "0:02 mx1 postfix/qmgr[10]: 2222BBBB: from=<a@example.org>, size=3000, nrcpt=3 (queue "
       "active)",
    PF "0:03 mx1 postfix/smtpd[21]: disconnect from a.example[192.0.2.1] ehlo=1 mail=2 rcpt=4 "
       "data=2 quit=1 commands=10",
    PF "0:04 mx1 postfix/smtp[30]: 1111AAAA: to=<b@example.net>, relay=mx[198.51.100.1]:25, "
       "delay=3, delays=1/0/1/1, dsn=2.0.0, status=sent (250 ok)",
    PF "0:05 mx1 postfix/qmgr[10]: 1111AAAA: removed",
    PF "0:05 mx1 postfix/smtp[30]: 2222BBBB: to=<c@example.net>, relay=none, delay=4, "
       "delays=1/0/3/0, dsn=4.4.1, status=deferred (timed out)",
    PF "2:05 mx1 postfix/qmgr[10]: 2222BBBB: from=<a@example.org>, size=3000, nrcpt=3 (queue "
       "active)",
    PF "2:06 mx1 postfix/smtp[30]: 2222BBBB: to=<c@example.net>, relay=mx[198.51.100.1]:25, "
       "delay=125, delays=124/0/0.5/0.5, dsn=2.0.0, status=sent (250 ok)",
    PF "2:06 mx1 postfix/smtp[30]: 2222BBBB: to=<d@example.net>, relay=mx[198.51.100.1]:25, "
       "delay=125, delays=124/0/0.5/0.5, dsn=5.1.1, status=bounced (550 unknown)",
    PF "2:07 mx1 postfix/qmgr[10]: 2222BBBB: removed",
    PF "2:08 mx1 postfix/smtpd[21]: NOQUEUE: reject: RCPT from x[203.0.113.9]: 554 5.7.1 denied",
    PF "2:09 mx1 CRON[9]: (root) CMD (true)",
    "2026-12-06 08:00:30 1tJqAB-000Abc-2X <= a@example.org H=h [192.0.2.2] P=esmtp S=500",
    "2026-12-06 08:00:31 1tJqAB-000Abc-2X => b@example.net R=r T=t H=mx [198.51.100.1]",
    "2026-12-06 08:00:31 1tJqAB-000Abc-2X -> c@example.net R=r T=t H=mx [198.51.100.1]",
    "2026-12-06 08:00:31 1tJqAB-000Abc-2X ** d@example.net R=r T=t: 550 unknown",
    "2026-12-06 08:00:32 1tJqAB-000Abc-2X Completed",
    "2026-12-06 08:00:33 1tJqAB-000Abc-2X <= a@example.org H=h [192.0.2.2] P=esmtp S=",
};

START_TEST(test_small_log)
{
    struct maillog_sum s;
    struct maillog_rate r;

    maillog_sum_init(&s);
    feed(&s, log_lines, sizeof(log_lines) / sizeof(log_lines[0]));
    maillog_sum_finish(&s);
    ck_assert_uint_eq(s.lines.read, 19);
    ck_assert_uint_eq(s.lines.used, 16);
    ck_assert_uint_eq(s.lines.ignored, 1);
    ck_assert_uint_eq(s.lines.unparsed, 1);
    ck_assert_uint_eq(s.lines.other, 1);
    ck_assert_uint_eq(s.lines.postfix, 12);
    ck_assert_uint_eq(s.lines.exim, 6);
    ck_assert_uint_eq(s.messages, 3); /* the retry of 2222BBBB is no new message */
    ck_assert_uint_eq(s.requeued, 1);
    ck_assert_uint_eq(s.bytes, 4500);
    /* within the histogram's 0.4% */
    ck_assert_uint_ge(histogram_percentile(&s.size, 50), 996);
    ck_assert_uint_le(histogram_percentile(&s.size, 50), 1004);
    ck_assert_uint_eq(histogram_max(&s.size), 3000);
    /* recipients: 1 and 3 from qmgr, 3 from Exim's outcome lines */
    ck_assert_uint_eq(histogram_count(&s.rcpts), 3);
    ck_assert_uint_eq(histogram_min(&s.rcpts), 1);
    ck_assert_uint_eq(histogram_percentile(&s.rcpts, 50), 3);
    ck_assert_uint_eq(s.connections, 1);
    ck_assert_uint_eq(histogram_count(&s.per_conn), 1);
    ck_assert_uint_eq(histogram_max(&s.per_conn), 2);
    ck_assert_uint_eq(s.sent, 4);
    ck_assert_uint_eq(s.deferred, 1);
    ck_assert_uint_eq(s.bounced, 2);
    ck_assert_uint_eq(s.msgs_finished, 3);
    ck_assert_uint_eq(s.msgs_deferred, 1);
    ck_assert_uint_eq(s.msgs_bounced, 2);
    ck_assert_uint_eq(histogram_count(&s.delay_us), 2);
    ck_assert_uint_eq(s.delays_n, 2);
    ck_assert_double_eq_tol(s.delays_sum[0], 125, 1e-9);
    /* arrivals: minute 08:00 three, 08:01 none, 08:02 none (a retry is no arrival) */
    maillog_sum_rate(&s, &r);
    ck_assert_uint_eq(r.minutes, 1);
    ck_assert_uint_eq(r.peak, 3);
    ck_assert_double_eq(r.peak_time, 1796544000.0);
    ck_assert_double_eq(s.first, 1796544001.0);
    ck_assert_double_eq(s.last, 1796544128.0); /* the reject: a mail line, not CRON's */
    maillog_sum_free(&s);
}
END_TEST

static struct maillog_event arrival_at(double t, unsigned id)
{
    struct maillog_event ev;

    memset(&ev, 0, sizeof(ev));
    ev.kind = MAILLOG_ARRIVAL;
    ev.mta = MAILLOG_POSTFIX;
    ev.time = t;
    ev.size = 100;
    ev.nrcpt = 1;
    snprintf(ev.qid, sizeof(ev.qid), "Q%08X", id);
    return ev;
}

START_TEST(test_rate)
{
    struct maillog_sum s;
    struct maillog_rate r;
    struct maillog_event ev;
    unsigned id = 0;

    maillog_sum_init(&s);
    for (int i = 0; i < 6; i++) { /* six in minute 10, then one in minute 12 */
        ev = arrival_at(600 + i, id++);
        maillog_sum_add(&s, &ev);
    }
    ev = arrival_at(12 * 60 + 5, id++);
    maillog_sum_add(&s, &ev);
    ev = arrival_at(9 * 60 + 59, id++); /* out of order: a minute before the first */
    maillog_sum_add(&s, &ev);
    maillog_sum_rate(&s, &r);
    /* minutes 9..12: 1, 6, 0, 1 */
    ck_assert_uint_eq(r.minutes, 4);
    ck_assert_uint_eq(r.peak, 6);
    ck_assert_double_eq(r.peak_time, 600.0);
    ck_assert_double_eq_tol(r.mean, 2.0, 1e-12);
    ck_assert_double_eq_tol(r.peak_to_mean, 3.0, 1e-12);
    /* variance ((1-2)^2 + 16 + 4 + 1) / 4 = 5.5 */
    ck_assert_double_eq_tol(r.cv, sqrt(5.5) / 2, 1e-12);
    ck_assert_uint_eq(s.out_of_order, 1);
    /* a year later is beyond the bound: counted, not binned */
    ev = arrival_at(600 + 401.0 * 86400, id++);
    maillog_sum_add(&s, &ev);
    maillog_sum_rate(&s, &r);
    ck_assert_uint_eq(r.minutes, 4);
    ck_assert_uint_eq(s.out_of_range, 1);
    ck_assert_uint_eq(s.messages, 9);
    maillog_sum_free(&s);
}
END_TEST

START_TEST(test_bounded_table)
{
    struct maillog_sum s;
    const unsigned n = MAILLOG_SUM_WAYS * MAILLOG_SUM_SETS + 5000;

    maillog_sum_init(&s);
    for (unsigned i = 0; i < n; i++) {
        struct maillog_event ev = arrival_at(1000, i);

        maillog_sum_add(&s, &ev);
    }
    ck_assert_uint_eq(s.messages, n);
    ck_assert_uint_ge(s.evicted, 5000);
    ck_assert_uint_eq(s.msgs_finished, s.evicted);
    /* the newest is still there: its retry is no arrival */
    {
        struct maillog_event ev = arrival_at(1001, n - 1);

        maillog_sum_add(&s, &ev);
    }
    ck_assert_uint_eq(s.messages, n);
    ck_assert_uint_eq(s.requeued, 1);
    maillog_sum_finish(&s);
    ck_assert_uint_eq(s.msgs_finished, n);
    maillog_sum_free(&s);
}
END_TEST

START_TEST(test_json)
{
    struct maillog_sum s;
    struct check_memfile m;
    struct json_writer w;
    char *text, want[64];

    maillog_sum_init(&s);
    feed(&s, log_lines, sizeof(log_lines) / sizeof(log_lines[0]));
    maillog_sum_finish(&s);
    json_init(&w, check_memfile_open(&m));
    json_begin_object(&w, NULL);
    maillog_sum_write_json(&w, &s);
    json_end_object(&w);
    ck_assert_int_eq(json_finish(&w), 0);
    text = check_memfile_text(&m);
    ck_assert_ptr_nonnull(strstr(text, "\"messages\": 3,"));
    ck_assert_ptr_nonnull(strstr(text, "\"other_programs\": 1,"));
    ck_assert_ptr_nonnull(strstr(text, "\"unparsed\": 1,"));
    snprintf(want, sizeof(want), "\"median\": %llu,",
             (unsigned long long)histogram_percentile(&s.size, 50));
    ck_assert_ptr_nonnull(strstr(text, want));
    snprintf(want, sizeof(want), "[50, %llu]",
             (unsigned long long)histogram_percentile(&s.size, 50));
    ck_assert_ptr_nonnull(strstr(text, want));
    ck_assert_ptr_nonnull(strstr(text, "[99.99, 3000]"));
    ck_assert_ptr_nonnull(strstr(text, "[100, 3000]"));
    ck_assert_ptr_nonnull(strstr(text, "[3, 2]")); /* two messages of three recipients */
    ck_assert_ptr_nonnull(strstr(text, "\"peak\": 3,"));
    /* counts and distributions only: no address, host or ID of the log */
    ck_assert_ptr_null(strstr(text, "example"));
    ck_assert_ptr_null(strstr(text, "192.0.2"));
    ck_assert_ptr_null(strstr(text, "2222BBBB"));
    free(text);
    maillog_sum_free(&s);
}
END_TEST

int main(void)
{
    const TTest *const tests[] = {test_small_log, test_rate, test_bounded_table, test_json, NULL};

    return check_run_tests("maillog_sum", tests);
}
