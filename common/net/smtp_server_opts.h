/*
 * smtp_server_opts - the options every SMTP server here takes (smtp-sink
 * and spoolsim relay): the limits put on a client, the bare-LF policy and
 * STARTTLS, each with one name, one bound and one --help wording.
 *
 * A server puts SMTP_SERVER_OPTS_LONG_OPTIONS in its getopt_long() table,
 * calls smtp_server_opts_init() (Postfix's defaults), may change a default
 * (smtp-sink announces no SIZE unless asked), and hands every option code
 * its own switch does not know to smtp_server_opts_parse(), which returns
 * 0 for a code that is not one of these, and calls smtp_server_opts_end()
 * after the last option. A bad value ends the program as
 * optarg.h does (msg_usage(), exit status 2, naming the option). --help
 * prints the defaults from the values, so a changed default is said.
 */
#ifndef SPOOLSIM_SMTP_SERVER_OPTS_H
#define SPOOLSIM_SMTP_SERVER_OPTS_H

#include <getopt.h>
#include <stdint.h>
#include <stdio.h>

#include "smtp_data.h"

/* Option codes above any program's own (theirs start at 256). */
enum {
    SMTP_SERVER_OPT_MAX_SIZE = 0x4000,
    SMTP_SERVER_OPT_MAX_RCPT,
    SMTP_SERVER_OPT_ERROR_LIMIT,
    SMTP_SERVER_OPT_JUNK_LIMIT,
    SMTP_SERVER_OPT_MIN_DATA_RATE,
    SMTP_SERVER_OPT_BARE_LF,
    SMTP_SERVER_OPT_TLS,
    SMTP_SERVER_OPT_TLS_CERT,
    SMTP_SERVER_OPT_TLS_KEY,
};

#define SMTP_SERVER_OPTS_LONG_OPTIONS                                                              \
    {"max-size", required_argument, NULL, SMTP_SERVER_OPT_MAX_SIZE},                               \
        {"max-rcpt", required_argument, NULL, SMTP_SERVER_OPT_MAX_RCPT},                           \
        {"error-limit", required_argument, NULL, SMTP_SERVER_OPT_ERROR_LIMIT},                     \
        {"junk-limit", required_argument, NULL, SMTP_SERVER_OPT_JUNK_LIMIT},                       \
        {"min-data-rate", required_argument, NULL, SMTP_SERVER_OPT_MIN_DATA_RATE},                 \
        {"bare-lf", required_argument, NULL, SMTP_SERVER_OPT_BARE_LF},                             \
        {"tls", no_argument, NULL, SMTP_SERVER_OPT_TLS},                                           \
        {"tls-cert", required_argument, NULL, SMTP_SERVER_OPT_TLS_CERT},                           \
    {                                                                                              \
        "tls-key", required_argument, NULL, SMTP_SERVER_OPT_TLS_KEY                                \
    }

/* The bounds, for the programs that pass these options on (bench). */
#define SMTP_SERVER_MAX_RCPT_MAX 100000
#define SMTP_SERVER_ERROR_LIMIT_MAX 100000
#define SMTP_SERVER_JUNK_LIMIT_MAX 1000000
#define SMTP_SERVER_MIN_DATA_RATE_MAX (1u << 30)

struct smtp_server_opts {
    uint64_t max_size;    /* bytes, announced with SIZE; 0: no limit, no SIZE */
    unsigned max_rcpt;    /* recipients per transaction, then 452 */
    unsigned error_limit; /* protocol errors in a session, then 421 and close */
    unsigned junk_limit;  /* commands that achieve nothing, then each is an error (smtp_junk.h) */
    double min_data_rate; /* bytes/s owed in DATA after the idle timeout; 0: none */
    enum smtp_bare_lf_policy bare_lf;
    int tls;              /* offer STARTTLS */
    const char *tls_cert; /* PEM chain; NULL: a self-signed one made in memory */
    const char *tls_key;  /* PEM key; NULL: in tls_cert */
};

/*
 * Postfix's defaults: message_size_limit, smtpd_recipient_limit,
 * smtpd_hard_error_limit, smtpd_junk_command_limit.
 */
void smtp_server_opts_init(struct smtp_server_opts *o);

/* Handle option `code' with argument `arg': 1 if it is one of these, else 0. */
int smtp_server_opts_parse(struct smtp_server_opts *o, int code, const char *arg);

/* The checks that need the whole command line (--tls-key without --tls-cert). */
void smtp_server_opts_end(const struct smtp_server_opts *o);

/*
 * The --help lines, labels in a column `width' wide (optgroup_help_line());
 * `timeout' names the program's idle timeout option in --min-data-rate's.
 */
void smtp_server_opts_help(FILE *fp, const struct smtp_server_opts *o, const char *timeout,
                           int width);

#endif
