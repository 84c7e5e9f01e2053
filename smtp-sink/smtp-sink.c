/*
 * smtp-sink - SMTP/LMTP test server: accept mail, count it, throw it away.
 *
 * This file owns the process: options, the listening socket, privileges,
 * the event loop, exit conditions and the final report. Sessions live in
 * sink_session.c. See smtp-sink(1).
 */
#include "config.h"

#include <errno.h>
#include <event2/event.h>
#include <grp.h>
#include <openssl/ssl.h>
#include <pwd.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include "clock.h"
#include "endpoint.h"
#include "exit_status.h"
#include "fdlimit.h"
#include "fileutil.h"
#include "json.h"
#include "json_meta.h"
#include "listener.h"
#include "loops.h"
#include "msg.h"
#include "sink_options.h"
#include "sink_session.h"
#include "tls.h"
#include "xalloc.h"

/*
 * --threads N: N workers, each an event loop of a common/net/loops set
 * with its own base, sessions and statistics. One listener, on the main
 * thread, deals the accepted connections to the loop with the fewest
 * sessions (loops.h says why not SO_REUSEPORT), each posted to its
 * mailbox; the workers' word to the main thread (stop at a limit, accept
 * again) is a post to the main one. The run-wide counts the limits need
 * (-m, -M, -n) and -c shows are atomics; the rest is the workers' own,
 * added up at the end. With one thread the worker runs on the main
 * thread with the listener, as before threads existed.
 */
struct sink_run;

struct sink_worker {
    struct sink_server server; /* first: the hooks get a struct sink_server * */
    struct sink_run *run;
    struct loop *loop;
};

/* A connection dealt to a worker: the main thread's allocation, freed by the worker. */
struct handoff {
    struct mailbox_item item; /* first: run() gets it */
    struct sink_worker *w;
    int fd;
    int addrlen;
    struct sockaddr_storage addr;
};

struct sink_run {
    const struct sink_options *opts;
    unsigned n; /* workers */
    struct sink_worker *workers;
    struct loops *loops;
    struct event_base *base; /* the listener's: worker 0's, or the main thread's own */
    struct listener *listener;
    int listener_paused;
    int draining;
    uint64_t shown_messages, shown_sessions;
    /* Threads: the run's counts, and the workers' word to the main thread. */
    _Atomic uint64_t active, max_active, messages, sessions_ended;
    /* -n: sessions let in; the run takes no more than -n, as -M's claim. */
    _Atomic uint64_t sessions_claimed;
    _Atomic int paused; /* listener_paused, for the workers to read */
    /* A worker's word to the main thread: each on its way at most once (*_posted). */
    struct mailbox_item stop_item, resume_item;
    _Atomic int stop_posted, resume_posted;
};

/* A worker's loop, told by the main thread: stop taking work, finish, exit. */
static void on_drain(struct loop *loop)
{
    struct sink_worker *w = loop->owner;
    struct timeval flush = {0, 100000};

    /* Stop taking work, give the last replies a moment to leave, then exit. */
    w->server.draining = 1;
    event_base_loopexit(w->server.base, &flush);
}

/* The main thread: no more connections; every worker finishes what it has. */
static void stop_soon(struct sink_run *r)
{
    if (r->draining)
        return;
    r->draining = 1;
    listener_disable(r->listener);
    loops_each(r->loops, on_drain);
}

/*
 * Room for another connection: under -m, and under -n counting the sessions
 * let in, not those ended, so that no session past -n is served while the
 * last ones finish (the claim is undone for a connection refused at start).
 */
static int may_accept(struct sink_run *r)
{
    uint64_t max = r->opts->max_sessions;

    return atomic_load(&r->active) < r->opts->max_conns &&
           !(max && atomic_load(&r->sessions_claimed) >= max);
}

