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
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "exit_status.h"
#include "bench_drain.h"
#include "clock.h"
#include "drive.h"
#include "fileutil.h"
#include "fsinfo.h"
#include "interrupt.h"
#include "json_meta.h"
#include "json_read.h"
#include "msg.h"
#include "msglog.h"
#include "optarg.h"
#include "progress_out.h"
#include "spool_backend.h"
#include "spoolsim.h"
#include "sweep.h"
#include "sweep_search.h"

#define interrupted (interrupt_signal() != 0)

/* smtp-source's --timeout: a reply slower than this fails its message */
#define SOURCE_TIMEOUT_S 30

/* ------------------------------------------------------------ one step */

/* A notice of sweep's own, unless -q. */
#define notice(s, ...)                                                                             \
    progress_out_notice(&(s)->progress, (s)->opts->common.quiet, "spoolsim sweep", __VA_ARGS__)

/*
 * The status line: "step 3/12 at 400 msgs/s: window | 1:05 elapsed | ETA
 * 0:04", the time left being the step's (the steps to come are not known
 * in advance when the search grows and bisects; a list's are: its steps
 * left at this step's length are added).
 */
static void show_progress(struct sweep *s)
{
    const struct sweep_options *o = s->opts;
    uint64_t now = clock_now_ns();
    double step_s = o->warmup + o->window + o->slo + 1, in_step, left;
    char label[96], text[256];
    struct progress_stats ps = {0};

    if (!progress_out_on(&s->progress) || now < s->next_show_ns)
        return;
    s->next_show_ns = now + CLOCK_NS_PER_SEC;
    in_step = (double)(now - s->step_start_ns) / 1e9;
    left = in_step < step_s ? step_s - in_step : 0;
    if (o->n_rates)
        left += step_s * (double)(o->n_rates - s->n_steps - 1);
    snprintf(label, sizeof(label), "step %u/%u at %.6g msgs/s: %s", s->n_steps + 1,
             o->n_rates ? (unsigned)o->n_rates : o->max_steps, s->rate, s->phase);
    ps.label = label;
    ps.elapsed_s = (double)(now - s->start_ns) / 1e9;
    ps.eta_s = left;
    progress_format(&ps, text, sizeof(text));
    progress_out_show(&s->progress, text);
}

