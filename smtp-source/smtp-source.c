/*
 * smtp-source - SMTP/LMTP load generator.
 *
 * This file owns the process and the scheduler: which message starts
 * when. Closed loop (the default, as Postfix's smtp-source): every session
 * starts its next message as soon as the previous one is done. Open loop
 * (--rate): messages arrive on a fixed or Poisson schedule whatever the
 * server does, wait in a backlog for a free session, and their latency is
 * measured from the intended arrival time, so a stalled server cannot hide
 * its stall (no coordinated omission). Sessions live in source_session.c.
 */
#include "config.h"

#include <errno.h>
#include <event2/event.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "endpoint.h"
#include "exit_status.h"
#include "fdlimit.h"
#include "fileutil.h"
#include "json_meta.h"
#include "loops.h"
#include "msg.h"
#include "progress_out.h"
#include "source_session.h"
#include "tls.h"
#include "xalloc.h"

/*
 * --threads N: N event loops, each a worker with its own base, its own
 * sessions and its own statistics, and its own share of the load: of -s
 * and -m, thread i takes the sessions and messages numbered i, i + N, ...
 * and, in an open loop, the arrivals numbered so on the one schedule (so
 * the total offered is exactly what was asked, whatever N). Nothing a
 * worker writes is read by another while they run, except its live_*
 * counters (atomics) and its published latency (under its lock); the
 * statistics merge once all have ended. The loops are a common/net/loops
 * set; the main thread's commands (stop, stop now) reach each as a post.
 * With one thread the worker runs on the main thread, as before threads
 * existed.
 */
struct source_run;

struct source_worker {
    struct source_ctx ctx;      /* first: the hooks get a struct source_ctx * */
    struct source_options opts; /* this thread's share of -s, -m and --rate */
    struct source_run *run;
    unsigned index;
    struct source_session **sessions;
    unsigned sessions_done;
    uint64_t started;
    uint64_t deadline_ns;
    int stopping;

    /* Open loop. */
    uint64_t *backlog;
    size_t backlog_cap, backlog_head, backlog_len;
    uint64_t next_arrival_ns, arrivals; /* arrivals: this thread's so far */
    uint64_t offered_end_ns; /* -m in a fixed open loop: the whole run's, not this share's */
    int arrivals_done;
    struct event *arrival_timer;
    struct event *interval, *deadline;

    struct loop *loop;
    /* --progress with threads: this thread's latency so far, copied once a second. */
    pthread_mutex_t lock;
    struct histogram *published;
    struct event *publish;
};

struct source_run {
    const struct source_options *opts;
    unsigned n;
    struct source_worker *workers;
    struct loops *loops;
    struct event_base *base; /* signals and displays: worker 0's, or the main thread's own */
    uint64_t start_ns;
    int signals;
    uint64_t shown;
    struct progress_out progress; /* the status line (--progress) */
    struct progress_rate progress_r;
    struct histogram *txn; /* on_progress()'s: the threads' latency merged */
};

static enum source_next closed_loop_next(struct source_ctx *ctx, uint64_t *start_ns)
{
    struct source_worker *m = (struct source_worker *)ctx;
    uint64_t now = clock_now_ns();

    if (m->stopping)
        return SOURCE_NEXT_DONE;
    if (ctx->opts->duration > 0 ? now >= m->deadline_ns : m->started >= ctx->opts->messages)
        return SOURCE_NEXT_DONE;
    m->started++;
    *start_ns = now;
    return SOURCE_NEXT_GO;
}

static enum source_next open_loop_next(struct source_ctx *ctx, uint64_t *start_ns)
{
    struct source_worker *m = (struct source_worker *)ctx;

    if (m->backlog_len > 0) {
        *start_ns = m->backlog[m->backlog_head];
        m->backlog_head = (m->backlog_head + 1) % m->backlog_cap;
        m->backlog_len--;
        m->started++;
        return SOURCE_NEXT_GO;
    }
    return m->arrivals_done || m->stopping ? SOURCE_NEXT_DONE : SOURCE_NEXT_WAIT;
}

