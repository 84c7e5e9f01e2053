/*
 * Unit tests: smtp_cmd (command parser) and smtp_seq (RFC 5321 sequencing).
 */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "smtp_cmd.h"
#include "smtp_seq.h"
#include "check_main.h"

static const struct parse_case {
    const char *line;
    int want_status;
    enum smtp_verb want_verb;
    const char *want_path; /* NULL: not checked */
} parse_cases[] = {
    {"HELO client.example", 0, SMTP_VERB_HELO, NULL},
    {"ehlo client.example", 0, SMTP_VERB_EHLO, NULL},
    {"LHLO x", 0, SMTP_VERB_LHLO, NULL},
    {"EHLO", 501, SMTP_VERB_EHLO, NULL},
    {"MAIL FROM:<a@b.example>", 0, SMTP_VERB_MAIL, "a@b.example"},
    {"mail from:<a@b.example>", 0, SMTP_VERB_MAIL, "a@b.example"},
    {"MAIL FROM: <a@b.example>", 0, SMTP_VERB_MAIL, "a@b.example"},
    {"MAIL FROM:<>", 0, SMTP_VERB_MAIL, ""},
    {"MAIL FROM:a@b.example", 501, SMTP_VERB_MAIL, NULL},
    {"MAIL TO:<a@b>", 501, SMTP_VERB_MAIL, NULL},
    {"MAIL FROM:<a@b", 501, SMTP_VERB_MAIL, NULL},
    {"MAIL FROM:<a@b>SIZE=10", 501, SMTP_VERB_MAIL, NULL},
    {"MAIL FROM:<a@b> SIZE=10 BODY=8BITMIME", 0, SMTP_VERB_MAIL, "a@b"},
    {"MAIL FROM:<a@b> SIZE=ten", 501, SMTP_VERB_MAIL, NULL},
    {"MAIL FROM:<a@b> BODY=9BIT", 501, SMTP_VERB_MAIL, NULL},
    {"MAIL FROM:<a@b> FROBNICATE=1", 555, SMTP_VERB_MAIL, NULL},
    {"MAIL FROM:<a@b> SMTPUTF8", 555, SMTP_VERB_MAIL, NULL}, /* not offered */
    {"RCPT TO:<c@d.example>", 0, SMTP_VERB_RCPT, "c@d.example"},
    {"RCPT TO:<c@d> NOTIFY=NEVER", 0, SMTP_VERB_RCPT, "c@d"},
    {"RCPT TO:<c@d> SIZE=1", 555, SMTP_VERB_RCPT, NULL},
    {"RCPT TO:<>", 501, SMTP_VERB_RCPT, NULL},
    {"RCPT FROM:<c@d>", 501, SMTP_VERB_RCPT, NULL},
    {"DATA", 0, SMTP_VERB_DATA, NULL},
    {"DATA now", 501, SMTP_VERB_DATA, NULL},
    {"RSET", 0, SMTP_VERB_RSET, NULL},
    {"NOOP anything", 0, SMTP_VERB_NOOP, NULL},
    {"QUIT", 0, SMTP_VERB_QUIT, NULL},
    {"VRFY postmaster", 0, SMTP_VERB_VRFY, NULL},
    {"VRFY", 501, SMTP_VERB_VRFY, NULL},
    {"HELP", 0, SMTP_VERB_HELP, NULL},
    {"STARTTLS", 0, SMTP_VERB_STARTTLS, NULL},
    {"STARTTLS x", 501, SMTP_VERB_STARTTLS, NULL},
    {"EXPN list", 502, SMTP_VERB_UNKNOWN, NULL},
    {"", 502, SMTP_VERB_UNKNOWN, NULL},
    {"MAILFROM:<a@b>", 502, SMTP_VERB_UNKNOWN, NULL},
    /* the verb in any case, and only the whole word */
    {"StArTtLs", 0, SMTP_VERB_STARTTLS, NULL},
    {"dAtA", 0, SMTP_VERB_DATA, NULL},
    {"HEL client", 502, SMTP_VERB_UNKNOWN, NULL},
    {"HELOS client", 502, SMTP_VERB_UNKNOWN, NULL},
    {"STARTTLSX", 502, SMTP_VERB_UNKNOWN, NULL},
    {"STARTTL", 502, SMTP_VERB_UNKNOWN, NULL},
    {"D\xc1TA", 502, SMTP_VERB_UNKNOWN, NULL},
};

