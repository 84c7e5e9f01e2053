/*
 * smtp-sink - SMTP/LMTP test server: accept mail, count it, throw it away.
 *
 * This file owns the process: options, the listening socket, privileges,
 * the event loop, exit conditions and the final report. Sessions live in
 * sink_session.c. See smtp-sink(1).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <event2/event.h>
#include <event2/listener.h>
#include <grp.h>
#include <openssl/ssl.h>
#include <pthread.h>
#include <pwd.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "clock.h"
#include "endpoint.h"
#include "interrupt.h"
#include "json.h"
#include "json_meta.h"
#include "mailbox.h"
#include "msg.h"
#include "sink_options.h"
#include "sink_session.h"
#include "tls.h"
#include "xalloc.h"

/*
 * --threads N: N workers, each an event loop with its own base, sessions
 * and statistics. One listener, on the main thread, deals the accepted
 * connections to them in turn, each posted to the worker's mailbox
 * (common/net/mailbox, as the relay's loops use). Not a listener per
 * thread with SO_REUSEPORT: the kernel hashes connections over those by
 * address and port, so a handful of long sessions (-d) can land on one
 * thread; unix: sockets have no SO_REUSEPORT; and -m (concurrent
 * connections) pauses one accept queue, as Postfix's does, which N queues
 * could not share. The cost is at most one pipe write per connection
 * (none while the worker is awake), not per message. The run-wide
 * counts the limits need (-m, -M, -n) and -c shows are atomics; the rest
 * is the workers' own, added up at the end. With one thread the worker
 * runs on the main thread with the listener, as before threads existed.
 */
struct sink_run;

struct sink_worker {
    struct sink_server server; /* first: the hooks get a struct sink_server * */
    struct sink_run *run;
    unsigned index;
    pthread_t thread;
    /* Connections and commands from the main thread (threads only). */
    struct mailbox *mailbox;
    struct mailbox_item drain, exit; /* each posted at most once (drain_posted, exit_posted) */
    int drain_posted, exit_posted;   /* the main thread's */
    int stopped;                     /* the loop is over: connections still posted are closed */
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
    unsigned n, next; /* workers; the one the next connection goes to */
    struct sink_worker *workers;
    struct event_base *base; /* the listener's: worker 0's, or the main thread's own */
    struct evconnlistener *listener;
    int listener_paused;
    int draining;
    struct event *accept_pause; /* out of descriptors: try accept() again later */
    uint64_t shown_messages, shown_sessions;
    /* Threads: the run's counts, and the workers' word to the main thread. */
    _Atomic uint64_t active, max_active, messages, sessions_ended;
    /* -n: sessions let in; the run takes no more than -n, as -M's claim. */
    _Atomic uint64_t sessions_claimed;
    _Atomic int paused; /* listener_paused, for the workers to read */
    int notify[2];      /* 'S' stop (a limit), 'R' resume accepting, 'D' a worker ended */
    struct event *notify_event;
    unsigned workers_done;
};

static void tell(int fd, const void *what, size_t len)
{
    if (write(fd, what, len) != (ssize_t)len)
        msg_fatal("cannot pass to a thread: %s", strerror(errno));
}

/* The main thread: no more connections; every worker finishes what it has. */
static void stop_soon(struct sink_run *r)
{
    struct timeval flush = {0, 100000};

    if (r->draining)
        return;
    r->draining = 1;
    evconnlistener_disable(r->listener);
    if (r->n == 1) {
        /* Stop taking work, give the last replies a moment to leave, then exit. */
        r->workers[0].server.draining = 1;
        event_base_loopexit(r->base, &flush);
        return;
    }
    for (unsigned i = 0; i < r->n; i++) {
        if (!r->workers[i].drain_posted) {
            r->workers[i].drain_posted = 1;
            mailbox_post(r->workers[i].mailbox, &r->workers[i].drain);
        }
    }
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
        evconnlistener_enable(r->listener);
        r->listener_paused = 0;
        atomic_store(&r->paused, 0);
    }
}

static void on_session_end(struct sink_server *server)
{
    struct sink_worker *w = (struct sink_worker *)server;
    struct sink_run *r = w->run;
    const struct sink_options *opts = server->opts;
    uint64_t ended = atomic_fetch_add(&r->sessions_ended, 1) + 1;

    atomic_fetch_sub(&r->active, 1);
    if (r->n == 1) {
        resume_accepting(r);
        if (opts->max_sessions && ended >= opts->max_sessions)
            stop_soon(r);
        return;
    }
    if (atomic_load(&r->paused))
        tell(r->notify[1], "R", 1);
    if (opts->max_sessions && ended == opts->max_sessions)
        tell(r->notify[1], "S", 1);
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
    if (max && seen + 1 == max) {
        if (r->n == 1)
            stop_soon(r);
        else
            tell(r->notify[1], "S", 1);
    }
    return 1;
}

