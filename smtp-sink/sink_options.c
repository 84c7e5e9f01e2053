/*
 * sink_options - smtp-sink's command line; see sink_options.h.
 */
#include "config.h"

#include <ctype.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include "msg.h"
#include "optarg.h"
#include "sink_options.h"
#include "workload.h"
#include "xalloc.h"

static const char *const cmd_names[SINK_CMD_COUNT] = {
    "CONNECT", "HELO", "EHLO", "LHLO", "MAIL", "RCPT",     "VRFY",
    "DATA",    ".",    "RSET", "NOOP", "QUIT", "STARTTLS",
};

const char *sink_options_cmd_name(enum sink_cmd cmd)
{
    return cmd_names[cmd];
}

static int cmd_lookup(const char *name, size_t len)
{
    for (int i = 0; i < SINK_CMD_COUNT; i++)
        if (strlen(cmd_names[i]) == len && strncasecmp(cmd_names[i], name, len) == 0)
            return i;
    return -1;
}

static void usage(FILE *fp, const struct sink_options *opts)
{
    fprintf(fp,
            "Usage: smtp-sink [options] [inet:][host]:port backlog\n"
            "       smtp-sink [options] unix:pathname backlog\n"
            "\n"
            "An SMTP/LMTP test server: accepts mail and throws it away (or dumps it),\n"
            "counts it, and injects faults. Options follow Postfix's smtp-sink.\n"
            "\n"
            "  -4, -6          IPv4 / IPv6 only\n"
            "  -8              do not announce 8BITMIME\n"
            "  -a              do not announce SASL AUTH\n"
            "  -A delay        wait delay seconds after the DATA reply, then 550 and close\n"
            "  -b reply        soft reject reply (default \"450 4.3.0 Error: command failed\")\n"
            "  -B reply        hard reject reply (default \"500 5.3.0 Error: command failed\")\n"
            "  -c              display running counters\n"
            "  -C              do not announce XCLIENT\n"
            "  -d template     dump each message to strftime(template) + random hex\n"
            "  -D file         append each message to file\n"
            "  -e              do not announce ESMTP (EHLO is refused)\n"
            "  -E              do not announce ENHANCEDSTATUSCODES\n"
            "  -f cmd,...      hard-reject these commands (implies -p)\n"
            "  -F              do not announce XFORWARD\n"
            "  -h hostname     name in the greeting and HELO/EHLO replies\n"
            "  -H delay        delay the first read after DATA\n"
            "  -L              speak LMTP\n"
            "  -m count        at most count concurrent connections (256)\n"
            "  -M count        exit after count messages\n"
            "  -n count        exit after count sessions\n"
            "  -N              do not announce DSN\n"
            "  -p              do not announce PIPELINING\n"
            "  -P              PIX-style greeting (implies -e)\n"
            "  -q cmd,...      disconnect silently after these commands\n"
            "  -Q cmd,...      reply 421 and disconnect after these commands\n"
            "  -r cmd,...      soft-reject these commands (implies -p)\n"
            "  -R dir          chroot to dir after opening the socket\n"
            "  -s cmd,...      log these commands to stderr\n"
            "  -S string       prefix for each dumped message (C escapes allowed)\n"
            "  -t timeout      command read / reply write timeout, seconds (100)\n"
            "  -T window       TCP receive window (SO_RCVBUF)\n"
            "  -u user         drop privileges to user after opening the socket\n"
            "  -v              verbose: log the protocol to stderr\n"
            "  -w delay        wait delay seconds before the DATA reply\n"
            "  -W cmd:delay[:odds]  delay the reply to cmd; with odds, a random multiple\n"
            "Commands in lists: CONNECT HELO EHLO LHLO MAIL RCPT VRFY DATA . RSET NOOP QUIT\n"
            "STARTTLS, separated by commas or spaces, case-insensitive.\n"
            "\n"
            "spoolsim extensions:\n");
    smtp_server_opts_help(fp, &opts->server, "-t seconds", 21);
    fprintf(fp, "  --greet-delay TIME    wait TIME before the greeting; a client that talks\n"
                "                        first gets 554 and is dropped (as postscreen)\n"
                "  --fault CMD:CODE[:PERCENT][@AFTER]\n"
                "                        reply CODE to PERCENT %% (default 100) of CMD, once\n"
                "                        AFTER messages were accepted; 421 also closes.\n"
                "                        Example: --fault rcpt:450:10 --fault connect:421@1000\n"
                "  --seed N              seed for random faults and delays\n"
                "  --threads N           N event loops (1 to 256), the connections dealt\n"
                "                        among them in turn; one report (1)\n"
                "  --no-yield            each loop waits for events at once, without first\n"
                "                        yielding its CPU (sched_yield) to what else is runnable\n"
                "  --msg-log FILE        one line per message: id, size, checksum, recipients,\n"
                "                        Message-ID, sender, client (\"-\" for standard output)\n"
                "  --json FILE           final statistics as JSON (\"-\" for standard output)\n"
                "  --port-file FILE      write the bound TCP port to FILE (useful with port 0)\n"
                "  --no-summary          no summary at exit (--quiet is no longer accepted)\n"
                "  --help, --version     (-h alone is --help: with a value it is Postfix's -h)\n"
                "\n"
                "A time in seconds (-A, -t, -w) or a TIME may be written 2, 0.5, 500ms, 10s or\n"
                "2m.\n");
}