START_TEST(test_parse_table)
{
    const struct parse_case *tc = &parse_cases[_i];
    struct smtp_cmd cmd;
    int status = smtp_cmd_parse(tc->line, strlen(tc->line), 0, &cmd);

    ck_assert_msg(status == tc->want_status, "%s: got status %d, want %d", tc->line, status,
                  tc->want_status);
    if (status != 0) {
        ck_assert_ptr_nonnull(cmd.error);
        ck_assert_msg(atoi(cmd.error) == status, "%s: reply %s", tc->line, cmd.error);
    }
    if (tc->want_verb != SMTP_VERB_UNKNOWN || status == 502)
        ck_assert_msg(cmd.verb == tc->want_verb, "%s: got verb %d", tc->line, cmd.verb);
    if (tc->want_path) {
        ck_assert_uint_eq(cmd.path.len, strlen(tc->want_path));
        ck_assert(memcmp(cmd.path.ptr, tc->want_path, cmd.path.len) == 0);
    }
}
END_TEST

START_TEST(test_mail_parameters)
{
    struct smtp_cmd cmd;
    const char *line = "MAIL FROM:<s@x> BODY=8bitmime SIZE=123456";

    ck_assert_int_eq(smtp_cmd_parse(line, strlen(line), 0, &cmd), 0);
    ck_assert_int_eq(cmd.has_size, 1);
    ck_assert_uint_eq(cmd.size, 123456);
    ck_assert_int_eq(cmd.body, SMTP_BODY_8BITMIME);
}
END_TEST

START_TEST(test_nul_in_command)
{
    struct smtp_cmd cmd;

    ck_assert_int_eq(smtp_cmd_parse("HELO a\0b", 8, 0, &cmd), 501);
}
END_TEST

/* A bare CR in an address would end a command at a hop that splits lines at CR. */
START_TEST(test_control_characters)
{
    static const char *const bad[] = {
        "RCPT TO:<b\rRSET@x>", "MAIL FROM:<a@x> SIZE=1\r", "MAIL FROM:<a\033@x>",  "HELO a\rb",
        "RCPT TO:<b\x7f@x>",   "RCPT TO:<b@x\n>",          "RCPT TO:<\"b\\\r\"@x>"};
    struct smtp_cmd cmd;

    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        ck_assert_int_eq(smtp_cmd_parse(bad[i], strlen(bad[i]), 0, &cmd), 501);
        ck_assert_str_eq(cmd.error, "501 5.5.2 Syntax error: control character in command");
    }
    /* A tab is white space; 8-bit text is SMTPUTF8's business, not a control (address_cases). */
    const char *tab = "RCPT TO:<b@x>\tNOTIFY=NEVER";

    ck_assert_int_eq(smtp_cmd_parse(tab, strlen(tab), 0, &cmd), 0);
}
END_TEST

#define OFFER SMTP_CMD_OFFER_SMTPUTF8
#define DECLARED (SMTP_CMD_OFFER_SMTPUTF8 | SMTP_CMD_MAIL_SMTPUTF8)
#define NO_UTF8 "553 5.6.7 Error: 8-bit character in address, and SMTPUTF8 is not offered"
#define UNDECLARED "553 5.6.7 Must declare SMTPUTF8 to send unicode address"
#define BAD_SENDER "501 5.1.7 Bad sender address syntax"
#define BAD_RCPT "501 5.1.3 Bad recipient address syntax"
#define BAD_UTF8 "501 5.6.7 Error: malformed UTF-8 in address"

