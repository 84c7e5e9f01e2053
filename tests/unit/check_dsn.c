/*
 * Unit tests: dsn, the bounce and defer logs and RFC 3464 notifications.
 */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "dsn.h"

/* ------------------------------------------------------------ helpers */

/* Every line ends in CR LF, none is longer than `limit', no bare CR or LF. */
static void assert_lines(const char *text, size_t len, size_t limit)
{
    size_t start = 0;

    ck_assert_msg(len >= 2 && text[len - 2] == '\r' && text[len - 1] == '\n',
                  "text does not end in CR LF");
    for (size_t i = 0; i < len; i++) {
        if (text[i] == '\r') {
            ck_assert_msg(i + 1 < len && text[i + 1] == '\n', "bare CR at %zu", i);
            ck_assert_msg(i - start <= limit, "line at %zu is %zu long: %.*s", start, i - start,
                          (int)(i - start), text + start);
            start = i + 2;
            i++;
        } else {
            ck_assert_msg(text[i] != '\n', "bare LF at %zu", i);
            ck_assert_msg(text[i] != 0, "NUL at %zu", i);
        }
    }
}

static size_t count(const char *text, const char *needle)
{
    size_t n = 0;

    for (const char *p = text; (p = strstr(p, needle)) != NULL; p++)
        n++;
    return n;
}

/* The first `name' field of the header section of `text', unfolded (a static buffer), or NULL. */
static char *header(const char *text, const char *name)
{
    size_t nlen = strlen(name);
    const char *p = text;

    while (*p && !(p[0] == '\r' && p[1] == '\n')) {
        if (strncasecmp(p, name, nlen) == 0 && p[nlen] == ':') {
            static char out[2048];
            const char *v = p + nlen + 1, *end = v;
            size_t o = 0;

            while (*end && !(end[0] == '\r' && end[1] == '\n' && end[2] != ' ' && end[2] != '\t'))
                end++;
            for (const char *q = v; q < end && o + 1 < sizeof(out); q++)
                if (*q != '\r' && *q != '\n')
                    out[o++] = *q;
            out[o] = 0;
            return out;
        }
        p = strstr(p, "\r\n");
        if (p == NULL)
            break;
        p += 2;
    }
    return NULL;
}

static const char original[] = "Received: from client (localhost [127.0.0.1])\r\n"
                               "\tby relay; Tue, 01 Dec 2026 11:00:00 +0000\r\n"
                               "From: Alice <alice@example.org>\r\n"
                               "Subject: quarterly figures\r\n"
                               "Message-ID: <x1@example.org>\r\n"
                               "\r\n"
                               "Not a: header, the body.\r\n";

static struct dsn_entry bob = {
    .recipient = "bob@example.net",
    .offset = 636,
    .status = "5.1.1",
    .action = "failed",
    .diag_type = "smtp",
    .diag_text = "550 5.1.1 <bob@example.net>: Recipient address rejected: User unknown in "
                 "virtual mailbox table",
    .mta_type = "dns",
    .mta_name = "127.0.0.1",
    .reason = "host 127.0.0.1 said: 550 5.1.1 <bob@example.net>: Recipient address rejected: "
              "User unknown in virtual mailbox table (in reply to RCPT TO)",
};

static char *compose(const struct dsn_log *log, const char *headers, size_t hlen, size_t *len)
{
    struct dsn_report rep = {
        .queue_id = "39E6DA782C1",
        .reporting_mta = "relay.example",
        .sender = "alice@example.org",
        .to = "alice@example.org",
        .arrival_sec = 1796122800, /* Tue, 01 Dec 2026 11:00:00 */
        .now_sec = 1796123000,
        .now_usec = 42,
        .log = log,
        .headers = headers,
        .headers_len = hlen,
    };

    return dsn_compose(&rep, len);
}

/* -------------------------------------------------------------- tests */