static void resume_accepting(struct sink_run *r)
{
    if (r->listener_paused && may_accept(r) && !r->draining) {
        listener_enable(r->listener);
        r->listener_paused = 0;
        atomic_store(&r->paused, 0);
    }
}

static void on_resume_item(struct mailbox_item *item)
{
    struct sink_run *r = (struct sink_run *)((char *)item - offsetof(struct sink_run, resume_item));

    atomic_store(&r->resume_posted, 0); /* a session that ends from now on posts again */
    resume_accepting(r);
}

static void on_stop_item(struct mailbox_item *item)
{
    stop_soon((struct sink_run *)((char *)item - offsetof(struct sink_run, stop_item)));
}

/* Any thread: the main thread tries the listener again (at once, if this is it). */
static void tell_resume(struct sink_run *r)
{
    if (!atomic_exchange(&r->resume_posted, 1))
        loops_post_main(r->loops, &r->resume_item);
}

/* Any thread: a limit is reached; the main thread stops the run. */
static void tell_stop(struct sink_run *r)
{
    if (!atomic_exchange(&r->stop_posted, 1))
        loops_post_main(r->loops, &r->stop_item);
}

static void on_session_end(struct sink_server *server)
{
    struct sink_worker *w = (struct sink_worker *)server;
    struct sink_run *r = w->run;
    const struct sink_options *opts = server->opts;
    uint64_t ended = atomic_fetch_add(&r->sessions_ended, 1) + 1;

    atomic_fetch_sub(&r->active, 1);
    loops_session_ended(w->loop);
    if (atomic_load(&r->paused))
        tell_resume(r);
    if (opts->max_sessions && ended >= opts->max_sessions)
        tell_stop(r);
}

/*
 * A message is claimed before its 250, so that the run acknowledges
 * exactly -M: once the count is reached, a worker that has not yet heard
 * DRAIN must refuse, not accept one more. The claim never overshoots, so
 * -c shows no more than was accepted.
 */
static int claim_message(struct sink_server *server)
{
    struct sink_worker *w = (struct sink_worker *)server;
    struct sink_run *r = w->run;
    uint64_t max = server->opts->max_messages, seen = atomic_load(&r->messages);

    do {
        if (max && seen >= max)
            return 0;
    } while (!atomic_compare_exchange_weak(&r->messages, &seen, seen + 1));
    if (max && seen + 1 == max)
        tell_stop(r);
    return 1;
}

static void on_exit_now(struct loop *loop)
{
    event_base_loopexit(loop->base, NULL);
}

/* A connection on the worker's loop: refused at the start, it will not end. */
static void start_session(struct sink_worker *w, int fd, struct sockaddr *addr, int addrlen)
{
    struct sink_server *server = &w->server;
    uint64_t before = server->stats.sessions;

    sink_session_start(server, fd, addr, addrlen);
    if (server->stats.sessions == before) {
        atomic_fetch_sub(&w->run->active, 1);
        atomic_fetch_sub(&w->run->sessions_claimed, 1);
        loops_session_ended(w->loop);
        tell_resume(w->run);
    }
}

/* A connection dealt to a worker on a thread of its own. */
static void on_handoff(struct mailbox_item *item)
{
    struct handoff *h = (struct handoff *)item;

    if (h->w->loop->ended)
        close(h->fd); /* handed over after the worker's loop ended */
    else
        start_session(h->w, h->fd, (struct sockaddr *)&h->addr, h->addrlen);
    free(h);
}

