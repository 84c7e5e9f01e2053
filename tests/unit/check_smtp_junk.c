/*
 * check_smtp_junk - commands that achieve nothing: which verbs are junk,
 * how many pass before each one more is an error, a RCPT past the
 * recipient limit, an accepted message forgiving them, and no limit at 0.
 */
#include "config.h"

#include <check.h>

#include "check_main.h"
#include "smtp_junk.h"

START_TEST(test_verbs)
{
    static const enum smtp_verb junk[] = {SMTP_VERB_HELO, SMTP_VERB_EHLO, SMTP_VERB_LHLO,
                                          SMTP_VERB_RSET, SMTP_VERB_NOOP, SMTP_VERB_VRFY,
                                          SMTP_VERB_HELP};
    static const enum smtp_verb useful[] = {SMTP_VERB_MAIL, SMTP_VERB_RCPT,     SMTP_VERB_DATA,
                                            SMTP_VERB_QUIT, SMTP_VERB_STARTTLS, SMTP_VERB_UNKNOWN};

    for (size_t i = 0; i < sizeof(junk) / sizeof(junk[0]); i++)
        ck_assert_msg(smtp_junk_verb(junk[i]), "%s", smtp_cmd_verb_name(junk[i]));
    for (size_t i = 0; i < sizeof(useful) / sizeof(useful[0]); i++)
        ck_assert_msg(!smtp_junk_verb(useful[i]), "%s", smtp_cmd_verb_name(useful[i]));
}
END_TEST

/* Commands in turn, against a limit: whether each one is an error. */
struct step {
    enum smtp_verb verb;
    int over_rcpt_limit;
    int error;
};

static void run_steps(unsigned limit, const struct step *steps, size_t n)
{
    struct smtp_junk j;

    smtp_junk_init(&j, limit);
    for (size_t i = 0; i < n; i++)
        ck_assert_msg(smtp_junk_command(&j, steps[i].verb, steps[i].over_rcpt_limit) ==
                          steps[i].error,
                      "step %zu (%s)", i, smtp_cmd_verb_name(steps[i].verb));
}

/* The first `limit' pass, every one after them is an error; other verbs are not counted. */
START_TEST(test_limit)
{
    static const struct step steps[] = {
        {SMTP_VERB_EHLO, 0, 0}, {SMTP_VERB_NOOP, 0, 0}, {SMTP_VERB_MAIL, 0, 0},
        {SMTP_VERB_RSET, 0, 0}, {SMTP_VERB_NOOP, 0, 1}, {SMTP_VERB_HELP, 0, 1},
        {SMTP_VERB_VRFY, 0, 1}, {SMTP_VERB_MAIL, 0, 0}, {SMTP_VERB_NOOP, 0, 1},
    };

    run_steps(3, steps, sizeof(steps) / sizeof(steps[0]));
}
END_TEST

/* A RCPT counts only past the recipient limit; the flag means nothing for another verb. */
START_TEST(test_rcpt_over_limit)
{
    static const struct step steps[] = {
        {SMTP_VERB_RCPT, 0, 0}, {SMTP_VERB_RCPT, 0, 0}, {SMTP_VERB_MAIL, 1, 0},
        {SMTP_VERB_MAIL, 1, 0}, {SMTP_VERB_RCPT, 1, 0}, {SMTP_VERB_RCPT, 1, 1},
    };

    run_steps(1, steps, sizeof(steps) / sizeof(steps[0]));
}
END_TEST

/* An accepted message starts the count again, as in Postfix. */
START_TEST(test_accepted_forgives)
{
    struct smtp_junk j;

    smtp_junk_init(&j, 2);
    ck_assert_int_eq(smtp_junk_count(&j), 0);
    ck_assert_int_eq(smtp_junk_count(&j), 0);
    ck_assert_int_eq(smtp_junk_count(&j), 1);
    smtp_junk_accepted(&j);
    ck_assert_int_eq(smtp_junk_count(&j), 0);
    ck_assert_int_eq(smtp_junk_count(&j), 0);
    ck_assert_int_eq(smtp_junk_count(&j), 1);
}
END_TEST

/* 0: no limit, however many; and a long flood never wraps the count back under the limit. */
START_TEST(test_no_limit_and_no_wrap)
{
    struct smtp_junk j;

    smtp_junk_init(&j, 0);
    for (int i = 0; i < 100000; i++)
        ck_assert_int_eq(smtp_junk_command(&j, SMTP_VERB_NOOP, 0), 0);
    smtp_junk_init(&j, 1);
    j.count = ~0u;
    ck_assert_int_eq(smtp_junk_count(&j), 1);
    ck_assert_int_eq(smtp_junk_count(&j), 1);
}
END_TEST

int main(void)
{
    const TTest *const tests[] = {test_verbs,
                                  test_limit,
                                  test_rcpt_over_limit,
                                  test_accepted_forgives,
                                  test_no_limit_and_no_wrap,
                                  NULL};

    return check_run_tests("smtp_junk", tests);
}
