/*
 * relay_options - the command line of `spoolsim relay'; see relay_options.h.
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "msg.h"
#include "optarg.h"
#include "optgroup.h"
#include "profile.h"
#include "relay_options.h"
#include "workload.h"

enum {
    OPT_SPOOL = 256,
    OPT_CHECK_OPTIONS,
    OPT_NEXT_HOP,
    OPT_SYNC,
    OPT_PROFILE,
    OPT_MODEL,
    OPT_LONG_IDS,
    OPT_HASH_DEPTH,
    OPT_CLEANUP_THREADS,
    OPT_THREADS,
    OPT_QMGR,
    OPT_CONCURRENCY,
    OPT_ACTIVE_LIMIT,
    OPT_MIN_BACKOFF,
    OPT_MAX_BACKOFF,
    OPT_MAX_LIFETIME,
    OPT_HOPCOUNT_LIMIT,
    OPT_NO_BOUNCES,
    OPT_BOUNCE_TO_POSTMASTER,
    OPT_IN_FLOW_DELAY,
    OPT_IN_FLOW_LIMIT,
    OPT_TIMEOUT,
    OPT_MAX_SESSIONS,
    OPT_HOP_TIMEOUT,
    OPT_REPLY_DELAY,
    OPT_HOP_TLS,
    OPT_STATS_INTERVAL,
    OPT_BACKLOG,
    OPT_HOSTNAME,
    OPT_PORT_FILE,
    OPT_NO_SUMMARY,
};

static void usage(FILE *fp, const struct optgroup *g)
{
    struct smtp_server_opts server_defaults;

    smtp_server_opts_init(&server_defaults);
    fprintf(fp,
            "Usage: spoolsim relay --spool DIR [options]\n"
            "\n"
            "A queue daemon shaped like Postfix: it accepts mail over SMTP, writes each\n"
            "message into a Postfix queue under DIR (create, rename, write, fchmod 0700,\n"
            "fsync, and only then 250), moves it to active/, delivers it to the next hop,\n"
            "and unlinks it. 4xx answers defer it to deferred/ with a fsync'ed defer log\n"
            "and a retry; 5xx answers bounce it: a notification (RFC 3464) goes back to\n"
            "the sender as a new message through the same queue. SIGINT or SIGTERM stops\n"
            "it with a summary.\n"
            "\n"
            "Options:\n"
            "  --spool DIR             the queue directory (made, with its queues, if missing)\n"
            "  --check-options         the old name of --dry-run\n"
            "  -u, --user USER         run as USER once listening (root only); the spool must\n"
            "                          be USER's (it is made so), as Postfix's mail_owner\n"
            "  -l, --listen ADDR       where to accept SMTP (127.0.0.1:2525; port 0 = any)\n"
            "  --next-hop HOP          HOST:PORT (SMTP), discard, or maildir:DIR (discard)\n"
            "  --sync POLICY           fsync (as Postfix), fdatasync or none (fsync; with\n"
            "                          another --profile: what that MTA does)\n");
    profile_help(fp, "--profile NAME",
                 "the relay's own Postfix spool, or another MTA's file operations per "
                 "message, its messages delivered from memory: ",
                 " (postfix)", 23);
    fprintf(fp,
            "  --model MODEL           a real MTA's CPU per message, spent where it spends\n"
            "                          it: postfix or exim (built in; with the profile of\n"
            "                          that MTA), a model FILE from spoolsim calibrate, or\n"
            "                          none (the bare relay) (the profile's MTA's model;\n"
            "                          none for the profiles without one)\n"
            "  --long-ids              Postfix's long queue IDs (enable_long_queue_ids)\n"
            "  --hash-depth N          levels of hashing for deferred/ and defer/ (1)\n"
            "  --cleanup-threads N     threads that write new queue files, Postfix's cleanup\n"
            "                          processes: fsyncs in flight at once (%u; at most %u)\n"
            "  --threads N             event loops, each with its client sessions and its\n"
            "                          share of the cleanup threads; the first runs the\n"
            "                          queue manager, the others share --concurrency (1;\n"
            "                          at most %u and --cleanup-threads)\n"
            "  --qmgr single|pool      queue moves on one thread, in order, as Postfix's\n"
            "                          qmgr (single), or on the cleanup threads (pool)\n"
            "  --concurrency N         connections to the next hop (%u; at most %u)\n"
            "  --active-limit N        messages in active/ at once (20000)\n"
            "  --min-backoff TIME      first retry delay of a deferred message (1s)\n"
            "  --max-backoff TIME      longest retry delay; doubles up to it (10s)\n"
            "  --max-lifetime TIME     bounce what is still deferred after this (5d)\n"
            "  --hopcount-limit N      Received: headers (ours included) from which a\n"
            "                          message is refused as a mail loop, 554 5.4.0 at\n"
            "                          the end of data, as Postfix's hopcount_limit (50)\n"
            "  --no-bounces            a failed message is removed without a notification\n"
            "                          to its sender (counted in the summary); default: a\n"
            "                          delivery status notification, as Postfix's bounce\n"
            "  --bounce-to-postmaster ADDRESS\n"
            "                          where a notification that itself fails goes (sender\n"
            "                          double-bounce@HOSTNAME); default: discarded, logged\n"
            "  --in-flow-delay TIME    how long a new message waits for the queue manager\n"
            "                          to catch up, as Postfix's in_flow_delay; 0 = never (1s)\n"
            "  --in-flow-limit N       flow tokens when the queue manager is idle (100)\n"
            "  --timeout TIME          client idle time before 421 (300s)\n"
            "  --max-sessions N        client sessions at once; more wait in the listen\n"
            "                          backlog, as with Postfix's process limit (100)\n",
            RELAY_CLEANUP_THREADS_DEFAULT, RELAY_CLEANUP_THREADS_MAX, RELAY_THREADS_MAX,
            RELAY_CONCURRENCY_DEFAULT, RELAY_CONCURRENCY_MAX);
    smtp_server_opts_help(fp, &server_defaults, "--timeout", 23);
    fprintf(fp, "  --reply-delay TIME      hold each reply to a client TIME (the greeting twice\n"
                "                          that): emulates clients a round trip of TIME away,\n"
                "                          for bench --client-delay without netem (0)\n"
                "  --hop-timeout TIME      next-hop reply time before deferral (30s)\n"
                "  --hop-tls LEVEL         STARTTLS to the next hop: none, may (when offered)\n"
                "                          or encrypt (else defer), as smtp_tls_security_level\n"
                "  --backlog N             listen backlog (1024)\n"
                "  --hostname NAME         in the greeting and EHLO (spoolsim.localdomain)\n"
                "  --stats-interval TIME   the same as --interval, which also sets how often the\n"
                "                          queue depths are sampled\n"
                "  --port-file FILE        write the port once listening (for port 0)\n"
                "  --no-summary            no summary on standard error at exit\n"
                "  -v, --verbose           log every message's path through the queue\n");
    optgroup_help(fp, g, OPTGROUP_OUTPUT, 23);
    fprintf(fp, "\n"
                "The JSON summary and the CSV timeline are written at exit.\n"
                "The old -s DIR and -n HOP are refused: -s is --sessions and -n --runs in the\n"
                "other spoolsim commands.\n"
                "TIME is a number of seconds, or one with ms, s, m, h or d (e.g. 500ms, 10s).\n");
}

/*
 * A retry delay under 100ms is a hot loop (at 0 the doubling stays at 0);
 * Postfix's minimal_backoff_time has a floor of 1s, but tests retry sooner.
 */
