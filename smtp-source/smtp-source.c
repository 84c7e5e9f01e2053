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
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "endpoint.h"
#include "msg.h"
#include "progress_out.h"
#include "source_session.h"
#include "tls.h"
#include "xalloc.h"

struct source_main {
    struct source_ctx ctx; /* first: the hooks get a struct source_ctx * */
    struct source_session **sessions;
    unsigned sessions_done;
    uint64_t started;
    uint64_t deadline_ns;
    int stopping;
    int signals;

    /* Open loop. */
    uint64_t *backlog;
    size_t backlog_cap, backlog_head, backlog_len;
    uint64_t first_arrival_ns, next_arrival_ns, arrivals;
    int arrivals_done;
    struct event *arrival_timer;
    uint64_t shown;

    struct progress_out progress; /* the status line (--progress) */
    struct progress_rate progress_r;
};

static enum source_next closed_loop_next(struct source_ctx *ctx, uint64_t *start_ns)
{
    struct source_main *m = (struct source_main *)ctx;
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
    struct source_main *m = (struct source_main *)ctx;

    if (m->backlog_len > 0) {
        *start_ns = m->backlog[m->backlog_head];
        m->backlog_head = (m->backlog_head + 1) % m->backlog_cap;
        m->backlog_len--;
        m->started++;
        return SOURCE_NEXT_GO;
    }
    return m->arrivals_done || m->stopping ? SOURCE_NEXT_DONE : SOURCE_NEXT_WAIT;
}

static void backlog_push(struct source_main *m, uint64_t when)
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

/* Intended time of the next arrival; fixed spacing never drifts. */
static void schedule_arrival(struct source_main *m)
{
    const struct source_options *opts = m->ctx.opts;
    double gap_ns = 1e9 / opts->rate;

    if (opts->arrivals == ARRIVAL_POISSON)
        m->next_arrival_ns += (uint64_t)prng_exponential(&m->ctx.rng, gap_ns);
    else
        m->next_arrival_ns = m->first_arrival_ns + (uint64_t)((double)m->arrivals * gap_ns);
    if (opts->duration > 0 ? m->next_arrival_ns >= m->deadline_ns : m->arrivals >= opts->messages) {
        m->arrivals_done = 1;
        if (opts->duration == 0)
            m->ctx.stats.offered_end_ns = m->next_arrival_ns; /* N arrivals offer N gaps */
    }
}

static void on_arrival(evutil_socket_t fd, short what, void *arg)
{
    struct source_main *m = arg;
    uint64_t now = clock_now_ns();

    (void)fd;
    (void)what;
    /* A late timer still yields every arrival at its intended time. */
    while (!m->arrivals_done && !m->stopping && m->next_arrival_ns <= now) {
        backlog_push(m, m->next_arrival_ns);
        m->arrivals++;
        schedule_arrival(m);
    }
    source_ctx_wake_idle(&m->ctx);
    if (!m->arrivals_done && !m->stopping) {
        uint64_t wait = m->next_arrival_ns - now;
        struct timeval tv = {(time_t)(wait / 1000000000ULL),
                             (suseconds_t)((wait % 1000000000ULL) / 1000)};

        evtimer_add(m->arrival_timer, &tv);
    }
}