/*
 * Paths by RFC 5321 4.1.2 (a Quoted-string local part, qtextSMTP and
 * quoted-pairSMTP) and RFC 6531 (UTF-8 only in a transaction that
 * declared SMTPUTF8 to a server that offered it), under the flags a
 * server passes. A quoted path is kept as sent.
 */
static const struct address_case {
    const char *line;
    unsigned flags;
    int want_status;
    const char *want; /* the path on success, the reply on failure */
} address_cases[] = {
    {"MAIL FROM:<\"a b>c\"@b>", 0, 0, "\"a b>c\"@b"},
    {"MAIL FROM: <\"a b>c\"@b> SIZE=10", 0, 0, "\"a b>c\"@b"},
    {"RCPT TO:<\"a b>c\"@b> NOTIFY=NEVER", 0, 0, "\"a b>c\"@b"},
    {"RCPT TO:<\"<>\"@b>", 0, 0, "\"<>\"@b"},
    {"MAIL FROM:<\"a\\\"b\\\\c\"@b>", 0, 0, "\"a\\\"b\\\\c\"@b"}, /* "a\"b\\c"@b */
    {"MAIL FROM:<\"a\\>\"@b>", 0, 0, "\"a\\>\"@b"},               /* "a\>"@b */
    {"MAIL FROM:<\"\"@b>", 0, 0, "\"\"@b"},
    {"RCPT TO:<\"a\tb\"@b>", 0, 501, BAD_RCPT}, /* a tab is no qtextSMTP */
    {"MAIL FROM:<\"a>", 0, 501, BAD_SENDER},
    {"MAIL FROM:<\"a@b>", 0, 501, BAD_SENDER},
    {"RCPT TO:<\"a@b>", 0, 501, BAD_RCPT},
    {"RCPT TO:<a\"b@c>", 0, 501, BAD_RCPT},
    {"MAIL FROM:<\"a\\\"@b>", 0, 501, BAD_SENDER}, /* the quote is escaped: still open */
    {"MAIL FROM:<\"a\\", 0, 501, BAD_SENDER},
    {"RCPT TO:<\"a\"@b> \"x", 0, 555, NULL}, /* a quote after the path is a parameter's */
    {"MAIL FROM:<\"a b\"@b>SIZE=1", 0, 501, NULL},
    /* 8-bit: SMTPUTF8 is not offered */
    {"MAIL FROM:<\xc3\xa9@b>", 0, 553, NO_UTF8},
    {"RCPT TO:<b@\xc3\xa9.example>", 0, 553, NO_UTF8},
    {"RCPT TO:<\"\xc3\xa9\"@b>", 0, 553, NO_UTF8},
    {"RCPT TO:<\"\\\xe9\"@b>", 0, 553, NO_UTF8},
    {"RCPT TO:<\xff@b>", 0, 553, NO_UTF8},
    {"MAIL FROM:<a@b> SMTPUTF8", 0, 555, NULL},
    {"MAIL FROM:<\xc3\xa9@b> SMTPUTF8", 0, 555, NULL},
    {"MAIL FROM:<a@b> ENVID=\xc3\xa9", 0, 501, "501 5.5.4 Error: 8-bit character in parameter"},
    {"RCPT TO:<a@b> ORCPT=rfc822;\xc3\xa9@b", 0, 501, NULL},
    /* offered: MAIL declares it for itself, RCPT by the transaction's flag */
    {"MAIL FROM:<a@b> SMTPUTF8", OFFER, 0, "a@b"},
    {"MAIL FROM:<a@b> smtputf8 SIZE=5", OFFER, 0, "a@b"},
    {"MAIL FROM:<\xc3\xa9@b> SMTPUTF8", OFFER, 0, "\xc3\xa9@b"},
    {"MAIL FROM:<\"\xe2\x82\xac \xf0\x9f\x93\xa7\"@b> SMTPUTF8", OFFER, 0,
     "\"\xe2\x82\xac \xf0\x9f\x93\xa7\"@b"},
    {"MAIL FROM:<\xc3\xa9@b>", OFFER, 553, UNDECLARED},
    {"RCPT TO:<\xc3\xa9@b>", OFFER, 553, UNDECLARED},
    {"RCPT TO:<\xc3\xa9@b>", DECLARED, 0, "\xc3\xa9@b"},
    {"MAIL FROM:<a@b> ENVID=\xc3\xa9 SMTPUTF8", OFFER, 0, "a@b"},
    {"MAIL FROM:<\xc3(@b> SMTPUTF8", OFFER, 501, BAD_UTF8},
    {"MAIL FROM:<\xc3@b> SMTPUTF8", OFFER, 501, BAD_UTF8},
    {"RCPT TO:<\xc0\xaf@b>", DECLARED, 501, BAD_UTF8},         /* overlong '/' */
    {"RCPT TO:<\xed\xa0\x80@b>", DECLARED, 501, BAD_UTF8},     /* a surrogate */
    {"RCPT TO:<\xf4\x90\x80\x80@b>", DECLARED, 501, BAD_UTF8}, /* past U+10FFFF */
    {"RCPT TO:<\xff@b>", DECLARED, 501, BAD_UTF8},
    {"MAIL FROM:<a@b> SMTPUTF8=yes", OFFER, 501, "501 5.5.4 Bad SMTPUTF8 parameter"},
    {"RCPT TO:<a@b> SMTPUTF8", DECLARED, 555, NULL},
};

