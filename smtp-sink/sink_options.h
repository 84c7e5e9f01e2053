/*
 * sink_options - smtp-sink's command line: Postfix's options and ours.
 *
 * sink_options_parse() fills a struct sink_options from argv. It does no
 * I/O beyond diagnostics: a bad option or value ends the program through
 * msg_usage() (exit status 2) with a message that names the problem.
 *
 * Per-command behaviour (-f, -r, -q, -Q, -s, -W and --fault) is kept as
 * a table indexed by sink_cmd, the command names Postfix's smtp-sink
 * accepts in its lists plus STARTTLS.
 */
#ifndef SPOOLSIM_SINK_OPTIONS_H
#define SPOOLSIM_SINK_OPTIONS_H

#define SINK_THREADS_MAX 256

#include <stdint.h>

#include "smtp_server_opts.h"
#include "smtp_tool_opts.h"

enum sink_cmd {
    SINK_CMD_CONNECT,
    SINK_CMD_HELO,
    SINK_CMD_EHLO,
    SINK_CMD_LHLO,
    SINK_CMD_MAIL,
    SINK_CMD_RCPT,
    SINK_CMD_VRFY,
    SINK_CMD_DATA,
    SINK_CMD_DOT, /* the end of DATA, "." in Postfix's lists */
    SINK_CMD_RSET,
    SINK_CMD_NOOP,
    SINK_CMD_QUIT,
    SINK_CMD_STARTTLS,
    SINK_CMD_COUNT
};

/* A programmable fault: `percent' of the commands get `code'. */
struct sink_fault {
    int code;       /* 0: none */
    double percent; /* 0 < percent <= 100 */
    uint64_t after; /* only once this many messages were accepted */
};

struct sink_cmd_policy {
    int hard_reject; /* -f */
    int soft_reject; /* -r */
    int drop;        /* -q */
    int drop_421;    /* -Q */
    int log;         /* -s */
    double delay;    /* -W seconds */
    int odds;        /* -W odds, 0 for a fixed delay */
    struct sink_fault fault;
};

struct sink_options {
    struct smtp_tool_opts tool; /* -4 -6 -L -T -v, --seed --json --msg-log --no-summary */
    const char *listen_spec;
    int backlog;

    /* What the EHLO reply announces. */
    int no_8bitmime, no_auth, no_esmtp, no_enhanced, no_xclient, no_xforward, no_dsn, no_pipelining,
        pix_banner;
    const char *hostname;

    const char *soft_reply; /* -b */
    const char *hard_reply; /* -B */
    double abort_delay;     /* -A; < 0 when unset */
    double data_delay;      /* -w */
    double read_delay;      /* -H */
    struct sink_cmd_policy cmd[SINK_CMD_COUNT];

    int counters;              /* -c */
    const char *dump_template; /* -d */
    const char *dump_file;     /* -D */
    char *dump_start;          /* -S, C escapes expanded */
    unsigned max_conns;        /* -m */
    uint64_t max_messages;     /* -M, 0 = no limit */
    uint64_t max_sessions;     /* -n, 0 = no limit */
    const char *chroot_dir;    /* -R */
    double timeout;            /* -t */
    const char *user;          /* -u */

    /* spoolsim extensions */
    struct smtp_server_opts server; /* limits, --bare-lf, STARTTLS (max_size 0: none) */
    double greet_delay;             /* wait before the greeting; who talks first is refused */
    const char *port_file;          /* write the bound port here */
    unsigned threads;               /* --threads: event loops the connections are dealt among */
    int no_yield;                   /* --no-yield: the loops wait without yielding first */
};

void sink_options_parse(int argc, char **argv, struct sink_options *opts);
const char *sink_options_cmd_name(enum sink_cmd cmd);

#endif