static void on_session_done(struct source_ctx *ctx)
{
    struct source_main *m = (struct source_main *)ctx;

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

static void stop_issuing(struct source_main *m)
{
    uint64_t now = clock_now_ns();

    /* What was offered ends here (a signal, or the deadline itself). */
    if (m->ctx.stats.offered_end_ns == 0 || m->ctx.stats.offered_end_ns > now)
        m->ctx.stats.offered_end_ns = now;
    m->stopping = 1;
    m->arrivals_done = 1;
    source_ctx_wake_idle(&m->ctx);
    if (m->sessions_done == m->ctx.opts->sessions)
        event_base_loopexit(m->ctx.base, NULL); /* it was waiting out the window: no more */
}

static void on_deadline(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    stop_issuing(arg);
}

static void on_signal(evutil_socket_t sig, short what, void *arg)
{
    struct source_main *m = arg;
    struct timeval grace = {0, 0};

    (void)sig;
    (void)what;
    /* First signal: finish what is in flight. Second: stop now. */
    if (m->signals++ > 0) {
        m->ctx.stats.end_ns = clock_now_ns();
        event_base_loopbreak(m->ctx.base);
        return;
    }
    msg_info("stopping: finishing messages in flight (signal again to stop at once)");
    stop_issuing(m);
    /* A session stuck on a silent server must not hold the exit past its timeout. */
    grace.tv_sec = (time_t)m->ctx.opts->timeout + 1;
    event_base_loopexit(m->ctx.base, &grace);
}

static void on_tick(evutil_socket_t fd, short what, void *arg)
{
    struct source_main *m = arg;
    uint64_t done = m->ctx.stats.delivered + m->ctx.stats.failed;

    (void)fd;
    (void)what;
    if (done != m->shown) {
        m->shown = done;
        printf("\r%llu", (unsigned long long)done);
        fflush(stdout);
    }
}

/* In: messages begun; out: delivered; as the timeline counts them. */
static void on_progress(evutil_socket_t fd, short what, void *arg)
{
    struct source_main *m = arg;
    const struct source_stats *st = &m->ctx.stats;
    const struct source_options *o = m->ctx.opts;
    struct progress_stats ps = {
        .label = "smtp-source",
        .elapsed_s = (double)(clock_now_ns() - st->start_ns) / 1e9,
        .has_rates = 1,
        .has_latency = histogram_count(&st->latency[PHASE_TXN]) > 0,
        .p99_ns = histogram_percentile(&st->latency[PHASE_TXN], 99),
        .has_failures = 1,
        .failures = st->failed,
    };

    (void)fd;
    (void)what;
    if (o->duration > 0) {
        ps.eta_s = progress_eta_time(ps.elapsed_s, o->duration);
    } else {
        ps.done = st->delivered + st->failed;
        ps.total = o->messages;
        ps.count_noun = "msgs";
        ps.eta_s = progress_eta_count(ps.elapsed_s, ps.done, ps.total);
    }
    progress_rate_update(&m->progress_r, ps.elapsed_s, st->attempted, st->delivered, &ps.in_per_s,
                         &ps.out_per_s);
    progress_out_stats(&m->progress, &ps);
}

static void on_interval(evutil_socket_t fd, short what, void *arg)
{
    struct source_main *m = arg;

    (void)fd;
    (void)what;
    source_stats_tick(&m->ctx.stats, clock_now_ns());
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
    if (endpoint_resolve(&ep, ctx->opts->family, &ctx->addr, &ctx->addrlen, err, sizeof(err)) != 0)
        msg_fatal("%s", err);
    endpoint_free(&ep);
}

int main(int argc, char **argv)
{
    static struct source_main m; /* large (histograms): keep it off the stack */
    struct source_options opts;
    struct source_ctx *ctx = &m.ctx;
    struct event *sigint, *sigterm, *deadline = NULL, *tick = NULL, *interval, *progress = NULL;
    struct timeval interval_tv;
    char hostname[256], err[256];
    struct json_run run;
    int status;

    msg_init(argv[0]);
    json_run_init(&run, "smtp-source", NULL, argc, argv);
    source_options_parse(argc, argv, &opts);
    msg_set_verbose(opts.verbose);
    signal(SIGPIPE, SIG_IGN);

    ctx->opts = &opts;
    source_stats_init(&ctx->stats);
    prng_seed(&ctx->rng, opts.seed);
    resolve_target(ctx);
    if (gethostname(hostname, sizeof(hostname)) != 0)
        snprintf(hostname, sizeof(hostname), "localhost");
    hostname[sizeof(hostname) - 1] = 0;
    source_message_init(&ctx->msg, &opts, hostname);
    if (opts.tls && (ctx->tls_ctx = tls_client_ctx_new(0, NULL, err, sizeof(err))) == NULL)
        msg_fatal("%s", err);
    if (opts.msg_log) {
        ctx->msg_log = strcmp(opts.msg_log, "-") == 0 ? stdout : fopen(opts.msg_log, "w");
        if (ctx->msg_log == NULL)
            msg_fatal("cannot open message log %s: %s", opts.msg_log, strerror(errno));
    }
    if ((ctx->base = event_base_new()) == NULL)
        msg_fatal("cannot create an event base");
    ctx->next_message = opts.rate > 0 ? open_loop_next : closed_loop_next;
    ctx->on_session_done = on_session_done;

    /* before the signal events: until the start, a signal ends the program as usual */
    if (opts.start_at > 0)
        wait_for_start(&opts);
    sigint = evsignal_new(ctx->base, SIGINT, on_signal, &m);
    sigterm = evsignal_new(ctx->base, SIGTERM, on_signal, &m);
    evsignal_add(sigint, NULL);
    evsignal_add(sigterm, NULL);
    if (opts.count_display) {
        struct timeval tv = {0, 200000};

        tick = event_new(ctx->base, -1, EV_PERSIST, on_tick, &m);
        evtimer_add(tick, &tv);
    }

    ctx->stats.start_ns = clock_now_ns();
    ctx->stats.start_wall_s = clock_wall_s();
    source_stats_tick(&ctx->stats, ctx->stats.start_ns);
    interval = event_new(ctx->base, -1, EV_PERSIST, on_interval, &m);
    interval_tv.tv_sec = (time_t)opts.interval;
    interval_tv.tv_usec = (suseconds_t)((opts.interval - (double)interval_tv.tv_sec) * 1e6);
    evtimer_add(interval, &interval_tv);
    /* -c is a display of its own, on standard output: the status line only if asked for */
    progress_out_init(&m.progress, stderr,
                      opts.count_display && opts.progress < 0 ? 0 : opts.progress);
    progress_out_hook_messages(&m.progress);
    progress_rate_init(&m.progress_r);
    if (progress_out_on(&m.progress)) {
        struct timeval second = {1, 0};

        progress = event_new(ctx->base, -1, EV_PERSIST, on_progress, &m);
        evtimer_add(progress, &second);
    }
    if (opts.duration > 0) {
        struct timeval tv = {(time_t)opts.duration,
                             (suseconds_t)((opts.duration - (double)(time_t)opts.duration) * 1e6)};

        m.deadline_ns = ctx->stats.start_ns + (uint64_t)(opts.duration * 1e9);
        ctx->stats.offered_end_ns = m.deadline_ns;
        deadline = evtimer_new(ctx->base, on_deadline, &m);
        evtimer_add(deadline, &tv);
    }
    if (opts.rate > 0) {
        m.first_arrival_ns = m.next_arrival_ns = ctx->stats.start_ns;
        m.arrival_timer = evtimer_new(ctx->base, on_arrival, &m);
    }
    m.sessions = xcalloc(opts.sessions, sizeof(*m.sessions));
    for (unsigned i = 0; i < opts.sessions; i++)
        m.sessions[i] = source_session_new(ctx, i);
    for (unsigned i = 0; i < opts.sessions; i++)
        source_session_start(m.sessions[i]);
    if (opts.rate > 0)
        on_arrival(-1, 0, &m);

    event_base_dispatch(ctx->base);
    if (ctx->stats.end_ns == 0)
        ctx->stats.end_ns = clock_now_ns();
    source_stats_tick(&ctx->stats, clock_now_ns());
    event_free(interval);
    progress_out_clear(&m.progress); /* no partial line before the summary */
    if (progress)
        event_free(progress);

    if (tick) {
        on_tick(-1, 0, &m);
        printf("\n");
        event_free(tick);
    }
    if (!opts.no_summary)
        source_report_text(stdout, &ctx->stats, &opts);
    if (opts.json_file)
        source_report_json(opts.json_file, &ctx->stats, &opts, &run);
    if (opts.csv_file && timeline_save_csv(&ctx->stats.timeline, opts.csv_file) != 0)
        msg_warn("cannot write %s: %s", opts.csv_file, strerror(errno));
    if (ctx->msg_log &&
        (fflush(ctx->msg_log) != 0 || (ctx->msg_log != stdout && fclose(ctx->msg_log) != 0)))
        msg_warn("write error on message log %s", opts.msg_log);

    status = ctx->stats.failed > 0 && !opts.ignore_failures ? 1 : 0;
    for (unsigned i = 0; i < opts.sessions; i++)
        source_session_free(m.sessions[i]);
    free(m.sessions);
    free(m.backlog);
    if (m.arrival_timer)
        event_free(m.arrival_timer);
    if (deadline)
        event_free(deadline);
    event_free(sigint);
    event_free(sigterm);
    event_base_free(ctx->base);
    if (ctx->tls_ctx)
        SSL_CTX_free(ctx->tls_ctx);
    source_message_free(&ctx->msg);
    source_stats_free(&ctx->stats);
    json_run_free(&run);
    return status;
}