START_TEST(log_round_trip)
{
    char *one = dsn_log_format(&bob), *two;
    struct dsn_entry carol = {.recipient = "carol@example.net",
                              .status = "5.0.0",
                              .action = "failed",
                              .reason = "line\nbreak\rand\001control"};
    struct dsn_log log;
    char text[4096];

    two = dsn_log_format(&carol);
    ck_assert_str_eq(two, "\nrecipient=carol@example.net\nstatus=5.0.0\naction=failed\n"
                          "reason=line break and control\n\n");
    snprintf(text, sizeof(text), "%s%s", one, two);
    ck_assert_int_eq(dsn_log_parse(text, strlen(text), 0, &log), 0);
    ck_assert_uint_eq(log.count, 2);
    ck_assert_str_eq(log.entries[0].recipient, "bob@example.net");
    ck_assert_int_eq(log.entries[0].offset, 636);
    ck_assert_str_eq(log.entries[0].status, "5.1.1");
    ck_assert_str_eq(log.entries[0].diag_type, "smtp");
    ck_assert_str_eq(log.entries[0].diag_text, bob.diag_text);
    ck_assert_str_eq(log.entries[0].mta_name, "127.0.0.1");
    ck_assert_str_eq(log.entries[0].reason, bob.reason);
    ck_assert_str_eq(log.entries[1].recipient, "carol@example.net");
    ck_assert_ptr_null(log.entries[1].diag_text);
    dsn_log_free(&log);
    free(one);
    free(two);
}
END_TEST

START_TEST(log_defaults_and_old_form)
{
    /* Postfix's old "<rcpt>: text" line is skipped; status and action come from the log kind */
    static const char text[] = "\n<dave@example.net>: it went wrong\nrecipient=dave@example.net\n"
                               "reason=it went wrong\n\nnot-an-attribute\n\noffset=9\n\n";
    struct dsn_log log;

    ck_assert_int_eq(dsn_log_parse(text, strlen(text), 1, &log), 0);
    ck_assert_uint_eq(log.count, 1); /* the block without recipient= is dropped */
    ck_assert_str_eq(log.entries[0].status, "4.0.0");
    ck_assert_str_eq(log.entries[0].action, "delayed");
    dsn_log_free(&log);
    ck_assert_int_eq(dsn_log_parse(text, strlen(text), 0, &log), 0);
    ck_assert_str_eq(log.entries[0].status, "5.0.0");
    ck_assert_str_eq(log.entries[0].action, "failed");
    dsn_log_free(&log);
    ck_assert_int_eq(dsn_log_parse("", 0, 0, &log), 0);
    ck_assert_uint_eq(log.count, 0);
    dsn_log_free(&log);
}
END_TEST

START_TEST(status_of_reply)
{
    static const struct {
        const char *reply;
        int permanent;
        const char *want;
    } cases[] = {
        {"550 5.1.1 <bob@example.net>: unknown", 1, "5.1.1"},
        {"552-5.3.4 too big", 1, "5.3.4"},
        {"554 5.7.123 policy", 1, "5.7.123"},
        {"550 Error: no such user", 1, "5.0.0"},  /* no enhanced code */
        {"550 4.1.1 class mismatch", 1, "5.0.0"}, /* its class is the reply's */
        {"550 5.1.1x not a code", 1, "5.0.0"},
        {"450 4.2.0 try later", 0, "4.2.0"},
        {"451 local error", 0, "4.0.0"},
        {"connection closed", 0, "4.0.0"},
        {NULL, 1, "5.0.0"},
    };
    char s[DSN_STATUS_MAX];

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        dsn_status_of_reply(cases[i].reply, cases[i].permanent, s);
        ck_assert_msg(strcmp(s, cases[i].want) == 0, "\"%s\": %s, not %s",
                      cases[i].reply ? cases[i].reply : "(none)", s, cases[i].want);
    }
}
END_TEST

START_TEST(date_format)
{
    char d[64];

    dsn_date(1796123000, d, sizeof(d));
    ck_assert_str_eq(d, "Tue, 01 Dec 2026 11:03:20 +0000");
    dsn_date(0, d, sizeof(d));
    ck_assert_str_eq(d, "Thu, 01 Jan 1970 00:00:00 +0000");
}
END_TEST

START_TEST(header_length)
{
    size_t n = dsn_header_length(original, strlen(original));

    ck_assert_uint_eq(n, (size_t)(strstr(original, "\r\n\r\n") + 2 - original));
    ck_assert_uint_eq(dsn_header_length("no header line\r\nX: y\r\n", 22), 0);
    ck_assert_uint_eq(dsn_header_length(" cont\r\nX: y\r\n", 13), 0);
    ck_assert_uint_eq(dsn_header_length("X: y\nZ: w\nbody\n", 15), 10); /* LF lines too */
    ck_assert_uint_eq(dsn_header_length("X: y", 4), 4);                 /* no line end */
}
END_TEST