static void backlog_push(struct source_worker *m, uint64_t when)
{
    if (m->backlog_len == m->backlog_cap) {
        size_t cap = m->backlog_cap ? 2 * m->backlog_cap : 1024;
        uint64_t *grown = xmalloc(cap * sizeof(*grown));

        for (size_t i = 0; i < m->backlog_len; i++)
            grown[i] = m->backlog[(m->backlog_head + i) % m->backlog_cap];
        free(m->backlog);
        m->backlog = grown;
        m->backlog_cap = cap;
        m->backlog_head = 0;
    }
    m->backlog[(m->backlog_head + m->backlog_len) % m->backlog_cap] = when;
    m->backlog_len++;
    if (m->backlog_len > m->ctx.stats.backlog_max)
        m->ctx.stats.backlog_max = m->backlog_len;
}

/*
 * Intended time of this thread's next arrival, and whether it falls within
 * what is offered; the first one too. Fixed: arrival k of the run's one
 * schedule is at k / rate, and thread i of n takes k = i, i + n, ...: the
 * times come from k, never from a per-thread gap or a sum, so they do not
 * drift, and the set before the deadline is the one a single thread
 * offers, the same count whatever n.
 */
static void schedule_arrival(struct source_worker *m)
{
    const struct source_options *opts = m->ctx.opts;

    if (opts->arrivals == ARRIVAL_POISSON) {
        if (m->arrivals > 0) /* the first was drawn at the start (worker_run) */
            m->next_arrival_ns +=
                (uint64_t)workload_prng_exponential(&m->ctx.rng, 1e9 / opts->rate);
    } else if (opts->replay > 0) { /* the log's own minutes, arrival k of the whole run */
        uint64_t k = m->index + m->arrivals * m->run->n;
        double t_s;

        if (workload_file_replay_time(opts->workload, opts->replay, opts->scale, k, &t_s) != 0) {
            m->arrivals_done = 1; /* the log has no more */
            m->ctx.stats.offered_end_ns = m->next_arrival_ns;
            return;
        }
        m->next_arrival_ns = m->ctx.stats.start_ns + (uint64_t)(t_s * 1e9);
    } else {
        uint64_t k = m->index + m->arrivals * m->run->n;

        m->next_arrival_ns =
            m->ctx.stats.start_ns + (uint64_t)((double)k * (1e9 / m->run->opts->rate));
    }
    if (opts->duration > 0 ? m->next_arrival_ns >= m->deadline_ns : m->arrivals >= opts->messages) {
        m->arrivals_done = 1;
        if (opts->duration == 0) /* N arrivals offer N gaps */
            m->ctx.stats.offered_end_ns =
                m->offered_end_ns ? m->offered_end_ns : m->next_arrival_ns;
    }
}

static void on_arrival(evutil_socket_t fd, short what, void *arg)
{
    struct source_worker *m = arg;
    uint64_t now = clock_now_ns();

    (void)fd;
    (void)what;
    /* A late timer still yields every arrival at its intended time. */
    while (!m->arrivals_done && !m->stopping && m->next_arrival_ns <= now) {
        backlog_push(m, m->next_arrival_ns);
        m->arrivals++;
        schedule_arrival(m);
    }
    source_session_wake_idle(&m->ctx);
    if (!m->arrivals_done && !m->stopping) {
        uint64_t wait = m->next_arrival_ns - now;
        struct timeval tv = {(time_t)(wait / 1000000000ULL),
                             (suseconds_t)((wait % 1000000000ULL) / 1000)};

        evtimer_add(m->arrival_timer, &tv);
    }
}

static void on_session_done(struct source_ctx *ctx)
{
    struct source_worker *m = (struct source_worker *)ctx;

    if (++m->sessions_done == ctx->opts->sessions) {
        uint64_t now = clock_now_ns(), end = ctx->stats.offered_end_ns;
        /* The load lasts the window it offers, done early or not: a run of --duration T takes T. */
        uint64_t wait = !m->stopping && end > now ? end - now : 0;
        struct timeval tv = {(time_t)(wait / 1000000000ULL),
                             (suseconds_t)((wait % 1000000000ULL) / 1000)};

        ctx->stats.end_ns = now;
        event_base_loopexit(ctx->base, &tv);
    }
}

