/*
 * relay - `spoolsim relay': a queue daemon with Postfix's spool.
 *
 * Set-up and tear-down: the options, the spool (made if missing, locked
 * against a second relay, recovered after a crash), the listener, the
 * event loops and their I/O pools, the signals. A stop (SIGINT, SIGTERM) refuses new work, lets
 * the messages in flight reach a safe state for up to 10 seconds, and
 * prints the summary; whatever is still queued stays in the spool for the
 * next start.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "exit_status.h"
#include "clock.h"
#include "endpoint.h"
#include "fdlimit.h"
#include "fileutil.h"
#include "listener.h"
#include "cpu_burn.h"
#include "msg.h"
#include "relay_dry_run.h"
#include "loops.h"
#include "relay_loop.h"
#include "received.h"
#include "relay_private.h"
#include "relay_stats.h"
#include "relay_deliver.h"
#include "relay_smtpd.h"
#include "relay_qmgr.h"
#include "relay_spool.h"
#include "relay_usage.h"
#include "smtp_line.h"
#include "spoolsim.h"
#include "tls.h"
#include "xalloc.h"

#define STOP_GRACE 10 /* seconds for deliveries in flight at a stop */

static int open_listener(const struct relay_options *opts, struct endpoint_file *made)
{
    struct endpoint ep;
    char err[256];
    int fd;

    if (endpoint_parse_server(opts->listen, &ep, err, sizeof(err)) != 0)
        msg_usage("--listen: %s", err);
    if ((fd = endpoint_listen(&ep, AF_UNSPEC, (int)opts->backlog, made, err, sizeof(err))) < 0)
        msg_fatal("%s", err);
    endpoint_free(&ep);
    return fd;
}

/* Once the spool is ready: whoever waits for the port file may then send. */
static void write_port_file(const struct relay_options *opts, int fd, char *err, size_t errlen)
{
    FILE *fp;

    err[0] = 0;
    if (opts->port_file == NULL)
        return;
    fp = fopen(opts->port_file, "w");
    if (fp == NULL || fprintf(fp, "%d\n", endpoint_local_port(fd)) < 0 || fclose(fp) != 0)
        snprintf(err, errlen, "cannot write port file %s: %s", opts->port_file, strerror(errno));
}

/* The listener's socket file (unix:) goes with the relay, unless it was replaced meanwhile. */
static void remove_listen_file(struct endpoint_file *file)
{
    char err[512];

    if (endpoint_file_remove(file, err, sizeof(err)) != 0)
        msg_warn("%s", err);
}

/* A failure once listening: the socket file goes first; usage errors exit 2, the others 1. */
static _Noreturn MSG_PRINTF(3, 4) void listen_failed(struct endpoint_file *listen_file, int usage,
                                                     const char *fmt, ...)
{
    char why[9000];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(why, sizeof(why), fmt, ap);
    va_end(ap);
    remove_listen_file(listen_file);
    if (usage)
        msg_usage("%s", why);
    msg_fatal("%s", why);
}

/* A failure after the spool was made: a tree this run made goes with it. */
static _Noreturn void setup_failed(const char *spool, int made, struct endpoint_file *listen_file,
                                   const char *err)
{
    if (made)
        fileutil_tree_remove(spool);
    listen_failed(listen_file, 0, "%s", err);
}

static void on_accept(struct listener *listener, int fd, struct sockaddr *addr, socklen_t addrlen,
                      void *arg)
{
    struct relay *r = arg;

    (void)listener;
    relay_loop_deal(r, fd, addr, addrlen);
}

static void on_resume_accept(evutil_socket_t fd, short what, void *arg)
{
    struct relay *r = arg;

    (void)fd;
    (void)what;
    if (!r->stopping && !r->accept_paused)
        listener_enable(r->listener);
}

static void on_accept_error(struct listener *listener, int err, void *arg)
{
    struct relay *r = arg;

    (void)listener;
    relay_loop_warn(&r->loops[0], RELAY_WARN_ACCEPT, "accept", err, "accept: %s", strerror(err));
}

/* Stopped once nothing is under way, and no client waits for a reply held back (--reply-delay). */
static void check_stopped(struct relay *r)
{
    if (r->stopping && relay_qmgr_idle(r) && r->replies_held == 0)
        event_base_loopexit(r->base, NULL);
}

static void on_stats_timer(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    relay_stats_sample(arg);
    relay_stats_tick(arg);
}

static void on_progress_timer(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    relay_stats_progress(arg);
}

static void on_stop_poll(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    check_stopped(arg);
}

