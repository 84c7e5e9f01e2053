/*
 * Unit tests: smtp_txn, a client's mail transaction as its replies come back.
 */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "smtp_reply.h"
#include "smtp_txn.h"
#include "check_main.h"

START_TEST(test_pipelined_group)
{
    struct smtp_txn t;

    smtp_txn_begin(&t, 3, 1, 0);
    ck_assert_uint_eq(smtp_txn_group_size(&t), 5);
    ck_assert_int_eq(smtp_txn_reply(&t, 250), SMTP_TXN_WAIT);
    ck_assert_int_eq(t.step, SMTP_STEP_RCPT);
    ck_assert_int_eq(smtp_txn_reply(&t, 250), SMTP_TXN_WAIT);
    ck_assert_int_eq(smtp_txn_reply(&t, 550), SMTP_TXN_WAIT);
    ck_assert_int_eq(t.step, SMTP_STEP_RCPT);
    ck_assert_int_eq(smtp_txn_reply(&t, 251), SMTP_TXN_WAIT);
    ck_assert_int_eq(t.step, SMTP_STEP_DATA);
    ck_assert_uint_eq(t.rcpt_replies, 3);
    ck_assert_uint_eq(t.accepted, 2);
    ck_assert_int_eq(smtp_txn_reply(&t, 354), SMTP_TXN_SEND_TEXT);
    ck_assert_int_eq(t.step, SMTP_STEP_TEXT);
    smtp_txn_text_sent(&t);
    ck_assert_int_eq(t.step, SMTP_STEP_DOT);
    ck_assert_int_eq(smtp_txn_reply(&t, 250), SMTP_TXN_DONE);
}
END_TEST

START_TEST(test_one_at_a_time)
{
    struct smtp_txn t;

    smtp_txn_begin(&t, 2, 0, 0);
    ck_assert_uint_eq(smtp_txn_group_size(&t), 1);
    ck_assert_int_eq(smtp_txn_reply(&t, 250), SMTP_TXN_SEND_RCPT);
    ck_assert_uint_eq(t.rcpt_replies, 0); /* the first RCPT */
    ck_assert_int_eq(smtp_txn_reply(&t, 450), SMTP_TXN_SEND_RCPT);
    ck_assert_uint_eq(t.rcpt_replies, 1);
    ck_assert_int_eq(smtp_txn_reply(&t, 250), SMTP_TXN_SEND_DATA);
    ck_assert_int_eq(t.step, SMTP_STEP_DATA);
    ck_assert_int_eq(smtp_txn_reply(&t, 451), SMTP_TXN_FAILED);
}
END_TEST

/* Without PIPELINING a refused MAIL or no recipient ends the transaction at once. */
START_TEST(test_refusals_one_at_a_time)
{
    struct smtp_txn t;

    smtp_txn_begin(&t, 2, 0, 0);
    ck_assert_int_eq(smtp_txn_reply(&t, 550), SMTP_TXN_FAILED);
    ck_assert_int_eq(t.mail_refused, 1);
    smtp_txn_begin(&t, 2, 0, 0);
    ck_assert_int_eq(smtp_txn_reply(&t, 250), SMTP_TXN_SEND_RCPT);
    ck_assert_int_eq(smtp_txn_reply(&t, 550), SMTP_TXN_SEND_RCPT);
    ck_assert_int_eq(smtp_txn_reply(&t, 550), SMTP_TXN_FAILED);
    ck_assert_uint_eq(t.accepted, 0);
}
END_TEST

