/*
 * check_received - the relay's Received: header in Postfix's shape, the
 * date in it, and the hop counter that Postfix's cleanup keeps.
 */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check_main.h"
#include "dsn.h"
#include "received.h"

#define T_2023 1700000000L /* Tue, 14 Nov 2023 22:13:20 UTC */

static void zone(const char *tz)
{
    setenv("TZ", tz, 1);
    tzset();
}

static struct received_info info(const char *rcpt)
{
    struct received_info ri = {
        .helo = "client.example",
        .client_name = "localhost",
        .client_addr = "127.0.0.1",
        .hostname = "relay.example",
        .protocol = "ESMTP",
        .queue_id = "4BE8FA72B14",
        .rcpt = rcpt,
        .time = T_2023,
    };
    return ri;
}

START_TEST(test_one_recipient)
{
    char out[RECEIVED_MAX + 1];
    struct received_info ri = info("rcpt@example.com");
    static const char want[] =
        "Received: from client.example (localhost [127.0.0.1])\r\n"
        "\tby relay.example (Postfix) with ESMTP id 4BE8FA72B14\r\n"
        "\tfor <rcpt@example.com>; Tue, 14 Nov 2023 22:13:20 +0000 (UTC)\r\n";

    zone("UTC0");
    ck_assert_uint_eq(received_header(&ri, out), strlen(want));
    ck_assert_str_eq(out, want);
}
END_TEST

START_TEST(test_several_recipients)
{
    char out[RECEIVED_MAX + 1];
    struct received_info ri = info(NULL);
    static const char want[] = "Received: from client.example (localhost [127.0.0.1])\r\n"
                               "\tby relay.example (Postfix) with ESMTP id 4BE8FA72B14;\r\n"
                               "\tTue, 14 Nov 2023 22:13:20 +0000 (UTC)\r\n";

    zone("UTC0");
    received_header(&ri, out);
    ck_assert_str_eq(out, want);
}
END_TEST

/* How many CR LF the text has; fails on a CR or LF that is not in one. */
static unsigned line_ends(const char *text)
{
    unsigned n = 0;

    for (const char *p = text; *p; p++) {
        if (*p == '\r') {
            ck_assert_int_eq(p[1], '\n');
            n++;
            p++;
        } else {
            ck_assert_int_ne(*p, '\n');
        }
    }
    return n;
}

/* No HELO: the client's name. A CR or LF from the client makes no line; a long field is cut. */
START_TEST(test_client_fields)
{
    char out[RECEIVED_MAX + 1], helo[2000], rcpt[2000];
    struct received_info ri = info("a\r\nX-Evil: 1@example.com");
    size_t n;

    zone("UTC0");
    ri.helo = NULL;
    received_header(&ri, out);
    ck_assert_ptr_nonnull(strstr(out, "Received: from localhost (localhost [127.0.0.1])\r\n"));
    ck_assert_ptr_nonnull(strstr(out, "\tfor <a??X-Evil: 1@example.com>; "));
    ck_assert_uint_eq(line_ends(out), 3);
    memset(helo, 'h', sizeof(helo) - 1);
    helo[sizeof(helo) - 1] = 0;
    memset(rcpt, 'r', sizeof(rcpt) - 1);
    rcpt[sizeof(rcpt) - 1] = 0;
    ri.helo = helo;
    ri.rcpt = rcpt;
    n = received_header(&ri, out);
    ck_assert_uint_le(n, RECEIVED_MAX);
    ck_assert_uint_eq(n, strlen(out));
    ck_assert_str_eq(out + n - 2, "\r\n");
    ck_assert_uint_eq(line_ends(out), 3);
}
END_TEST