#define BACKOFF_MIN 0.1

static uint64_t duration(const char *text, const char *what, double min_s, double max_s)
{
    return (uint64_t)(optarg_seconds_in(text, what, min_s, max_s) * 1e9);
}

static void parse_next_hop(struct relay_options *opts, const char *hop)
{
    opts->next_hop = hop;
    if (strcmp(hop, "discard") == 0) {
        opts->hop_kind = RELAY_HOP_DISCARD;
        opts->hop_arg = NULL;
    } else if (strncmp(hop, "maildir:", 8) == 0) {
        if (hop[8] == '\0')
            msg_usage("--next-hop maildir: needs a directory");
        opts->hop_kind = RELAY_HOP_MAILDIR;
        opts->hop_arg = hop + 8;
    } else {
        opts->hop_kind = RELAY_HOP_SMTP;
        opts->hop_arg = hop;
    }
}

const char *const relay_options_qmgr_names[] = {"single", "pool", NULL};

/*
 * The postfix profile's queue manager scans incoming/ as Postfix's does
 * (relay_spool_postfix.c); SPOOLSIM_QMGR_SCAN=0 takes the scan away, to
 * see what it changes. It rides in the environment so that bench, ab and
 * crash hand it to every relay they start.
 */
static int scan_from_env(void)
{
    const char *v = getenv("SPOOLSIM_QMGR_SCAN");

    if (v == NULL || strcmp(v, "") == 0 || strcmp(v, "1") == 0)
        return 1;
    if (strcmp(v, "0") == 0)
        return 0;
    msg_usage("SPOOLSIM_QMGR_SCAN=%s: 1 (the default) or 0", v);
}

