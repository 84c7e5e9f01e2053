/*
 * check_optarg - the host-name test behind optarg_hostname(): what goes
 * into a greeting, an EHLO reply or a Received: header as it is; a
 * duration's bounds as a usage error words them; a choice from a list
 * of names; a table of options that are only stored. (A usage error
 * ends the process: a refused value is tested here by its exit status
 * 2; the commands' wording, by tests/it/it_errors.sh.)
 */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check_main.h"
#include "optarg.h"

START_TEST(test_domain_names)
{
    static const char *const good[] = {
        "localhost", "spoolsim.localdomain",  "mx-1.example.com",  "a",
        "1a",        "xn--bcher-kva.example", "host_name.example", /* the underscore, as Postfix
                                                                      allows */
        "192.0.2.1",                                               /* digits alone are labels too */
    };

    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
        ck_assert_msg(optarg_is_hostname(good[i]), "%s refused", good[i]);
}
END_TEST

START_TEST(test_not_domain_names)
{
    static const char *const bad[] = {
        "",
        "a b",
        "x\r\ny",
        "x\ny",
        "x\ty",
        "a..b",
        ".a",
        "a.",
        "-a",
        "a-",
        "a.-b.c",
        "a-.b",
        "a:b",
        "a@b",
        "<a>",
        "a/b",
        "h\xc3\xa9.example",
        "[a]",
        "[]",
        "[1.2.3]",
        "[300.1.1.1]",
        "[IPv6:1.2.3.4]",
        "[192.0.2.1",
        "192.0.2.1]",
        "[192.0.2.1]x",
    };

    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        ck_assert_msg(!optarg_is_hostname(bad[i]), "\"%s\" taken", bad[i]);
}
END_TEST

START_TEST(test_lengths)
{
    char name[300];

    memset(name, 'a', 63);
    name[63] = 0;
    ck_assert(optarg_is_hostname(name)); /* a label of 63 */
    name[63] = 'a';
    name[64] = 0;
    ck_assert(!optarg_is_hostname(name)); /* of 64 */
    /* 253 in all: four labels of 63 and dots, less two */
    memset(name, 'a', 253);
    for (int i = 63; i < 253; i += 64)
        name[i] = '.';
    name[253] = 0;
    ck_assert(optarg_is_hostname(name));
    name[253] = 'a';
    name[254] = 0;
    ck_assert(!optarg_is_hostname(name));
}
END_TEST

START_TEST(test_address_literals)
{
    ck_assert(optarg_is_hostname("[192.0.2.1]"));
    ck_assert(optarg_is_hostname("[IPv6:2001:db8::1]"));
    ck_assert(optarg_is_hostname("[ipv6:::1]"));
    ck_assert(!optarg_is_hostname("[2001:db8::1]")); /* RFC 5321 wants the tag */
}
END_TEST

START_TEST(test_seconds_text)
{
    static const struct {
        double s;
        const char *text;
    } cases[] = {{0, "0"},     {0.01, "10ms"}, {0.1, "100ms"}, {1, "1s"},     {1.5, "1500ms"},
                 {60, "1m"},   {90, "90s"},    {3600, "1h"},   {86400, "1d"}, {30 * 86400.0, "30d"},
                 {2e-6, "2us"}};
    char buf[32];

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        optarg_seconds_text(cases[i].s, buf, sizeof(buf));
        ck_assert_str_eq(buf, cases[i].text);
    }
}
END_TEST

START_TEST(test_store)
{
    int counters = 0, reuse = 0;
    const char *dir = NULL;
    const struct optarg_store stored[] = {
        {'c', .flag = &counters},
        {300, .text = &dir},
        {'d', .flag = &reuse},
        {0},
    };

    ck_assert_int_eq(optarg_store(stored, 'c', NULL), 1);
    ck_assert_int_eq(optarg_store(stored, 300, "/var/spool"), 1);
    ck_assert_int_eq(optarg_store(stored, 'x', "ignored"), 0);
    ck_assert_int_eq(optarg_store(stored, 0, "ignored"), 0);
    ck_assert_int_eq(counters, 1);
    ck_assert_str_eq(dir, "/var/spool");
    ck_assert_int_eq(reuse, 0);
}
END_TEST

