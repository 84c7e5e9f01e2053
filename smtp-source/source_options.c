/*
 * source_options - smtp-source's command line; see source_options.h.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <openssl/evp.h>

#include "clock.h"
#include "fileutil.h"
#include "msg.h"
#include "optarg.h"
#include "optgroup.h"
#include "source_options.h"
#include "xalloc.h"

static void usage(FILE *fp)
{
    fprintf(fp, "Usage: smtp-source [options] [inet:]host[:port]\n"
                "       smtp-source [options] unix:pathname\n"
                "\n"
                "An SMTP/LMTP load generator. Options follow Postfix's smtp-source.\n"
                "\n"
                "  -4, -6          IPv4 / IPv6 only\n"
                "  -A              accepted for compatibility: failures never abort a run;\n"
                "                  they are counted by reply code\n"
                "  -c              display a running count of messages sent\n"
                "  -C count        retry a refused connection up to count times (1)\n"
                "  -d              keep the connection open for the next message\n"
                "  -f from         sender address (foo@myhostname)\n"
                "  -F file         send this pre-formatted message (dot-stuffed, CR LF added)\n"
                "  -l length       message body length in bytes (same as --size fixed:length;\n"
                "                  at most 1024m)\n"
                "  -L              speak LMTP\n"
                "  -m count        messages to send (1)\n"
                "  -M myhostname   HELO name and default address domain\n"
                "  -N              number each recipient address (1foo@..., 2foo@...)\n"
                "  -o              old mode: no HELO and no message headers\n"
                "  -r count        recipients per message (1)\n"
                "  -R interval     random wait of 0..interval seconds between messages\n"
                "  -s count        parallel sessions (1)\n"
                "  -S subject      Subject: header\n"
                "  -t to           recipient address (foo@myhostname)\n"
                "  -T windowsize   TCP window size (SO_SNDBUF/SO_RCVBUF)\n"
                "  -v              verbose: log the protocol to stderr\n"
                "  -w interval     fixed wait of interval seconds between messages\n"
                "\n"
                "spoolsim extensions:\n"
                "  --tls               STARTTLS before the first transaction (EHLO again after)\n"
                "  --pipelining        pipeline MAIL, RCPT and DATA when the server offers it\n"
                "  --skip-quit-reply   close after sending QUIT, without waiting for its reply\n"
                "                      (as Postfix's smtp client does by default)\n"
                "  --rate R            open loop: start R messages per second, whatever the\n"
                "                      server does; latency counts from the intended start\n"
                "  --arrivals KIND     fixed (default) or poisson spacing for --rate\n"
                "  --duration TIME     run for TIME (e.g. 30s, 2m) instead of -m messages\n"
                "  --size DIST         body size: N, fixed:N, uniform:LO:HI,\n"
                "                      lognormal:MEDIAN:SIGMA[:MAX] (k, m and g suffixes allowed;\n"
                "                      no size above 1024m)\n"
                "  --timeout TIME      wait at most TIME for each reply (60s)\n"
                "  --json FILE         summary as JSON (\"-\" for standard output)\n"
                "  --interval TIME     one timeline row every TIME, 10ms to 1h (1s)\n"
                "  --csv FILE          the timeline as CSV (\"-\" for standard output)\n"
                "  --msg-log FILE      one line per delivered message: id, size, checksum,\n"
                "                      recipients, Message-ID (\"-\" for standard output)\n"
                "  --seed N            seed for sizes, waits and arrivals (1)\n"
                "  --ignore-failures   exit 0 even when messages failed\n"
                "  --no-summary        no summary at the end (--quiet is no longer accepted)\n"
                "  --start-at WHEN     start at this wall-clock instant: RFC 3339\n"
                "                      (2026-12-01T12:00:00Z) or @UNIX-SECONDS, so that\n"
                "                      several hosts start together (their clocks in step)\n"
                "  --id NAME           this source's name in the JSON (\"id\"), for merging\n"
                "                      the results of several hosts (spoolsim merge)\n"
                "  --progress          a status line every second on standard error: in\n"
                "                      place on a terminal (the default there), else as\n"
                "                      plain lines \"progress: ...\"\n"
                "  --no-progress       no status line, even on a terminal\n"
                "  --threads N         N event loops (1 to 256, at most -s), each with its\n"
                "                      share of the sessions and messages; one report (1)\n"
                "  --workload FILE     sizes, recipients per message and an open-loop rate\n"
                "                      (the mean minute's) from a workload file that\n"
                "                      spoolsim workload --from-maillog wrote; not with\n"
                "                      -l, --size, -r, -F or --rate\n"
                "  --scale K           --workload: K times its rate, or its replay (1)\n"
                "  --peak              --workload: the busiest minute's rate, not the mean\n"
                "  --replay[=FACTOR]   --workload: follow its arrivals minute by minute,\n"
                "                      FACTOR times faster (1); the whole log unless -m\n"
                "                      or --duration\n"
                "  -h, --help, --version\n"
                "\n"
                "A time in seconds (-R, -w) or a TIME may be written 2, 0.5, 500ms, 10s or 2m.\n"
                "\n"
                "Exit status: 0 when every message was delivered, 1 when some failed or a\n"
                "result could not be written, 2 for usage errors, 3 when it could not run.\n");
}

enum {
    OPT_TLS = 256,
    OPT_PIPELINING,
    OPT_SKIP_QUIT_REPLY,
    OPT_RATE,
    OPT_ARRIVALS,
    OPT_DURATION,
    OPT_SIZE,
    OPT_TIMEOUT,
    OPT_IGNORE_FAILURES,
    OPT_START_AT,
    OPT_ID,
    OPT_PROGRESS,
    OPT_NO_PROGRESS,
    OPT_THREADS,
    OPT_HELP,
    OPT_WORKLOAD,
    OPT_SCALE,
    OPT_PEAK,
    OPT_REPLAY,
};

static const struct option long_options[] = {
    SMTP_TOOL_OPTS_LONG_OPTIONS,
    {"tls", no_argument, NULL, OPT_TLS},
    {"pipelining", no_argument, NULL, OPT_PIPELINING},
    {"skip-quit-reply", no_argument, NULL, OPT_SKIP_QUIT_REPLY},
    {"rate", required_argument, NULL, OPT_RATE},
    {"arrivals", required_argument, NULL, OPT_ARRIVALS},
    {"duration", required_argument, NULL, OPT_DURATION},
    {"size", required_argument, NULL, OPT_SIZE},
    {"timeout", required_argument, NULL, OPT_TIMEOUT},
    {"threads", required_argument, NULL, OPT_THREADS},
    {"ignore-failures", no_argument, NULL, OPT_IGNORE_FAILURES},
    {"start-at", required_argument, NULL, OPT_START_AT},
    {"id", required_argument, NULL, OPT_ID},
    {"progress", no_argument, NULL, OPT_PROGRESS},
    {"no-progress", no_argument, NULL, OPT_NO_PROGRESS},
    {"help", no_argument, NULL, OPT_HELP},
    {"workload", required_argument, NULL, OPT_WORKLOAD},
    {"scale", required_argument, NULL, OPT_SCALE},
    {"peak", no_argument, NULL, OPT_PEAK},
    {"replay", optional_argument, NULL, OPT_REPLAY},
    {NULL, 0, NULL, 0},
};

/*
 * --workload: the file read, checked and digested, and what it sets: the
 * sizes and recipients drawn from it, the open-loop rate (or the replay's
 * mean, and its length when no -m or --duration bounds it). A file that
 * cannot be read or is no workload, and the options it replaces, are
 * usage errors.
 */