static void stop_issuing(struct source_worker *m)
{
    uint64_t now = clock_now_ns();

    /* What was offered ends here (a signal, or the deadline itself). */
    if (m->ctx.stats.offered_end_ns == 0 || m->ctx.stats.offered_end_ns > now)
        m->ctx.stats.offered_end_ns = now;
    m->stopping = 1;
    m->arrivals_done = 1;
    source_session_wake_idle(&m->ctx);
    if (m->sessions_done == m->ctx.opts->sessions)
        event_base_loopexit(m->ctx.base, NULL); /* it was waiting out the window: no more */
}

static void on_deadline(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    stop_issuing(arg);
}

/* The first signal: finish what is in flight, within the reply timeout. */
static void worker_stop(struct source_worker *w)
{
    /* A session stuck on a silent server must not hold the exit past its timeout. */
    struct timeval grace = {(time_t)w->opts.timeout + 1, 0};

    stop_issuing(w);
    event_base_loopexit(w->ctx.base, &grace);
}

/* The second: stop now. */
static void worker_break(struct source_worker *w)
{
    w->ctx.stats.end_ns = clock_now_ns();
    event_base_loopbreak(w->ctx.base);
}

static void on_stop(struct loop *loop)
{
    worker_stop(loop->owner);
}

static void on_break(struct loop *loop)
{
    worker_break(loop->owner);
}

static void on_signal(struct loops *loops, int sig, void *arg)
{
    struct source_run *r = arg;

    (void)sig;
    /* First signal: finish what is in flight. Second: stop now. */
    if (r->signals++ > 0) {
        loops_each(loops, on_break);
        return;
    }
    msg_info("stopping: finishing messages in flight (signal again to stop at once)");
    loops_each(loops, on_stop);
}

/* Delivered and failed so far, of every thread: what -c and --progress show. */
static void live_counts(const struct source_run *r, uint64_t *attempted, uint64_t *delivered,
                        uint64_t *failed)
{
    *attempted = *delivered = *failed = 0;
    for (unsigned i = 0; i < r->n; i++) {
        *attempted += atomic_load_explicit(&r->workers[i].ctx.live_attempted, memory_order_relaxed);
        *delivered += atomic_load_explicit(&r->workers[i].ctx.live_delivered, memory_order_relaxed);
        *failed += atomic_load_explicit(&r->workers[i].ctx.live_failed, memory_order_relaxed);
    }
}

static void on_tick(evutil_socket_t fd, short what, void *arg)
{
    struct source_run *r = arg;
    uint64_t attempted, delivered, failed;

    (void)fd;
    (void)what;
    live_counts(r, &attempted, &delivered, &failed);
    if (delivered + failed != r->shown) {
        r->shown = delivered + failed;
        printf("\r%llu", (unsigned long long)r->shown);
        fflush(stdout);
    }
}

/* A worker's latency so far, for the main thread's status line. */
static void on_publish(evutil_socket_t fd, short what, void *arg)
{
    struct source_worker *w = arg;

    (void)fd;
    (void)what;
    pthread_mutex_lock(&w->lock);
    *w->published = w->ctx.stats.latency[PHASE_TXN];
    pthread_mutex_unlock(&w->lock);
}

/* In: messages begun; out: delivered; as the timeline counts them. */
static void on_progress(evutil_socket_t fd, short what, void *arg)
{
    struct source_run *r = arg;
    const struct source_options *o = r->opts;
    struct histogram *txn = r->txn;
    uint64_t attempted, delivered, failed;
    struct progress_stats ps = {
        .label = "smtp-source",
        .elapsed_s = (double)(clock_now_ns() - r->start_ns) / 1e9,
        .has_rates = 1,
        .has_failures = 1,
    };

    (void)fd;
    (void)what;
    if (r->n == 1) {
        *txn = r->workers[0].ctx.stats.latency[PHASE_TXN];
    } else {
        histogram_init(txn);
        for (unsigned i = 0; i < r->n; i++) {
            pthread_mutex_lock(&r->workers[i].lock);
            histogram_merge(txn, r->workers[i].published);
            pthread_mutex_unlock(&r->workers[i].lock);
        }
    }
    live_counts(r, &attempted, &delivered, &failed);
    ps.has_latency = histogram_count(txn) > 0;
    ps.p99_ns = histogram_percentile(txn, 99);
    ps.failures = failed;
    if (o->duration > 0) {
        ps.eta_s = progress_eta_time(ps.elapsed_s, o->duration);
    } else {
        ps.done = delivered + failed;
        ps.total = o->messages;
        ps.count_noun = "msgs";
        ps.eta_s = progress_eta_count(ps.elapsed_s, ps.done, ps.total);
    }
    progress_rate_update(&r->progress_r, ps.elapsed_s, attempted, delivered, &ps.in_per_s,
                         &ps.out_per_s);
    progress_out_stats(&r->progress, &ps);
}