/* The main thread hears from a worker (threads only). */
static void on_notify(evutil_socket_t fd, short what, void *arg)
{
    struct sink_run *r = arg;
    char note[64];
    ssize_t n = read((int)fd, note, sizeof(note));

    (void)what;
    for (ssize_t i = 0; i < n; i++) {
        if (note[i] == 'S')
            stop_soon(r);
        else if (note[i] == 'R')
            resume_accepting(r);
        else if (note[i] == 'D' && ++r->workers_done == r->n)
            event_base_loopbreak(r->base);
    }
}

/* The worker's loop, told by the main thread: stop taking work, finish, exit. */
static void on_drain(struct mailbox_item *item)
{
    struct sink_worker *w =
        (struct sink_worker *)((char *)item - offsetof(struct sink_worker, drain));
    struct timeval flush = {0, 100000};

    w->server.draining = 1;
    event_base_loopexit(w->server.base, &flush);
}

static void on_exit_now(struct mailbox_item *item)
{
    struct sink_worker *w =
        (struct sink_worker *)((char *)item - offsetof(struct sink_worker, exit));

    event_base_loopexit(w->server.base, NULL);
}

/* A connection dealt to this worker (threads only). */
static void on_handoff(struct mailbox_item *item)
{
    struct handoff *h = (struct handoff *)item;
    struct sink_worker *w = h->w;
    struct sink_server *server = &w->server;
    uint64_t before = server->stats.sessions;

    if (w->stopped) {
        close(h->fd); /* handed over after the worker's loop ended */
        free(h);
        return;
    }
    sink_session_start(server, h->fd, (struct sockaddr *)&h->addr, h->addrlen);
    if (server->stats.sessions == before) { /* refused: it will not end */
        atomic_fetch_sub(&w->run->active, 1);
        atomic_fetch_sub(&w->run->sessions_claimed, 1);
        tell(w->run->notify[1], "R", 1);
    }
    free(h);
}

