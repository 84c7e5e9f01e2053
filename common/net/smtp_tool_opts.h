/*
 * smtp_tool_opts - the options smtp-source and smtp-sink share: Postfix's
 * -4, -6, -L, -T and -v (the same letters in both of Postfix's tools), and
 * spoolsim's --seed, --json, --msg-log, --no-summary, --quiet (refused: it
 * means "no progress" in spoolsim's programs) and --version, each with one
 * meaning, one bound and one check.
 *
 * A tool puts SMTP_TOOL_OPTS_LONG_OPTIONS in its getopt_long() table (and
 * the letters in its option string, where they sit among its own), calls
 * smtp_tool_opts_init(), and hands every option code its own switch does
 * not know to smtp_tool_opts_parse(), which returns 0 for a code that is
 * not one of these. A bad value ends the program as optarg.h does
 * (msg_usage(), exit status 2, naming the option); --version prints and
 * exits 0. --help stays the tool's own: its text is.
 */
#ifndef SPOOLSIM_SMTP_TOOL_OPTS_H
#define SPOOLSIM_SMTP_TOOL_OPTS_H

#include <getopt.h>
#include <stdint.h>
#include <stdio.h>

#include "optarg.h"

/* Option codes above any program's own (theirs start at 256), below smtp_server_opts'. */
enum {
    SMTP_TOOL_OPT_SEED = 0x3000,
    SMTP_TOOL_OPT_JSON,
    SMTP_TOOL_OPT_MSG_LOG,
    SMTP_TOOL_OPT_NO_SUMMARY,
    SMTP_TOOL_OPT_QUIET,
    SMTP_TOOL_OPT_VERSION,
};

#define SMTP_TOOL_OPTS_LONG_OPTIONS                                                                \
    {"seed", required_argument, NULL, SMTP_TOOL_OPT_SEED},                                         \
        {"json", required_argument, NULL, SMTP_TOOL_OPT_JSON},                                     \
        {"msg-log", required_argument, NULL, SMTP_TOOL_OPT_MSG_LOG},                               \
        {"no-summary", no_argument, NULL, SMTP_TOOL_OPT_NO_SUMMARY},                               \
        {"quiet", no_argument, NULL, SMTP_TOOL_OPT_QUIET},                                         \
    {                                                                                              \
        "version", no_argument, NULL, SMTP_TOOL_OPT_VERSION                                        \
    }

struct smtp_tool_opts {
    const char *program;     /* "smtp-sink": what --version says */
    const char *quiet_usage; /* what the refusal of --quiet says */
    int family;              /* AF_UNSPEC, AF_INET (-4), AF_INET6 (-6) */
    int lmtp;                /* -L */
    int tcp_window;          /* -T: socket buffer size; 0 = system default */
    int verbose;             /* -v, once or more */
    uint64_t seed;           /* --seed (1) */
    const char *json_file;   /* --json FILE, checked writable; "-" = stdout */
    const char *msg_log;     /* --msg-log FILE, checked writable; "-" = stdout */
    int no_summary;          /* --no-summary */
};

/* --quiet, always refused (quiet_usage says why): out of --list-options (optarg.h). */
extern const struct optarg_old smtp_tool_opts_old[];

/* The defaults; program and quiet_usage are kept as given. */
void smtp_tool_opts_init(struct smtp_tool_opts *o, const char *program, const char *quiet_usage);

/* Handle option `code' with argument `arg': 1 if it is one of these, else 0. */
int smtp_tool_opts_parse(struct smtp_tool_opts *o, int code, const char *arg);

/*
 * The --msg-log stream, opened with fopen() `mode' ("a" or "w"; "-" is
 * standard output), or NULL without --msg-log. One that cannot be opened
 * ends the program (msg_fatal()).
 */
FILE *smtp_tool_opts_msg_log(const struct smtp_tool_opts *o, const char *mode);

/*
 * End the --msg-log stream fp (NULL: none): flushed, and closed unless it
 * is standard output. Every write to it is checked here at once, through
 * the stream's error flag, which a failed write sets and nothing clears:
 * a buffer that a full disk refused is lost whole, and the lines around it
 * are spliced, so that a reader would count messages lost that were not.
 * 0, or -1 when any write failed, said with a warning: the log cannot be
 * used to check delivery.
 */
int smtp_tool_opts_msg_log_close(const struct smtp_tool_opts *o, FILE *fp);

#endif