/* Whether the child has exited, leaving it to be reaped (its usage recorded) by drive_reap. */
static int exited(const struct drive_child *c)
{
    siginfo_t info;

    memset(&info, 0, sizeof(info));
    return c->pid <= 0 || (waitid(P_PID, (id_t)c->pid, &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
                           info.si_pid == c->pid);
}

/*
 * A client whose step is over: stopped at once, with what it saw in its
 * report. smtp-source's first signal only lets what is in flight finish,
 * within its reply timeout, and a target that never greets keeps every
 * session in flight for all of it; the grace after the window was the
 * time to finish, so a second signal stops it now. The pause between the
 * two keeps them from merging into one pending signal.
 */
static void stop_client(struct drive_child *c)
{
    if (c->pid <= 0)
        return;
    kill(c->pid, SIGTERM);
    for (int i = 0; i < 15 && !exited(c); i++)
        usleep(20000);
    if (!exited(c))
        kill(c->pid, SIGTERM);
    drive_reap(c);
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
    char timeout[16], seed[24], *argv[36];
    int n = 0;

    snprintf(base, sizeof(base), "%s.json", name);
    drive_path(&s->d, base, json);
    snprintf(base, sizeof(base), "%s.log", name);
    drive_path(&s->d, base, log);
    snprintf(sessions, sizeof(sessions), "%u", o->common.sessions);
    snprintf(rate_text, sizeof(rate_text), "%.6g", rate);
    snprintf(duration, sizeof(duration), "%.3fs", seconds);
    snprintf(timeout, sizeof(timeout), "%ds", SOURCE_TIMEOUT_S);
    argv[n++] = s->source_path;
    argv[n++] = "-s";
    argv[n++] = sessions;
    if (o->common
            .workload) { /* its sizes and recipients; the step's rate as a multiple of its mean */
        snprintf(rate_text, sizeof(rate_text), "%.17g", rate / o->workload_mean_per_s);
        argv[n++] = "--workload";
        argv[n++] = (char *)o->common.workload;
        argv[n++] = "--scale";
        argv[n++] = rate_text;
    } else {
        argv[n++] = "--size";
        argv[n++] = (char *)o->common.size;
        argv[n++] = "--rate";
        argv[n++] = rate_text;
    }
    argv[n++] = "--arrivals";
    argv[n++] = (char *)o->arrivals;
    snprintf(seed, sizeof(seed), "%llu", (unsigned long long)o->common.seed);
    argv[n++] = "--seed";
    argv[n++] = seed;
    argv[n++] = "--duration";
    argv[n++] = duration;
    if (o->reuse)
        argv[n++] = "-d";
    argv[n++] = "--timeout";
    argv[n++] = timeout;
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

/* Sleep until the clock reaches `until' or a signal comes, the status line kept. */
static void wait_until(struct sweep *s, uint64_t until)
{
    uint64_t now;

    while (!interrupted && (now = clock_now_ns()) < until) {
        uint64_t us = (until - now) / CLOCK_NS_PER_US;

        show_progress(s);
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

/* ", " between the parts of a list in out (used bytes of len so far). */
static size_t append(char *out, size_t len, size_t used, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static size_t append(char *out, size_t len, size_t used, const char *fmt, ...)
{
    va_list ap;
    int n;

    if (used >= len)
        return used;
    if (used > 0)
        used += (size_t)snprintf(out + used, len - used, "; ");
    if (used >= len)
        return used;
    va_start(ap, fmt);
    n = vsnprintf(out + used, len - used, fmt, ap);
    va_end(ap);
    return n < 0 ? used : used + (size_t)n;
}

/*
 * Why a client had no message accepted, from its report's failure kinds:
 * "connection refused (5 of 5 messages)", the strerror(3) words lowered
 * for the middle of a sentence. Connections with no greeting at all (no
 * banner reply, even a rejecting one) are one cause, whether their
 * messages timed out or were still waiting when the client was stopped:
 * waited_s is how long the first of them had.
 */
static void describe_no_mail(const char *json, const struct sweep_step *st, double waited_s,
                             char *out, size_t len)
{
    static const struct {
        const char *key, *what;
    } kinds[] = {{"timeout", "no reply in time"},
                 {"disconnect", "the connection closed"},
                 {"protocol", "a reply that is not SMTP"},
                 {"tls", "TLS failed"}};
    char key[128], path[200];
    size_t used = 0;
    double n, unanswered = st->sent - st->m.failures, greeted = -1, timeouts = 0;
    double connections = number(json, "connections");
    int silent;

    out[0] = '\0';
    for (size_t i = 0; json_read_key(json, "connect_errors", i, key, sizeof(key)) == 0; i++) {
        snprintf(path, sizeof(path), "connect_errors.%s", key);
        if (json_read_number(json, path, &n) != 0 || n <= 0)
            continue;
        if (key[0] >= 'A' && key[0] <= 'Z' && !(key[1] >= 'A' && key[1] <= 'Z'))
            key[0] = (char)(key[0] - 'A' + 'a');
        used = append(out, len, used, "%s (%.0f of %.0f messages)", key, n, st->sent);
    }
    for (size_t i = 0; json_read_key(json, "failures_by_code", i, key, sizeof(key)) == 0; i++) {
        snprintf(path, sizeof(path), "failures_by_code.%s", key);
        char *at = strchr(key, '@');

        if (at != NULL)
            *at = '\0';
        if (json_read_number(json, path, &n) == 0 && n > 0)
            used = append(out, len, used, "rejected with %s%s%s (%.0f of %.0f messages)", key,
                          at ? " at " : "", at ? at + 1 : "", n, st->sent);
    }
    if (json_read_number(json, "latency.banner.count", &greeted) != 0)
        greeted = -1;
    json_read_number(json, "failures.timeout", &timeouts);
    silent = connections > 0 && greeted == 0 && timeouts + unanswered > 0;
    for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
        snprintf(path, sizeof(path), "failures.%s", kinds[i].key);
        if (silent && strcmp(kinds[i].key, "timeout") == 0)
            continue;
        if (json_read_number(json, path, &n) == 0 && n > 0)
            used = append(out, len, used, "%s (%.0f of %.0f messages)", kinds[i].what, n, st->sent);
    }
    if (silent)
        used =
            append(out, len, used,
                   "no greeting within %.3g s on any of %.0f connections (%.0f of %.0f messages)",
                   waited_s, connections, timeouts + (unanswered > 0 ? unanswered : 0), st->sent);
    else if (unanswered > 0)
        used =
            append(out, len, used, "no reply before the client was stopped (%.0f of %.0f messages)",
                   unanswered, st->sent);
    if (used == 0)
        append(out, len, used, "%s", st->sent > 0 ? "no reason given" : "no message was sent");
}

/* The JSON report the child NAME wrote, WORK/NAME.json (malloc'd), or NULL. */
static char *read_report(const struct sweep *s, const char *name)
{
    char path[PATH_MAX], base[64];

    snprintf(base, sizeof(base), "%s.json", name);
    drive_path(&s->d, base, path);
    return fileutil_read_all(path, NULL);
}

/*
 * The window's client: once its offered window is over, it gets the
 * SLO's time (and a little) to see its last replies, then is stopped and
 * writes its report with what it saw.
 */
static void read_client(struct sweep *s, const char *name, struct sweep_step *st)
{
    char *json;

    if ((json = read_report(s, name)) == NULL)
        give_up(s, name, "smtp-source's report");
    st->sent = number(json, "attempted");
    if (s->workload_sha256[0] == 0)
        drive_workload_sha256(json, s->workload_sha256);
    st->accepted = number(json, "delivered");
    st->m.failures = number(json, "failed");
    st->sent_per_s = st->sent / s->opts->window;
    st->backlog_max = number(json, "backlog_max");
    st->p50_s = number(json, "latency.txn.p50_ms") / 1e3;
    st->p999_s = number(json, "latency.txn.p99_9_ms") / 1e3;
    st->max_s = number(json, "latency.txn.max_ms") / 1e3;
    st->m.p99_s = number(json, "latency.txn.p99_ms") / 1e3;
    st->latency_known = number(json, "latency.txn.count") > 0;
    if (st->accepted <= 0) {
        /* the window's client ran the window and the grace after it (run_step) */
        double ran = s->opts->window + s->opts->slo + 1;

        describe_no_mail(json, st, ran < SOURCE_TIMEOUT_S ? ran : SOURCE_TIMEOUT_S, st->no_mail,
                         sizeof(st->no_mail));
    }
    /* a message still unanswered when the client was stopped counts against the step */
    if (st->sent > st->accepted + st->m.failures)
        st->m.failures += st->sent - st->accepted - st->m.failures;
    free(json);
}

static void read_relay(struct sweep *s, const char *name, struct sweep_step *st)
{
    char *json;

    if ((json = read_report(s, name)) == NULL)
        return;
    st->e2e_known = 1;
    st->e2e_count = number(json, "latency.end_to_end.count");
    st->e2e_p50_s = number(json, "latency.end_to_end.p50_ms") / 1e3;
    st->e2e_p99_s = number(json, "latency.end_to_end.p99_ms") / 1e3;
    free(json);
}

/*
 * The window's messages the sink has by now (the end of the grace after
 * the window): matched by Message-ID, size and checksum (by Message-ID
 * alone through a --target, a real MTA that may add headers of its own),
 * so that the warm-up's, arriving late, are not counted, and the window's
 * edge loses nothing to the latency. Counting arrivals in the window
 * instead made a target that kept up at 20 a second fall behind: 29 of 30
 * in a 1.5 s window, on a loaded machine.
 */
static double window_delivered(const struct sweep *s, const char *src_name, const char *sink_log,
                               double accepted, uint64_t grace_end)
{
    char path[PATH_MAX], base[64];
    struct msglog_compare cmp;

    snprintf(base, sizeof(base), "%s.log", src_name);
    drive_path(&s->d, base, path);
    /* what is still on its way gets the rest of the grace */
    for (;;) {
        struct msglog_set sent, received;

        msglog_set_init(&sent);
        msglog_set_init(&received);
        msglog_set_load(&sent, path);
        msglog_set_load(&received, sink_log);
        if (s->opts->target)
            msglog_compare_ids(&sent, &received, &cmp);
        else
            msglog_compare(&sent, &received, &cmp);
        msglog_set_free(&sent);
        msglog_set_free(&received);
        if ((double)cmp.delivered >= accepted || interrupted || clock_now_ns() >= grace_end)
            break;
        usleep(50000);
    }
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
    uint64_t t0, grace_end;

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
    s->step_start_ns = t0;
    s->rate = rate;
    if (o->warmup > 0) {
        s->phase = "warm-up";
        if (start_source(s, &s->warm, warm_name, target, rate, o->warmup) != 0)
            give_up(s, warm_name, "smtp-source");
        wait_until(s, t0 + (uint64_t)(o->warmup * 1e9));
    }
    s->phase = "window";
    if (start_source(s, &s->source, src_name, target, rate, o->window) != 0)
        give_up(s, src_name, "smtp-source");
    if (have_sink)
        sunk_start = (double)bench_drain_tally_update(&sunk, sink_log);
    if (!o->target && !spool_backend_of(profile_find(o->profile))->no_io) {
        st->m.queue_known = 1;
        st->m.queue_start = (double)bench_drain_pending(&drain);
    }
    wait_until(s, t0 + (uint64_t)((o->warmup + o->window) * 1e9));
    s->phase = "grace";
    if (have_sink)
        st->arrived_per_s =
            ((double)bench_drain_tally_update(&sunk, sink_log) - sunk_start) / o->window;
    if (st->m.queue_known)
        st->m.queue_end = (double)bench_drain_pending(&drain);
    /* the clients' last replies: at most the SLO and a second more, then stopped */
    grace_end = clock_now_ns() + (uint64_t)((o->slo + 1) * 1e9);
    for (uint64_t end = grace_end; !interrupted && s->source.pid > 0 && clock_now_ns() < end;)
        if (waitpid(s->source.pid, NULL, WNOHANG) == s->source.pid) {
            s->source.pid = 0;
        } else {
            show_progress(s);
            usleep(20000);
        }
    stop_client(&s->source);
    stop_client(&s->warm);
    if (interrupted)
        return;
    read_client(s, src_name, st);
    if (have_sink)
        st->m.delivered_per_s =
            window_delivered(s, src_name, sink_log, st->accepted, grace_end) / o->window;
    else
        st->m.delivered_per_s = st->accepted / o->window; /* acceptance */
    drive_stop(&s->relay);
    drive_stop(&s->sink);
    if (!o->target)
        read_relay(s, relay_name, st);
    if (!o->common.keep)
        fileutil_tree_remove(spool);
    st->reason = sweep_search_judge(&st->m, o->slo);
}

/*
 * The relay's options after -- are the relay's to judge: its dry run, with
 * them, before a work directory is made, so that a bad one is a usage
 * error (exit 2) and leaves nothing behind. Its spool is the parent of
 * sweep's, which exists; the ones sweep makes in it do not yet.
 */
static void check_relay_args(const struct sweep *s, const char *parent)
{
    const struct sweep_options *o = s->opts;
    char *argv[RELAY_ARGS_MAX + 8];
    int n;

    n = drive_relay_dry_run_args(argv, &s->d, parent);
    for (size_t i = 0; i < o->n_relay_args; i++)
        argv[n++] = o->relay_args[i];
    argv[n] = NULL;
    if (drive_dry_run(argv) != 0)
        msg_usage("the relay's options after -- are not valid (see above)");
}

/* --dry-run: every check is made; what would run is said. */
static _Noreturn void dry_run(const struct sweep *s, const char *parent)
{
    const struct sweep_options *o = s->opts;
    char rates[64];

    if (o->n_rates)
        snprintf(rates, sizeof(rates), "%zu rates", o->n_rates);
    else
        snprintf(rates, sizeof(rates), "rates from %g msgs/s (up to %u steps)", o->start,
                 o->max_steps);
    optgroup_dry_run_done("would offer %s to %s, %g s measured at each, from %u sessions%s%s",
                          rates, o->target ? o->target : "a relay of its own", o->window,
                          o->common.sessions, o->target ? "" : ", its spools in a directory in ",
                          o->target ? "" : parent);
}

int spoolsim_sweep(int argc, char **argv)
{
    struct sweep_options opts;
    struct sweep_search search;
    struct json_run run;
    struct sweep *s = calloc(1, sizeof(*s)); /* the steps are large for the stack */
    double rate, accepted = 0;
    const char *parent;
    int status = 0;

    if (s == NULL)
        msg_fatal("out of memory");
    json_meta_run_init(&run, "spoolsim sweep", "spoolsim", argc, argv);
    sweep_options_parse(&opts, argc, argv);
    opts.run = &run;
    s->opts = &opts;
    s->d.keep = opts.common.keep;
    drive_find_self(&s->d);
    if (!opts.target || opts.sink_port)
        companion_find_program(s->d.self, "smtp-sink", "SPOOLSIM_SMTP_SINK", s->sink_path,
                               sizeof(s->sink_path));
    companion_find_program(s->d.self, "smtp-source", "SPOOLSIM_SMTP_SOURCE", s->source_path,
                           sizeof(s->source_path));
    parent = opts.spool_parent ? opts.spool_parent : fileutil_tmp_dir();
    optarg_work_dir(parent, opts.spool_parent ? "--spool" : "TMPDIR", 0);
    if (!opts.target)
        check_relay_args(s, parent);
    if (opts.common.dry_run)
        dry_run(s, parent);
    interrupt_install();
    progress_out_init(&s->progress, stderr, opts.common.progress);
    progress_out_hook_messages(&s->progress);
    s->start_ns = clock_now_ns();
    optgroup_forget_results(&opts.common);
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
        accepted += st->accepted;
        /* A target that took nothing at the first rate has no knee to find below it. */
        if (s->n_steps == 1 && st->accepted <= 0)
            break;
    }
    stop_all(s);
    progress_out_clear(&s->progress); /* no partial line before the report */
    if (interrupted)
        interrupt_print_partial(json_meta_text_stream(opts.common.json));
    sweep_report_print(s, &search, json_meta_text_stream(opts.common.json));
    if (opts.common.json && !interrupted && sweep_report_write_json(s, &search) != 0) {
        msg_warn("cannot write %s: %s", opts.common.json, strerror(errno));
        status = -1;
    }
    if (opts.common.keep)
        fprintf(stderr, "spoolsim sweep: kept %s\n", s->d.work);
    drive_remove_work(&s->d);
    json_meta_run_free(&run);
    free(s);
    if (interrupt_flush_stdout() != 0)
        status = -1;
    if (interrupted)
        return interrupt_exit_status();
    if (accepted <= 0)
        return EXIT_STATUS_INCOMPLETE; /* the target took nothing: no knee was measured */
    return status != 0 ? EXIT_STATUS_BAD : EXIT_STATUS_OK;
}