static void on_accept(struct listener *listener, int fd, struct sockaddr *addr, socklen_t addrlen,
                      void *arg)
{
    struct sink_run *r = arg;
    uint64_t active = atomic_fetch_add(&r->active, 1) + 1, max = atomic_load(&r->max_active);
    struct loop *loop;

    while (active > max && !atomic_compare_exchange_weak(&r->max_active, &max, active))
        ;
    atomic_fetch_add(&r->sessions_claimed, 1);
    loop = loops_pick(r->loops);
    if (loop->on_main) {
        start_session(loop->owner, fd, addr, addrlen);
    } else {
        struct handoff *h = xcalloc(1, sizeof(*h));

        h->item.run = on_handoff;
        h->w = loop->owner;
        h->fd = fd;
        h->addrlen = addrlen;
        memcpy(&h->addr, addr,
               (size_t)addrlen < sizeof(h->addr) ? (size_t)addrlen : sizeof(h->addr));
        loops_post(loop, &h->item);
    }
    if (!may_accept(r)) {
        /* Excess connections wait in the listen queue, as with Postfix's -m. */
        listener_disable(listener);
        r->listener_paused = 1;
        atomic_store(&r->paused, 1);
        resume_accepting(r); /* a thread may have ended one meanwhile */
    }
}

static void on_resume_accept(evutil_socket_t fd, short what, void *arg)
{
    struct sink_run *r = arg;

    (void)fd;
    (void)what;
    if (!r->listener_paused && !r->draining)
        listener_enable(r->listener);
}

static void on_accept_error(struct listener *listener, int err, void *arg)
{
    struct sink_run *r = arg;

    (void)listener;
    if (r->opts->tool.verbose || (err != EMFILE && err != ENFILE))
        msg_warn("accept: %s", strerror(err));
}

static void on_signal(struct loops *loops, int sig, void *arg)
{
    (void)sig;
    (void)arg;
    loops_each(loops, on_exit_now);
}

static void on_counter_tick(evutil_socket_t fd, short what, void *arg)
{
    struct sink_run *r = arg;
    uint64_t messages = atomic_load(&r->messages), ended = atomic_load(&r->sessions_ended);

    (void)fd;
    (void)what;
    if (messages != r->shown_messages || ended != r->shown_sessions) {
        r->shown_messages = messages;
        r->shown_sessions = ended;
        printf("\r%llu sessions, %llu messages", (unsigned long long)ended,
               (unsigned long long)messages);
        fflush(stdout);
    }
}

static void drop_privileges(const struct sink_options *opts)
{
    struct passwd *pw = NULL;

    if (opts->user && (pw = getpwnam(opts->user)) == NULL)
        msg_usage("-u: unknown user \"%s\"", opts->user);
    if (opts->chroot_dir && (chroot(opts->chroot_dir) != 0 || chdir("/") != 0))
        msg_fatal("chroot %s: %s", opts->chroot_dir, strerror(errno));
    if (pw) {
        if (setgroups(1, &pw->pw_gid) != 0 || setgid(pw->pw_gid) != 0 || setuid(pw->pw_uid) != 0)
            msg_fatal("cannot switch to user %s: %s", opts->user, strerror(errno));
    }
}

static double elapsed_seconds(const struct sink_stats *st)
{
    if (st->messages == 0 || st->last_ns <= st->first_ns)
        return 0;
    return (double)(st->last_ns - st->first_ns) / 1e9;
}

static void print_summary(FILE *fp, const struct sink_stats *st)
{
    double secs = elapsed_seconds(st);

    fprintf(fp, "smtp-sink: %llu message%s, %llu recipient%s, %llu byte%s, %llu session%s",
            (unsigned long long)st->messages, st->messages == 1 ? "" : "s",
            (unsigned long long)st->recipients, st->recipients == 1 ? "" : "s",
            (unsigned long long)st->bytes, st->bytes == 1 ? "" : "s",
            (unsigned long long)st->sessions, st->sessions == 1 ? "" : "s");
    if (secs > 0)
        fprintf(fp, " in %.3f s: %.1f msgs/s, %.2f MB/s", secs, (double)st->messages / secs,
                (double)st->bytes / secs / 1e6);
    fprintf(fp,
            "\nsmtp-sink: rejected %llu, max concurrent %llu, TLS %llu, timeouts %llu, "
            "protocol errors %llu\nsmtp-sink: replies:",
            (unsigned long long)st->rejected, (unsigned long long)st->max_active,
            (unsigned long long)st->tls_sessions, (unsigned long long)st->timeouts,
            (unsigned long long)st->protocol_errors);
    for (int code = 0; code < SINK_MAX_CODE; code++)
        if (st->replies[code])
            fprintf(fp, " %d=%llu", code, (unsigned long long)st->replies[code]);
    fprintf(fp, "\n");
}