/* A pipelined group is answered to its end; a refused MAIL makes a RCPT's 250 count for nothing. */
START_TEST(test_refusals_pipelined)
{
    struct smtp_txn t;

    smtp_txn_begin(&t, 1, 1, 0);
    ck_assert_int_eq(smtp_txn_reply(&t, 550), SMTP_TXN_WAIT);
    ck_assert_int_eq(smtp_txn_reply(&t, 250), SMTP_TXN_WAIT);
    ck_assert_uint_eq(t.accepted, 0);
    ck_assert_int_eq(smtp_txn_reply(&t, 354), SMTP_TXN_EMPTY_354);
    smtp_txn_begin(&t, 1, 1, 0);
    ck_assert_int_eq(smtp_txn_reply(&t, 250), SMTP_TXN_WAIT);
    ck_assert_int_eq(smtp_txn_reply(&t, 550), SMTP_TXN_WAIT);
    ck_assert_int_eq(smtp_txn_reply(&t, 554), SMTP_TXN_FAILED);
}
END_TEST

/*
 * A pipelined transaction of n recipients (LMTP's if lmtp) answered up to its 354: 250 to MAIL,
 * rcpt[i] to RCPT number i.
 */
static void to_354(struct smtp_txn *t, unsigned n, int lmtp, const int *rcpt)
{
    smtp_txn_begin(t, n, 1, lmtp);
    ck_assert_int_eq(smtp_txn_reply(t, 250), SMTP_TXN_WAIT);
    for (unsigned i = 0; i < n; i++)
        ck_assert_int_eq(smtp_txn_reply(t, rcpt[i]), SMTP_TXN_WAIT);
    ck_assert_int_eq(smtp_txn_reply(t, 354), SMTP_TXN_SEND_TEXT);
}

START_TEST(test_lmtp_dot_replies)
{
    struct smtp_txn t;

    to_354(&t, 3, 1, (const int[]){250, 550, 250});
    smtp_txn_text_sent(&t);
    ck_assert_uint_eq(t.dot_replies, 2);
    ck_assert_int_eq(smtp_txn_reply(&t, 250), SMTP_TXN_WAIT);
    ck_assert_int_eq(smtp_txn_reply(&t, 452), SMTP_TXN_DONE);
    /* SMTP: one reply to the dot, however many recipients */
    to_354(&t, 2, 0, (const int[]){250, 250});
    smtp_txn_text_sent(&t);
    ck_assert_int_eq(smtp_txn_reply(&t, 250), SMTP_TXN_DONE);
}
END_TEST

/* A reply while the text goes out, or outside a transaction, is owed to nothing here. */
START_TEST(test_reply_out_of_step)
{
    struct smtp_txn t;

    to_354(&t, 1, 0, (const int[]){250});
    ck_assert_int_eq(smtp_txn_reply(&t, 250), SMTP_TXN_FAILED);
    t.step = SMTP_STEP_IDLE;
    ck_assert_int_eq(smtp_txn_reply(&t, 250), SMTP_TXN_FAILED);
}
END_TEST

START_TEST(test_step_names)
{
    ck_assert_str_eq(smtp_txn_step_name(SMTP_STEP_MAIL), "MAIL FROM");
    ck_assert_str_eq(smtp_txn_step_name(SMTP_STEP_DOT), "end of data");
    ck_assert_str_eq(smtp_txn_step_name(SMTP_STEP_HANDSHAKE), "TLS handshake");
    for (int i = 0; i < SMTP_STEP_COUNT; i++)
        ck_assert_ptr_nonnull(smtp_txn_step_name((enum smtp_step)i));
    ck_assert_str_eq(smtp_txn_step_name(SMTP_STEP_COUNT), "?");
}
END_TEST

