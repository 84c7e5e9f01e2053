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
#include <event2/listener.h>
#include <grp.h>
#include <openssl/ssl.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "clock.h"
#include "endpoint.h"
#include "json.h"
#include "json_meta.h"
#include "msg.h"
#include "sink_options.h"
#include "sink_session.h"
#include "tls.h"

struct sink_main {
    struct sink_server server;
    struct evconnlistener *listener;
    int listener_paused;
    struct event *accept_pause; /* out of descriptors: try accept() again later */
    uint64_t shown_messages, shown_sessions;
};

static void stop_soon(struct sink_server *server)
{
    struct sink_main *m = (struct sink_main *)server;
    struct timeval flush = {0, 100000};

    if (server->draining)
        return;
    /* Stop taking work, give the last replies a moment to leave, then exit. */
    server->draining = 1;
    evconnlistener_disable(m->listener);
    event_base_loopexit(server->base, &flush);
}

static void on_session_end(struct sink_server *server)
{
    struct sink_main *m = (struct sink_main *)server;
    const struct sink_options *opts = server->opts;

    if (m->listener_paused && server->stats.active < opts->max_conns && !server->draining) {
        evconnlistener_enable(m->listener);
        m->listener_paused = 0;
    }
    if (opts->max_sessions && server->stats.sessions_ended >= opts->max_sessions)
        stop_soon(server);
}

static void on_message(struct sink_server *server)
{
    if (server->opts->max_messages && server->stats.messages >= server->opts->max_messages)
        stop_soon(server);
}

static void on_accept(struct evconnlistener *listener, evutil_socket_t fd, struct sockaddr *addr,
                      int addrlen, void *arg)
{
    struct sink_main *m = arg;

    sink_session_start(&m->server, fd, addr, addrlen);
    if (m->server.stats.active >= m->server.opts->max_conns) {
        /* Excess connections wait in the listen queue, as with Postfix's -m. */
        evconnlistener_disable(listener);
        m->listener_paused = 1;
    }
}

static void on_resume_accept(evutil_socket_t fd, short what, void *arg)
{
    struct sink_main *m = arg;

    (void)fd;
    (void)what;
    if (!m->listener_paused && !m->server.draining)
        evconnlistener_enable(m->listener);
}

/*
 * Out of descriptors, accept() fails at once, and the listening socket
 * stays readable: without a pause the loop would spin. New connections
 * wait in the backlog for 100 ms; the sessions already open go on.
 */
static void on_accept_error(struct evconnlistener *listener, void *arg)
{
    struct sink_main *m = arg;
    int err = errno;
    struct timeval pause = {0, 100000};

    if (err == EMFILE || err == ENFILE || err == ENOBUFS || err == ENOMEM) {
        evconnlistener_disable(listener);
        evtimer_add(m->accept_pause, &pause);
    }
    if (m->server.opts->verbose || (err != EMFILE && err != ENFILE))
        msg_warn("accept: %s", strerror(err));
}

static void on_signal(evutil_socket_t sig, short what, void *arg)
{
    struct event_base *base = arg;

    (void)sig;
    (void)what;
    event_base_loopexit(base, NULL);
}

static void on_counter_tick(evutil_socket_t fd, short what, void *arg)
{
    struct sink_main *m = arg;
    const struct sink_stats *st = &m->server.stats;

    (void)fd;
    (void)what;
    if (st->messages != m->shown_messages || st->sessions_ended != m->shown_sessions) {
        m->shown_messages = st->messages;
        m->shown_sessions = st->sessions_ended;
        printf("\r%llu sessions, %llu messages", (unsigned long long)st->sessions_ended,
               (unsigned long long)st->messages);
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
    json_string(&w, "bare_lf_policy", smtp_bare_lf_policy_name(server->opts->bare_lf));
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

static int open_listener(const struct sink_options *opts)
{
    struct endpoint ep;
    char err[256];
    int fd;

    if (endpoint_parse_server(opts->listen_spec, &ep, err, sizeof(err)) != 0)
        msg_usage("%s", err);
    if ((fd = endpoint_listen(&ep, opts->family, opts->backlog, err, sizeof(err))) < 0)
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

int main(int argc, char **argv)
{
    struct sink_options opts;
    struct sink_main m;
    struct sink_server *server = &m.server;
    struct event *sigint, *sigterm, *counter = NULL;
    struct json_run run;
    char err[256];
    int fd;

    msg_init(argv[0]);
    json_run_init(&run, "smtp-sink", NULL, argc, argv);
    sink_options_parse(argc, argv, &opts);
    msg_set_verbose(opts.verbose);
    signal(SIGPIPE, SIG_IGN);

    memset(&m, 0, sizeof(m));
    server->opts = &opts;
    prng_seed(&server->rng, opts.seed);
    server->next_id = ((uint64_t)getpid() << 20) & 0xffffffffULL;
    server->on_session_end = on_session_end;
    server->on_message = on_message;
    if (opts.tls) {
        server->tls_ctx = tls_server_ctx_new(opts.tls_cert, opts.tls_key, err, sizeof(err));
        if (server->tls_ctx == NULL)
            msg_fatal("%s", err);
    }
    if (opts.msg_log) {
        server->msg_log = strcmp(opts.msg_log, "-") == 0 ? stdout : fopen(opts.msg_log, "a");
        if (server->msg_log == NULL)
            msg_fatal("cannot open message log %s: %s", opts.msg_log, strerror(errno));
        /* Line by line: a sink killed in a crash test must not lose what it acknowledged. */
        setvbuf(server->msg_log, NULL, _IOLBF, 0);
    }
    fd = open_listener(&opts);
    drop_privileges(&opts);
    sink_server_init_replies(server);

    if ((server->base = event_base_new()) == NULL)
        msg_fatal("cannot create an event base");
    m.listener = evconnlistener_new(server->base, on_accept, &m, LEV_OPT_CLOSE_ON_FREE,
                                    0 /* listen() was called with the backlog asked for */, fd);
    if (m.listener == NULL)
        msg_fatal("cannot listen on %s", opts.listen_spec);
    evconnlistener_set_error_cb(m.listener, on_accept_error);
    m.accept_pause = evtimer_new(server->base, on_resume_accept, &m);
    sigint = evsignal_new(server->base, SIGINT, on_signal, server->base);
    sigterm = evsignal_new(server->base, SIGTERM, on_signal, server->base);
    evsignal_add(sigint, NULL);
    evsignal_add(sigterm, NULL);
    if (opts.counters) {
        struct timeval tick = {0, 200000};

        counter = event_new(server->base, -1, EV_PERSIST, on_counter_tick, &m);
        evtimer_add(counter, &tick);
    }

    event_base_dispatch(server->base);

    if (counter) {
        on_counter_tick(-1, 0, &m);
        printf("\n");
        event_free(counter);
    }
    if (!opts.no_summary)
        print_summary(stderr, &server->stats);
    if (opts.json_file)
        write_json(opts.json_file, server, &run);
    if (server->msg_log && fflush(server->msg_log) != 0)
        msg_warn("write error on message log %s", opts.msg_log);
    if (server->msg_log && server->msg_log != stdout)
        fclose(server->msg_log);
    sink_server_close_all(server);
    event_free(sigint);
    event_free(sigterm);
    evconnlistener_free(m.listener);
    event_free(m.accept_pause);
    event_base_free(server->base);
    sink_server_free_replies(server);
    if (server->tls_ctx)
        SSL_CTX_free(server->tls_ctx);
    free(opts.dump_start);
    json_run_free(&run);
    return 0;
}