/* Mark every command named in a list like "rcpt,.,data" for option `opt'. */
static void parse_cmd_list(const char *list, char opt, struct sink_options *opts)
{
    const char *p = list;

    while (*p) {
        size_t len = strcspn(p, ", \t");
        int cmd;

        if (len == 0) {
            p++;
            continue;
        }
        if ((cmd = cmd_lookup(p, len)) < 0)
            msg_usage("-%c: unknown command \"%.*s\"", opt, (int)len, p);
        switch (opt) {
        case 'f':
            opts->cmd[cmd].hard_reject = 1;
            opts->no_pipelining = 1;
            break;
        case 'r':
            opts->cmd[cmd].soft_reject = 1;
            opts->no_pipelining = 1;
            break;
        case 'q':
            opts->cmd[cmd].drop = 1;
            break;
        case 'Q':
            opts->cmd[cmd].drop_421 = 1;
            break;
        case 's':
            opts->cmd[cmd].log = 1;
            break;
        }
        p += len;
    }
}

/* -W cmd:delay[:odds] */
static void parse_cmd_delay(const char *arg, struct sink_options *opts)
{
    char *copy = xstrdup(arg);
    char *colon = strchr(copy, ':');
    char *odds;
    int cmd;

    if (colon == NULL)
        msg_usage("-W: expected command:delay[:odds], got \"%s\"", arg);
    *colon++ = 0;
    if ((cmd = cmd_lookup(copy, strlen(copy))) < 0)
        msg_usage("-W: unknown command \"%s\"", copy);
    if ((odds = strchr(colon, ':')) != NULL) {
        *odds++ = 0;
        opts->cmd[cmd].odds = (int)optarg_count(odds, "-W odds", 1, 99);
    }
    opts->cmd[cmd].delay = optarg_seconds_in(colon, "-W", 0, OPTARG_DELAY_MAX);
    free(copy);
}