START_TEST(structure)
{
    struct dsn_log log = {&bob, 1};
    size_t len, hlen = dsn_header_length(original, strlen(original));
    char *text = compose(&log, original, hlen, &len), *ct, *boundary, delim[200], *p;
    const char *parts[3] = {"text/plain", "message/delivery-status", "text/rfc822-headers"};

    ck_assert_uint_eq(strlen(text), len);
    assert_lines(text, len, DSN_LINE_FOLD);
    ck_assert_ptr_nonnull(strstr(header(text, "From"), "MAILER-DAEMON@relay.example"));
    ck_assert_str_eq(header(text, "To"), " alice@example.org");
    ck_assert_str_eq(header(text, "Subject"), " Undelivered Mail Returned to Sender");
    ck_assert_str_eq(header(text, "Auto-Submitted"), " auto-replied");
    ck_assert_str_eq(header(text, "MIME-Version"), " 1.0");
    ck_assert_str_eq(header(text, "Date"), " Tue, 01 Dec 2026 11:03:20 +0000");
    ck_assert_str_eq(header(text, "Message-Id"),
                     " <20261201110320.000042.39E6DA782C1@relay.example>");
    ct = header(text, "Content-Type");
    ck_assert_ptr_nonnull(strstr(ct, "multipart/report; report-type=delivery-status;"));
    boundary = strstr(ct, "boundary=\"");
    ck_assert_ptr_nonnull(boundary);
    boundary += 10;
    *strchr(boundary, '"') = 0;
    ck_assert_str_eq(boundary, "39E6DA782C1.1796123000/relay.example");
    ck_assert_uint_le(strlen(boundary), 70);

    /* three parts in order, each opened by the delimiter on a line of its own, then the close */
    snprintf(delim, sizeof(delim), "\r\n--%s\r\n", boundary);
    ck_assert_uint_eq(count(text, delim), 3);
    p = text;
    for (int i = 0; i < 3; i++) {
        char want[100];

        p = strstr(p, delim);
        ck_assert_ptr_nonnull(p);
        p += strlen(delim);
        snprintf(want, sizeof(want), "Content-Type: %s", parts[i]);
        ck_assert_msg(strstr(p, want) != NULL && strstr(p, want) < strstr(p, "\r\n\r\n"),
                      "part %d is not %s", i, parts[i]);
    }
    snprintf(delim, sizeof(delim), "\r\n--%s--\r\n", boundary);
    ck_assert_ptr_nonnull(strstr(text, delim));
    ck_assert_str_eq(text + len - strlen(delim), delim); /* the close ends the message */

    /* the report: per-message fields, a blank line, the recipient's fields */
    p = strstr(text, "\r\n\r\nReporting-MTA: dns; relay.example\r\n");
    ck_assert_ptr_nonnull(p);
    ck_assert_ptr_nonnull(strstr(p, "Arrival-Date: Tue, 01 Dec 2026 11:00:00 +0000\r\n\r\n"
                                    "Final-Recipient: rfc822; bob@example.net\r\n"
                                    "Action: failed\r\nStatus: 5.1.1\r\n"
                                    "Remote-MTA: dns; 127.0.0.1\r\n"
                                    "Diagnostic-Code: smtp; 550 5.1.1 <bob@example.net>:"));
    /* the diagnostic is folded before a space and unfolds to the hop's words */
    p = strstr(text, "Diagnostic-Code:");
    {
        char *end = strstr(p, "\r\n\r\n"), unfolded[600];
        size_t o = 0;

        for (char *q = p + 16; q < end && o + 1 < sizeof(unfolded); q++)
            if (*q != '\r' && *q != '\n')
                unfolded[o++] = *q;
        unfolded[o] = 0;
        ck_assert_str_eq(unfolded, " smtp; 550 5.1.1 <bob@example.net>: Recipient address "
                                   "rejected: User unknown in virtual mailbox table");
        ck_assert_ptr_nonnull(memchr(p, '\n', (size_t)(end - p))); /* it was folded */
    }
    /* the returned headers: Return-Path, then the original's, not its body */
    ck_assert_ptr_nonnull(strstr(text, "Content-Type: text/rfc822-headers\r\n\r\n"
                                       "Return-Path: <alice@example.org>\r\n"
                                       "Received: from client (localhost [127.0.0.1])\r\n"
                                       "\tby relay;"));
    ck_assert_ptr_nonnull(strstr(text, "Subject: quarterly figures\r\n"));
    ck_assert_ptr_null(strstr(text, "the body"));
    /* the reason for people */
    ck_assert_ptr_nonnull(strstr(text, "<bob@example.net>: host 127.0.0.1 said:"));
    free(text);
}
END_TEST