static void on_interval(evutil_socket_t fd, short what, void *arg)
{
    struct source_worker *m = arg;

    (void)fd;
    (void)what;
    source_report_tick(&m->ctx.stats, clock_now_ns());
}

/*
 * --start-at: sleep until the instant on the wall clock, which is what N
 * hosts agree on. Said once, as a run that seems to hang must say why. A
 * time more than a second past is a mistake (an old command line), not
 * "start now": refused as a usage error.
 */
static void wait_for_start(const struct source_options *opts)
{
    double now = clock_wall_s();
    struct timespec ts;

    if (opts->start_at < now - 1)
        msg_usage("--start-at %s is %.1f s in the past", opts->start_at_text, now - opts->start_at);
    if (opts->start_at <= now)
        return;
    msg_info("waiting %.3f s to start at %s", opts->start_at - now, opts->start_at_text);
    ts.tv_sec = (time_t)opts->start_at;
    ts.tv_nsec = (long)((opts->start_at - (double)ts.tv_sec) * 1e9);
    while (clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &ts, NULL) == EINTR)
        ;
}

static void resolve_target(struct source_ctx *ctx)
{
    struct endpoint ep;
    char err[256];

    if (endpoint_parse_client(ctx->opts->target, "25", &ep, err, sizeof(err)) != 0)
        msg_usage("%s", err);
    if (endpoint_resolve(&ep, ctx->opts->tool.family, &ctx->addr, &ctx->addrlen, err,
                         sizeof(err)) != 0)
        msg_fatal("%s", err);
    endpoint_free(&ep);
}

/* Share i of n of count: the items numbered i, i + n, i + 2n, ... below count. */
static uint64_t share(uint64_t count, unsigned i, unsigned n)
{
    return count / n + (i < count % n ? 1 : 0);
}

/* Worker i's own options, context and events, on its own base. */
static void worker_init(struct source_run *r, unsigned i, const struct source_ctx *proto)
{
    struct source_worker *w = &r->workers[i];
    const struct source_options *opts = r->opts;
    struct source_ctx *ctx = &w->ctx;

    w->run = r;
    w->index = i;
    w->loop = loops_loop(r->loops, i);
    w->loop->owner = w;
    w->opts = *opts;
    w->opts.sessions = (unsigned)share(opts->sessions, i, r->n);
    w->opts.messages = share(opts->messages, i, r->n);
    w->opts.rate = opts->rate / r->n;
    ctx->opts = &w->opts;
    ctx->tls_ctx = proto->tls_ctx;
    ctx->addr = proto->addr;
    ctx->addrlen = proto->addrlen;
    source_message_copy(&ctx->msg, &proto->msg);
    ctx->msg_log = proto->msg_log;
    ctx->next_seq = i;
    ctx->next_rcpt = i + 1;
    ctx->stride = r->n;
    source_report_init(&ctx->stats);
    /* Thread 0 draws what a run without threads draws; the others, streams of their own. */
    workload_prng_seed(&ctx->rng, opts->tool.seed + i * 0x9e3779b97f4a7c15ULL);
    ctx->base = w->loop->base;
    ctx->next_message = opts->rate > 0 ? open_loop_next : closed_loop_next;
    ctx->on_session_done = on_session_done;
    if (r->n > 1) {
        pthread_mutex_init(&w->lock, NULL);
        w->published = xmalloc(sizeof(*w->published));
        histogram_init(w->published);
    }
}