START_TEST(test_mail_date)
{
    char out[64];

    zone("UTC0");
    dsn_mail_date(T_2023, out, sizeof(out));
    ck_assert_str_eq(out, "Tue, 14 Nov 2023 22:13:20 +0000 (UTC)");
    /* east of Greenwich across midnight: the next day, a day of one digit padded with a space */
    zone("CET-1");
    dsn_mail_date(1700003600L + 86400L * 17, out, sizeof(out));
    ck_assert_str_eq(out, "Sat,  2 Dec 2023 00:13:20 +0100 (CET)");
    zone("EST5");
    dsn_mail_date(T_2023, out, sizeof(out));
    ck_assert_str_eq(out, "Tue, 14 Nov 2023 17:13:20 -0500 (EST)");
    /* west across a year's end, and a zone of half hours */
    zone("NST3:30");
    dsn_mail_date(1704067200L, out, sizeof(out)); /* 2024-01-01 00:00:00 UTC */
    ck_assert_str_eq(out, "Sun, 31 Dec 2023 20:30:00 -0330 (NST)");
}
END_TEST

/* The counter fed `text' in pieces of `step' bytes. */
static unsigned count_in_steps(const char *text, size_t step)
{
    struct received_counter rc;
    size_t len = strlen(text);

    received_counter_init(&rc);
    for (size_t off = 0; off < len; off += step)
        received_counter_feed(&rc, text + off, len - off < step ? len - off : step);
    return rc.count;
}

static unsigned count(const char *text)
{
    unsigned n = count_in_steps(text, strlen(text) + 1);

    /* a piece at a time or the whole at once, the same count */
    for (size_t step = 1; step < 12; step++)
        ck_assert_uint_eq(count_in_steps(text, step), n);
    return n;
}

START_TEST(test_count)
{
    ck_assert_uint_eq(count(""), 0);
    ck_assert_uint_eq(count("Received: a\r\nReceived: b\r\n\r\nbody\r\n"), 2);
    /* the name in any case, blanks before its colon (Postfix's is_header) */
    ck_assert_uint_eq(count("received: a\nRECEIVED: b\nReceived : c\nReceived\t:d\n\n"), 4);
    /* anywhere in the header section, a folded field once, LF lines too */
    ck_assert_uint_eq(count("From: x\r\nReceived: from a\r\n\tby b\r\n Received: no\r\n"
                            "Subject: s\r\nReceived: c\r\n\r\n"),
                      2);
    /* not a Received: field */
    ck_assert_uint_eq(count("Received-SPF: pass\r\nX-Received: 1\r\nReceivedX: 2\r\nReceive: 3\r\n"
                            "Received: 4\r\n"),
                      1);
    /* the body, and a message attached to it, are not counted */
    ck_assert_uint_eq(count("Received: a\r\n\r\nReceived: b\r\nReceived: c\r\n"), 1);
    /* a line that is no field ends the header section, as the empty line */
    ck_assert_uint_eq(count("Received: a\r\nnot a field\r\nReceived: b\r\n"), 1);
    ck_assert_uint_eq(count("Received: a\r\n:no name\r\nReceived: b\r\n"), 1);
    ck_assert_uint_eq(count("Received: a\r\nRe ceived: b\r\nReceived: c\r\n"), 1);
    /* a continuation of nothing: no header section */
    ck_assert_uint_eq(count(" Received: a\r\nReceived: b\r\n"), 0);
}
END_TEST

/* A field longer than a queue file's record (2048) is one field; its tail is not looked at. */
START_TEST(test_count_long)
{
    size_t n = 5000;
    char *text = malloc(3 * n);
    struct received_counter rc;
    size_t len;

    ck_assert_ptr_nonnull(text);
    strcpy(text, "Received: ");
    len = strlen(text);
    memset(text + len, 'x', n);
    len += n;
    strcpy(text + len, "\r\nReceived: end\r\n\r\n");
    /* "Received:" well inside the long line, and at a piece's start */
    memcpy(text + 2048, "Received: ", 10);
    received_counter_init(&rc);
    received_counter_feed(&rc, text, 2048);
    received_counter_feed(&rc, text + 2048, strlen(text) - 2048);
    ck_assert_uint_eq(rc.count, 2);
    free(text);
}
END_TEST

int main(void)
{
    const TTest *const tests[] = {
        test_one_recipient,
        test_several_recipients,
        test_client_fields,
        test_mail_date,
        test_count,
        test_count_long,
        NULL,
    };

    return check_run_tests("received", tests);
}
