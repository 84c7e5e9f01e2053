/*
 * bench - `spoolsim bench': the main job in one command.
 *
 * It makes a private directory (in --spool DIR, or in $TMPDIR), starts
 * smtp-sink and `spoolsim relay' on free loopback ports, drives the relay
 * with smtp-source for a bounded time, waits until the spool is empty,
 * stops everything by PID, removes what it made, and reports injected and
 * delivered messages/s, end-to-end latency, fsyncs, the filesystem and
 * its mount options, each program's CPU per message (from its own
 * report) with a warning when the harness was the limit, and whether every
 * acknowledged message arrived exactly once (from the client's and the
 * sink's per-message logs). The three programs run as separate
 * processes, as a real MTA's peers would.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "exit_status.h"
#include "clock.h"
#include "cost_model.h"
#include "disk_probe.h"
#include "drive.h"
#include "fileutil.h"
#include "fsinfo.h"
#include "interrupt.h"
#include "json.h"
#include "json_meta.h"
#include "json_read.h"
#include "msg.h"
#include "msglog.h"
#include "netem.h"
#include "optarg.h"
#include "optgroup.h"
#include "pf_spool.h"
#include "bench_compare.h"
#include "bench_repeat.h"
#include "bench_check.h"
#include "bench_compare_report.h"
#include "bench_drain.h"
#include "bench_mta.h"
#include "bench_options.h"
#include "bench_report.h"
#include "profile.h"
#include "progress_out.h"
#include "relay_limits.h"
#include "spoolsim.h"
#include "xalloc.h"

struct bench {
    const struct bench_options *opts;
    struct drive d; /* this program, the work directory */
    char spool[PATH_MAX];
    char sink_path[PATH_MAX], source_path[PATH_MAX];
    struct drive_child sink, relay, source;
    struct netem_hop hop;    /* the sink's namespace and links, while made */
    struct netem_hop client; /* smtp-source's, for --client-delay */

    /* the status line: bench's phase and time, then the relay's own fields */
    struct progress_out progress;
    const char *phase;       /* "load", "drain" */
    uint64_t t_phase;        /* when the load began */
    struct line_tally acked; /* -m: the client's acknowledged messages */
};

/*
 * SIGINT and SIGTERM set interrupt_signal() (interrupt.h); every wait below
 * checks it, stops the children and reports what was done, as partial.
 */
#define interrupted (interrupt_signal() != 0)

/* ------------------------------------------------------------ the run */

/* A component did not start: say why, stop the others, remove the directory. */
static _Noreturn void give_up(struct bench *b, const char *name, const char *what)
{
    struct drive_child *const all[] = {&b->source, &b->relay, &b->sink};
    char err[PATH_MAX];

    drive_show_errors(&b->d, name, name);
    for (size_t i = 0; i < 3; i++)
        drive_stop(all[i]); /* the sink may be in the namespace: it goes before it */
    drive_path(&b->d, "netem.err", err);
    netem_down(&b->hop, err);
    netem_down(&b->client, err);
    drive_give_up(&b->d, all, 3, what);
}

/* A notice of bench's own, on a line of its own, unless -q. */
#define notice(b, ...)                                                                             \
    progress_out_notice(&(b)->progress, (b)->opts->common.quiet, "spoolsim bench", __VA_ARGS__)

/*
 * Side `side' (the sink's or the client's, called `who') behind netem:
 * BENCH_HOP_NETEM with `where' said, or BENCH_HOP_EMULATED with `why'.
 */
static enum bench_hop_kind net_up(struct bench *b, struct netem_hop *h, enum netem_side side,
                                  const struct netem_spec *spec, const char *who, char *where,
                                  char *why)
{
    char err[PATH_MAX];

    drive_path(&b->d, "netem.err", err);
    if (netem_up(h, side, (unsigned)getpid(), spec, err) == 0) {
        snprintf(where, BENCH_WHERE_MAX, "namespace %s, %s at %s", h->plan.ns, who,
                 h->plan.addr_ns);
        notice(b, "%s: %s", side == NETEM_SIDE_HOP ? "next hop" : "client", where);
    }
    if (interrupted)
        give_up(b, "netem", side == NETEM_SIDE_HOP ? "the network hop" : "the client's network");
    if (h->made)
        return BENCH_HOP_NETEM;
    snprintf(why, BENCH_WHY_MAX, "%s", h->why);
    return BENCH_HOP_EMULATED;
}

/*
 * The hop, when one is asked for: netem where it can be had, else the
 * sink's delays (saying why), else, for what delays cannot emulate, a
 * usage error before anything runs.
 */
