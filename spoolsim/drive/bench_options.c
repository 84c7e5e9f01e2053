/*
 * bench_options - `spoolsim bench''s --help and options (bench_options.h).
 */
#include "config.h"

#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_compare_report.h"
#include "bench_mta.h"
#include "bench_options.h"
#include "drive.h"
#include "msg.h"
#include "netem.h"
#include "optarg.h"
#include "optgroup.h"
#include "pf_spool.h"
#include "profile.h"
#include "relay_limits.h"

static void usage(FILE *fp, const struct optgroup *g)
{
    fprintf(fp, "Usage: spoolsim bench [options]\n"
                "\n"
                "An end-to-end benchmark with no configuration: smtp-source -> spoolsim relay ->\n"
                "smtp-sink on loopback, the relay's spool in a private temporary directory that\n"
                "is removed afterwards. Prints injected and delivered messages/s, end-to-end\n"
                "latency, fsyncs/s, the filesystem and its mount options, and whether every\n"
                "acknowledged message arrived exactly once (exit status 1 if not).\n"
                "\n"
                "Options:\n"
                "  --spool DIR           measure the filesystem of DIR: the spool goes in a\n"
                "                        private directory inside it ($TMPDIR or /tmp)\n");
    optgroup_help(fp, g, OPTGROUP_WORKLOAD | OPTGROUP_LOAD_FILE | OPTGROUP_LOAD_SHAPE, 21);
    fprintf(fp, "  --reuse               reuse client connections (default: one per message)\n"
                "  --rate R              open loop: R messages/s\n"
                "  --arrivals KIND       poisson (the default) or fixed spacing for --rate\n"
                "  --sync POLICY         the relay's fsync, fdatasync or none (fsync)\n"
                "  --qmgr single|pool    the relay's queue manager shape (single)\n");
    profile_help(fp, "--profile NAME", "the relay's spool profile: ", " (postfix)", 21);
    fprintf(fp,
            "  --model MODEL         the relay's cost model: postfix, exim, a FILE or none\n"
            "                        (the profile's MTA's: postfix with the postfix\n"
            "                        profile, exim with exim; see spoolsim relay --help)\n"
            "  --calibrate           before the run, measure the model of the profile's MTA\n"
            "                        on this machine if the cache has none (spoolsim\n"
            "                        calibrate MTA --if-needed: a minute or two, once);\n"
            "                        the default as root with the MTA's model\n"
            "  --no-calibrate        run with whatever model there is, even as root\n"
            "                        (as SPOOLSIM_NO_CALIBRATE=1 does)\n"
            "  --recalibrate         measure it anew before the run\n"
            "  --cleanup-threads N   the relay's cleanup threads (%u)\n"
            "  --relay-threads N     the relay's event loops (--threads; 1)\n"
            "  --concurrency N       the relay's connections to the sink (%u)\n"
            "  --harness-threads N   smtp-source's and smtp-sink's --threads, 1 to 256, at\n"
            "                        most -s (1: one core each, as Postfix's)\n"
            "  --discard             the relay discards instead of relaying to the sink\n"
            "  --tls                 STARTTLS from the source to the relay and from the\n"
            "                        relay to the sink (--hop-tls encrypt)\n"
            "  --hop-delay TIME      the sink across a network TIME away (a round trip;\n"
            "                        as root: its own namespace, a veth pair, netem with\n"
            "                        half of TIME on each end); else emulated by the\n"
            "                        sink's reply delays, as the report says\n"
            "  --hop-jitter TIME     the round trip's jitter (netem only)\n"
            "  --hop-loss P%%         packet loss each way, 0 to 100 %% (netem only)\n"
            "  --hop-rate R          each way's rate: Nbit, Nkbit, Nmbit, Ngbit (netem only)\n"
            "  --client-delay TIME   the client across a network TIME away (a round trip;\n"
            "                        as root: smtp-source in its own namespace behind\n"
            "                        netem); else emulated by the relay holding each reply\n"
            "                        (its --reply-delay), as the report says\n"
            "  --client-jitter TIME  the client's round trip's jitter (netem only)\n"
            "  --drain-timeout TIME  how long the queue may take to empty (120s)\n"
            "  --mta MTA             as root, a real postfix or exim in the relay's place,\n"
            "                        its queue in the spool (Debian's package, fetched and\n"
            "                        run privately as calibrate runs it, never installed)\n"
            "  --compare MTA         as root, the relay with MTA's model against the real\n"
            "                        MTA (--mta), the same load and spool filesystem, runs\n"
            "                        alternating: both rates, their ratio and whether they\n"
            "                        agree within +-15 %%\n"
            "  -n, --runs N          the run N times after a warm-up run: the median, its\n"
            "                        95 %% interval and the spread; with --compare, the\n"
            "                        runs of each side (%u; at most %u)\n",
            RELAY_CLEANUP_THREADS_DEFAULT, RELAY_CONCURRENCY_DEFAULT, BENCH_COMPARE_RUNS,
            BENCH_COMPARE_RUNS_MAX);
    optgroup_help(fp, g, OPTGROUP_SEED | OPTGROUP_OUTPUT, 21);
    fprintf(fp, "\n"
                "SIGINT or SIGTERM stops the run: the children are stopped, the work directory\n"
                "removed, the report so far printed marked partial; exit status 130 or 143.\n");
}