/* The opening: greeting, EHLO, STARTTLS, as TLS is wanted. */
START_TEST(test_opening)
{
    enum { T = SMTP_EXT_STARTTLS | SMTP_EXT_PIPELINING, P = SMTP_EXT_PIPELINING };
    static const struct {
        enum smtp_step step;
        int code;
        unsigned ext;
        enum smtp_tls_want tls;
        int in_tls;
        enum smtp_open_next want;
    } cases[] = {
        /* any 2xx greets and answers EHLO; anything else refuses */
        {SMTP_STEP_GREETING, 220, 0, SMTP_TLS_NONE, 0, SMTP_OPEN_SEND_EHLO},
        {SMTP_STEP_GREETING, 554, 0, SMTP_TLS_NONE, 0, SMTP_OPEN_REFUSED},
        {SMTP_STEP_GREETING, 421, 0, SMTP_TLS_MAY, 0, SMTP_OPEN_REFUSED},
        {SMTP_STEP_EHLO, 250, T, SMTP_TLS_NONE, 0, SMTP_OPEN_READY},
        {SMTP_STEP_EHLO, 502, 0, SMTP_TLS_NONE, 0, SMTP_OPEN_REFUSED},
        {SMTP_STEP_EHLO, 421, T, SMTP_TLS_MAY, 0, SMTP_OPEN_REFUSED},
        /* STARTTLS when offered and wanted, and not again inside TLS */
        {SMTP_STEP_EHLO, 250, T, SMTP_TLS_MAY, 0, SMTP_OPEN_SEND_STARTTLS},
        {SMTP_STEP_EHLO, 250, T, SMTP_TLS_MUST, 0, SMTP_OPEN_SEND_STARTTLS},
        {SMTP_STEP_EHLO, 250, T, SMTP_TLS_MUST, 1, SMTP_OPEN_READY},
        {SMTP_STEP_EHLO, 250, P, SMTP_TLS_MUST, 1, SMTP_OPEN_READY},
        /* not offered: on in plain text when it may, the end when it must */
        {SMTP_STEP_EHLO, 250, P, SMTP_TLS_MAY, 0, SMTP_OPEN_READY},
        {SMTP_STEP_EHLO, 250, P, SMTP_TLS_MUST, 0, SMTP_OPEN_NO_TLS},
        /* HELO's reply, as EHLO's, offers nothing: not STARTTLS either */
        {SMTP_STEP_HELO, 250, 0, SMTP_TLS_NONE, 0, SMTP_OPEN_READY},
        {SMTP_STEP_HELO, 550, 0, SMTP_TLS_NONE, 0, SMTP_OPEN_REFUSED},
        {SMTP_STEP_HELO, 250, T, SMTP_TLS_MAY, 0, SMTP_OPEN_READY},
        {SMTP_STEP_HELO, 250, T, SMTP_TLS_MUST, 0, SMTP_OPEN_NO_TLS},
        /* STARTTLS needs its 220; a refusal is the end only when TLS is a must */
        {SMTP_STEP_STARTTLS, 220, 0, SMTP_TLS_MAY, 0, SMTP_OPEN_START_TLS},
        {SMTP_STEP_STARTTLS, 250, 0, SMTP_TLS_MUST, 0, SMTP_OPEN_REFUSED},
        {SMTP_STEP_STARTTLS, 454, 0, SMTP_TLS_MAY, 0, SMTP_OPEN_READY},
        {SMTP_STEP_STARTTLS, 454, 0, SMTP_TLS_MUST, 0, SMTP_OPEN_REFUSED},
        /* a step that is not the opening's */
        {SMTP_STEP_MAIL, 250, 0, SMTP_TLS_NONE, 0, SMTP_OPEN_REFUSED},
        {SMTP_STEP_IDLE, 220, 0, SMTP_TLS_NONE, 0, SMTP_OPEN_REFUSED},
    };

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        ck_assert_msg(smtp_txn_opening(cases[i].step, cases[i].code, cases[i].ext, cases[i].tls,
                                       cases[i].in_tls) == cases[i].want,
                      "case %zu: %s %d", i, smtp_txn_step_name(cases[i].step), cases[i].code);
}
END_TEST

int main(void)
{
    const TTest *const tests[] = {
        test_pipelined_group,    test_one_at_a_time,    test_refusals_one_at_a_time,
        test_refusals_pipelined, test_lmtp_dot_replies, test_reply_out_of_step,
        test_step_names,         test_opening,          NULL,
    };

    return check_run_tests("smtp_txn", tests);
}