static void on_accept(struct evconnlistener *listener, evutil_socket_t fd, struct sockaddr *addr,
                      int addrlen, void *arg)
{
    struct sink_run *r = arg;
    uint64_t active = atomic_fetch_add(&r->active, 1) + 1, max = atomic_load(&r->max_active);

    while (active > max && !atomic_compare_exchange_weak(&r->max_active, &max, active))
        ;
    atomic_fetch_add(&r->sessions_claimed, 1);
    if (r->n == 1) {
        uint64_t before = r->workers[0].server.stats.sessions;

        sink_session_start(&r->workers[0].server, fd, addr, addrlen);
        if (r->workers[0].server.stats.sessions == before) {
            atomic_fetch_sub(&r->active, 1);
            atomic_fetch_sub(&r->sessions_claimed, 1);
        }
    } else {
        struct handoff *h = xcalloc(1, sizeof(*h));

        h->item.run = on_handoff;
        h->w = &r->workers[r->next];
        h->fd = fd;
        h->addrlen = addrlen;
        memcpy(&h->addr, addr,
               (size_t)addrlen < sizeof(h->addr) ? (size_t)addrlen : sizeof(h->addr));
        mailbox_post(h->w->mailbox, &h->item);
        r->next = (r->next + 1) % r->n;
    }
    if (!may_accept(r)) {
        /* Excess connections wait in the listen queue, as with Postfix's -m. */
        evconnlistener_disable(listener);
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
        evconnlistener_enable(r->listener);
}

/*
 * Out of descriptors, accept() fails at once, and the listening socket
 * stays readable: without a pause the loop would spin. New connections
 * wait in the backlog for 100 ms; the sessions already open go on.
 */
static void on_accept_error(struct evconnlistener *listener, void *arg)
{
    struct sink_run *r = arg;
    int err = errno;
    struct timeval pause = {0, 100000};

    if (err == EMFILE || err == ENFILE || err == ENOBUFS || err == ENOMEM) {
        evconnlistener_disable(listener);
        evtimer_add(r->accept_pause, &pause);
    }
    if (r->opts->verbose || (err != EMFILE && err != ENFILE))
        msg_warn("accept: %s", strerror(err));
}

static void on_signal(evutil_socket_t sig, short what, void *arg)
{
    struct sink_run *r = arg;

    (void)sig;
    (void)what;
    if (r->n == 1) {
        event_base_loopexit(r->base, NULL);
        return;
    }
    for (unsigned i = 0; i < r->n; i++) {
        if (!r->workers[i].exit_posted) {
            r->workers[i].exit_posted = 1;
            mailbox_post(r->workers[i].mailbox, &r->workers[i].exit);
        }
    }
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

static void write_json(const char *path, const struct sink_server *server,
                       const struct json_run *run)
{
    const struct sink_stats *st = &server->stats;
    FILE *fp = strcmp(path, "-") == 0 ? stdout : fopen(path, "w");
    struct json_writer w;
    double secs = elapsed_seconds(st);

    if (fp == NULL) {
        msg_warn("cannot write %s: %s", path, strerror(errno));
        return;
    }
    json_init(&w, fp);
    json_begin_object(&w, NULL);
    json_meta_write(&w, run);
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
    json_end_object(&w);
    if (json_finish(&w) != 0 || (fp != stdout && fclose(fp) != 0))
        msg_warn("write error on %s", path);
}

static int open_listener(const struct sink_options *opts, struct endpoint_file *made)
{
    struct endpoint ep;
    char err[256];
    int fd;

    if (endpoint_parse_server(opts->listen_spec, &ep, err, sizeof(err)) != 0)
        msg_usage("%s", err);
    if ((fd = endpoint_listen(&ep, opts->family, opts->backlog, made, err, sizeof(err))) < 0)
        msg_fatal("%s", err);
    if (opts->tcp_window &&
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &opts->tcp_window, sizeof(opts->tcp_window)) != 0)
        msg_warn("-T: setsockopt SO_RCVBUF: %s", strerror(errno));
    if (opts->port_file) {
        FILE *fp = fopen(opts->port_file, "w");

        if (fp == NULL || fprintf(fp, "%d\n", endpoint_local_port(fd)) < 0 || fclose(fp) != 0)
            msg_fatal("cannot write port file %s: %s", opts->port_file, strerror(errno));
    }
    endpoint_free(&ep);
    return fd;
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
    w->index = i;
    server->opts = r->opts;
    server->tls_ctx = proto->tls_ctx;
    server->msg_log = proto->msg_log;
    /* Thread 0 draws what a run without threads draws; the others, streams of their own. */
    workload_prng_seed(&server->rng, r->opts->seed + i * 0x9e3779b97f4a7c15ULL);
    server->next_id = proto->next_id + i;
    server->id_stride = r->n;
    server->on_session_end = on_session_end;
    server->claim_message = claim_message;
    sink_session_init_replies(server);
    if ((server->base = event_base_new()) == NULL)
        msg_fatal("cannot create an event base");
    if (r->n > 1) {
        w->mailbox = mailbox_new(server->base);
        w->drain.run = on_drain;
        w->exit.run = on_exit_now;
    }
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

static void *worker_thread(void *arg)
{
    struct sink_worker *w = arg;

    event_base_dispatch(w->server.base);
    w->stopped = 1; /* connections still posted are closed, not served */
    sink_session_close_all(&w->server);
    finish_frees(w->server.base);
    tell(w->run->notify[1], "D", 1);
    return NULL;
}

static void worker_free(struct sink_worker *w)
{
    if (w->mailbox) {
        /* The thread has been joined: what is still posted closes its connection. */
        mailbox_run(w->mailbox);
        mailbox_free(w->mailbox);
    }
    event_base_free(w->server.base);
    sink_session_free_replies(&w->server);
}

/* The workers from start to end (more than one: see struct sink_worker). */
static void run_threads(struct sink_run *r)
{
    if (pipe(r->notify) != 0 || fcntl(r->notify[0], F_SETFL, O_NONBLOCK) != 0)
        msg_fatal("pipe: %s", strerror(errno));
    r->notify_event = event_new(r->base, r->notify[0], EV_READ | EV_PERSIST, on_notify, r);
    event_add(r->notify_event, NULL);
    /* Signals are the main thread's: its loop turns them into commands. */
    for (unsigned i = 0; i < r->n; i++) {
        int err = interrupt_thread_create(&r->workers[i].thread, worker_thread, &r->workers[i]);

        if (err != 0)
            msg_fatal("cannot start thread %u: %s", i, strerror(err));
    }
    event_base_dispatch(r->base);
    for (unsigned i = 0; i < r->n; i++)
        pthread_join(r->workers[i].thread, NULL);
    event_free(r->notify_event);
    close(r->notify[0]);
    close(r->notify[1]);
}

int main(int argc, char **argv)
{
    struct sink_options opts;
    static struct sink_server proto;
    static struct sink_server total; /* the workers' statistics added (and its opts) */
    struct sink_run r;
    struct event *sigint, *sigterm, *sighup, *counter = NULL;
    struct json_run run;
    struct endpoint_file listen_file;
    char err[256];
    int fd;

    msg_init(argv[0]);
    json_meta_run_init(&run, "smtp-sink", NULL, argc, argv);
    sink_options_parse(argc, argv, &opts);
    msg_set_verbose(opts.verbose);
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
    if (opts.msg_log) {
        proto.msg_log = strcmp(opts.msg_log, "-") == 0 ? stdout : fopen(opts.msg_log, "a");
        if (proto.msg_log == NULL)
            msg_fatal("cannot open message log %s: %s", opts.msg_log, strerror(errno));
        /* Line by line: a sink killed in a crash test must not lose what it acknowledged. */
        setvbuf(proto.msg_log, NULL, _IOLBF, 0);
    }
    fd = open_listener(&opts, &listen_file);
    drop_privileges(&opts);

    r.workers = xcalloc(r.n, sizeof(*r.workers));
    for (unsigned i = 0; i < r.n; i++)
        worker_init(&r, i, &proto);
    if (r.n == 1)
        r.base = r.workers[0].server.base;
    else if ((r.base = event_base_new()) == NULL)
        msg_fatal("cannot create an event base");
    r.listener = evconnlistener_new(r.base, on_accept, &r, LEV_OPT_CLOSE_ON_FREE,
                                    0 /* listen() was called with the backlog asked for */, fd);
    if (r.listener == NULL)
        msg_fatal("cannot listen on %s", opts.listen_spec);
    evconnlistener_set_error_cb(r.listener, on_accept_error);
    r.accept_pause = evtimer_new(r.base, on_resume_accept, &r);
    sigint = evsignal_new(r.base, SIGINT, on_signal, &r);
    sigterm = evsignal_new(r.base, SIGTERM, on_signal, &r);
    /* A hangup (its terminal gone, a reload) ends the run as SIGTERM does, with its reports. */
    sighup = evsignal_new(r.base, SIGHUP, on_signal, &r);
    evsignal_add(sigint, NULL);
    evsignal_add(sigterm, NULL);
    evsignal_add(sighup, NULL);
    if (opts.counters) {
        struct timeval tick = {0, 200000};

        counter = event_new(r.base, -1, EV_PERSIST, on_counter_tick, &r);
        evtimer_add(counter, &tick);
    }

    if (r.n == 1) {
        event_base_dispatch(r.base);
        r.draining = 1; /* the pass below must not take new connections */
        evconnlistener_disable(r.listener);
        sink_session_close_all(&r.workers[0].server);
        finish_frees(r.base);
    } else {
        run_threads(&r);
    }

    if (counter) {
        on_counter_tick(-1, 0, &r);
        printf("\n");
        event_free(counter);
    }
    total.opts = &opts;
    for (unsigned i = 0; i < r.n; i++)
        merge_stats(&total.stats, &r.workers[i].server.stats);
    total.stats.max_active = atomic_load(&r.max_active);
    if (!opts.no_summary)
        print_summary(stderr, &total.stats);
    if (opts.json_file)
        write_json(opts.json_file, &total, &run);
    if (proto.msg_log && fflush(proto.msg_log) != 0)
        msg_warn("write error on message log %s", opts.msg_log);
    if (proto.msg_log && proto.msg_log != stdout)
        fclose(proto.msg_log);
    event_free(sigint);
    event_free(sigterm);
    event_free(sighup);
    /* The socket file (unix:) goes with the sink, unless it was replaced meanwhile. */
    if (endpoint_file_remove(&listen_file, err, sizeof(err)) != 0)
        msg_warn("%s", err);
    evconnlistener_free(r.listener);
    event_free(r.accept_pause);
    if (r.n > 1)
        event_base_free(r.base);
    for (unsigned i = 0; i < r.n; i++)
        worker_free(&r.workers[i]);
    free(r.workers);
    if (proto.tls_ctx)
        SSL_CTX_free(proto.tls_ctx);
    free(opts.dump_start);
    json_meta_run_free(&run);
    return 0;
}