static void source_options_workload(struct source_options *opts, int rcpts_given,
                                    int messages_given)
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned md_len = 0;
    char err[256];
    size_t len;
    char *text;

    if (opts->size_given || opts->message_file)
        msg_usage("--workload draws the sizes: not with -l, --size or -F");
    if (rcpts_given)
        msg_usage("--workload draws the recipients: not with -r");
    if (opts->rate > 0)
        msg_usage("--workload sets the rate: not with --rate (--scale K multiplies its rate)");
    if (opts->peak && opts->replay > 0)
        msg_usage("--peak and --replay cannot be combined (the busiest minute, or every minute)");
    if (opts->replay > 0 && opts->arrivals == ARRIVAL_POISSON)
        msg_usage("--replay spaces each minute's arrivals evenly: not with --arrivals poisson");
    text = fileutil_read_all(opts->workload_path, &len);
    if (!text)
        msg_usage("--workload %s: cannot read: %s", opts->workload_path, strerror(errno));
    opts->workload = xmalloc(sizeof(*opts->workload));
    if (workload_file_parse(text, opts->workload, err, sizeof(err)) != 0)
        msg_usage("--workload %s: %s", opts->workload_path, err);
    if (!EVP_Digest(text, len, md, &md_len, EVP_sha256(), NULL))
        msg_fatal("--workload %s: SHA-256 failed", opts->workload_path);
    for (unsigned i = 0; i < md_len && 2 * i + 2 < sizeof(opts->workload_sha256); i++)
        snprintf(opts->workload_sha256 + 2 * i, 3, "%02x", md[i]);
    free(text);
    if (opts->replay > 0) {
        uint64_t n = workload_file_replay_count(opts->workload, opts->scale);

        if (n == 0)
            msg_usage("--workload %s: no arrivals per minute to replay", opts->workload_path);
        opts->rate = (double)n / ((double)opts->workload->minutes * 60 / opts->replay);
        if (!messages_given && opts->duration == 0)
            opts->messages = n;
    } else
        opts->rate = workload_file_rate(opts->workload, opts->peak) * opts->scale;
    if (!(opts->rate > 0))
        msg_usage("--workload %s: its arrivals give no rate", opts->workload_path);
    if (opts->rate > 1e7) /* --rate's bound */
        msg_usage("--workload %s: %g messages a second with --scale %g, more than 10000000",
                  opts->workload_path, opts->rate, opts->scale);
}