/* --fault CMD:CODE[:PERCENT][@AFTER] */
static void parse_fault(const char *arg, struct sink_options *opts)
{
    char *copy = xstrdup(arg);
    char *at = strchr(copy, '@');
    char *code_text, *pct_text;
    struct sink_fault fault = {0, 100.0, 0};
    int cmd;

    if (at) {
        *at++ = 0;
        fault.after = optarg_count(at, "--fault @AFTER", 0, UINT64_MAX / 2);
    }
    if ((code_text = strchr(copy, ':')) == NULL)
        msg_usage("--fault: expected CMD:CODE[:PERCENT][@AFTER], got \"%s\"", arg);
    *code_text++ = 0;
    if ((cmd = cmd_lookup(copy, strlen(copy))) < 0)
        msg_usage("--fault: unknown command \"%s\"", copy);
    if ((pct_text = strchr(code_text, ':')) != NULL) {
        char *end;

        *pct_text++ = 0;
        if (*pct_text && pct_text[strlen(pct_text) - 1] == '%')
            pct_text[strlen(pct_text) - 1] = 0;
        fault.percent = strtod(pct_text, &end);
        if (*pct_text == 0 || *end != 0 || !(fault.percent > 0 && fault.percent <= 100))
            msg_usage("--fault: percentage \"%s\" is not in (0, 100]", pct_text);
    }
    fault.code = (int)optarg_count(code_text, "--fault CODE", 400, 599);
    if (cmd == SINK_CMD_CONNECT && fault.code / 100 != 4 && fault.code / 100 != 5)
        msg_usage("--fault: bad code for CONNECT");
    opts->cmd[cmd].fault = fault;
    free(copy);
}

/* Expand the C escapes Postfix's -S accepts: \a \b \f \n \r \t \v \ddd \\. */
static char *expand_escapes(const char *in)
{
    static const char letters[] = "abfnrtv\\", chars[] = "\a\b\f\n\r\t\v\\";
    char *out = xmalloc(strlen(in) + 1);
    char *op = out;
    const char *letter;

    while (*in) {
        if (*in != '\\' || in[1] == 0) {
            *op++ = *in++;
        } else if ((letter = strchr(letters, in[1])) != NULL) {
            *op++ = chars[letter - letters];
            in += 2;
        } else if (in[1] >= '0' && in[1] <= '7') {
            int value = 0;

            in++;
            for (int n = 0; n < 3 && *in >= '0' && *in <= '7'; n++)
                value = value * 8 + (*in++ - '0');
            *op++ = (char)value;
        } else {
            *op++ = *in++; /* not an escape: the backslash stays */
        }
    }
    *op = 0;
    return out;
}

enum {
    OPT_GREET_DELAY = 256,
    OPT_FAULT,
    OPT_THREADS,
    OPT_NO_YIELD,
    OPT_PORT_FILE,
    OPT_HELP,
};

static const struct option long_options[] = {
    SMTP_SERVER_OPTS_LONG_OPTIONS,
    SMTP_TOOL_OPTS_LONG_OPTIONS,
    {"greet-delay", required_argument, NULL, OPT_GREET_DELAY},
    {"fault", required_argument, NULL, OPT_FAULT},
    {"threads", required_argument, NULL, OPT_THREADS},
    {"no-yield", no_argument, NULL, OPT_NO_YIELD},
    {"port-file", required_argument, NULL, OPT_PORT_FILE},
    {"help", no_argument, NULL, OPT_HELP},
    {NULL, 0, NULL, 0},
};