/* On the worker's loop, before it runs: its clocks and sessions start at the run's start. */
static void worker_begin(struct loop *loop)
{
    struct source_worker *w = loop->owner;
    struct source_run *r = w->run;
    const struct source_options *opts = &w->opts;
    struct source_ctx *ctx = &w->ctx;
    struct timeval interval_tv = clock_timeval(opts->interval);

    ctx->stats.start_ns = r->start_ns;
    source_report_tick(&ctx->stats, ctx->stats.start_ns);
    w->interval = event_new(ctx->base, -1, EV_PERSIST, on_interval, w);
    evtimer_add(w->interval, &interval_tv);
    if (w->published) {
        struct timeval second = {1, 0};

        w->publish = event_new(ctx->base, -1, EV_PERSIST, on_publish, w);
        evtimer_add(w->publish, &second);
    }
    if (opts->duration > 0) {
        struct timeval tv = clock_timeval(opts->duration);

        w->deadline_ns = ctx->stats.start_ns + (uint64_t)(opts->duration * 1e9);
        ctx->stats.offered_end_ns = w->deadline_ns;
        w->deadline = evtimer_new(ctx->base, on_deadline, w);
        evtimer_add(w->deadline, &tv);
    }
    if (opts->rate > 0) {
        double gap_ns = 1e9 / r->opts->rate; /* of the whole run's schedule */

        /*
         * Fixed: see schedule_arrival. Poisson: n streams of rate/n are one
         * of the rate; all but the first start at a draw, not all together
         * at 0.
         */
        if (opts->arrivals == ARRIVAL_POISSON)
            w->next_arrival_ns =
                ctx->stats.start_ns +
                (w->index > 0 ? (uint64_t)workload_prng_exponential(&ctx->rng, 1e9 / opts->rate)
                              : 0);
        if (opts->arrivals == ARRIVAL_FIXED && r->n > 1)
            w->offered_end_ns =
                ctx->stats.start_ns + (uint64_t)((double)r->opts->messages * gap_ns);
        /* The first arrival is checked like the rest: past the window, or none in -m's share. */
        schedule_arrival(w);
        w->arrival_timer = evtimer_new(ctx->base, on_arrival, w);
    }
    w->sessions = xcalloc(opts->sessions, sizeof(*w->sessions));
    for (unsigned i = 0; i < opts->sessions; i++)
        w->sessions[i] = source_session_new(ctx, w->index + i * r->n);
    for (unsigned i = 0; i < opts->sessions; i++)
        source_session_start(w->sessions[i]);
    if (opts->rate > 0)
        on_arrival(-1, 0, w);
}

/* On the worker's loop, once it has ended. */
static void worker_end(struct loop *loop)
{
    struct source_worker *w = loop->owner;
    const struct source_options *opts = &w->opts;
    struct source_ctx *ctx = &w->ctx;

    if (ctx->stats.end_ns == 0)
        ctx->stats.end_ns = clock_now_ns();
    source_report_tick(&ctx->stats, clock_now_ns());
    event_free(w->interval);
    if (w->deadline)
        event_free(w->deadline);
    if (w->publish)
        event_free(w->publish);
    for (unsigned i = 0; i < opts->sessions; i++)
        source_session_free(w->sessions[i]);
    free(w->sessions);
    w->sessions = NULL;
}

static void worker_free(struct source_worker *w)
{
    free(w->backlog);
    if (w->arrival_timer)
        event_free(w->arrival_timer);
    if (w->published)
        pthread_mutex_destroy(&w->lock);
    free(w->published);
    source_report_free(&w->ctx.stats);
    source_message_free_copy(&w->ctx.msg);
}