enum {
    OPT_SPOOL = 256,
    OPT_REUSE,
    OPT_RATE,
    OPT_ARRIVALS,
    OPT_SYNC,
    OPT_QMGR,
    OPT_PROFILE,
    OPT_MODEL,
    OPT_CALIBRATE,
    OPT_RECALIBRATE,
    OPT_NO_CALIBRATE,
    OPT_CLEANUP,
    OPT_RELAY_THREADS,
    OPT_CONCURRENCY,
    OPT_HARNESS_THREADS,
    OPT_DISCARD,
    OPT_TLS,
    OPT_DRAIN,
    OPT_HOP_DELAY,
    OPT_HOP_JITTER,
    OPT_HOP_LOSS,
    OPT_HOP_RATE,
    OPT_CLIENT_DELAY,
    OPT_CLIENT_JITTER,
    OPT_MTA,
    OPT_COMPARE,
};

/* A count for the relay, from 1 to max: checked here, passed on as it was written. */
static const char *relay_count(const char *arg, const char *option, uint64_t max)
{
    optarg_count(arg, option, 1, max);
    return arg;
}

/* An environment variable set to something other than "" or "0". */
static int getenv_set(const char *name)
{
    const char *v = getenv(name);

    return v && *v && strcmp(v, "0") != 0;
}

/*
 * The option just parsed is not for the runs of --compare or -n: its argv elements
 * (one, or two where the value came as the next) are marked in skip.
 */
static void skip_parsed(unsigned char *skip, char **argv, int has_value)
{
    int last = optind - 1;

    skip[last] = 1;
    if (has_value && last > 1 && optarg == argv[last])
        skip[last - 1] = 1;
}