void sink_options_parse(int argc, char **argv, struct sink_options *opts)
{
    const struct optarg_store stored[] = {
        {'8', .flag = &opts->no_8bitmime},
        {'a', .flag = &opts->no_auth},
        {'c', .flag = &opts->counters},
        {'C', .flag = &opts->no_xclient},
        {'d', .text = &opts->dump_template},
        {'D', .text = &opts->dump_file},
        {'e', .flag = &opts->no_esmtp},
        {'E', .flag = &opts->no_enhanced},
        {'F', .flag = &opts->no_xforward},
        {'N', .flag = &opts->no_dsn},
        {'p', .flag = &opts->no_pipelining},
        {'R', .text = &opts->chroot_dir, .dir = "-R"},
        {'u', .text = &opts->user},
        {OPT_PORT_FILE, .text = &opts->port_file},
        {0},
    };
    int ch;

    memset(opts, 0, sizeof(*opts));
    /* It meant "no summary" here and "no progress" in spoolsim: refused, not redefined. */
    smtp_tool_opts_init(&opts->tool, "smtp-sink",
                        "--quiet: say --no-summary (--quiet means \"no progress\" in spoolsim's "
                        "programs, and smtp-sink prints none)");
    opts->hostname = "smtp-sink";
    opts->soft_reply = "450 4.3.0 Error: command failed";
    opts->hard_reply = "500 5.3.0 Error: command failed";
    opts->abort_delay = -1;
    opts->max_conns = 256;
    opts->timeout = 100;
    smtp_server_opts_init(&opts->server);
    opts->server.max_size = 0; /* Postfix's smtp-sink announces no SIZE */
    opts->threads = 1;

    /*
     * Postfix's -h takes a host name, so "-h" alone, which no Postfix
     * command line can be (it also needs an address and a backlog), is
     * the help every spoolsim program gives for -h.
     */
    if (argc == 2 && strcmp(argv[1], "-h") == 0) {
        usage(stdout, opts);
        exit(0);
    }
    while ((ch = optarg_getopt_old(argc, argv,
                                   "468aA:b:B:cCd:D:eEf:Fh:H:Lm:M:n:NpPq:Q:r:R:s:S:t:T:u:vw:W:",
                                   long_options, smtp_tool_opts_old)) != -1) {
        if (optarg_store(stored, ch, optarg))
            continue;
        switch (ch) {
        case 'A':
            opts->abort_delay = optarg_seconds_in(optarg, "-A", 0, OPTARG_DELAY_MAX);
            break;
        case 'b':
        case 'B':
            if (!isdigit((unsigned char)optarg[0]) || atoi(optarg) / 100 != (ch == 'b' ? 4 : 5))
                msg_usage("-%c: reply must start with a %cxx code", ch, ch == 'b' ? '4' : '5');
            if (ch == 'b')
                opts->soft_reply = optarg;
            else
                opts->hard_reply = optarg;
            break;
        case 'f':
        case 'q':
        case 'Q':
        case 'r':
        case 's':
            parse_cmd_list(optarg, (char)ch, opts);
            break;
        case 'h':
            opts->hostname = optarg_hostname(optarg, "-h");
            break;
        case 'H':
            opts->read_delay = optarg_seconds_in(optarg, "-H", 0, OPTARG_DELAY_MAX);
            break;
        case 'm':
            opts->max_conns = (unsigned)optarg_count(optarg, "-m", 1, 1000000);
            break;
        case 'M':
            opts->max_messages = optarg_count(optarg, "-M", 1, UINT64_MAX / 2);
            break;
        case 'n':
            opts->max_sessions = optarg_count(optarg, "-n", 1, UINT64_MAX / 2);
            break;
        case 'P':
            opts->pix_banner = opts->no_esmtp = 1;
            break;
        case 'S':
            opts->dump_start = expand_escapes(optarg);
            break;
        case 't':
            opts->timeout = optarg_seconds_in(optarg, "-t", OPTARG_TIMEOUT_MIN, OPTARG_LONG_MAX);
            break;
        case 'w':
            opts->data_delay = optarg_seconds_in(optarg, "-w", 0, OPTARG_DELAY_MAX);
            break;
        case 'W':
            parse_cmd_delay(optarg, opts);
            break;
        case OPT_GREET_DELAY:
            opts->greet_delay = optarg_seconds_in(optarg, "--greet-delay", 0, OPTARG_DELAY_MAX);
            break;
        case OPT_FAULT:
            parse_fault(optarg, opts);
            break;
        case OPT_THREADS:
            opts->threads = (unsigned)optarg_count(optarg, "--threads", 1, SINK_THREADS_MAX);
            break;
        case OPT_NO_YIELD:
            opts->no_yield = 1;
            break;
        case OPT_HELP:
            usage(stdout, opts);
            exit(0);
        default:
            if (!smtp_tool_opts_parse(&opts->tool, ch, optarg) &&
                !smtp_server_opts_parse(&opts->server, ch, optarg))
                msg_panic("option %d not handled", ch);
        }
    }
    smtp_server_opts_end(&opts->server);
    if (argc - optind != 2)
        msg_usage("expected [inet:][host]:port backlog, or unix:path backlog");
    opts->listen_spec = argv[optind];
    opts->backlog = (int)optarg_count(argv[optind + 1], "backlog", 1, INT_MAX);
}