static void setup_hop(struct bench *b, struct bench_results *res)
{
    const struct bench_options *o = b->opts;
    const char *cannot;

    res->hop = BENCH_HOP_LOOPBACK;
    if (!netem_spec_wanted(&o->hop))
        return;
    res->hop = net_up(b, &b->hop, NETEM_SIDE_HOP, &o->hop, "sink", res->hop_where, res->hop_why);
    if (res->hop == BENCH_HOP_NETEM)
        return;
    if ((cannot = netem_fallback_cannot(&o->hop)) != NULL) {
        drive_remove_work(&b->d);
        msg_usage("%s needs netem, and there is none to be had here (%s); the sink's delays "
                  "emulate only --hop-delay",
                  cannot, res->hop_why);
    }
    notice(b, "next hop: emulated by sink delays, not a network (%s)", res->hop_why);
}

/*
 * The client's side, as the hop's: smtp-source in a namespace behind netem,
 * else the relay holding each reply for the round trip (relay_smtpd_hold.h says
 * why that is faithful for the relay's capacity, and what it leaves out);
 * jitter, which the relay cannot hold, is a usage error without netem.
 */
static void setup_client(struct bench *b, struct bench_results *res)
{
    const struct bench_options *o = b->opts;
    char err[PATH_MAX];

    res->client = BENCH_HOP_LOOPBACK;
    if (!netem_spec_wanted(&o->client))
        return;
    res->client = net_up(b, &b->client, NETEM_SIDE_CLIENT, &o->client, "client", res->client_where,
                         res->client_why);
    if (res->client == BENCH_HOP_NETEM)
        return;
    if (o->client.jitter_s > 0) {
        drive_path(&b->d, "netem.err", err);
        netem_down(&b->hop, err);
        drive_remove_work(&b->d);
        msg_usage("--client-jitter needs netem, and there is none to be had here (%s); the "
                  "relay's reply delays emulate only --client-delay",
                  res->client_why);
    }
    notice(b, "client: emulated by relay reply delays, not a network (%s)", res->client_why);
}

static void start_sink(struct bench *b, enum bench_hop_kind hop, int *port)
{
    char log[PATH_MAX], portfile[PATH_MAX], json[PATH_MAX], listen[32], delays[16][32];
    char threads[16];
    char *argv[40];
    int n = 0;
    size_t nd = 0;

    drive_path(&b->d, "sink.log", log);
    drive_path(&b->d, "sink.port", portfile);
    snprintf(listen, sizeof(listen), "%s:0",
             hop == BENCH_HOP_NETEM ? b->hop.plan.addr_ns : "127.0.0.1");
    if (hop == BENCH_HOP_NETEM) {
        /* ip netns exec execs the sink: the PID bench stops is the sink's */
        argv[n++] = (char *)b->hop.plan.ip;
        argv[n++] = "netns";
        argv[n++] = "exec";
        argv[n++] = b->hop.plan.ns;
    }
    argv[n++] = b->sink_path;
    if (hop == BENCH_HOP_EMULATED)
        nd = netem_sink_delays(&b->opts->hop, delays, 16);
    for (size_t i = 0; i < nd; i++)
        argv[n++] = delays[i];
    argv[n++] = "--no-summary";
    argv[n++] = "--port-file";
    argv[n++] = portfile;
    argv[n++] = "--msg-log";
    argv[n++] = log;
    drive_path(&b->d, "sink.json", json);
    argv[n++] = "--json"; /* its own CPU, for CPU per message */
    argv[n++] = json;
    snprintf(threads, sizeof(threads), "%u", b->opts->harness_threads);
    argv[n++] = "--threads";
    argv[n++] = threads;
    if (b->opts->tls)
        argv[n++] = "--tls";
    argv[n++] = listen;
    argv[n++] = "1000";
    argv[n] = NULL;
    if (drive_spawn(&b->d, &b->sink, "sink", argv) != 0 ||
        (*port = drive_wait_port(&b->d, &b->sink, "sink.port")) < 0)
        give_up(b, "sink", "smtp-sink");
}

/*
 * A model measured on another machine can be 2 to 5 times off here
 * (docs/fidelity.md): with --calibrate, have `spoolsim calibrate' measure
 * this machine's model of the profile's MTA (Postfix, Exim) before the
 * run, unless the cache has it (--recalibrate: anew). As root it is the
 * default (it takes a minute or two, once, and fetches the MTA's
 * package); elsewhere, or with --no-calibrate, the report says whose
 * model it ran.
 */
