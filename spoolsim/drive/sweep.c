/*
 * sweep - `spoolsim sweep': the knee of a relay, the highest offered rate
 * it keeps up with.
 *
 * Each step starts a fresh smtp-sink and `spoolsim relay' (a spool of its
 * own in the work directory), or uses --target, and offers the step's
 * rate open loop: one smtp-source for the warm-up, and as the warm-up's
 * offered window ends, a second for the measured window, so that the
 * second's report (its latency from the intended send time, its
 * failures) is the window's alone. At the window's edges sweep counts the
 * spool's queued files and the sink's logged messages itself; the relay's
 * report gives the step's end-to-end latency. sweep_search.c picks the
 * rates and judges the steps.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_drain.h"
#include "clock.h"
#include "drive.h"
#include "fileutil.h"
#include "fsinfo.h"
#include "interrupt.h"
#include "json.h"
#include "json_meta.h"
#include "json_read.h"
#include "msg.h"
#include "msglog.h"
#include "optarg.h"
#include "optgroup.h"
#include "profile.h"
#include "spoolsim.h"
#include "sweep_search.h"

#define interrupted (interrupt_signal() != 0)
#define RELAY_ARGS_MAX 32

struct sweep_options {
    const char *spool_parent;
    double rates[SWEEP_MAX_RATES];
    size_t n_rates; /* 0: automatic */
    double start, factor, tolerance;
    unsigned max_steps;
    double warmup, window, slo;
    struct optgroup_values common; /* -s, --size, --json, --keep, -q */
    int reuse;
    const char *arrivals; /* smtp-source's --arrivals: fixed or poisson */
    const char *target;   /* HOST:PORT, or NULL: a relay of our own */
    char sink_delay[32];  /* --sink-delay as seconds for smtp-sink -w, "" for none */
    unsigned sink_port;   /* with --target: a sink on this port, its next hop (0: none) */
    const char *profile;  /* the relay's, from the options after -- */
    char *relay_args[RELAY_ARGS_MAX]; /* passed on to the relay */
    size_t n_relay_args;
    const struct json_run *run;
};

/* What a step measured, beyond what the verdict reads. */
struct sweep_step {
    struct sweep_measure m;
    enum sweep_reason reason;
    double sent, sent_per_s; /* the window's client: messages started, over its window */
    double accepted, backlog_max;
    double arrived_per_s;                   /* at the sink during the window, from any client */
    double p50_s;                           /* the client's */
    double e2e_p50_s, e2e_p99_s, e2e_count; /* the relay's, over the whole step */
    int e2e_known;
};

struct sweep {
    const struct sweep_options *opts;
    struct drive d;
    char sink_path[PATH_MAX], source_path[PATH_MAX];
    struct drive_child sink, relay, warm, source;
    struct fsinfo fs;
    char spool_parent_used[PATH_MAX];
    struct sweep_step steps[SWEEP_MAX_RATES];
    unsigned n_steps;
};

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
    optgroup_help(fp, g, OPTGROUP_OUTPUT, 21);
    fprintf(fp, "\n"
                "Exit status: 0 when the sweep ran (whether or not a rate held), 1 when a\n"
                "program did not start or failed, 2 for usage errors.\n");
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
        if (strcmp(argv[i], "--profile") == 0 && i + 1 < argc) {
            if (profile_find(argv[i + 1]) == NULL)
                msg_usage("unknown --profile \"%s\" (see spoolsim raw --list)", argv[i + 1]);
            o->profile = argv[i + 1];
        }
        if (o->n_relay_args == RELAY_ARGS_MAX)
            msg_usage("more than %d relay options after --", RELAY_ARGS_MAX);
        o->relay_args[o->n_relay_args++] = argv[i];
    }
}