/* 0, or -1 when it could not be written whole (said). */
static int write_json(const char *path, const struct sink_server *server,
                      const struct json_run *run)
{
    const struct sink_stats *st = &server->stats;
    struct json_writer w;
    double secs = elapsed_seconds(st);

    if (json_meta_begin(&w, path, run) != 0) {
        msg_warn("cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    if (server->opts->tool.msg_log)
        json_bool(&w, "msg_log_complete", !server->msg_log_lost);
    json_double(&w, "elapsed_s", secs);
    /* its own cost, so that a driver that is not its parent can tell what a message takes */
    json_double(&w, "cpu_s", clock_process_cpu_s());
    json_uint(&w, "threads", server->opts->threads);
    json_uint(&w, "sessions", st->sessions);
    json_uint(&w, "messages", st->messages);
    json_uint(&w, "recipients", st->recipients);
    json_uint(&w, "bytes", st->bytes);
    json_double(&w, "messages_per_s", secs > 0 ? (double)st->messages / secs : 0);
    json_double(&w, "bytes_per_s", secs > 0 ? (double)st->bytes / secs : 0);
    json_uint(&w, "rejected", st->rejected);
    json_uint(&w, "max_concurrent", st->max_active);
    json_uint(&w, "tls_sessions", st->tls_sessions);
    json_uint(&w, "timeouts", st->timeouts);
    json_uint(&w, "protocol_errors", st->protocol_errors);
    json_string(&w, "bare_lf_policy", smtp_data_bare_lf_name(server->opts->server.bare_lf));
    json_begin_object(&w, "replies");
    for (int code = 0; code < SINK_MAX_CODE; code++) {
        char key[8];

        if (st->replies[code]) {
            snprintf(key, sizeof(key), "%d", code);
            json_uint(&w, key, st->replies[code]);
        }
    }
    json_end_object(&w);
    if (json_meta_end(&w) != 0) {
        msg_warn("cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

/* *nodelay: SINK_NODELAY_LISTENER when TCP_NODELAY is on the listening socket (sink_session.h). */
static int open_listener(const struct sink_options *opts, struct endpoint_file *made, int *nodelay)
{
    struct endpoint ep;
    char err[256];
    int fd, one = 1;

    if (endpoint_parse_server(opts->listen_spec, &ep, err, sizeof(err)) != 0)
        msg_usage("%s", err);
    if ((fd = endpoint_listen(&ep, opts->tool.family, opts->backlog, made, err, sizeof(err))) < 0)
        msg_fatal("%s", err);
    if (opts->tool.tcp_window && setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &opts->tool.tcp_window,
                                            sizeof(opts->tool.tcp_window)) != 0)
        msg_warn("-T: setsockopt SO_RCVBUF: %s", strerror(errno));
    /* Fails on a unix: socket, whose sessions need none. */
    *nodelay = setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) == 0
                   ? SINK_NODELAY_LISTENER
                   : SINK_NODELAY_EACH;
    endpoint_free(&ep);
    return fd;
}

/*
 * The port file says the sink is ready, so it is written after the signals are caught (a
 * SIGTERM sent as soon as it appears still ends the run with its reports), but opened
 * before -u drops the privileges that may be needed to create it.
 */
static FILE *open_port_file(const struct sink_options *opts)
{
    FILE *fp;

    if (opts->port_file == NULL)
        return NULL;
    if ((fp = fopen(opts->port_file, "w")) == NULL)
        msg_fatal("cannot write port file %s: %s", opts->port_file, strerror(errno));
    return fp;
}

static void write_port_file(const struct sink_options *opts, FILE *fp, int fd)
{
    if (fp && (fprintf(fp, "%d\n", endpoint_local_port(fd)) < 0 || fclose(fp) != 0))
        msg_fatal("cannot write port file %s: %s", opts->port_file, strerror(errno));
}

/* The workers' statistics as one: counts add; the window is the union. */
static void merge_stats(struct sink_stats *dst, const struct sink_stats *src)
{
    if (src->sessions && (dst->sessions == 0 || src->first_ns < dst->first_ns))
        dst->first_ns = src->first_ns;
    if (src->last_ns > dst->last_ns)
        dst->last_ns = src->last_ns;
    dst->sessions += src->sessions;
    dst->sessions_ended += src->sessions_ended;
    dst->tls_sessions += src->tls_sessions;
    dst->messages += src->messages;
    dst->rejected += src->rejected;
    dst->recipients += src->recipients;
    dst->bytes += src->bytes;
    dst->timeouts += src->timeouts;
    dst->protocol_errors += src->protocol_errors;
    for (int code = 0; code < SINK_MAX_CODE; code++)
        dst->replies[code] += src->replies[code];
}

static void worker_init(struct sink_run *r, unsigned i, const struct sink_server *proto)
{
    struct sink_worker *w = &r->workers[i];
    struct sink_server *server = &w->server;

    w->run = r;
    w->loop = loops_loop(r->loops, i);
    w->loop->owner = w;
    server->opts = r->opts;
    server->tls_ctx = proto->tls_ctx;
    server->msg_log = proto->msg_log;
    /* Thread 0 draws what a run without threads draws; the others, streams of their own. */
    workload_prng_seed(&server->rng, r->opts->tool.seed + i * 0x9e3779b97f4a7c15ULL);
    server->next_id = proto->next_id + i;
    server->id_stride = r->n;
    server->on_session_end = on_session_end;
    server->claim_message = claim_message;
    sink_session_init_replies(server);
    server->base = w->loop->base;
    server->nodelay = proto->nodelay;
}

/*
 * After the sessions were released: libevent frees a bufferevent that still
 * had callbacks pending (a TLS one held at its input mark while the sink
 * drained, say) only from its loop, so it runs once more; event_base_free()
 * alone would drop them and leak the bufferevent with its buffers.
 */
static void finish_frees(struct event_base *base)
{
    event_base_loop(base, EVLOOP_NONBLOCK);
}

/* A worker's loop is over (connections still posted are closed, not served): its sessions go. */
static void worker_end(struct loop *loop)
{
    struct sink_worker *w = loop->owner;

    if (loop->on_main) {
        w->run->draining = 1; /* the pass below must not take new connections */
        listener_disable(w->run->listener);
    }
    sink_session_close_all(&w->server);
    finish_frees(w->server.base);
}

int main(int argc, char **argv)
{
    struct sink_options opts;
    static struct sink_server proto;
    static struct sink_server total; /* the workers' statistics added (and its opts) */
    struct sink_run r;
    const struct loops_hooks hooks = {NULL, worker_end};
    struct event *counter = NULL;
    struct json_run run;
    struct endpoint_file listen_file;
    char err[256];
    int fd, nodelay, status = 0;
    uint64_t fd_soft, fd_hard;
    FILE *port_file;

    msg_init(argv[0]);
    json_meta_run_init(&run, "smtp-sink", NULL, argc, argv);
    sink_options_parse(argc, argv, &opts);
    fdlimit_raise(&fd_soft, &fd_hard); /* a socket per client session, which the clients decide */
    msg_set_verbose(opts.tool.verbose);
    signal(SIGPIPE, SIG_IGN);

    memset(&r, 0, sizeof(r));
    r.opts = &opts;
    r.n = opts.threads;
    proto.next_id = ((uint64_t)getpid() << 20) & 0xffffffffULL;
    if (opts.server.tls) {
        proto.tls_ctx =
            tls_server_ctx_new(opts.server.tls_cert, opts.server.tls_key, err, sizeof(err));
        if (proto.tls_ctx == NULL)
            msg_fatal("%s", err);
    }
    /* Line by line: a sink killed in a crash test must not lose what it acknowledged. */
    /* an earlier run's result must not be read as this one's if this one ends without */
    if (fileutil_output_forget(opts.tool.json_file) != 0)
        msg_fatal("cannot remove the earlier result %s: %s", opts.tool.json_file, strerror(errno));
    if ((proto.msg_log = smtp_tool_opts_msg_log(&opts.tool, "a")) != NULL)
        setvbuf(proto.msg_log, NULL, _IOLBF, 0);
    fd = open_listener(&opts, &listen_file, &nodelay);
    proto.nodelay = nodelay;
    port_file = open_port_file(&opts);
    drop_privileges(&opts);

    /* With one worker, its loop is the main thread's, listener and all. */
    /* Yielding first, a loop sleeps and is woken less per message (smtp-sink(1), --no-yield). */
    r.loops =
        loops_new(r.n, NULL,
                  (r.n == 1 ? LOOPS_FIRST_ON_MAIN : 0) | (opts.no_yield ? 0 : LOOPS_YIELD), &hooks);
    r.base = loops_main_base(r.loops);
    r.stop_item.run = on_stop_item;
    r.resume_item.run = on_resume_item;
    r.workers = xcalloc(r.n, sizeof(*r.workers));
    for (unsigned i = 0; i < r.n; i++)
        worker_init(&r, i, &proto);
    r.listener = listener_new(r.base, fd, on_accept, on_accept_error, on_resume_accept, &r);
    if (r.listener == NULL)
        msg_fatal("cannot listen on %s", opts.listen_spec);
    loops_catch(r.loops, SIGINT, on_signal, NULL);
    loops_catch(r.loops, SIGTERM, on_signal, NULL);
    /* A hangup (its terminal gone, a reload) ends the run as SIGTERM does, with its reports. */
    loops_catch(r.loops, SIGHUP, on_signal, NULL);
    write_port_file(&opts, port_file, fd);
    if (opts.counters) {
        struct timeval tick = {0, 200000};

        counter = event_new(r.base, -1, EV_PERSIST, on_counter_tick, &r);
        evtimer_add(counter, &tick);
    }

    loops_start(r.loops);
    loops_run(r.loops);

    if (counter) {
        on_counter_tick(-1, 0, &r);
        printf("\n");
        event_free(counter);
    }
    total.opts = &opts;
    for (unsigned i = 0; i < r.n; i++)
        merge_stats(&total.stats, &r.workers[i].server.stats);
    total.stats.max_active = atomic_load(&r.max_active);
    if (!opts.tool.no_summary)
        print_summary(stderr, &total.stats);
    /* the log first: the JSON says whether it is whole */
    total.msg_log_lost = smtp_tool_opts_msg_log_close(&opts.tool, proto.msg_log) != 0;
    if (opts.tool.json_file && write_json(opts.tool.json_file, &total, &run) != 0)
        status = EXIT_STATUS_BAD;
    if (total.msg_log_lost)
        status = EXIT_STATUS_BAD;
    /* The socket file (unix:) goes with the sink, unless it was replaced meanwhile. */
    if (endpoint_file_remove(&listen_file, err, sizeof(err)) != 0)
        msg_warn("%s", err);
    listener_free(r.listener);
    loops_free(r.loops); /* what is still posted closes its connection */
    for (unsigned i = 0; i < r.n; i++)
        sink_session_free_replies(&r.workers[i].server);
    free(r.workers);
    if (proto.tls_ctx)
        SSL_CTX_free(proto.tls_ctx);
    free(opts.dump_start);
    json_meta_run_free(&run);
    return status;
}