START_TEST(test_addresses)
{
    const struct address_case *tc = &address_cases[_i];
    struct smtp_cmd cmd;
    int status = smtp_cmd_parse(tc->line, strlen(tc->line), tc->flags, &cmd);

    ck_assert_msg(status == tc->want_status, "%s: got status %d (%s), want %d", tc->line, status,
                  cmd.error ? cmd.error : "", tc->want_status);
    if (status != 0) {
        ck_assert_msg(atoi(cmd.error) == status, "%s: reply %s", tc->line, cmd.error);
        if (tc->want)
            ck_assert_str_eq(cmd.error, tc->want);
        return;
    }
    ck_assert_msg(cmd.path.len == strlen(tc->want) &&
                      memcmp(cmd.path.ptr, tc->want, cmd.path.len) == 0,
                  "%s: path %.*s", tc->line, (int)cmd.path.len, cmd.path.ptr);
    /* The parameter is seen only where the server offered it. */
    ck_assert_int_eq(cmd.smtputf8,
                     strstr(tc->line, "SMTPUTF8") != NULL || strstr(tc->line, "smtputf8") != NULL);
    if (strstr(tc->line, "SIZE=") != NULL)
        ck_assert_int_eq(cmd.has_size, 1);
}
END_TEST

START_TEST(test_verb_lookup)
{
    ck_assert_int_eq(smtp_cmd_verb_lookup("rcpt", 4), SMTP_VERB_RCPT);
    ck_assert_int_eq(smtp_cmd_verb_lookup("RCP", 3), SMTP_VERB_UNKNOWN);
    ck_assert_int_eq(smtp_cmd_verb_lookup("starttls", 8), SMTP_VERB_STARTTLS);
    ck_assert_int_eq(smtp_cmd_verb_lookup("STARTTLSX", 9), SMTP_VERB_UNKNOWN);
    ck_assert_int_eq(smtp_cmd_verb_lookup("RCPTX", 4), SMTP_VERB_RCPT);
    ck_assert_int_eq(smtp_cmd_verb_lookup("", 0), SMTP_VERB_UNKNOWN);
    /*
     * A NUL in the verb ends no name early: these read past the table's
     * names once (the sanitizer build saw it; found by the fuzzer).
     */
    ck_assert_int_eq(smtp_cmd_verb_lookup("RCPT\0\0", 6), SMTP_VERB_UNKNOWN);
    ck_assert_int_eq(smtp_cmd_verb_lookup("QUIT\0\0\0\0", 8), SMTP_VERB_UNKNOWN);
    ck_assert_int_eq(smtp_cmd_verb_lookup("H\0", 2), SMTP_VERB_UNKNOWN);
    ck_assert_int_eq(smtp_cmd_verb_lookup("DATA\0", 4), SMTP_VERB_DATA);
    ck_assert_str_eq(smtp_cmd_verb_name(SMTP_VERB_STARTTLS), "STARTTLS");
}
END_TEST