void bench_options_parse(struct bench_options *o, int argc, char **argv, unsigned char *skip)
{
    int calibrate_given = 0;
    static const struct option long_options[] = {
        {"spool", required_argument, NULL, OPT_SPOOL},
        {"reuse", no_argument, NULL, OPT_REUSE},
        {"rate", required_argument, NULL, OPT_RATE},
        {"arrivals", required_argument, NULL, OPT_ARRIVALS},
        {"sync", required_argument, NULL, OPT_SYNC},
        {"qmgr", required_argument, NULL, OPT_QMGR},
        {"profile", required_argument, NULL, OPT_PROFILE},
        {"model", required_argument, NULL, OPT_MODEL},
        {"calibrate", no_argument, NULL, OPT_CALIBRATE},
        {"recalibrate", no_argument, NULL, OPT_RECALIBRATE},
        {"no-calibrate", no_argument, NULL, OPT_NO_CALIBRATE},
        {"cleanup-threads", required_argument, NULL, OPT_CLEANUP},
        {"relay-threads", required_argument, NULL, OPT_RELAY_THREADS},
        {"concurrency", required_argument, NULL, OPT_CONCURRENCY},
        {"harness-threads", required_argument, NULL, OPT_HARNESS_THREADS},
        {"discard", no_argument, NULL, OPT_DISCARD},
        {"tls", no_argument, NULL, OPT_TLS},
        {"drain-timeout", required_argument, NULL, OPT_DRAIN},
        {"hop-delay", required_argument, NULL, OPT_HOP_DELAY},
        {"hop-jitter", required_argument, NULL, OPT_HOP_JITTER},
        {"hop-loss", required_argument, NULL, OPT_HOP_LOSS},
        {"hop-rate", required_argument, NULL, OPT_HOP_RATE},
        {"client-delay", required_argument, NULL, OPT_CLIENT_DELAY},
        {"client-jitter", required_argument, NULL, OPT_CLIENT_JITTER},
        {"mta", required_argument, NULL, OPT_MTA},
        {"compare", required_argument, NULL, OPT_COMPARE},
        {"runs", required_argument, NULL, 'n'},
        {NULL, 0, NULL, 0},
    };
    const struct optarg_store stored[] = {
        {OPT_SPOOL, .text = &o->spool_parent, .dir = "--spool"},
        {OPT_REUSE, .flag = &o->reuse},
        {OPT_MODEL, .text = &o->model},
        {OPT_TLS, .flag = &o->tls},
        {OPT_DISCARD, .flag = &o->discard},
        {0},
    };
    struct optgroup g;
    int ch;

    memset(o, 0, sizeof(*o));
    optgroup_init(&g, &o->common,
                  OPTGROUP_NO_OPERANDS | OPTGROUP_WORKLOAD | OPTGROUP_OUTPUT | OPTGROUP_LOAD_FILE |
                      OPTGROUP_LOAD_SHAPE | OPTGROUP_SEED,
                  "n:", long_options, "spoolsim bench", usage);
    o->sync = NULL; /* the profile's own: fsync for postfix */
    o->qmgr = relay_options_qmgr_names[0];
    o->profile = "postfix";
    o->drain_timeout = 120;
    o->harness_threads = 1;
    o->runs = BENCH_COMPARE_RUNS;
    o->arrivals = "poisson";
    g.seed_what = "smtp-source's sizes, recipients and arrivals";
    while ((ch = optgroup_getopt(&g, argc, argv)) != -1) {
        if (optarg_store(stored, ch, optarg))
            continue;
        switch (ch) {
        case OPT_RATE:
            optarg_rate(optarg, "--rate");
            o->rate = optarg;
            break;
        case OPT_ARRIVALS:
            if (strcmp(optarg, "poisson") != 0 && strcmp(optarg, "fixed") != 0)
                msg_usage("--arrivals: poisson or fixed, not %s", optarg);
            o->arrivals = optarg;
            break;
        case OPT_SYNC:
            pf_spool_sync_option(optarg); /* checked here, named to the relay */
            o->sync = optarg;
            break;
        case OPT_CALIBRATE:
        case OPT_RECALIBRATE:
        case OPT_NO_CALIBRATE:
            skip_parsed(skip, argv, 0); /* --compare calibrates once, before its runs */
            if (calibrate_given)
                msg_usage("--calibrate, --recalibrate and --no-calibrate exclude each other");
            calibrate_given = 1;
            o->calibrate = ch == OPT_RECALIBRATE ? BENCH_CALIBRATE_AGAIN
                           : ch == OPT_CALIBRATE ? BENCH_CALIBRATE_IF_NEEDED
                                                 : BENCH_CALIBRATE_NEVER;
            break;
        case OPT_PROFILE:
            o->profile = profile_option(optarg);
            break;
        case OPT_QMGR:
            o->qmgr =
                relay_options_qmgr_names[optarg_choice(optarg, "--qmgr", relay_options_qmgr_names)];
            break;
        case OPT_CLEANUP:
            o->cleanup_threads =
                relay_count(optarg, "--cleanup-threads", RELAY_CLEANUP_THREADS_MAX);
            break;
        case OPT_RELAY_THREADS:
            o->relay_threads = relay_count(optarg, "--relay-threads", RELAY_THREADS_MAX);
            break;
        case OPT_CONCURRENCY:
            o->concurrency = relay_count(optarg, "--concurrency", RELAY_CONCURRENCY_MAX);
            break;
        case OPT_HARNESS_THREADS:
            o->harness_threads = (unsigned)optarg_count(optarg, "--harness-threads", 1, 256);
            break;
        case OPT_DRAIN:
            o->drain_timeout = optarg_seconds_in(optarg, "--drain-timeout", 0, OPTARG_LONG_MAX);
            break;
        case OPT_HOP_DELAY:
            o->hop.delay_s = optarg_round_trip(optarg, "--hop-delay");
            break;
        case OPT_HOP_JITTER:
            o->hop.jitter_s = optarg_seconds_in(optarg, "--hop-jitter", 0, 60);
            break;
        case OPT_HOP_LOSS:
            if (netem_parse_loss(optarg, &o->hop.loss_pct) != 0)
                msg_usage("bad --hop-loss \"%s\" (a percentage from 0 to 100, e.g. 0.1%%)", optarg);
            break;
        case OPT_HOP_RATE:
            if (netem_parse_rate(optarg, &o->hop.rate_bit_s) != 0)
                msg_usage("bad --hop-rate \"%s\" (e.g. 100mbit, 512kbit, 1gbit)", optarg);
            break;
        case OPT_CLIENT_DELAY:
            o->client.delay_s = optarg_round_trip(optarg, "--client-delay");
            break;
        case OPT_CLIENT_JITTER:
            o->client.jitter_s = optarg_seconds_in(optarg, "--client-jitter", 0, 60);
            break;
        case OPT_MTA:
            o->mta = bench_mta_names[optarg_choice(optarg, "--mta", bench_mta_names)];
            break;
        case OPT_COMPARE:
            o->compare = bench_mta_names[optarg_choice(optarg, "--compare", bench_mta_names)];
            skip_parsed(skip, argv, 1);
            break;
        case 'n':
            o->runs = (unsigned)optarg_count(optarg, "--runs", 1, BENCH_COMPARE_RUNS_MAX);
            o->runs_given = 1;
            skip_parsed(skip, argv, 1);
            break;
        default:
            msg_panic("option %d not handled", ch);
        }
    }
    optgroup_end(&g);
    if (o->common.workload) {
        if (o->rate)
            msg_usage("--workload sets the rate: not with --rate (--scale K multiplies its rate)");
        drive_workload_check(o->common.workload, NULL);
    }
    /*
     * A model from another machine can be 2 to 5 times off here: as root,
     * with the MTA's own model, bench measures this machine's first unless
     * told not to (bench.c's calibrate_first() says so, and does nothing when the
     * cache has it).
     */
    if (!calibrate_given && geteuid() == 0 && !getenv_set("SPOOLSIM_NO_CALIBRATE"))
        o->calibrate = BENCH_CALIBRATE_IF_NEEDED;
    bench_mta_check_options(o);
    if (o->hop.jitter_s > 0 && o->hop.jitter_s > o->hop.delay_s)
        msg_usage("--hop-jitter must not exceed --hop-delay (the delay would go below zero)");
    if (o->client.jitter_s > 0 && o->client.jitter_s > o->client.delay_s)
        msg_usage("--client-jitter must not exceed --client-delay (the delay would go below zero)");
    if (netem_spec_wanted(&o->hop) && o->discard)
        msg_usage("--hop-delay and the other --hop options need a sink: not with --discard");
    /* the relay's own rule, said before anything starts */
    if (o->relay_threads && strtoul(o->relay_threads, NULL, 10) >
                                (o->cleanup_threads ? strtoul(o->cleanup_threads, NULL, 10)
                                                    : RELAY_CLEANUP_THREADS_DEFAULT))
        msg_usage("--relay-threads %s: each of the relay's loops needs a cleanup thread of its "
                  "own (--cleanup-threads)",
                  o->relay_threads);
}

/* smtp-source's rule for its --threads, said before anything starts. */
void bench_options_check_harness_threads(const struct bench_options *o)
{
    if (o->harness_threads > o->common.sessions)
        msg_usage("--harness-threads %u is more than the %u session%s (-s): every thread needs one",
                  o->harness_threads, o->common.sessions, o->common.sessions == 1 ? "" : "s");
}