static void on_stop_timer(evutil_socket_t fd, short what, void *arg)
{
    struct relay *r = arg;

    (void)fd;
    (void)what;
    if (!relay_qmgr_idle(r))
        msg_warn("stopping with deliveries in flight; they stay queued for the next start");
    event_base_loopbreak(r->base);
}

/*
 * SIGUSR1: the summary so far on standard error, and the JSON so far in
 * --json FILE, the run going on. SIGHUP: the relay has no file to read
 * again (its options are its whole configuration), so it says so and goes
 * on, rather than die as a daemon must not on a reload.
 */
/* The CPU by role so far: on loop 0's thread, which is where this runs. */
static void take_cpu(struct relay *r)
{
    r->loops[0].cpu_ns = cpu_burn_thread_ns() - r->cpu_loop_start_ns;
    r->cpu_loop_ns = r->loops[0].cpu_ns + relay_loop_take_cpu(r);
    r->cpu_cleanup_ns = relay_loop_pool_cpu_ns(r);
    r->cpu_qmgr_ns = r->qmgr != r->cleanup ? io_pool_cpu_ns(r->qmgr) : 0;
    r->cpu_daemons_ns = relay_model_daemons_cpu_ns(r->model);
}

static void on_report_signal(evutil_socket_t sig, short what, void *arg)
{
    struct relay *r = arg;

    (void)what;
    if (sig == SIGHUP) {
        msg_info("SIGHUP: nothing to re-read (the command line is the configuration); going on");
        return;
    }
    relay_stats_sample(r);
    take_cpu(r);
    progress_out_clear(&r->progress);
    fprintf(stderr, "spoolsim relay: statistics so far (SIGUSR1)\n");
    relay_stats_print(r, stderr);
    if (r->opts->json && strcmp(r->opts->json, "-") != 0 &&
        relay_stats_write_json(r, r->opts->json) != 0)
        msg_warn("cannot write %s: %s", r->opts->json, strerror(errno));
}

static void on_signal(evutil_socket_t sig, short what, void *arg)
{
    struct relay *r = arg;
    struct timeval grace = {STOP_GRACE, 0}, poll = {0, 20000};

    (void)what;
    if (r->stopping) {
        event_base_loopbreak(r->base); /* a second signal: now */
        return;
    }
    if (r->opts->verbose)
        msg_info("signal %d: stopping", (int)sig);
    r->stopping = 1;
    relay_model_stop(r->model); /* a burn of seconds must not hold the stop (relay_model.h) */
    listener_disable(r->listener);
    relay_qmgr_flow_flush(r); /* their clients are waiting for an answer */
    relay_loop_close_sessions(r);
    r->stop_timer = evtimer_new(r->base, on_stop_timer, r);
    evtimer_add(r->stop_timer, &grace);
    r->stop_poll = event_new(r->base, -1, EV_PERSIST, on_stop_poll, r);
    evtimer_add(r->stop_poll, &poll);
}

