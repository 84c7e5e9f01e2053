/*
 * check_smtp_server_opts - the options both SMTP servers take: Postfix's
 * defaults, each option's value, one bound each (a value past it is a
 * usage error, exit status 2), --tls-key without --tls-cert, and the
 * --help lines saying the values given.
 */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "check_memfile.h"
#include "smtp_server_opts.h"

START_TEST(test_defaults)
{
    struct smtp_server_opts o;

    smtp_server_opts_init(&o);
    ck_assert_uint_eq(o.max_size, 10240000); /* message_size_limit */
    ck_assert_uint_eq(o.max_rcpt, 1000);     /* smtpd_recipient_limit */
    ck_assert_uint_eq(o.error_limit, 20);    /* smtpd_hard_error_limit */
    ck_assert_uint_eq(o.junk_limit, 100);    /* smtpd_junk_command_limit */
    ck_assert_double_eq(o.min_data_rate, 0);
    ck_assert_int_eq(o.bare_lf, SMTP_BARE_LF_NORMALIZE);
    ck_assert_int_eq(o.tls, 0);
    ck_assert_ptr_null(o.tls_cert);
    ck_assert_ptr_null(o.tls_key);
}
END_TEST

START_TEST(test_values)
{
    struct smtp_server_opts o;

    smtp_server_opts_init(&o);
    ck_assert_int_eq(smtp_server_opts_parse(&o, SMTP_SERVER_OPT_MAX_SIZE, "64k"), 1);
    ck_assert_uint_eq(o.max_size, 65536);
    ck_assert_int_eq(smtp_server_opts_parse(&o, SMTP_SERVER_OPT_MAX_RCPT, "100000"), 1);
    ck_assert_uint_eq(o.max_rcpt, SMTP_SERVER_MAX_RCPT_MAX);
    ck_assert_int_eq(smtp_server_opts_parse(&o, SMTP_SERVER_OPT_ERROR_LIMIT, "5"), 1);
    ck_assert_uint_eq(o.error_limit, 5);
    ck_assert_int_eq(smtp_server_opts_parse(&o, SMTP_SERVER_OPT_JUNK_LIMIT, "0"), 1);
    ck_assert_uint_eq(o.junk_limit, 0); /* no limit */
    ck_assert_int_eq(smtp_server_opts_parse(&o, SMTP_SERVER_OPT_JUNK_LIMIT, "1000000"), 1);
    ck_assert_uint_eq(o.junk_limit, SMTP_SERVER_JUNK_LIMIT_MAX);
    ck_assert_int_eq(smtp_server_opts_parse(&o, SMTP_SERVER_OPT_MIN_DATA_RATE, "1024"), 1);
    ck_assert_double_eq(o.min_data_rate, 1024);
    ck_assert_int_eq(smtp_server_opts_parse(&o, SMTP_SERVER_OPT_BARE_LF, "strict"), 1);
    ck_assert_int_eq(o.bare_lf, SMTP_BARE_LF_STRICT);
    ck_assert_int_eq(smtp_server_opts_parse(&o, SMTP_SERVER_OPT_TLS_CERT, "c.pem"), 1);
    ck_assert_int_eq(o.tls, 1); /* a certificate means STARTTLS */
    ck_assert_int_eq(smtp_server_opts_parse(&o, SMTP_SERVER_OPT_TLS_KEY, "k.pem"), 1);
    ck_assert_str_eq(o.tls_key, "k.pem");
    smtp_server_opts_end(&o);
    /* Not one of these: left to the program. */
    ck_assert_int_eq(smtp_server_opts_parse(&o, 256, "x"), 0);
    ck_assert_int_eq(smtp_server_opts_parse(&o, 'v', NULL), 0);
}
END_TEST

/* Each of these ends the process with a usage error. */
static const struct {
    int code;
    const char *arg;
} bad[] = {
    {SMTP_SERVER_OPT_MAX_RCPT, "100001"},    {SMTP_SERVER_OPT_MAX_RCPT, "0"},
    {SMTP_SERVER_OPT_ERROR_LIMIT, "100001"}, {SMTP_SERVER_OPT_ERROR_LIMIT, "0"},
    {SMTP_SERVER_OPT_MAX_SIZE, "0"},         {SMTP_SERVER_OPT_MAX_SIZE, "2g"},
    {SMTP_SERVER_OPT_MIN_DATA_RATE, "0"},    {SMTP_SERVER_OPT_BARE_LF, "loose"},
    {SMTP_SERVER_OPT_JUNK_LIMIT, "1000001"}, {SMTP_SERVER_OPT_JUNK_LIMIT, "-1"},
};

START_TEST(test_bounds)
{
    struct smtp_server_opts o;

    smtp_server_opts_init(&o);
    smtp_server_opts_parse(&o, bad[_i].code, bad[_i].arg);
    ck_abort_msg("option %d \"%s\" was accepted", bad[_i].code, bad[_i].arg);
}
END_TEST

START_TEST(test_key_without_cert)
{
    struct smtp_server_opts o;

    smtp_server_opts_init(&o);
    smtp_server_opts_parse(&o, SMTP_SERVER_OPT_TLS_KEY, "k.pem");
    smtp_server_opts_end(&o);
    ck_abort_msg("--tls-key without --tls-cert was accepted");
}
END_TEST

/* The text with each run of blanks and newlines made one space: the wrapping aside. */
static void squash(char *text)
{
    char *out = text;

    for (const char *in = text; *in; in++) {
        if (*in == ' ' || *in == '\n') {
            if (out > text && out[-1] == ' ')
                continue;
            *out++ = ' ';
        } else
            *out++ = *in;
    }
    *out = 0;
}

/* --help says the values it was given, and every option. */
START_TEST(test_help)
{
    struct smtp_server_opts o;
    struct check_memfile m;
    FILE *fp = check_memfile_open(&m);
    char *text;

    smtp_server_opts_init(&o);
    smtp_server_opts_parse(&o, SMTP_SERVER_OPT_MAX_RCPT, "7");
    smtp_server_opts_help(fp, &o, "--timeout", 23);
    o.max_size = 0;
    smtp_server_opts_help(fp, &o, "-t seconds", 21);
    text = check_memfile_text(&m);
    ck_assert_ptr_nonnull(strstr(text, "\n  --tls-key FILE          private key"));
    squash(text);
    ck_assert_ptr_nonnull(strstr(text, "then 452 (7; at most 100000)"));
    ck_assert_ptr_nonnull(strstr(text, "gets 552 (10240000; at most 1024m)"));
    ck_assert_ptr_nonnull(strstr(text, "default: none, no SIZE"));
    ck_assert_ptr_nonnull(strstr(text, "gets --timeout plus"));
    ck_assert_ptr_nonnull(strstr(text, "gets -t seconds plus"));
    ck_assert_ptr_nonnull(strstr(text, "each one more is a protocol error (100; 0: no limit;"));
    free(text);
}
END_TEST

int main(void)
{
    const TTest *const core[] = {test_defaults, test_values, test_help, NULL};
    Suite *s = suite_create("smtp_server_opts");
    TCase *tc;

    tc = check_add_tcase(s, "core", core);
    tcase_add_loop_exit_test(tc, test_bounds, 2, 0, (int)(sizeof(bad) / sizeof(bad[0])));
    tcase_add_exit_test(tc, test_key_without_cert, 2);
    return check_run_suite(s);
}