static void parse_options(struct sweep_options *o, int argc, char **argv)
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
                      OPTGROUP_QUIET | OPTGROUP_HELP,
                  "", long_options, "spoolsim sweep", usage);
    o->start = 50;
    o->factor = 2;
    o->tolerance = 0.1;
    o->max_steps = 12;
    o->warmup = 2;
    o->window = 5;
    o->slo = 2;
    o->common.sessions = 50;
    o->arrivals = "fixed";
    o->profile = "postfix";
    while ((ch = optgroup_getopt(&g, argc, argv)) != -1) {
        switch (ch) {
        case OPT_RATES:
            if ((n = sweep_parse_rates(optarg, o->rates, SWEEP_MAX_RATES)) < 0)
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
            o->warmup = optarg_seconds(optarg, "--warmup");
            break;
        case OPT_WINDOW:
            o->window = optarg_seconds(optarg, "--window");
            if (o->window < 0.1)
                msg_usage("--window must be at least 100ms");
            break;
        case OPT_SLO:
            o->slo = optarg_seconds(optarg, "--slo");
            if (o->slo <= 0)
                msg_usage("--slo must be positive");
            break;
        case OPT_REUSE:
            o->reuse = 1;
            break;
        case OPT_ARRIVALS:
            if (strcmp(optarg, "fixed") && strcmp(optarg, "poisson"))
                msg_usage("bad --arrivals \"%s\" (fixed or poisson)", optarg);
            o->arrivals = optarg;
            break;
        case OPT_SPOOL:
            o->spool_parent = optarg;
            break;
        case OPT_TARGET:
            if (strchr(optarg, ':') == NULL || strlen(optarg) > 255)
                msg_usage("bad --target \"%s\" (HOST:PORT)", optarg);
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
}

/* ------------------------------------------------------------ one step */

static void notice(const struct sweep *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void notice(const struct sweep *s, const char *fmt, ...)
{
    va_list ap;

    if (s->opts->common.quiet)
        return;
    va_start(ap, fmt);
    fprintf(stderr, "spoolsim sweep: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
}

static void stop_all(struct sweep *s)
{
    drive_stop(&s->source);
    drive_stop(&s->warm);
    drive_stop(&s->relay);
    drive_stop(&s->sink);
}

/* A program did not start or failed: say why, stop everything, remove the directory. */
static _Noreturn void give_up(struct sweep *s, const char *name, const char *what)
{
    struct drive_child *const all[] = {&s->source, &s->warm, &s->relay, &s->sink};

    drive_show_errors(&s->d, name, name);
    drive_give_up(&s->d, all, 4, what);
}

static int start_relay(struct sweep *s, const char *name, const char *spool, int sink_port)
{
    const struct sweep_options *o = s->opts;
    char json[PATH_MAX], portfile[PATH_MAX], hop[64], base[64];
    char *argv[DRIVE_RELAY_ARGS + RELAY_ARGS_MAX + 1];
    int n = 0;

    snprintf(base, sizeof(base), "%s.json", name);
    drive_path(&s->d, base, json);
    snprintf(base, sizeof(base), "%s.port", name);
    drive_path(&s->d, base, portfile);
    snprintf(hop, sizeof(hop), "127.0.0.1:%d", sink_port);
    n = drive_relay_args(argv, &s->d, portfile, spool, hop, json);
    for (size_t i = 0; i < o->n_relay_args; i++)
        argv[n++] = o->relay_args[i];
    argv[n] = NULL;
    if (drive_spawn(&s->d, &s->relay, name, argv) != 0)
        return -1;
    snprintf(base, sizeof(base), "%s.port", name);
    return drive_wait_port(&s->d, &s->relay, base);
}

static int start_source(struct sweep *s, struct drive_child *c, const char *name,
                        const char *target, double rate, double seconds)
{
    const struct sweep_options *o = s->opts;
    char json[PATH_MAX], log[PATH_MAX], base[64], sessions[16], rate_text[32], duration[32];
    char *argv[32];
    int n = 0;

    snprintf(base, sizeof(base), "%s.json", name);
    drive_path(&s->d, base, json);
    snprintf(base, sizeof(base), "%s.log", name);
    drive_path(&s->d, base, log);
    snprintf(sessions, sizeof(sessions), "%u", o->common.sessions);
    snprintf(rate_text, sizeof(rate_text), "%.6g", rate);
    snprintf(duration, sizeof(duration), "%.3fs", seconds);
    argv[n++] = s->source_path;
    argv[n++] = "-s";
    argv[n++] = sessions;
    argv[n++] = "--size";
    argv[n++] = (char *)o->common.size;
    argv[n++] = "--rate";
    argv[n++] = rate_text;
    argv[n++] = "--arrivals";
    argv[n++] = (char *)o->arrivals;
    argv[n++] = "--duration";
    argv[n++] = duration;
    if (o->reuse)
        argv[n++] = "-d";
    argv[n++] = "--timeout";
    argv[n++] = "30s";
    argv[n++] = "--ignore-failures";
    argv[n++] = "--no-summary";
    argv[n++] = "--json";
    argv[n++] = json;
    argv[n++] = "--msg-log";
    argv[n++] = log;
    argv[n++] = (char *)target;
    argv[n] = NULL;
    return drive_spawn(&s->d, c, name, argv);
}

/* Sleep until the clock reaches `until' or a signal comes. */
static void wait_until(uint64_t until)
{
    uint64_t now;

    while (!interrupted && (now = clock_now_ns()) < until) {
        uint64_t us = (until - now) / CLOCK_NS_PER_US;

        usleep(us < 20000 ? (useconds_t)us : 20000);
    }
}

static double number(const char *json, const char *path)
{
    double v = 0;

    if (json == NULL || json_read_number(json, path, &v) != 0)
        return 0;
    return v;
}

/*
 * The window's client: once its offered window is over, it gets the
 * SLO's time (and a little) to see its last replies, then is stopped and
 * writes its report with what it saw.
 */
static void read_client(struct sweep *s, const char *name, struct sweep_step *st)
{
    char path[PATH_MAX], base[64];
    char *json;

    snprintf(base, sizeof(base), "%s.json", name);
    drive_path(&s->d, base, path);
    if ((json = file_read_all(path, NULL)) == NULL)
        give_up(s, name, "smtp-source's report");
    st->sent = number(json, "attempted");
    st->accepted = number(json, "delivered");
    st->m.failures = number(json, "failed");
    st->sent_per_s = st->sent / s->opts->window;
    st->backlog_max = number(json, "backlog_max");
    st->p50_s = number(json, "latency.txn.p50_ms") / 1e3;
    st->m.p99_s = number(json, "latency.txn.p99_ms") / 1e3;
    /* a message still unanswered when the client was stopped counts against the step */
    if (st->sent > st->accepted + st->m.failures)
        st->m.failures += st->sent - st->accepted - st->m.failures;
    free(json);
}

static void read_relay(struct sweep *s, const char *name, struct sweep_step *st)
{
    char path[PATH_MAX], base[64];
    char *json;

    snprintf(base, sizeof(base), "%s.json", name);
    drive_path(&s->d, base, path);
    if ((json = file_read_all(path, NULL)) == NULL)
        return;
    st->e2e_known = 1;
    st->e2e_count = number(json, "latency.end_to_end.count");
    st->e2e_p50_s = number(json, "latency.end_to_end.p50_ms") / 1e3;
    st->e2e_p99_s = number(json, "latency.end_to_end.p99_ms") / 1e3;
    free(json);
}

/*
 * The window's messages the sink has by now (the end of the grace after
 * the window): matched by Message-ID, size and checksum, so that the
 * warm-up's, arriving late, are not counted, and the window's edge loses
 * nothing to the latency.
 */
static double window_delivered(const struct sweep *s, const char *src_name, const char *sink_log)
{
    char path[PATH_MAX], base[64];
    struct msglog_set sent, received;
    struct msglog_compare cmp;

    snprintf(base, sizeof(base), "%s.log", src_name);
    drive_path(&s->d, base, path);
    msglog_set_init(&sent);
    msglog_set_init(&received);
    msglog_set_load(&sent, path);
    msglog_set_load(&received, sink_log);
    msglog_compare(&sent, &received, &cmp);
    msglog_set_free(&sent);
    msglog_set_free(&received);
    return (double)cmp.delivered;
}

static void run_step(struct sweep *s, unsigned i, double rate, struct sweep_step *st)
{
    const struct sweep_options *o = s->opts;
    char spool[PATH_MAX], relay_name[32], sink_name[32], warm_name[32], src_name[32];
    char sink_log[PATH_MAX], base[64], target[300], listen[32];
    struct bench_drain drain;
    struct line_tally sunk = {0, 0};
    double sunk_start = 0;
    int sink_port = 0, have_sink = !o->target || o->sink_port;
    uint64_t t0;

    memset(st, 0, sizeof(*st));
    st->m.offered_per_s = rate;
    st->m.window_s = o->window;
    snprintf(relay_name, sizeof(relay_name), "relay-%u", i + 1);
    snprintf(sink_name, sizeof(sink_name), "sink-%u", i + 1);
    snprintf(warm_name, sizeof(warm_name), "warmup-%u", i + 1);
    snprintf(src_name, sizeof(src_name), "source-%u", i + 1);
    snprintf(spool, sizeof(spool), "%s/spool-%u", s->d.work, i + 1);
    snprintf(base, sizeof(base), "%s.log", sink_name);
    drive_path(&s->d, base, sink_log);

    if (have_sink) {
        if (o->target)
            snprintf(listen, sizeof(listen), "127.0.0.1:%u", o->sink_port);
        else
            snprintf(listen, sizeof(listen), "127.0.0.1:0");
        if ((sink_port = drive_start_sink(&s->d, &s->sink, s->sink_path, sink_name, listen, 0,
                                          o->sink_delay[0] ? o->sink_delay : NULL)) < 0)
            give_up(s, sink_name, "smtp-sink");
    }
    if (o->target) {
        snprintf(target, sizeof(target), "%s", o->target);
    } else {
        int relay_port = start_relay(s, relay_name, spool, sink_port);

        if (relay_port < 0)
            give_up(s, relay_name, "spoolsim relay");
        snprintf(target, sizeof(target), "127.0.0.1:%d", relay_port);
        if (i == 0)
            fsinfo_lookup(spool, &s->fs);
        bench_drain_init(&drain, profile_find(o->profile), spool, NULL, sink_log);
    }
    notice(s, "step %u: %.6g msgs/s offered...", i + 1, rate);

    t0 = clock_now_ns();
    if (o->warmup > 0) {
        if (start_source(s, &s->warm, warm_name, target, rate, o->warmup) != 0)
            give_up(s, warm_name, "smtp-source");
        wait_until(t0 + (uint64_t)(o->warmup * 1e9));
    }
    if (start_source(s, &s->source, src_name, target, rate, o->window) != 0)
        give_up(s, src_name, "smtp-source");
    if (have_sink)
        sunk_start = (double)line_tally_update(&sunk, sink_log);
    if (!o->target && !profile_find(o->profile)->no_io) {
        st->m.queue_known = 1;
        st->m.queue_start = (double)bench_drain_pending(&drain);
    }
    wait_until(t0 + (uint64_t)((o->warmup + o->window) * 1e9));
    if (have_sink)
        st->arrived_per_s = ((double)line_tally_update(&sunk, sink_log) - sunk_start) / o->window;
    if (st->m.queue_known)
        st->m.queue_end = (double)bench_drain_pending(&drain);
    /* the clients' last replies: at most the SLO and a second more, then stopped */
    for (uint64_t end = clock_now_ns() + (uint64_t)((o->slo + 1) * 1e9);
         !interrupted && s->source.pid > 0 && clock_now_ns() < end;)
        if (waitpid(s->source.pid, NULL, WNOHANG) == s->source.pid)
            s->source.pid = 0;
        else
            usleep(20000);
    drive_stop(&s->source);
    drive_stop(&s->warm);
    if (interrupted)
        return;
    read_client(s, src_name, st);
    if (!o->target)
        st->m.delivered_per_s = window_delivered(s, src_name, sink_log) / o->window;
    else if (have_sink)
        st->m.delivered_per_s = st->arrived_per_s; /* a real MTA changes the messages it relays */
    else
        st->m.delivered_per_s = st->accepted / o->window; /* acceptance */
    drive_stop(&s->relay);
    drive_stop(&s->sink);
    if (!o->target)
        read_relay(s, relay_name, st);
    if (!o->common.keep)
        tree_remove(spool);
    st->reason = sweep_judge(&st->m, o->slo);
}

/* ------------------------------------------------------------ the report */

static void describe(const struct sweep *s, char *out, size_t len)
{
    const struct sweep_options *o = s->opts;
    size_t used;

    if (o->target) {
        snprintf(out, len, "%s%s", o->target,
                 o->sink_port ? ", its deliveries to smtp-sink measured" : ", acceptance measured");
        return;
    }
    used = (size_t)snprintf(out, len, "spoolsim relay");
    for (size_t i = 0; i < o->n_relay_args && used < len; i++)
        used += (size_t)snprintf(out + used, len - used, " %s", o->relay_args[i]);
    if (used < len)
        snprintf(out + used, len - used, ", next hop smtp-sink");
}

static void print_report(const struct sweep *s, const struct sweep_search *search, FILE *fp)
{
    const struct sweep_options *o = s->opts;
    char what[1024], where[1200], why[160];
    double knee = sweep_search_knee(search), broke = sweep_search_broke(search);

    describe(s, what, sizeof(what));
    fprintf(fp, "sweep:      %s\n", what);
    if (!o->target) {
        fsinfo_describe(&s->fs, where, sizeof(where));
        fprintf(fp, "spool:      %s\n", where);
        if (fsinfo_note(&s->fs))
            fprintf(fp, "note:       %s\n", fsinfo_note(&s->fs));
    }
    fprintf(
        fp,
        "steps:      open loop (%s arrivals), %u sessions, size %s, warm-up %.1f s, window %.1f s, "
        "SLO p99 %.0f ms\n",
        o->arrivals, o->common.sessions, o->common.size, o->warmup, o->window, o->slo * 1e3);
    fprintf(fp, "%4s %9s %9s %11s %9s %9s %9s %9s %7s %7s %8s %6s  %s\n", "step", "offered/s",
            "sent/s", "delivered/s", "p50 ms", "p99 ms", "e2e p50", "e2e p99", "queue0", "queue1",
            "growth/s", "failed", "verdict");
    for (unsigned i = 0; i < s->n_steps; i++) {
        const struct sweep_step *st = &s->steps[i];
        char e50[16] = "-", e99[16] = "-", q0[16] = "-", q1[16] = "-", g[16] = "-";

        if (st->e2e_known) {
            snprintf(e50, sizeof(e50), "%.1f", st->e2e_p50_s * 1e3);
            snprintf(e99, sizeof(e99), "%.1f", st->e2e_p99_s * 1e3);
        }
        if (st->m.queue_known) {
            snprintf(q0, sizeof(q0), "%.0f", st->m.queue_start);
            snprintf(q1, sizeof(q1), "%.0f", st->m.queue_end);
            snprintf(g, sizeof(g), "%.1f", sweep_growth_per_s(&st->m));
        }
        sweep_reason_text(st->reason, &st->m, o->slo, why, sizeof(why));
        fprintf(fp, "%4u %9.1f %9.1f %11.1f %9.1f %9.1f %9s %9s %7s %7s %8s %6.0f  %s\n", i + 1,
                st->m.offered_per_s, st->sent_per_s, st->m.delivered_per_s, st->p50_s * 1e3,
                st->m.p99_s * 1e3, e50, e99, q0, q1, g, st->m.failures, why);
    }
    if (knee > 0)
        fprintf(fp,
                "knee:       %.6g msgs/s (delivered >= 99 %% of offered, queue steady, no "
                "failures, p99 <= %.0f ms)",
                knee, o->slo * 1e3);
    else
        fprintf(fp, "knee:       none: no step held");
    if (broke > 0) {
        for (unsigned i = 0; i < s->n_steps; i++)
            if (s->steps[i].m.offered_per_s == broke && s->steps[i].reason != SWEEP_HELD) {
                sweep_reason_text(s->steps[i].reason, &s->steps[i].m, o->slo, why, sizeof(why));
                fprintf(fp, "; broke at %.6g msgs/s (step %u): %s\n", broke, i + 1, why);
                break;
            }
    } else {
        fprintf(fp, "; every step held (no rate broke it: try higher rates)\n");
    }
}

static const char *const reason_keys[] = {"held", "fell_behind", "queue_grew", "failures", "slo"};

static int write_json(const struct sweep *s, const struct sweep_search *search)
{
    const struct sweep_options *o = s->opts;
    FILE *fp = strcmp(o->common.json, "-") == 0 ? stdout : fopen(o->common.json, "w");
    double knee = sweep_search_knee(search), broke = sweep_search_broke(search);
    char why[160];
    struct json_writer w;
    int status;

    if (fp == NULL)
        return -1;
    json_init(&w, fp);
    json_begin_object(&w, NULL);
    json_meta_write(&w, o->run);
    if (o->target)
        json_string(&w, "spool", NULL);
    else
        json_meta_write_spool(&w, "spool", s->d.work, &s->fs);
    json_string(&w, "mode", o->n_rates ? "list" : "auto");
    json_string(&w, "target", o->target);
    if (o->sink_port)
        json_uint(&w, "sink_port", o->sink_port);
    else
        json_string(&w, "sink_port", NULL);
    json_begin_inline_array(&w, "relay_options");
    for (size_t i = 0; i < o->n_relay_args; i++)
        json_string(&w, NULL, o->relay_args[i]);
    json_end_array(&w);
    json_uint(&w, "sessions", o->common.sessions);
    json_string(&w, "size", o->common.size);
    json_bool(&w, "reuse", o->reuse);
    json_string(&w, "arrivals", o->arrivals);
    json_double(&w, "warmup_s", o->warmup);
    json_double(&w, "window_s", o->window);
    json_double(&w, "slo_s", o->slo);
    json_begin_array(&w, "steps");
    for (unsigned i = 0; i < s->n_steps; i++) {
        const struct sweep_step *st = &s->steps[i];

        json_begin_object(&w, NULL);
        json_double(&w, "offered_per_s", st->m.offered_per_s);
        json_double(&w, "sent", st->sent);
        json_double(&w, "sent_per_s", st->sent_per_s);
        json_double(&w, "accepted", st->accepted);
        json_double(&w, "delivered_per_s", st->m.delivered_per_s);
        json_double(&w, "arrived_per_s", st->arrived_per_s);
        json_double(&w, "failed", st->m.failures);
        json_double(&w, "backlog_max", st->backlog_max);
        json_double(&w, "p50_ms", st->p50_s * 1e3);
        json_double(&w, "p99_ms", st->m.p99_s * 1e3);
        if (st->e2e_known) {
            json_double(&w, "end_to_end_count", st->e2e_count);
            json_double(&w, "end_to_end_p50_ms", st->e2e_p50_s * 1e3);
            json_double(&w, "end_to_end_p99_ms", st->e2e_p99_s * 1e3);
        } else {
            json_string(&w, "end_to_end_count", NULL);
            json_string(&w, "end_to_end_p50_ms", NULL);
            json_string(&w, "end_to_end_p99_ms", NULL);
        }
        if (st->m.queue_known) {
            json_double(&w, "queue_start", st->m.queue_start);
            json_double(&w, "queue_end", st->m.queue_end);
            json_double(&w, "queue_growth_per_s", sweep_growth_per_s(&st->m));
        } else {
            json_string(&w, "queue_start", NULL);
            json_string(&w, "queue_end", NULL);
            json_string(&w, "queue_growth_per_s", NULL);
        }
        json_bool(&w, "held", st->reason == SWEEP_HELD);
        json_string(&w, "reason", reason_keys[st->reason]);
        sweep_reason_text(st->reason, &st->m, o->slo, why, sizeof(why));
        json_string(&w, "reason_text", why);
        json_end_object(&w);
    }
    json_end_array(&w);
    if (knee > 0)
        json_double(&w, "knee_per_s", knee);
    else
        json_string(&w, "knee_per_s", NULL);
    if (broke > 0)
        json_double(&w, "broke_per_s", broke);
    else
        json_string(&w, "broke_per_s", NULL);
    json_end_object(&w);
    status = json_finish(&w);
    status |= fp == stdout ? fflush(fp) : fclose(fp);
    return status;
}

int spoolsim_sweep(int argc, char **argv)
{
    struct sweep_options opts;
    struct sweep_search search;
    struct json_run run;
    struct sweep *s = calloc(1, sizeof(*s)); /* the steps are large for the stack */
    double rate;
    int status;

    if (s == NULL)
        msg_fatal("out of memory");
    json_run_init(&run, "spoolsim sweep", "spoolsim", argc, argv);
    parse_options(&opts, argc, argv);
    opts.run = &run;
    s->opts = &opts;
    s->d.keep = opts.common.keep;
    drive_find_self(&s->d);
    if (!opts.target || opts.sink_port)
        spoolsim_find_program(s->d.self, "smtp-sink", "SPOOLSIM_SMTP_SINK", s->sink_path,
                              sizeof(s->sink_path));
    spoolsim_find_program(s->d.self, "smtp-source", "SPOOLSIM_SMTP_SOURCE", s->source_path,
                          sizeof(s->source_path));
    interrupt_install();
    drive_make_work_dir(&s->d, opts.spool_parent, "--spool", "sweep");
    notice(s, "work directory %s", s->d.work);
    if (opts.n_rates)
        sweep_search_init_list(&search, opts.rates, opts.n_rates);
    else
        sweep_search_init_auto(&search, opts.start, opts.factor, opts.tolerance, opts.max_steps);
    while (!interrupted && (rate = sweep_search_next(&search)) > 0) {
        struct sweep_step *st = &s->steps[s->n_steps];

        run_step(s, s->n_steps, rate, st);
        if (interrupted)
            break;
        s->n_steps++;
        sweep_search_record(&search, rate, st->reason == SWEEP_HELD);
    }
    stop_all(s);
    if (interrupted)
        interrupt_print_partial(stdout);
    print_report(s, &search, stdout);
    if (opts.common.json && !interrupted && write_json(s, &search) != 0)
        msg_warn("cannot write %s: %s", opts.common.json, strerror(errno));
    if (opts.common.keep)
        fprintf(stderr, "spoolsim sweep: kept %s\n", s->d.work);
    drive_remove_work(&s->d);
    json_run_free(&run);
    free(s);
    status = interrupt_flush_stdout();
    if (interrupted)
        return interrupt_exit_status();
    return status != 0 ? 1 : 0;
}
