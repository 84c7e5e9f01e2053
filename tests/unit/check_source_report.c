/*
 * Unit tests: smtp-source's report: the window its rates are over, the
 * reasons of failed connections, and plurals that match their numbers.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "check_memfile.h"
#include "source_report.h"

#define S 1000000000ULL

static struct source_stats st;

static void opts_init(struct source_options *o, unsigned sessions)
{
    char err[128];

    memset(o, 0, sizeof(*o));
    o->sessions = sessions;
    o->target = "127.0.0.1:25";
    ck_assert_int_eq(workload_size_parse("1024", &o->size, err, sizeof(err)), 0);
}

/* The text report of st under o, as a string the caller frees. */
static char *report(const struct source_options *o)
{
    struct check_memfile m;

    source_report_text(check_memfile_open(&m), &st, o);
    return check_memfile_text(&m);
}

/* Closed loop of -m N: start to last completion. */
START_TEST(test_window_closed)
{
    source_report_init(&st);
    st.start_ns = 5 * S;
    st.end_ns = 7 * S;
    ck_assert_double_eq_tol(source_report_window_s(&st), 2.0, 1e-9);
}
END_TEST

/* One message at --rate 1 --duration 1, done in a millisecond: 1 s, not 1 ms. */
START_TEST(test_window_offered)
{
    source_report_init(&st);
    st.start_ns = 5 * S;
    st.end_ns = 5 * S + S / 1000;
    st.offered_end_ns = 6 * S;
    ck_assert_double_eq_tol(source_report_window_s(&st), 1.0, 1e-9);
    /* a server slower than the offer: up to the last completion */
    st.end_ns = 9 * S;
    ck_assert_double_eq_tol(source_report_window_s(&st), 4.0, 1e-9);
    /* nothing ran */
    source_report_init(&st);
    ck_assert_double_eq(source_report_window_s(&st), 0);
}
END_TEST

/* The rate in the text is over that window. */
START_TEST(test_text_rate_over_window)
{
    struct source_options o;
    char *text;

    opts_init(&o, 1);
    o.rate = 10;
    source_report_init(&st);
    st.start_ns = S;
    st.end_ns = S + 4 * S / 10 + S / 1000; /* the 5th of 5 done 1 ms after its start at 0.4 s */
    st.offered_end_ns = S + 5 * S / 10;
    st.counts.attempted = st.counts.delivered = st.counts.recipients = 5;
    st.counts.connections = 5;
    text = report(&o);
    ck_assert_ptr_nonnull(strstr(text, "of 5 attempted in 0.500 s\n"));
    ck_assert_ptr_nonnull(strstr(text, "smtp-source: 10.0 msgs/s,"));
    free(text);
}
END_TEST

START_TEST(test_plurals)
{
    struct source_options o;
    char *text;

    opts_init(&o, 1);
    source_report_init(&st);
    st.start_ns = S;
    st.end_ns = 2 * S;
    st.counts.attempted = st.counts.delivered = st.counts.connections = 1;
    text = report(&o);
    ck_assert_ptr_nonnull(
        strstr(text, "smtp-source: 1 message delivered, 0 failed, of 1 attempted"));
    ck_assert_ptr_nonnull(
        strstr(text, "smtp-source: 1 session, new connection per message, 1 connection, size"));
    free(text);
    opts_init(&o, 2);
    st.counts.attempted = st.counts.delivered = st.counts.connections = 2;
    text = report(&o);
    ck_assert_ptr_nonnull(strstr(text, "smtp-source: 2 messages delivered"));
    ck_assert_ptr_nonnull(
        strstr(text, "smtp-source: 2 sessions, new connection per message, 2 connections,"));
    free(text);
}
END_TEST

/* A failed connection says why, as the C library words it. */
START_TEST(test_connect_reason)
{
    struct source_options o;
    char *text, want[256];

    opts_init(&o, 1);
    source_report_init(&st);
    st.start_ns = S;
    st.end_ns = 2 * S;
    st.counts.attempted = st.counts.failed = st.failures[FAIL_CONNECT] = 5;
    for (int i = 0; i < 5; i++)
        source_report_connect_error(&st, ECONNREFUSED);
    text = report(&o);
    snprintf(want, sizeof(want), "failures: connect=5 (%s)\n", strerror(ECONNREFUSED));
    ck_assert_ptr_nonnull(strstr(text, want));
    free(text);

    /* several reasons: each with its count, the most frequent first; unknown (0, out of range) too
     */
    source_report_connect_error(&st, ENETUNREACH);
    source_report_connect_error(&st, 0);
    source_report_connect_error(&st, SOURCE_MAX_ERRNO + 7);
    st.failures[FAIL_CONNECT] = st.counts.failed = 8;
    text = report(&o);
    snprintf(want, sizeof(want), "failures: connect=8 (5 %s, 2 unknown, 1 %s)\n",
             strerror(ECONNREFUSED), strerror(ENETUNREACH));
    ck_assert_msg(strstr(text, want) != NULL, "%s not in %s", want, text);
    free(text);
}
END_TEST

int main(void)
{
    const TTest *const tests[] = {test_window_closed,         test_window_offered,
                                  test_text_rate_over_window, test_plurals,
                                  test_connect_reason,        NULL};

    return check_run_tests("source_report", tests);
}