static void calibrate_first(struct bench *b)
{
    const struct bench_options *o = b->opts;
    char mta[32];
    char *argv[] = {b->d.self, "calibrate", mta, "--if-needed", NULL};
    int status;
    pid_t pid;

    if (!bench_check_calibrates(o, mta, sizeof(mta)))
        return;
    if (!o->common.quiet && o->calibrate == BENCH_CALIBRATE_IF_NEEDED)
        notice(b,
               "the %s model, measured on this machine if the cache has none yet (a minute, "
               "once; --no-calibrate runs without)",
               mta);
    if (o->calibrate == BENCH_CALIBRATE_AGAIN)
        argv[3] = NULL;
    fflush(NULL);
    if ((pid = fork()) < 0)
        msg_fatal("fork: %s", strerror(errno));
    if (pid == 0) {
        dup2(STDERR_FILENO, STDOUT_FILENO); /* bench's report alone on standard output */
        execv(b->d.self, argv);
        _exit(127);
    }
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            msg_fatal("waitpid: %s", strerror(errno));
    if (interrupted)
        return;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        msg_warn("calibrating here failed: the relay's model may be another machine's");
}

static void start_relay(struct bench *b, int sink_port, int *port)
{
    const struct bench_options *o = b->opts;
    char json[PATH_MAX], portfile[PATH_MAX], hop[64], interval[32], listen[32], hold[32];
    char *argv[44];
    int n = 0;

    drive_path(&b->d, "relay.json", json);
    drive_path(&b->d, "relay.port", portfile);
    snprintf(hop, sizeof(hop), "%s:%d", b->hop.made ? b->hop.plan.addr_ns : "127.0.0.1", sink_port);
    n = drive_relay_args(argv, &b->d, portfile, b->spool, o->discard ? "discard" : hop, json);
    n = bench_check_relay_args(o, argv, n);
    snprintf(interval, sizeof(interval), "%.6f", o->common.interval);
    argv[n++] = "--interval"; /* bench's timeline is the relay's */
    argv[n++] = interval;
    if (progress_out_on(&b->progress))
        argv[n++] = "--progress"; /* its status lines, in relay.err, for bench's */
    if (b->client.made) {         /* the client comes from its namespace, to the host's end */
        snprintf(listen, sizeof(listen), "%s:0", b->client.plan.addr_host);
        argv[n++] = "--listen"; /* after drive_relay_args()'s: the last one counts */
        argv[n++] = listen;
    } else if (o->client.delay_s > 0) {
        snprintf(hold, sizeof(hold), "%.6f", o->client.delay_s);
        argv[n++] = "--reply-delay";
        argv[n++] = hold;
    }
    argv[n] = NULL;
    if (drive_spawn(&b->d, &b->relay, "relay", argv) != 0 ||
        (*port = drive_wait_port(&b->d, &b->relay, "relay.port")) < 0)
        give_up(b, "relay", "spoolsim relay");
}

/*
 * --mta: the real MTA where the relay was, its queue at the spool, run by
 * bench/mta-serve.sh (fetched, configured and stopped as calibrate does).
 * Its unprivileged daemons reach the queue through the work directory,
 * which mkdtemp made for its owner alone: they may pass through it now.
 */
/* --mta: the real MTA where the relay was (bench_mta.h). */
static void start_mta(struct bench *b, int sink_port, int *port)
{
    if ((*port = bench_mta_start(&b->d, &b->relay, b->opts->mta, b->spool, sink_port)) < 0)
        give_up(b, "mta", b->opts->mta);
}

static void start_source(struct bench *b, int relay_port)
{
    const struct bench_options *o = b->opts;
    char json[PATH_MAX], log[PATH_MAX], target[64];
    struct drive_load_text load;
    char threads[16], seed[24];
    char *argv[48];
    int n = 0;

    drive_path(&b->d, "source.json", json);
    drive_path(&b->d, "source.log", log);
    snprintf(target, sizeof(target), "%s:%d",
             b->client.made ? b->client.plan.addr_host : "127.0.0.1", relay_port);
    if (b->client.made) {
        /* ip netns exec execs the source: the PID bench waits for is the source's */
        argv[n++] = (char *)b->client.plan.ip;
        argv[n++] = "netns";
        argv[n++] = "exec";
        argv[n++] = b->client.plan.ns;
    }
    argv[n++] = b->source_path;
    n += drive_source_load_args(argv + n, &o->common, &load);
    snprintf(threads, sizeof(threads), "%u", o->harness_threads);
    argv[n++] = "--threads";
    argv[n++] = threads;
    if (o->reuse)
        argv[n++] = "-d";
    if (o->rate) {
        argv[n++] = "--rate";
        argv[n++] = (char *)o->rate;
        argv[n++] = "--arrivals";
        argv[n++] = (char *)o->arrivals;
    }
    snprintf(seed, sizeof(seed), "%llu", (unsigned long long)o->common.seed);
    argv[n++] = "--seed";
    argv[n++] = seed;
    if (o->tls)
        argv[n++] = "--tls";
    argv[n++] = "--ignore-failures";
    argv[n++] = "--json";
    argv[n++] = json;
    argv[n++] = "--msg-log";
    argv[n++] = log;
    argv[n++] = target;
    argv[n] = NULL;
    if (drive_spawn(&b->d, &b->source, "source", argv) != 0)
        give_up(b, "source", "smtp-source");
}