/* The names of --hop-tls, in its enum's order. */
static const char *const hop_tls_names[] = {"none", "may", "encrypt", NULL};

/*
 * Refused letters (relay_options_parse() says what to use), out of
 * --list-options: -s is --sessions and -n --runs elsewhere (docs/design.md).
 */
static const struct optarg_old old_spellings[] = {{"-s", NULL}, {"-n", NULL}, {NULL, NULL}};

void relay_options_parse(struct relay_options *opts, int argc, char **argv)
{
    static const struct option long_options[] = {
        {"spool", required_argument, NULL, OPT_SPOOL},
        {"check-options", no_argument, NULL, OPT_CHECK_OPTIONS},
        {"user", required_argument, NULL, 'u'},
        {"listen", required_argument, NULL, 'l'},
        {"next-hop", required_argument, NULL, OPT_NEXT_HOP},
        {"sync", required_argument, NULL, OPT_SYNC},
        {"profile", required_argument, NULL, OPT_PROFILE},
        {"model", required_argument, NULL, OPT_MODEL},
        {"long-ids", no_argument, NULL, OPT_LONG_IDS},
        {"hash-depth", required_argument, NULL, OPT_HASH_DEPTH},
        {"cleanup-threads", required_argument, NULL, OPT_CLEANUP_THREADS},
        {"threads", required_argument, NULL, OPT_THREADS},
        {"qmgr", required_argument, NULL, OPT_QMGR},
        {"concurrency", required_argument, NULL, OPT_CONCURRENCY},
        {"active-limit", required_argument, NULL, OPT_ACTIVE_LIMIT},
        {"min-backoff", required_argument, NULL, OPT_MIN_BACKOFF},
        {"max-backoff", required_argument, NULL, OPT_MAX_BACKOFF},
        {"max-lifetime", required_argument, NULL, OPT_MAX_LIFETIME},
        {"hopcount-limit", required_argument, NULL, OPT_HOPCOUNT_LIMIT},
        {"no-bounces", no_argument, NULL, OPT_NO_BOUNCES},
        {"bounce-to-postmaster", required_argument, NULL, OPT_BOUNCE_TO_POSTMASTER},
        {"in-flow-delay", required_argument, NULL, OPT_IN_FLOW_DELAY},
        {"in-flow-limit", required_argument, NULL, OPT_IN_FLOW_LIMIT},
        {"timeout", required_argument, NULL, OPT_TIMEOUT},
        {"max-sessions", required_argument, NULL, OPT_MAX_SESSIONS},
        {"hop-timeout", required_argument, NULL, OPT_HOP_TIMEOUT},
        {"reply-delay", required_argument, NULL, OPT_REPLY_DELAY},
        {"hop-tls", required_argument, NULL, OPT_HOP_TLS},
        {"backlog", required_argument, NULL, OPT_BACKLOG},
        {"hostname", required_argument, NULL, OPT_HOSTNAME},
        {"stats-interval", required_argument, NULL, OPT_STATS_INTERVAL},
        {"port-file", required_argument, NULL, OPT_PORT_FILE},
        {"no-summary", no_argument, NULL, OPT_NO_SUMMARY},
        {"verbose", no_argument, NULL, 'v'},
        SMTP_SERVER_OPTS_LONG_OPTIONS,
        {NULL, 0, NULL, 0},
    };
    const struct optarg_store stored[] = {
        {'l', .text = &opts->listen},
        {'u', .text = &opts->user},
        {OPT_SPOOL, .text = &opts->spool, .dir = "--spool"},
        {OPT_CHECK_OPTIONS, .flag = &opts->check_only},
        {OPT_MODEL, .text = &opts->model},
        {OPT_LONG_IDS, .flag = &opts->long_ids},
        {OPT_NO_BOUNCES, .flag = &opts->no_bounces},
        {OPT_PORT_FILE, .text = &opts->port_file},
        {OPT_NO_SUMMARY, .flag = &opts->no_summary},
        {0},
    };
    struct optgroup_values common;
    struct optgroup g;
    int ch;

    memset(opts, 0, sizeof(*opts));
    /* -s and -n are read only to say what they became (relay_options.h). */
    optgroup_init(&g, &common,
                  OPTGROUP_NO_OPERANDS | OPTGROUP_JSON | OPTGROUP_TIMELINE | OPTGROUP_PROGRESS |
                      OPTGROUP_QUIET | OPTGROUP_HELP | OPTGROUP_DRY_RUN,
                  "s:u:l:n:v", long_options, "spoolsim relay", usage);
    g.old = old_spellings;
    opts->listen = "127.0.0.1:2525";
    parse_next_hop(opts, "discard");
    opts->sync = PF_SYNC_FSYNC;
    opts->profile = "postfix";
    opts->max_sessions = 100; /* Postfix's default_process_limit */
    opts->model = NULL;       /* the profile's MTA's, where there is one (relay_model_default) */
    opts->hash_depth = 1;
    opts->cleanup_threads = RELAY_CLEANUP_THREADS_DEFAULT;
    opts->threads = 1;
    opts->qmgr = RELAY_QMGR_SINGLE;
    opts->incoming_scan = scan_from_env();
    opts->concurrency = RELAY_CONCURRENCY_DEFAULT;
    opts->active_limit = 20000;
    opts->min_backoff_ns = 1 * CLOCK_NS_PER_SEC;
    opts->max_backoff_ns = 10 * CLOCK_NS_PER_SEC;
    opts->max_lifetime_ns = 5ULL * 86400 * CLOCK_NS_PER_SEC;
    smtp_server_opts_init(&opts->server);
    opts->hopcount_limit = 50; /* Postfix's hopcount_limit */
    opts->in_flow_delay = 1;
    opts->in_flow_limit = 100;
    opts->timeout = 300;
    opts->hop_timeout = 30;
    opts->backlog = 1024;
    opts->hostname = "spoolsim.localdomain";
    while ((ch = optgroup_getopt(&g, argc, argv)) != -1) {
        if (optarg_store(stored, ch, optarg))
            continue;
        switch (ch) {
        case 's':
            msg_usage("-s is --sessions in spoolsim's other commands: say --spool %s", optarg);
        case 'n':
            msg_usage("-n is --runs in spoolsim ab: say --next-hop %s", optarg);
        case OPT_NEXT_HOP:
            parse_next_hop(opts, optarg);
            break;
        case OPT_SYNC:
            opts->sync = pf_spool_sync_option(optarg);
            opts->sync_given = 1;
            break;
        case OPT_PROFILE:
            opts->profile = profile_option(optarg);
            break;
        case OPT_HASH_DEPTH:
            opts->hash_depth = (int)optarg_count(optarg, "--hash-depth", 0, 4);
            break;
        case OPT_CLEANUP_THREADS:
            opts->cleanup_threads =
                (unsigned)optarg_count(optarg, "--cleanup-threads", 1, RELAY_CLEANUP_THREADS_MAX);
            break;
        case OPT_THREADS:
            opts->threads = (unsigned)optarg_count(optarg, "--threads", 1, RELAY_THREADS_MAX);
            break;
        case OPT_QMGR:
            opts->qmgr =
                (enum relay_qmgr_shape)optarg_choice(optarg, "--qmgr", relay_options_qmgr_names);
            break;
        case OPT_CONCURRENCY:
            opts->concurrency =
                (unsigned)optarg_count(optarg, "--concurrency", 1, RELAY_CONCURRENCY_MAX);
            break;
        case OPT_ACTIVE_LIMIT:
            opts->active_limit = (unsigned)optarg_count(optarg, "--active-limit", 1, 10000000);
            break;
        case OPT_MIN_BACKOFF:
            opts->min_backoff_ns = duration(optarg, "--min-backoff", BACKOFF_MIN, OPTARG_LONG_MAX);
            break;
        case OPT_MAX_BACKOFF:
            opts->max_backoff_ns = duration(optarg, "--max-backoff", BACKOFF_MIN, OPTARG_LONG_MAX);
            break;
        case OPT_MAX_LIFETIME:
            opts->max_lifetime_ns = duration(optarg, "--max-lifetime", 0, 100 * 86400.0);
            break;
        case OPT_IN_FLOW_DELAY:
            opts->in_flow_delay = optarg_seconds_in(optarg, "--in-flow-delay", 0, 10);
            break;
        case OPT_IN_FLOW_LIMIT:
            opts->in_flow_limit = (unsigned)optarg_count(optarg, "--in-flow-limit", 1, 1000000);
            break;
        case OPT_HOPCOUNT_LIMIT:
            opts->hopcount_limit = (unsigned)optarg_count(optarg, "--hopcount-limit", 1, 1000);
            break;
        case OPT_BOUNCE_TO_POSTMASTER:
            if (*optarg == 0 || strpbrk(optarg, "<> \t\r\n") != NULL)
                msg_usage("bad --bounce-to-postmaster \"%s\" (an address: user@domain, "
                          "without <> or spaces)",
                          optarg);
            opts->bounce_to_postmaster = optarg;
            break;
        case OPT_TIMEOUT:
            opts->timeout =
                optarg_seconds_in(optarg, "--timeout", OPTARG_TIMEOUT_MIN, OPTARG_LONG_MAX);
            break;
        case OPT_MAX_SESSIONS:
            opts->max_sessions = (unsigned)optarg_count(optarg, "--max-sessions", 1, 1000000);
            break;
        case OPT_HOP_TIMEOUT:
            opts->hop_timeout =
                optarg_seconds_in(optarg, "--hop-timeout", OPTARG_TIMEOUT_MIN, OPTARG_LONG_MAX);
            break;
        case OPT_REPLY_DELAY:
            opts->reply_delay = optarg_round_trip(optarg, "--reply-delay");
            break;
        case OPT_HOP_TLS:
            opts->hop_tls = (enum relay_hop_tls)optarg_choice(optarg, "--hop-tls", hop_tls_names);
            break;
        case OPT_BACKLOG:
            opts->backlog = (unsigned)optarg_count(optarg, "--backlog", 1, 65535);
            break;
        case OPT_HOSTNAME:
            opts->hostname = optarg_hostname(optarg, "--hostname");
            break;
        case OPT_STATS_INTERVAL:
            common.interval = optarg_interval(optarg, "--stats-interval");
            break;
        case 'v':
            opts->verbose++;
            break;
        default:
            if (!smtp_server_opts_parse(&opts->server, ch, optarg))
                msg_panic("option %d not handled", ch);
        }
    }
    optgroup_end(&g);
    smtp_server_opts_end(&opts->server);
    opts->json = common.json;
    opts->stats_interval = common.interval;
    opts->csv = common.csv;
    opts->quiet = common.quiet;
    opts->progress = common.progress;
    opts->check_only |= common.dry_run;
    if (opts->spool == NULL)
        msg_usage("no spool directory: --spool DIR is required");
    if (opts->user && strcmp(opts->profile, "postfix") != 0)
        msg_usage("-u needs the relay's own spool (--profile postfix)");
    if (opts->no_bounces && opts->bounce_to_postmaster)
        msg_usage("--bounce-to-postmaster has nothing to do with --no-bounces");
    if (opts->min_backoff_ns > opts->max_backoff_ns)
        msg_usage("--min-backoff is longer than --max-backoff");
    if (opts->threads > opts->cleanup_threads)
        msg_usage("--threads %u: each loop needs a cleanup thread of its own, and "
                  "--cleanup-threads is %u",
                  opts->threads, opts->cleanup_threads);
    if (opts->reply_delay * 2 >= opts->timeout)
        msg_usage("--reply-delay must be under half of --timeout (the greeting is held twice it)");
}