void source_options_parse(int argc, char **argv, struct source_options *opts)
{
    const struct optarg_store stored[] = {
        {'c', .flag = &opts->count_display},
        {'d', .flag = &opts->reuse},
        {'F', .text = &opts->message_file},
        {'N', .flag = &opts->number_rcpts},
        {'o', .flag = &opts->old_mode},
        {OPT_TLS, .flag = &opts->tls},
        {OPT_PIPELINING, .flag = &opts->pipelining},
        {OPT_SKIP_QUIT_REPLY, .flag = &opts->skip_quit_reply},
        {OPT_IGNORE_FAILURES, .flag = &opts->ignore_failures},
        {0},
    };
    struct optgroup_values common;
    struct optgroup g;
    int ch, messages_given = 0, rcpts_given = 0, scale_given = 0;

    memset(opts, 0, sizeof(*opts));
    /* It meant "no summary" here and "no progress" in spoolsim: refused, not redefined. */
    smtp_tool_opts_init(&opts->tool, "smtp-source",
                        "--quiet: say --no-summary for no summary, --no-progress for no status "
                        "line (--quiet means \"no progress\" in spoolsim's programs)");
    opts->connect_retries = 1;
    opts->messages = 1;
    opts->progress = -1;
    opts->rcpts = 1;
    opts->sessions = 1;
    opts->timeout = 60;
    opts->threads = 1;
    opts->size.kind = SIZE_FIXED;
    opts->scale = 1;

    /*
     * Postfix's smtp-source has no -h: here it is --help, as in every spoolsim program.
     * Of optgroup's groups it takes the timeline's only: its letters are Postfix's (-d, -m,
     * -s, -r mean other things than in spoolsim), it refuses --quiet, which the progress
     * group goes with, and its --help is the text above (no usage callback).
     */
    optgroup_init(&g, &common, OPTGROUP_TIMELINE,
                  "46AcC:df:F:hl:Lm:M:Nor:R:s:S:t:T:vw:", long_options, "smtp-source", NULL);
    g.old = smtp_tool_opts_old;
    while ((ch = optgroup_getopt(&g, argc, argv)) != -1) {
        if (optarg_store(stored, ch, optarg))
            continue;
        switch (ch) {
        case 'A':
            break;
        case 'C':
            opts->connect_retries = (unsigned)optarg_count(optarg, "-C", 0, 1000);
            break;
        case 'f':
            opts->from = optarg_one_line(optarg, "-f");
            break;
        case 'l':
            opts->size.kind = SIZE_FIXED;
            opts->size.a = optarg_size(optarg, "-l", 0);
            opts->size_given = 1;
            break;
        case 'm':
            opts->messages = optarg_count(optarg, "-m", 1, UINT64_MAX / 2);
            messages_given = 1;
            break;
        case 'M':
            opts->helo_name = optarg_one_line(optarg, "-M");
            break;
        case 'r':
            opts->rcpts = (unsigned)optarg_count(optarg, "-r", 1, 100000);
            rcpts_given = 1;
            break;
        case 'R':
            opts->random_wait = optarg_seconds_in(optarg, "-R", 0, OPTARG_DELAY_MAX);
            break;
        case 's':
            opts->sessions = (unsigned)optarg_count(optarg, "-s", 1, 100000);
            break;
        case 'S':
            /* A CR or LF here would put a bare line end on the wire. */
            for (char *p = optarg; *p; p++)
                if (*p == '\r' || *p == '\n')
                    *p = ' ';
            opts->subject = optarg;
            break;
        case 't':
            opts->to = optarg_one_line(optarg, "-t");
            break;
        case 'w':
            opts->fixed_wait = optarg_seconds_in(optarg, "-w", 0, OPTARG_DELAY_MAX);
            break;
        case OPT_RATE:
            opts->rate = optarg_rate(optarg, "--rate");
            break;
        case OPT_ARRIVALS:
            if (strcmp(optarg, "fixed") == 0)
                opts->arrivals = ARRIVAL_FIXED;
            else if (strcmp(optarg, "poisson") == 0)
                opts->arrivals = ARRIVAL_POISSON;
            else
                msg_usage("--arrivals: expected fixed or poisson, got \"%s\"", optarg);
            break;
        case OPT_DURATION:
            opts->duration = optarg_seconds_positive(optarg, "--duration", OPTARG_LONG_MAX);
            break;
        case OPT_SIZE:
            optarg_size_dist(optarg, "--size", &opts->size);
            opts->size_given = 1;
            break;
        case OPT_TIMEOUT:
            opts->timeout =
                optarg_seconds_in(optarg, "--timeout", OPTARG_TIMEOUT_MIN, OPTARG_LONG_MAX);
            break;
        case OPT_START_AT:
            if (clock_parse_instant(optarg, &opts->start_at) != 0 || opts->start_at <= 0)
                msg_usage("--start-at: expected an RFC 3339 time with its zone "
                          "(2026-12-01T12:00:00Z) or @UNIX-SECONDS, got \"%s\"",
                          optarg);
            opts->start_at_text = optarg;
            break;
        case OPT_ID:
            if (optarg[0] == 0 || strlen(optarg) > 64)
                msg_usage("--id: expected a name of 1 to 64 characters, got \"%s\"", optarg);
            for (const char *p = optarg; *p; p++)
                if (iscntrl((unsigned char)*p))
                    msg_usage("--id: a control character is not allowed in a name");
            opts->id = optarg;
            break;
        case OPT_PROGRESS:
        case OPT_NO_PROGRESS:
            opts->progress = ch == OPT_PROGRESS;
            break;
        case OPT_THREADS:
            opts->threads = (unsigned)optarg_count(optarg, "--threads", 1, SOURCE_THREADS_MAX);
            break;
        case OPT_WORKLOAD:
            opts->workload_path = optarg;
            break;
        case OPT_SCALE:
            opts->scale = optarg_factor(optarg, "--scale");
            scale_given = 1;
            break;
        case OPT_PEAK:
            opts->peak = 1;
            break;
        case OPT_REPLAY:
            opts->replay = optarg ? optarg_factor(optarg, "--replay") : 1;
            break;
        case 'h':
        case OPT_HELP:
            usage(stdout);
            exit(0);
        default:
            if (!smtp_tool_opts_parse(&opts->tool, ch, optarg))
                msg_panic("option %d not handled", ch);
        }
    }
    opts->interval = common.interval;
    opts->csv_file = common.csv;
    if (messages_given && opts->duration > 0)
        msg_usage("-m and --duration cannot be combined (a count or a time, not both)");
    if (opts->message_file && opts->size_given)
        msg_usage("-F and -l/--size cannot be combined");
    if (opts->old_mode && opts->tls)
        msg_usage("-o (no HELO) and --tls cannot be combined");
    {
        const char *out[3] = {opts->tool.json_file, opts->csv_file, opts->tool.msg_log};
        const char *name[3] = {"--json", "--csv", "--msg-log"};

        for (int a = 0; a < 3; a++)
            for (int b = a + 1; b < 3; b++)
                if (out[a] && out[b] && optarg_same_output(out[a], out[b]))
                    msg_usage("%s and %s name the same file, %s: one would overwrite the other",
                              name[a], name[b], out[b]);
    }
    if (opts->workload_path)
        source_options_workload(opts, rcpts_given, messages_given);
    else if (scale_given || opts->peak || opts->replay > 0)
        msg_usage(
            "--scale, --peak and --replay shape a --workload's arrivals: give --workload FILE");
    if (opts->arrivals == ARRIVAL_POISSON && opts->rate == 0)
        msg_usage("--arrivals poisson needs --rate");
    if (opts->threads > opts->sessions)
        msg_usage("--threads %u is more than the %u session%s (-s): every thread needs one",
                  opts->threads, opts->sessions, opts->sessions == 1 ? "" : "s");
    if (argc - optind != 1)
        msg_usage("expected one target: [inet:]host[:port] or unix:pathname");
    opts->target = argv[optind];
}