/*
 * Bench's phase, its time and ETA (the load's, from --duration or from
 * the messages acknowledged of --messages), then what the relay's last
 * status line says: rates, queues, p99 end to end, failures.
 */
static void show_progress(void *arg)
{
    struct bench *b = arg;
    const struct bench_options *o = b->opts;
    char label[32], text[PROGRESS_LINE_MAX], relay[PROGRESS_LINE_MAX];
    struct progress_stats ps = {
        .label = label,
        .elapsed_s = (double)(clock_now_ns() - b->t_phase) / 1e9,
        .eta_s = -1,
    };

    snprintf(label, sizeof(label), "bench %s", b->phase);
    if (strcmp(b->phase, "load") == 0) {
        if (o->common.messages) {
            char log[PATH_MAX];

            drive_path(&b->d, "source.log", log);
            ps.done = bench_drain_tally_update(&b->acked, log);
            ps.total = o->common.messages;
            ps.count_noun = "msgs";
            ps.eta_s = progress_eta_count(ps.elapsed_s, ps.done, ps.total);
        } else {
            ps.eta_s = progress_eta_time(ps.elapsed_s, o->common.duration);
        }
    }
    progress_format(&ps, text, sizeof(text));
    if (drive_last_progress(&b->d, "relay", relay, sizeof(relay)) == 0)
        progress_append(text, sizeof(text), progress_fields(relay));
    progress_out_show(&b->progress, text);
}

