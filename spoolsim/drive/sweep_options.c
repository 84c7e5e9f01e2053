/*
 * sweep_options - the command line of `spoolsim sweep'; see sweep.h.
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "msg.h"
#include "optarg.h"
#include "optgroup.h"
#include "profile.h"
#include "sweep.h"
#include "workload_file.h"
#include "xalloc.h"

static void usage(FILE *fp, const struct optgroup *g)
{
    fprintf(fp, "Usage: spoolsim sweep [options] [-- relay options]\n"
                "\n"
                "The knee of a relay: open-loop steps of offered rate, each a warm-up and a\n"
                "measured window, and the highest rate at which it delivered >= 99 %% of what\n"
                "was offered, its queue did not grow, nothing failed and the client's p99\n"
                "(from the intended send time) stayed within the SLO. Each step runs a fresh\n"
                "smtp-sink and spoolsim relay on loopback (the options after -- go to the\n"
                "relay, e.g. -- --model none), or drives --target.\n"
                "\n"
                "Options:\n"
                "  --rates R,R,...       these offered rates (messages/s), in this order\n"
                "  --start R             automatic: the first rate (50), then times --factor\n"
                "                        until a step fails, then bisection\n"
                "  --factor F            the automatic growth, 1.1 to 10 (2)\n"
                "  --tolerance F         bisect until within F of the failed rate (0.1)\n"
                "  --max-steps N         at most N steps, 1 to 64 (12)\n"
                "  --warmup TIME         each step's warm-up, not measured (2s)\n"
                "  --window TIME         each step's measured window (5s)\n"
                "  --slo TIME            the client's p99 may not exceed it (2s)\n");
    optgroup_help(fp, g, OPTGROUP_WORKLOAD, 21);
    optgroup_help(fp, g, OPTGROUP_LOAD_FILE, 21);
    fprintf(fp, "  --reuse               reuse client connections (default: one per message)\n"
                "  --arrivals KIND       fixed (the default: each window offers exactly its\n"
                "                        rate) or poisson spacing\n"
                "  --spool DIR           the work directory (the relay's spools) in DIR\n"
                "                        ($TMPDIR or /tmp)\n"
                "  --target HOST:PORT    sweep this SMTP server instead: no relay is started,\n"
                "                        its acceptance is measured\n"
                "  --sink-port PORT      with --target: run smtp-sink on 127.0.0.1:PORT as the\n"
                "                        target's next hop, and measure its deliveries\n"
                "  --sink-delay TIME     the sink waits TIME before each DATA reply: a slow\n"
                "                        next hop (smtp-sink -w)\n");
    optgroup_help(fp, g, OPTGROUP_SEED | OPTGROUP_OUTPUT, 21);
    fprintf(fp, "\n"
                "Exit status: 0 when the sweep ran (whether or not a rate held), 1 when the\n"
                "JSON could not be written, 2 for usage errors, 3 when a program did not\n"
                "start or failed, or no message was accepted.\n");
}

enum {
    OPT_RATES = 256,
    OPT_START,
    OPT_FACTOR,
    OPT_TOLERANCE,
    OPT_MAX_STEPS,
    OPT_WARMUP,
    OPT_WINDOW,
    OPT_SLO,
    OPT_REUSE,
    OPT_ARRIVALS,
    OPT_SPOOL,
    OPT_TARGET,
    OPT_SINK_PORT,
    OPT_SINK_DELAY,
};

int sweep_options_target_ok(const char *t)
{
    const char *colon = strrchr(t, ':');
    size_t len = strlen(t);

    if (len == 0 || len > 255)
        return 0;
    for (const char *p = t; *p; p++)
        if ((unsigned char)*p <= ' ' || *p == 0x7f)
            return 0;
    if (strncmp(t, "unix:", 5) == 0)
        return t[5] != 0;
    if (colon == NULL || colon == t || colon[1] == 0)
        return 0;
    if (t[0] == '[' && colon[-1] != ']')
        return 0; /* [v6]:port: the bracket closes right before the port */
    if (strspn(colon + 1, "0123456789") == strlen(colon + 1)) {
        long port = strtol(colon + 1, NULL, 10);

        return strlen(colon + 1) <= 5 && port >= 1 && port <= 65535;
    }
    /* a service name, as getaddrinfo takes it */
    return strspn(colon + 1, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-") ==
           strlen(colon + 1);
}

/* The relay options sweep sets itself: given after --, they would contradict it. */
static const char *const reserved[] = {"--listen", "--port-file", "--spool", "--next-hop",
                                       "--json"};

static void take_relay_args(struct sweep_options *o, int argc, char **argv, int first)
{
    for (int i = first; i < argc; i++) {
        for (size_t k = 0; k < sizeof(reserved) / sizeof(reserved[0]); k++) {
            size_t n = strlen(reserved[k]);

            if (strncmp(argv[i], reserved[k], n) == 0 && (argv[i][n] == 0 || argv[i][n] == '='))
                msg_usage("%s after --: sweep sets the relay's %s itself%s", reserved[k],
                          reserved[k], k == 2 ? " (give --spool DIR before --)" : "");
        }
        if (strcmp(argv[i], "--profile") == 0 && i + 1 < argc)
            o->profile = profile_option(argv[i + 1]);
        if (o->n_relay_args == RELAY_ARGS_MAX)
            msg_usage("more than %d relay options after --", RELAY_ARGS_MAX);
        o->relay_args[o->n_relay_args++] = argv[i];
    }
}

/* smtp-source's --arrivals, which each step passes on. */
static const char *const arrivals[] = {"fixed", "poisson", NULL};