int spoolsim_relay(int argc, char **argv)
{
    static const struct relay_loop_server sessions = {relay_smtpd_accept, relay_smtpd_close_all};
    struct relay_options opts;
    struct relay r;
    struct json_run run;
    struct event *sigint, *sigterm, *sighup, *sigusr1;
    sigset_t held_signals;
    struct timeval interval;
    char err[8192], self[4096];
    struct stat st;
    struct endpoint_file listen_file;
    int listen_fd, lock_fd, made_spool, unsaved = 0;
    uint64_t fd_soft, fd_hard;

    json_meta_run_init(&run, "spoolsim relay", "spoolsim", argc, argv);
    relay_options_parse(&opts, argc, argv);
    /* a socket per session in and out, a queue file per message being written */
    fdlimit_raise(&fd_soft, &fd_hard);
    if (opts.check_only) { /* sweep, bench and crash ask before they make anything */
        json_meta_run_free(&run);
        relay_dry_run(&opts);
    }
    /*
     * The stop and report signals wait until the loop can take them: one
     * that comes while the relay sets up (once the port file is there, a
     * client may well send it) stops it as one in service does, with its
     * summary and its pid file removed, not by the default action.
     */
    sigemptyset(&held_signals);
    sigaddset(&held_signals, SIGINT);
    sigaddset(&held_signals, SIGTERM);
    sigaddset(&held_signals, SIGHUP);
    sigaddset(&held_signals, SIGUSR1);
    pthread_sigmask(SIG_BLOCK, &held_signals, NULL);
    msg_set_verbose(opts.verbose);
    signal(SIGPIPE, SIG_IGN);
    memset(&r, 0, sizeof(r));
    r.opts = &opts;
    r.retry = (struct retry_policy){opts.min_backoff_ns, opts.max_backoff_ns, opts.max_lifetime_ns};
    r.run = &run;
    /*
     * Everything that can fail for a reason of its own (the port, the
     * next hop's name, the certificates) is tried before the spool is
     * made, so that a mistake there leaves no tree behind.
     */
    /* -u is the caller's mistake whatever the port: said before the port is taken */
    if (opts.user && pf_spool_set_user(&r.spool, opts.user, err, sizeof(err)) != 0)
        msg_usage("-u %s: %s", opts.user, err);
    listen_fd = open_listener(&opts, &listen_file);
    r.agent = opts.hop_kind == RELAY_HOP_SMTP ? &relay_smtp_agent : &relay_local_agent;
    if (relay_smtp_init(&r, err, sizeof(err)) != 0)
        listen_failed(&listen_file, 1, "--next-hop %s: %s", opts.next_hop, err);
    if (opts.server.tls &&
        (r.tls_ctx = tls_server_ctx_new(opts.server.tls_cert, opts.server.tls_key, err,
                                        sizeof(err))) == NULL)
        listen_failed(&listen_file, 0, "%s", err);
    if (opts.hop_tls != RELAY_HOP_TLS_NONE &&
        (r.hop_tls_ctx = tls_client_ctx_new(0, NULL, err, sizeof(err))) == NULL)
        listen_failed(&listen_file, 0, "%s", err);
    made_spool = stat(opts.spool, &st) != 0 && errno == ENOENT;
    relay_stats_init(&r.stats);
    r.stats.queue_depths = relay_qmgr_depths;
    r.spool.long_ids = opts.long_ids;
    r.spool.hash_depth = opts.hash_depth;
    r.spool.sync = opts.sync;
    /*
     * A queue file larger than our limits make is read by nobody: it goes to
     * corrupt/. The text is the client's and our Received: header.
     */
    r.spool.max_file = pf_qfile_bound(opts.server.max_size + RECEIVED_MAX, opts.server.max_rcpt,
                                      SMTP_COMMAND_LINE_LIMIT);
    r.profile = profile_find(opts.profile);
    if ((r.backend = relay_spool_of(r.profile)) == NULL)
        listen_failed(&listen_file, 0, "profile %s: no spool backend of the relay serves it",
                      r.profile->name);
    /* What the profile's MTA would show, where there is a model of it. */
    if (opts.model == NULL)
        opts.model = relay_model_default(r.profile->mta);
    companion_self(self, sizeof(self));
    if (relay_model_open(opts.model, self, &r.model, err, sizeof(err)) != 0)
        listen_failed(&listen_file, 1, "--model %s", err);
    if (!relay_model_fits(r.model, r.profile->name, r.profile->mta, err, sizeof(err)))
        listen_failed(&listen_file, 1, "--model %s: %s", opts.model, err);
    if (relay_model_warning(r.model))
        msg_warn("--model %s: %s", opts.model, relay_model_warning(r.model));
    /*
     * The loops and their threads before the spool: what runs out of
     * descriptors or threads (a pipe, an event base each) fails here, with
     * nothing made yet.
     */
    loops_catch_fatal();
    if ((r.base = event_base_new()) == NULL)
        listen_failed(&listen_file, 0, "cannot create an event base");
    pthread_mutex_init(&r.stats_lock, NULL);
    relay_loop_start(&r, &sessions);
    /* Its thread is numbered after every cleanup thread (a profile's runners). */
    r.qmgr = opts.qmgr == RELAY_QMGR_SINGLE ? io_pool_new(r.base, 1, opts.cleanup_threads, "qmgr")
                                            : r.cleanup;
    if (r.backend->open(&r, err, sizeof(err)) != 0)
        setup_failed(opts.spool, made_spool, &listen_file, err);
    if ((lock_fd = pf_spool_lock(&r.spool, err, sizeof(err))) < 0)
        setup_failed(opts.spool, made_spool, &listen_file, err);
    if (relay_local_init(&r, err, sizeof(err)) != 0)
        setup_failed(opts.spool, made_spool, &listen_file, err);
    relay_smtpd_build_ehlo(&r);
    write_port_file(&opts, listen_fd, err, sizeof(err));
    if (err[0])
        setup_failed(opts.spool, made_spool, &listen_file, err);
    /* Bound, checked and locked: the rest runs as the spool's owner (-u). */
    if (pf_spool_drop_privileges(&r.spool, err, sizeof(err)) != 0)
        msg_fatal("-u %s: %s", opts.user, err);

    relay_usage_init(&r);
    r.start_ns = clock_now_ns();
    r.cpu_loop_start_ns =
        cpu_burn_thread_ns(); /* set-up (and the model's speed test) is not service */
    relay_qmgr_new(&r);
    r.backend->recover(&r);
    r.listener = listener_new(r.base, listen_fd, on_accept, on_accept_error, on_resume_accept, &r);
    if (r.listener == NULL)
        msg_fatal("cannot listen on %s", opts.listen);
    if (!opts.quiet)
        relay_stats_print_start(&r, listen_fd, stderr);
    sigint = evsignal_new(r.base, SIGINT, on_signal, &r);
    sigterm = evsignal_new(r.base, SIGTERM, on_signal, &r);
    evsignal_add(sigint, NULL);
    evsignal_add(sigterm, NULL);
    sighup = evsignal_new(r.base, SIGHUP, on_report_signal, &r);
    sigusr1 = evsignal_new(r.base, SIGUSR1, on_report_signal, &r);
    evsignal_add(sighup, NULL);
    evsignal_add(sigusr1, NULL);
    /* the loop's own threads keep them blocked */
    pthread_sigmask(SIG_UNBLOCK, &held_signals, NULL);
    r.stats_timer = event_new(r.base, -1, EV_PERSIST, on_stats_timer, &r);
    interval = clock_timeval(opts.stats_interval);
    evtimer_add(r.stats_timer, &interval);
    relay_stats_sample(&r);
    relay_stats_tick(&r);
    progress_out_init(&r.progress, stderr, opts.progress);
    progress_out_hook_messages(&r.progress);
    progress_rate_init(&r.progress_r);
    /* an earlier run's result must not be read as this one's if this one ends without */
    if (fileutil_output_forget(opts.json) != 0 || fileutil_output_forget(opts.csv) != 0)
        msg_warn("cannot remove the earlier result: %s", strerror(errno));
    if (progress_out_on(&r.progress)) {
        struct timeval second = {1, 0};

        r.progress_timer = event_new(r.base, -1, EV_PERSIST, on_progress_timer, &r);
        evtimer_add(r.progress_timer, &second);
    }
    relay_qmgr_kick(&r);

    event_base_dispatch(r.base);

    r.stop_ns = clock_now_ns();
    r.stopping = 1;
    relay_model_stop(r.model);
    relay_stats_sample(&r);
    relay_stats_tick(&r);
    relay_loop_join(&r); /* from here on this is the only thread but the pools' */
    relay_smtp_close_all(&r);
    /* Let every file operation under way finish: none may be cut off halfway. */
    relay_loop_drain(&r);
    relay_loop_warn_flush(&r); /* what a dead disk repeated: counted, said once more here */
    take_cpu(&r);
    progress_out_clear(&r.progress); /* no partial line before the summary */
    msg_set_hook(NULL, NULL);
    if (!opts.no_summary)
        relay_stats_print(&r, stderr);
    if (opts.json && relay_stats_write_json(&r, opts.json) != 0) {
        msg_warn("cannot write %s: %s", opts.json, strerror(errno));
        unsaved = 1;
    }
    if (opts.csv && timeline_save_csv(&r.stats.timeline, opts.csv) != 0) {
        msg_warn("cannot write %s: %s", opts.csv, strerror(errno));
        unsaved = 1;
    }
    relay_smtpd_free_all(&r);
    relay_loop_drain(&r); /* the files of messages left unfinished: removed */
    relay_qmgr_free(&r);
    if (r.qmgr != r.cleanup)
        io_pool_free(r.qmgr);
    relay_loop_free(&r);
    r.backend->close(&r);
    relay_model_free(r.model);
    /* Freed, a signal's event puts its default action back: a late stop must not end the relay
     * with a signal's status in place of the one decided above (loops_free() says more). */
    pthread_sigmask(SIG_BLOCK, &held_signals, NULL);
    event_free(sigint);
    event_free(sigterm);
    event_free(sighup);
    event_free(sigusr1);
    event_free(r.stats_timer);
    if (r.progress_timer)
        event_free(r.progress_timer);
    relay_usage_free(&r);
    if (r.stop_timer)
        event_free(r.stop_timer);
    if (r.stop_poll)
        event_free(r.stop_poll);
    remove_listen_file(&listen_file); /* before the close (endpoint.h) */
    listener_free(r.listener);
    event_base_free(r.base);
    SSL_CTX_free(r.tls_ctx);
    SSL_CTX_free(r.hop_tls_ctx);
    relay_stats_free(&r.stats);
    pthread_mutex_destroy(&r.stats_lock);
    pf_spool_close(&r.spool);
    close(lock_fd);
    json_meta_run_free(&run);
    return unsaved ? EXIT_STATUS_BAD : EXIT_STATUS_OK;
}