int spoolsim_bench(int argc, char **argv)
{
    struct bench_options opts;
    struct bench b;
    struct bench_results res;
    uint64_t t_load, t_loaded, t_drained, deadline, next_show;
    struct bench_drain drain;
    struct json_run run;
    char sent_log[PATH_MAX], sink_log[PATH_MAX], hop_err[PATH_MAX];
    unsigned char *skip; /* the argv elements --compare's runs are not given */
    const char *parent;
    int sink_port, relay_port, status, unsaved = 0;
    FILE *text;

    json_meta_run_init(&run, "spoolsim bench", "spoolsim", argc, argv);
    skip = xcalloc((size_t)argc + 1, 1);
    bench_options_parse(&opts, argc, argv, skip);
    bench_options_check_harness_threads(&opts);
    drive_raise_fd_limit(opts.common.sessions);
    opts.run = &run;
    memset(&b, 0, sizeof(b));
    memset(&res, 0, sizeof(res));
    b.opts = &opts;
    b.d.keep = opts.common.keep;
    drive_find_self(&b.d);
    companion_find_program(b.d.self, "smtp-sink", "SPOOLSIM_SMTP_SINK", b.sink_path,
                           sizeof(b.sink_path));
    companion_find_program(b.d.self, "smtp-source", "SPOOLSIM_SMTP_SOURCE", b.source_path,
                           sizeof(b.source_path));
    interrupt_install();
    progress_out_init(&b.progress, stderr, opts.common.progress);
    progress_out_hook_messages(&b.progress);
    text = json_meta_text_stream(opts.common.json);

    parent = bench_check_before(&opts, &b.d);
    if (opts.common.dry_run) {
        free(skip);
        bench_check_dry_run(&opts, parent);
    }
    optgroup_forget_results(&opts.common);
    if (!opts.mta)
        calibrate_first(&b);
    if (interrupted) {
        interrupt_print_partial(stdout);
        return interrupt_exit_status();
    }
    if (opts.compare) {
        status = bench_compare_main(&opts, &b.d, argc, argv, skip);
        free(skip);
        json_meta_run_free(&run);
        return status;
    }
    if (opts.runs_given) {
        status = bench_repeat_main(&opts, &b.d, argc, argv, skip);
        free(skip);
        json_meta_run_free(&run);
        return status;
    }
    free(skip);
    /* the logs away from the spool's filesystem: a full spool must not cut them (issue 35) */
    drive_make_work_dir(&b.d, NULL, "TMPDIR", "bench");
    drive_make_spool_dir(&b.d, opts.spool_parent, "--spool", "spool", b.spool);
    notice(&b, "work directory %s", b.d.work);
    if (b.d.spool_dir[0])
        notice(&b, "spool %s", b.spool);
    setup_hop(&b, &res);
    setup_client(&b, &res);
    if (opts.discard)
        sink_port = 0;
    else
        start_sink(&b, res.hop, &sink_port);
    if (opts.mta)
        start_mta(&b, sink_port, &relay_port);
    else
        start_relay(&b, sink_port, &relay_port);
    fsinfo_lookup(b.spool, &res.fs);
    disk_probe_begin(&res.disk, b.spool, &res.fs); /* the load's and the drain's I/O from here */
    if (opts.common.messages)
        notice(&b, "injecting %llu messages...", (unsigned long long)opts.common.messages);
    else
        notice(&b, "injecting for %.1f s...", opts.common.duration);
    t_load = clock_now_ns();
    b.phase = "load";
    b.t_phase = t_load;
    start_source(&b, relay_port);
    /* stopped at an interrupt */
    if (progress_out_on(&b.progress))
        res.source_status = drive_exit_status(drive_reap_every(&b.source, 1.0, show_progress, &b));
    else
        res.source_status = drive_exit_status(drive_reap(&b.source));
    t_loaded = clock_now_ns();
    if (!interrupted)
        notice(&b, "draining the queue...");
    b.phase = "drain";
    next_show = t_loaded + CLOCK_NS_PER_SEC;
    deadline = t_loaded + (uint64_t)(opts.drain_timeout * 1e9);
    drive_path(&b.d, "source.log", sent_log);
    drive_path(&b.d, "sink.log", sink_log);
    bench_drain_init(&drain, profile_find(opts.profile), b.spool, sent_log,
                     opts.discard ? NULL : sink_log);
    while (!interrupted && !(res.drained = bench_drain_pending(&drain) == 0) &&
           clock_now_ns() < deadline) {
        usleep(10000);
        if (progress_out_on(&b.progress) && clock_now_ns() >= next_show) {
            show_progress(&b);
            next_show += CLOCK_NS_PER_SEC;
        }
    }
    t_drained = clock_now_ns();
    disk_probe_end(&res.disk, 0);    /* per injected message: bench_report_read() counts them */
    progress_out_clear(&b.progress); /* no partial line before the report */
    res.relay_status = drive_exit_status(drive_stop(&b.relay));
    drive_stop(&b.sink);
    drive_path(&b.d, "netem.err", hop_err);
    netem_down(&b.hop, hop_err);    /* the sink is gone: its namespace goes too */
    netem_down(&b.client, hop_err); /* and the source, long since */
    res.cpu_relay_s = b.relay.cpu_s;
    res.cpu_source_s = b.source.cpu_s;
    res.cpu_sink_s = b.sink.cpu_s;
    res.load_s = (double)(t_loaded - t_load) / 1e9;
    res.drain_s = (double)(t_drained - t_loaded) / 1e9;
    res.total_s = (double)(t_drained - t_load) / 1e9;
    bench_report_read(&b.d, &res);
    if (res.source_status != 0 || res.relay_status != 0) {
        drive_show_errors(&b.d, "source", "source");
        drive_show_errors(&b.d, "relay", "relay");
    }
    if (interrupted)
        interrupt_print_partial(text);
    bench_report_print(&opts, b.spool, &res, text);
    /* A partial run's JSON would read as a whole one: none is written. */
    if (!interrupted)
        unsaved = bench_report_save(&opts, b.spool, &res) != 0;
    timeline_free(&res.timeline);
    if (opts.common.keep)
        fprintf(stderr, "spoolsim bench: kept %s%s%s\n", b.d.work, b.d.spool_dir[0] ? " and " : "",
                b.d.spool_dir);
    drive_remove_work(&b.d);
    json_meta_run_free(&run);
    status = interrupt_flush_stdout();
    if (interrupted)
        return interrupt_exit_status();
    if (res.relay_status != 0 || res.source_status == EXIT_STATUS_INCOMPLETE)
        return EXIT_STATUS_INCOMPLETE;
    if (status != 0 || unsaved || res.source_status != 0)
        return EXIT_STATUS_BAD; /* no result to read, or messages that failed */
    return opts.discard || bench_report_exactly_once(&res) ? EXIT_STATUS_OK : EXIT_STATUS_BAD;
}