START_TEST(test_sequencing)
{
    struct smtp_seq seq;

    smtp_seq_init(&seq);
    ck_assert_ptr_nonnull(smtp_seq_check(&seq, SMTP_VERB_RCPT));
    ck_assert_ptr_nonnull(smtp_seq_check(&seq, SMTP_VERB_DATA));
    /* MAIL without HELO is allowed before TLS, as in Postfix. */
    ck_assert_ptr_null(smtp_seq_check(&seq, SMTP_VERB_MAIL));
    smtp_seq_commit(&seq, SMTP_VERB_MAIL);
    ck_assert_str_eq(smtp_seq_check(&seq, SMTP_VERB_MAIL), "503 5.5.1 Error: nested MAIL command");
    ck_assert_str_eq(smtp_seq_check(&seq, SMTP_VERB_DATA), "503 5.5.1 Error: need RCPT command");
    ck_assert_ptr_nonnull(smtp_seq_check(&seq, SMTP_VERB_STARTTLS));
    ck_assert_ptr_null(smtp_seq_check(&seq, SMTP_VERB_RCPT));
    smtp_seq_commit(&seq, SMTP_VERB_RCPT);
    ck_assert_ptr_null(smtp_seq_check(&seq, SMTP_VERB_DATA));
    smtp_seq_end_transaction(&seq);
    ck_assert_ptr_nonnull(smtp_seq_check(&seq, SMTP_VERB_DATA));
    ck_assert_ptr_null(smtp_seq_check(&seq, SMTP_VERB_MAIL));
    smtp_seq_commit(&seq, SMTP_VERB_MAIL);
    smtp_seq_commit(&seq, SMTP_VERB_RSET);
    ck_assert_ptr_nonnull(smtp_seq_check(&seq, SMTP_VERB_RCPT));
}
END_TEST

START_TEST(test_tls_resets_session)
{
    struct smtp_seq seq;

    smtp_seq_init(&seq);
    smtp_seq_commit(&seq, SMTP_VERB_EHLO);
    ck_assert_ptr_null(smtp_seq_check(&seq, SMTP_VERB_STARTTLS));
    smtp_seq_tls_started(&seq);
    ck_assert_str_eq(smtp_seq_check(&seq, SMTP_VERB_MAIL), "503 5.5.1 Error: send HELO/EHLO first");
    ck_assert_ptr_nonnull(smtp_seq_check(&seq, SMTP_VERB_STARTTLS));
    smtp_seq_commit(&seq, SMTP_VERB_EHLO);
    ck_assert_ptr_null(smtp_seq_check(&seq, SMTP_VERB_MAIL));
}
END_TEST

int main(void)
{
    const TTest *const parse[] = {test_mail_parameters, test_nul_in_command,
                                  test_control_characters, test_verb_lookup, NULL};
    const TTest *const sequencing[] = {test_sequencing, test_tls_resets_session, NULL};
    Suite *s = suite_create("smtp_cmd");
    TCase *tc;

    tc = check_add_tcase(s, "parse", parse);
    tcase_add_loop_test(tc, test_parse_table, 0,
                        (int)(sizeof(parse_cases) / sizeof(parse_cases[0])));
    tcase_add_loop_test(tc, test_addresses, 0,
                        (int)(sizeof(address_cases) / sizeof(address_cases[0])));
    check_add_tcase(s, "sequencing", sequencing);
    return check_run_suite(s);
}