int main(int argc, char **argv)
{
    static struct source_ctx proto;   /* what every thread's context starts from */
    static struct source_stats total; /* large (histograms): keep it off the stack */
    struct source_options opts;
    struct source_run r;
    const struct loops_hooks hooks = {worker_begin, worker_end};
    struct event *tick = NULL, *progress = NULL;
    char hostname[256], err[256];
    struct json_run run;
    int status, unsaved = 0;

    msg_init(argv[0]);
    json_meta_run_init(&run, "smtp-source", NULL, argc, argv);
    source_options_parse(argc, argv, &opts);
    msg_set_verbose(opts.tool.verbose);
    /* a socket per session: more than the limit fail to connect, at full speed */
    snprintf(err, sizeof(err), "-s %u", opts.sessions);
    fdlimit_need((uint64_t)opts.sessions + FDLIMIT_RESERVE + 4u * opts.threads, err);
    signal(SIGPIPE, SIG_IGN);

    memset(&r, 0, sizeof(r));
    r.opts = &opts;
    r.n = opts.threads;
    proto.opts = &opts;
    resolve_target(&proto);
    if (gethostname(hostname, sizeof(hostname)) != 0)
        snprintf(hostname, sizeof(hostname), "localhost");
    hostname[sizeof(hostname) - 1] = 0;
    source_message_init(&proto.msg, &opts, hostname);
    if (opts.tls && (proto.tls_ctx = tls_client_ctx_new(0, NULL, err, sizeof(err))) == NULL)
        msg_fatal("%s", err);
    proto.msg_log = smtp_tool_opts_msg_log(&opts.tool, "w");
    /* With one worker, its loop is the main thread's, signals and displays too. */
    r.loops = loops_new(r.n, NULL, r.n == 1 ? LOOPS_FIRST_ON_MAIN : 0, &hooks);
    r.base = loops_main_base(r.loops);
    r.workers = xcalloc(r.n, sizeof(*r.workers));
    for (unsigned i = 0; i < r.n; i++)
        worker_init(&r, i, &proto);

    /* before the signal events: until the start, a signal ends the program as usual */
    if (opts.start_at > 0)
        wait_for_start(&opts);
    loops_catch(r.loops, SIGINT, on_signal, &r);
    loops_catch(r.loops, SIGTERM, on_signal, &r);
    if (opts.count_display) {
        struct timeval tv = {0, 200000};

        tick = event_new(r.base, -1, EV_PERSIST, on_tick, &r);
        evtimer_add(tick, &tv);
    }
    /* an earlier run's result must not be read as this one's if this one ends without */
    if (fileutil_output_forget(opts.tool.json_file) != 0 ||
        fileutil_output_forget(opts.csv_file) != 0)
        msg_fatal("cannot remove the earlier result: %s", strerror(errno));
    /* -c is a display of its own, on standard output: the status line only if asked for */
    progress_out_init(&r.progress, stderr,
                      opts.count_display && opts.progress < 0 ? 0 : opts.progress);
    progress_out_hook_messages(&r.progress);
    progress_rate_init(&r.progress_r);
    if (progress_out_on(&r.progress)) {
        struct timeval second = {1, 0};

        r.txn = xmalloc(sizeof(*r.txn));
        progress = event_new(r.base, -1, EV_PERSIST, on_progress, &r);
        evtimer_add(progress, &second);
    }
    r.start_ns = clock_now_ns();
    source_report_init(&total);
    total.start_wall_s = clock_wall_s();
    loops_start(r.loops);
    loops_run(r.loops);
    progress_out_clear(&r.progress); /* no partial line before the summary */
    if (progress)
        event_free(progress);
    if (tick) {
        on_tick(-1, 0, &r);
        printf("\n");
        event_free(tick);
    }

    /* The run's statistics: every thread's added in. */
    total.start_ns = UINT64_MAX;
    for (unsigned i = 0; i < r.n; i++)
        source_report_merge(&total, &r.workers[i].ctx.stats);

    /* the log first: the JSON says whether it is whole */
    total.msg_log_lost = smtp_tool_opts_msg_log_close(&opts.tool, proto.msg_log) != 0;
    if (!opts.tool.no_summary)
        source_report_text(json_meta_text_stream(opts.tool.json_file), &total, &opts);
    if (opts.tool.json_file && source_report_json(opts.tool.json_file, &total, &opts, &run) != 0)
        unsaved = 1;
    if (opts.csv_file && timeline_save_csv(&total.timeline, opts.csv_file) != 0) {
        msg_warn("cannot write %s: %s", opts.csv_file, strerror(errno));
        unsaved = 1;
    }

    status = (total.counts.failed > 0 && !opts.ignore_failures) || unsaved || total.msg_log_lost
                 ? EXIT_STATUS_BAD
                 : EXIT_STATUS_OK;
    for (unsigned i = 0; i < r.n; i++)
        worker_free(&r.workers[i]); /* its events first, then the bases */
    loops_free(r.loops);
    free(r.workers);
    free(r.txn);
    if (proto.tls_ctx)
        SSL_CTX_free(proto.tls_ctx);
    source_message_free(&proto.msg);
    if (opts.workload) {
        workload_file_free(opts.workload);
        free(opts.workload);
    }
    source_report_free(&total);
    json_meta_run_free(&run);
    return status;
}