void sweep_options_parse(struct sweep_options *o, int argc, char **argv)
{
    static const struct option long_options[] = {
        {"rates", required_argument, NULL, OPT_RATES},
        {"start", required_argument, NULL, OPT_START},
        {"factor", required_argument, NULL, OPT_FACTOR},
        {"tolerance", required_argument, NULL, OPT_TOLERANCE},
        {"max-steps", required_argument, NULL, OPT_MAX_STEPS},
        {"warmup", required_argument, NULL, OPT_WARMUP},
        {"window", required_argument, NULL, OPT_WINDOW},
        {"slo", required_argument, NULL, OPT_SLO},
        {"reuse", no_argument, NULL, OPT_REUSE},
        {"arrivals", required_argument, NULL, OPT_ARRIVALS},
        {"spool", required_argument, NULL, OPT_SPOOL},
        {"target", required_argument, NULL, OPT_TARGET},
        {"sink-port", required_argument, NULL, OPT_SINK_PORT},
        {"sink-delay", required_argument, NULL, OPT_SINK_DELAY},
        {NULL, 0, NULL, 0},
    };
    struct optgroup g;
    char *end;
    int ch, n;

    memset(o, 0, sizeof(*o));
    optgroup_init(&g, &o->common,
                  OPTGROUP_SESSIONS | OPTGROUP_SIZE | OPTGROUP_JSON | OPTGROUP_KEEP |
                      OPTGROUP_QUIET | OPTGROUP_HELP | OPTGROUP_DRY_RUN | OPTGROUP_PROGRESS |
                      OPTGROUP_LOAD_FILE | OPTGROUP_SEED,
                  "", long_options, "spoolsim sweep", usage);
    g.progress_what = " (the step, its rate and phase, the time left)";
    g.seed_what = "smtp-source's sizes, recipients and arrivals, each step's";
    o->start = 50;
    o->factor = 2;
    o->tolerance = 0.1;
    o->max_steps = 12;
    o->warmup = 2;
    o->window = 5;
    o->slo = 2;
    o->common.sessions = 50;
    o->arrivals = arrivals[0];
    o->profile = "postfix";
    while ((ch = optgroup_getopt(&g, argc, argv)) != -1) {
        switch (ch) {
        case OPT_RATES:
            if ((n = sweep_search_parse_rates(optarg, o->rates, SWEEP_MAX_RATES)) < 0)
                msg_usage("bad --rates \"%s\" (rates in messages/s, each > 0, comma-separated, "
                          "at most %d)",
                          optarg, SWEEP_MAX_RATES);
            o->n_rates = (size_t)n;
            break;
        case OPT_START:
            o->start = optarg_rate(optarg, "--start");
            break;
        case OPT_FACTOR:
            o->factor = strtod(optarg, &end);
            if (end == optarg || *end || !(o->factor >= 1.1 && o->factor <= 10))
                msg_usage("bad --factor \"%s\" (a number from 1.1 to 10)", optarg);
            break;
        case OPT_TOLERANCE:
            o->tolerance = strtod(optarg, &end);
            if (end == optarg || *end || !(o->tolerance >= 0.001 && o->tolerance <= 0.5))
                msg_usage("bad --tolerance \"%s\" (a fraction from 0.001 to 0.5)", optarg);
            break;
        case OPT_MAX_STEPS:
            o->max_steps = (unsigned)optarg_count(optarg, "--max-steps", 1, SWEEP_MAX_RATES);
            break;
        case OPT_WARMUP:
            o->warmup = optarg_seconds_in(optarg, "--warmup", 0, OPTARG_DELAY_MAX);
            break;
        case OPT_WINDOW:
            o->window = optarg_seconds(optarg, "--window");
            if (o->window < 0.1)
                msg_usage("--window must be at least 100ms");
            if (o->window > OPTARG_DELAY_MAX)
                msg_usage("--window must be at most 1h");
            break;
        case OPT_SLO:
            o->slo = optarg_seconds_positive(optarg, "--slo", OPTARG_DELAY_MAX);
            break;
        case OPT_REUSE:
            o->reuse = 1;
            break;
        case OPT_ARRIVALS:
            o->arrivals = arrivals[optarg_choice(optarg, "--arrivals", arrivals)];
            break;
        case OPT_SPOOL:
            o->spool_parent = optarg_dir(optarg, "--spool");
            break;
        case OPT_TARGET:
            if (!sweep_options_target_ok(optarg))
                msg_usage("bad --target \"%s\" (HOST:PORT, [IPv6]:PORT or unix:PATH)", optarg);
            o->target = optarg;
            break;
        case OPT_SINK_PORT:
            o->sink_port = (unsigned)optarg_count(optarg, "--sink-port", 1, 65535);
            break;
        case OPT_SINK_DELAY: {
            double delay = optarg_seconds(optarg, "--sink-delay");

            if (delay > 60)
                msg_usage("--sink-delay is at most 60s");
            snprintf(o->sink_delay, sizeof(o->sink_delay), "%.6f", delay);
            break;
        }
        default:
            msg_panic("option %d not handled", ch);
        }
    }
    if (optind < argc) {
        if (strcmp(argv[optind - 1], "--") != 0)
            msg_usage("unexpected argument \"%s\" (relay options go after --)", argv[optind]);
        take_relay_args(o, argc, argv, optind);
    }
    optgroup_end(&g);
    if (o->sink_port && !o->target)
        msg_usage("--sink-port is for --target (without it sweep runs its own sink)");
    if (o->target && o->n_relay_args)
        msg_usage("relay options after -- with --target: no relay is started");
    if (o->common.workload) {
        struct workload_file *wf = xmalloc(sizeof(*wf));

        drive_workload_check(o->common.workload, wf);
        o->workload_mean_per_s = workload_file_rate(wf, 0);
        o->workload_peak_per_s = workload_file_rate(wf, 1);
        workload_file_free(wf);
        free(wf);
    }
}