static const char *const tls_names[] = {"none", "may", "encrypt", NULL};

START_TEST(test_choice)
{
    ck_assert_uint_eq(optarg_choice("none", "--hop-tls", tls_names), 0);
    ck_assert_uint_eq(optarg_choice("may", "--hop-tls", tls_names), 1);
    ck_assert_uint_eq(optarg_choice("encrypt", "--hop-tls", tls_names), 2);
}
END_TEST

START_TEST(test_choice_refused)
{
    optarg_choice("Encrypt", "--hop-tls", tls_names);
}
END_TEST

START_TEST(test_choice_empty_refused)
{
    optarg_choice("", "--hop-tls", tls_names);
}
END_TEST

START_TEST(test_seconds_positive)
{
    ck_assert_double_eq(optarg_seconds_positive("250ms", "--slo", 3600), 0.25);
    ck_assert_double_eq(optarg_seconds_positive("1h", "--slo", 3600), 3600);
}
END_TEST

START_TEST(test_seconds_zero_refused)
{
    optarg_seconds_positive("0", "--slo", 3600);
}
END_TEST

START_TEST(test_round_trip)
{
    ck_assert_double_eq(optarg_round_trip("0", "--hop-delay"), 0);
    ck_assert_double_eq(optarg_round_trip("1m", "--hop-delay"), 60);
}
END_TEST

START_TEST(test_round_trip_refused)
{
    optarg_round_trip("61s", "--hop-delay");
}
END_TEST

/* A work directory: one that is, or one mkdir can make (may_make); nothing is made. */
START_TEST(test_work_dir)
{
    char dir[] = "/tmp/check_optarg.XXXXXX", sub[64];
    struct stat st;

    ck_assert_ptr_nonnull(mkdtemp(dir));
    optarg_work_dir(dir, "--spool", 0);
    snprintf(sub, sizeof(sub), "%s/", dir);
    optarg_work_dir(sub, "--spool", 0);
    snprintf(sub, sizeof(sub), "%s/new", dir);
    optarg_work_dir(sub, "--spool", 1);
    snprintf(sub, sizeof(sub), "%s/new/", dir);
    optarg_work_dir(sub, "--spool", 1);
    ck_assert_int_ne(stat(sub, &st), 0);
    optarg_work_dir(".", "--spool", 0);
    optarg_work_dir("new-spoolsim-check", "--spool", 1);
    ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

/* A file, a path under one, a directory missing or whose parent is, an empty name. */
static const struct {
    const char *path;
    int may_make;
} work_dir_refused[] = {
    {"/etc/passwd", 1},
    {"/etc/passwd/spool", 1},
    {"/nonexistent-spoolsim-check", 0},
    {"/nonexistent-spoolsim-check/spool", 1},
    {"", 1},
};

START_TEST(test_work_dir_refused)
{
    optarg_work_dir(work_dir_refused[_i].path, "--spool", work_dir_refused[_i].may_make);
}
END_TEST

int main(void)
{
    const TTest *const tests[] = {
        test_domain_names, test_not_domain_names, test_lengths, test_address_literals,
        test_seconds_text, test_choice,           test_store,   test_seconds_positive,
        test_round_trip,   test_work_dir,         NULL};
    const TTest *const refused[] = {test_choice_refused, test_choice_empty_refused,
                                    test_seconds_zero_refused, test_round_trip_refused};
    Suite *suite = suite_create("optarg");
    TCase *tc = check_add_tcase(suite, "optarg", tests);

    for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
        tcase_add_exit_test(tc, refused[i], 2); /* msg_usage() */
    tcase_add_loop_exit_test(tc, test_work_dir_refused, 2, 0,
                             (int)(sizeof(work_dir_refused) / sizeof(work_dir_refused[0])));
    return check_run_suite(suite);
}