START_TEST(postmaster_copy_and_several)
{
    struct dsn_entry two[2] = {bob,
                               {.recipient = "carol@example.net",
                                .status = "4.4.1",
                                .action = "delayed",
                                .reason = "connection timed out"}};
    struct dsn_log log = {two, 2};
    struct dsn_report rep = {.queue_id = "ABC",
                             .reporting_mta = "relay.example",
                             .sender = "",
                             .to = "postmaster@example.org",
                             .postmaster_copy = 1,
                             .now_sec = 1796123000,
                             .log = &log,
                             .headers = "Subject: x\r\n",
                             .headers_len = 12};
    size_t len;
    char *text = dsn_compose(&rep, &len);

    assert_lines(text, len, DSN_LINE_FOLD);
    ck_assert_str_eq(header(text, "Subject"), " Postmaster Copy: Undelivered Mail");
    ck_assert_str_eq(header(text, "Auto-Submitted"), " auto-generated");
    ck_assert_uint_eq(count(text, "Final-Recipient: "), 2);
    /* an expired deferral is reported as failed, with the status it was deferred with */
    ck_assert_uint_eq(count(text, "Action: failed\r\n"), 2);
    ck_assert_ptr_nonnull(strstr(text, "Status: 4.4.1\r\nDiagnostic-Code: X-Spoolsim; "
                                       "connection timed out\r\n"));
    ck_assert_ptr_nonnull(strstr(text, "Return-Path: <>\r\n"));
    ck_assert_ptr_null(strstr(text, "X-Spoolsim-Sender")); /* no sender to name */
    ck_assert_ptr_null(strstr(text, "Arrival-Date"));      /* unknown */
    free(text);
}
END_TEST

START_TEST(hostile_headers)
{
    /* a header line of 3000 bytes, LF line ends, and the boundary itself in a header */
    char headers[4000], *text, *p;
    struct dsn_log log = {&bob, 1};
    size_t len, n;

    n = (size_t)snprintf(headers, sizeof(headers),
                         "X-Trap: --39E6DA782C1.1796123000/relay.example\nX-Long: ");
    memset(headers + n, 'a', 3000);
    n += 3000;
    memcpy(headers + n, "\nSubject: s\n", 13);
    n += 12;
    text = compose(&log, headers, n, &len);
    assert_lines(text, len, DSN_LINE_LIMIT);
    p = strstr(text, "boundary=\"");
    ck_assert_ptr_nonnull(p);
    ck_assert_msg(strncmp(p + 10, "39E6DA782C1.1796123000/relay.example\"", 37) != 0,
                  "the boundary is not changed to avoid the header that contains it");
    /* the long line is broken and continued, not cut: all 3000 bytes are there */
    {
        size_t as = 0;

        for (p = strstr(text, "X-Long: "); *p && strncmp(p, "\r\nSubject", 9) != 0; p++)
            as += *p == 'a';
        ck_assert_uint_eq(as, 3000);
    }
    ck_assert_ptr_nonnull(strstr(text, "\r\nSubject: s\r\n"));
    free(text);
}
END_TEST

START_TEST(long_words_in_fields)
{
    /* an address too long for any folded line still keeps every line within 998 */
    char addr[2100];
    struct dsn_entry e = {.recipient = addr, .status = "5.0.0", .action = "failed"};
    struct dsn_log log = {&e, 1};
    size_t len;
    char *text;

    memset(addr, 'x', 2000);
    memcpy(addr + 2000, "@example.net", 13);
    e.reason = addr;
    text = compose(&log, "", 0, &len);
    assert_lines(text, len, DSN_LINE_LIMIT);
    free(text);
}
END_TEST

int main(void)
{
    const TTest *const tests[] = {log_round_trip,
                                  log_defaults_and_old_form,
                                  status_of_reply,
                                  date_format,
                                  header_length,
                                  structure,
                                  postmaster_copy_and_several,
                                  hostile_headers,
                                  long_words_in_fields,
                                  NULL};

    return check_run_tests("dsn", tests);
}
