/*
 * source_session - one smtp-source client session; see source_session.h.
 *
 * The session is a state machine driven by replies: each state names the
 * reply it waits for, and on_reply() moves to the next step. With
 * PIPELINING, MAIL, every RCPT and DATA leave in one write and their
 * replies are then taken in order through the same states.
 */
#include "config.h"

#include <errno.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bev_in.h"
#include "checksum.h"
#include "clock.h"
#include "msg.h"
#include "smtp_input.h"
#include "smtp_line.h"
#include "smtp_reply.h"
#include "source_session.h"
#include "tls_bev.h"
#include "xalloc.h"

enum state {
    ST_IDLE, /* no message; maybe connected (-d) */
    ST_CONNECTING,
    ST_BANNER,
    ST_EHLO,
    ST_HELO,
    ST_STARTTLS,
    ST_TLS, /* handshake in progress */
    ST_MAIL,
    ST_RCPT,
    ST_DATA,
    ST_DOT,
    ST_RSET,
    ST_QUIT,
    ST_WAIT, /* timer: -w/-R wait or connect retry */
    ST_DONE,
};

struct source_session {
    struct source_ctx *ctx;
    struct source_session *next_idle;
    unsigned id;
    struct bufferevent *bev;
    struct bev_in in; /* reads a plain connection (in.ev NULL: none, or TLS) */
    struct event *timer;
    enum state state;
    int connected;
    int tls_bev; /* s->bev is an OpenSSL bufferevent */
    int tls_active;
    int finishing; /* no more messages: QUIT and stop */
    unsigned extensions;
    unsigned retries_left;
    struct smtp_line_reader lines;
    struct smtp_reply reply;
    uint64_t phase_ns; /* when the awaited command was sent */

    /* The message in progress. */
    int has_msg;
    int msg_failed;
    int pipelined;
    uint64_t seq;
    uint64_t start_ns;
    uint64_t content_len;
    uint64_t log_size, checksum; /* the message log's key (checksum.h) */
    unsigned rcpt_done;
    unsigned rcpt_ok;
    unsigned dot_replies_left;
    char msgid[SOURCE_MSGID_MAX];
    char queue_id[64];
};

static void session_next(struct source_session *s);
static void on_read(struct bufferevent *bev, void *arg);
static void on_event(struct bufferevent *bev, short what, void *arg);

/* ------------------------------------------------------------ bookkeeping */

static void record(struct source_session *s, enum source_phase phase, uint64_t since)
{
    uint64_t now = clock_now_ns();

    histogram_record(&s->ctx->stats.latency[phase], now > since ? now - since : 0);
}

/* Count one failure of the message in progress (only its first counts as the message's). */
static void fail(struct source_session *s, enum source_failure kind, int code,
                 enum source_phase phase)
{
    struct source_stats *st = &s->ctx->stats;

    if (code > 0 && code < SOURCE_MAX_CODE)
        st->by_code[code][phase]++;
    if (s->has_msg && !s->msg_failed) {
        s->msg_failed = 1;
        st->failures[kind]++;
    } else if (!s->has_msg) {
        st->failures[kind]++;
    }
    if (s->ctx->opts->verbose)
        msg_info("session %u: %s failure at %s%s%s", s->id, source_report_failure_name(kind),
                 source_report_phase_name(phase), code ? ": " : "", code ? s->reply.text : "");
}

static void message_done(struct source_session *s)
{
    struct source_stats *st = &s->ctx->stats;

    if (!s->has_msg)
        return;
    s->has_msg = 0;
    if (s->msg_failed) {
        st->failed++;
        atomic_store_explicit(&s->ctx->live_failed, st->failed, memory_order_relaxed);
        return;
    }
    st->delivered++;
    atomic_store_explicit(&s->ctx->live_delivered, st->delivered, memory_order_relaxed);
    st->bytes += s->content_len;
    st->recipients += s->rcpt_ok;
    record(s, PHASE_TXN, s->start_ns);
    if (s->ctx->msg_log)
        fprintf(s->ctx->msg_log,
                "id=%s size=%llu sum=%016llx rcpts=%u message-id=%s mono_ns=%llu\n",
                s->queue_id[0] ? s->queue_id : "-", (unsigned long long)s->log_size,
                (unsigned long long)s->checksum, s->rcpt_ok, s->msgid,
                (unsigned long long)clock_now_ns());
}

/* ------------------------------------------------------------- connection */

static void set_timeouts(struct source_session *s, int active)
{
    struct timeval tv = clock_timeval(s->ctx->opts->timeout);
    const struct timeval *t = active ? &tv : NULL;

    bufferevent_set_timeouts(s->bev, s->in.ev ? NULL : t, t);
    if (s->in.ev)
        bev_in_set_timeout(&s->in, t);
}

static void close_connection(struct source_session *s)
{
    bev_in_stop(&s->in);
    if (s->bev) {
        bufferevent_free(s->bev);
        s->bev = NULL;
    }
    s->connected = 0;
    s->tls_bev = 0;
    s->tls_active = 0;
    s->extensions = 0;
}

static void send_cmd(struct source_session *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void send_cmd(struct source_session *s, const char *fmt, ...)
{
    struct evbuffer *out = bufferevent_get_output(s->bev);
    va_list ap;

    va_start(ap, fmt);
    if (s->ctx->opts->verbose) {
        char line[1024];
        va_list copy;

        va_copy(copy, ap);
        vsnprintf(line, sizeof(line), fmt, copy);
        va_end(copy);
        msg_info("session %u: > %s", s->id, line);
    }
    evbuffer_add_vprintf(out, fmt, ap);
    va_end(ap);
    evbuffer_add(out, "\r\n", 2);
    s->phase_ns = clock_now_ns();
}

/* A prebuilt command line, CR LF included: the common commands need no printf. */
static void send_line(struct source_session *s, const char *line, size_t len)
{
    if (s->ctx->opts->verbose)
        msg_info("session %u: > %.*s", s->id, (int)(len - 2), line);
    evbuffer_add(bufferevent_get_output(s->bev), line, len);
    s->phase_ns = clock_now_ns();
}

static void on_timer(evutil_socket_t fd, short what, void *arg);
static void session_flush(struct source_session *s);
static void next_after_wait(struct source_session *s);

static void start_timer(struct source_session *s, double seconds)
{
    struct timeval tv;

    if (s->timer == NULL)
        s->timer = evtimer_new(s->ctx->base, on_timer, s);
    tv = clock_timeval(seconds);
    s->state = ST_WAIT;
    evtimer_add(s->timer, &tv);
}

static void handle_event(struct source_session *s, short what);

/*
 * A TCP connect of our own. On loopback the handshake is over before a
 * non-blocking connect() returns, though it says EINPROGRESS: a poll()
 * that finds the socket writable saves the wait for EPOLLOUT (two
 * epoll_ctl calls, a getsockopt and a loop pass per connection). The
 * socket, or -1 when connect() failed at once (the bufferevent then tries
 * again, as it always did); *connected says whether it is up already.
 */
static evutil_socket_t connect_now(const struct source_ctx *ctx, int *connected)
{
    evutil_socket_t fd = socket(ctx->addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    struct pollfd pfd;

    struct linger abort_close = {1, 0};

    *connected = 0;
    if (fd < 0)
        return -1;
    /*
     * As Postfix's smtp-source: the connection ends with a reset once the
     * reply to QUIT is in, not a FIN, so that neither host keeps a
     * TIME_WAIT entry per connection for a minute (and the kernel has none
     * to make and expire).
     */
    setsockopt(fd, SOL_SOCKET, SO_LINGER, &abort_close, sizeof(abort_close));
    if (connect(fd, (const struct sockaddr *)&ctx->addr, ctx->addrlen) == 0) {
        *connected = 1;
        return fd;
    }
    if (errno != EINPROGRESS && errno != EINTR) {
        close(fd);
        return -1;
    }
    pfd.fd = fd;
    pfd.events = POLLOUT;
    pfd.revents = 0;
    *connected = poll(&pfd, 1, 0) == 1 && pfd.revents == POLLOUT;
    return fd;
}

static void session_connect(struct source_session *s)
{
    struct source_ctx *ctx = s->ctx;
    evutil_socket_t fd = -1;
    int connected = 0;

    smtp_line_init(&s->lines, SMTP_REPLY_LINE_LIMIT);
    smtp_reply_init(&s->reply);
    s->state = ST_CONNECTING;
    s->phase_ns = clock_now_ns();
    ctx->stats.connections++;
    if (ctx->addr.ss_family != AF_UNIX)
        fd = connect_now(ctx, &connected);
    s->bev = bufferevent_socket_new(ctx->base, fd, BEV_OPT_CLOSE_ON_FREE);
    if (s->bev == NULL)
        msg_fatal("cannot create a bufferevent");
    bufferevent_setcb(s->bev, on_read, NULL, on_event, s);
    set_timeouts(s, 1);
    if (connected) {
        bufferevent_disable(s->bev, EV_WRITE);
        handle_event(s, BEV_EVENT_CONNECTED);
        return;
    }
    /* With our socket, in progress, the bufferevent waits for it; else it connects. */
    if (bufferevent_socket_connect(s->bev, fd < 0 ? (struct sockaddr *)&ctx->addr : NULL,
                                   fd < 0 ? (int)ctx->addrlen : 0) != 0) {
        /*
         * Immediate failures (no route, no local port, no such socket file)
         * come back here, not as events. The next message starts from the
         * loop, not from this stack: a million of them must not recurse.
         */
        int err = errno;

        if (ctx->opts->verbose)
            msg_info("session %u: connect: %s", s->id, strerror(err));
        close_connection(s);
        source_report_connect_error(&ctx->stats, err);
        fail(s, FAIL_CONNECT, 0, PHASE_CONNECT);
        message_done(s);
        start_timer(s, 0);
    }
}

/* --------------------------------------------------------------- commands */

static void send_helo(struct source_session *s)
{
    send_line(s, s->ctx->msg.helo_cmd, s->ctx->msg.helo_cmd_len);
    s->state = ST_EHLO;
}

static void send_rcpt(struct source_session *s, unsigned n)
{
    const struct source_options *opts = s->ctx->opts;

    (void)n;
    if (opts->number_rcpts || opts->rcpts > 1) {
        send_cmd(s, "RCPT TO:<%llu%s>", (unsigned long long)s->ctx->next_rcpt, s->ctx->msg.to);
        s->ctx->next_rcpt += s->ctx->stride;
    } else
        send_line(s, s->ctx->msg.rcpt_cmd, s->ctx->msg.rcpt_cmd_len);
}

/* MAIL, and with PIPELINING also every RCPT and DATA, in one write. */
static void send_mail(struct source_session *s)
{
    const struct source_options *opts = s->ctx->opts;

    s->pipelined = opts->pipelining && (s->extensions & SMTP_EXT_PIPELINING);
    s->rcpt_done = s->rcpt_ok = 0;
    s->queue_id[0] = 0;
    send_line(s, s->ctx->msg.mail_cmd, s->ctx->msg.mail_cmd_len);
    if (s->pipelined) {
        for (unsigned i = 0; i < opts->rcpts; i++)
            send_rcpt(s, i);
        send_line(s, "DATA\r\n", 6);
    }
    /* Every pipelined reply is timed from the one write. */
    s->phase_ns = clock_now_ns();
    s->state = ST_MAIL;
}

static void send_content(struct source_session *s)
{
    struct source_ctx *ctx = s->ctx;
    struct evbuffer *out = bufferevent_get_output(s->bev);
    char header[SOURCE_HEADER_MAX];
    size_t header_len = source_message_header(&ctx->msg, s->seq, header, sizeof(header), s->msgid,
                                              sizeof(s->msgid));

    evbuffer_add(out, header, header_len);
    if (ctx->opts->message_file) {
        evbuffer_add_reference(out, ctx->msg.file_wire, ctx->msg.file_wire_len, NULL, NULL);
        s->content_len = header_len + ctx->msg.file_content_len;
        if (ctx->msg_log) { /* -F sends no header of ours: the file is the content */
            s->log_size = ctx->msg.file_log_size;
            s->checksum = ctx->msg.file_checksum;
        }
    } else {
        struct source_body body;
        size_t body_len = source_message_body(
            &ctx->msg, workload_size_sample(&ctx->opts->size, &ctx->rng), &body);

        /* The body template is shared and never changes: send it without copying. */
        evbuffer_add_reference(out, body.lines, body.lines_len, NULL, NULL);
        evbuffer_add_reference(out, body.tail, body.tail_len, NULL, NULL);
        s->content_len = header_len + body_len;
        if (ctx->msg_log) {
            struct content_sum sum;

            checksum_content_init(&sum);
            checksum_content_update(&sum, header, header_len, NULL, NULL);
            checksum_content_update(&sum, body.lines, body.lines_len, NULL, NULL);
            checksum_content_update(&sum, body.tail, body.tail_len, NULL, NULL);
            checksum_content_end(&sum, NULL, NULL);
            s->log_size = sum.size;
            s->checksum = sum.sum;
        }
    }
    evbuffer_add(out, ".\r\n", 3);
    if (ctx->opts->verbose)
        msg_info("session %u: > (%llu bytes of message content)", s->id,
                 (unsigned long long)s->content_len);
    s->phase_ns = clock_now_ns();
    s->dot_replies_left = ctx->opts->lmtp ? s->rcpt_ok : 1;
    s->state = ST_DOT;
}

/*
 * --skip-quit-reply: once QUIT has left, the connection closes with a
 * FIN, the reply unread, as Postfix's smtp client does
 * (smtp_skip_quit_response). A server that waits for the client to close
 * first before it replies (Exim holds its 221 for up to 200 ms for that)
 * costs such a client nothing.
 */
static void on_quit_written(struct bufferevent *bev, void *arg)
{
    struct source_session *s = arg;
    struct linger orderly = {0, 0};
    evutil_socket_t fd = bufferevent_getfd(bev);

    if (s->state != ST_QUIT || evbuffer_get_length(bufferevent_get_output(bev)) != 0)
        return;
    if (fd >= 0)
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &orderly, sizeof(orderly));
    close_connection(s);
    next_after_wait(s);
}

static void send_quit(struct source_session *s)
{
    send_line(s, "QUIT\r\n", 6);
    s->state = ST_QUIT;
    if (s->ctx->opts->skip_quit_reply) {
        bufferevent_setcb(s->bev, on_read, on_quit_written, on_event, s);
        bufferevent_enable(s->bev, EV_WRITE);
    }
}

/* The transaction failed: RSET to go on with this connection, or QUIT. */
static void abandon_transaction(struct source_session *s)
{
    message_done(s);
    if (s->ctx->opts->reuse && !s->finishing) {
        send_line(s, "RSET\r\n", 6);
        s->state = ST_RSET;
    } else {
        send_quit(s);
    }
}

/* The connection is unusable: count the message as failed and go on. */
static void connection_lost(struct source_session *s, enum source_failure kind,
                            enum source_phase phase)
{
    if (s->has_msg)
        fail(s, kind, 0, phase);
    message_done(s);
    close_connection(s);
    session_next(s);
}

static void start_tls(struct source_session *s)
{
    /*
     * Whatever the server sent after its 220 is not to be trusted
     * (CVE-2011-0411): it goes with the plain bufferevent. Nothing of ours
     * is pending: we waited for the 220.
     */
    struct bufferevent *tls;

    bev_in_stop(&s->in); /* the TLS bufferevent reads for itself */
    tls = tls_bev_upgrade(s->bev, s->ctx->tls_ctx, TLS_BEV_CLIENT);
    s->bev = tls;
    if (tls == NULL) {
        connection_lost(s, FAIL_TLS, PHASE_TLS);
        return;
    }
    s->tls_bev = 1;
    bufferevent_setcb(tls, on_read, NULL, on_event, s);
    set_timeouts(s, 1);
    bufferevent_enable(tls, EV_READ | EV_WRITE);
    smtp_line_init(&s->lines, SMTP_REPLY_LINE_LIMIT);
    smtp_reply_init(&s->reply);
    s->phase_ns = clock_now_ns();
    s->state = ST_TLS;
}

/* ---------------------------------------------------------------- replies */

/* -w and -R: pause between messages, then ask for the next one. */
static void next_after_wait(struct source_session *s)
{
    const struct source_options *opts = s->ctx->opts;
    double wait = opts->fixed_wait;

    if (opts->random_wait > 0)
        wait += workload_prng_uniform01(&s->ctx->rng) * opts->random_wait;
    if (wait > 0 && !s->finishing)
        start_timer(s, wait);
    else
        session_next(s);
}

static void after_message(struct source_session *s)
{
    if (s->ctx->opts->reuse && !s->finishing) {
        next_after_wait(s);
        return;
    }
    send_quit(s);
}

static void on_reply(struct source_session *s)
{
    const struct source_options *opts = s->ctx->opts;
    int code = s->reply.code;
    int ok = code / 100 == 2;

    if (opts->verbose)
        msg_info("session %u: < %s", s->id, s->reply.text);
    if (code == 421 && s->state != ST_QUIT) {
        /* The server is closing: no QUIT, no RSET. */
        static const enum source_phase phase_of[] = {
            [ST_BANNER] = PHASE_BANNER, [ST_EHLO] = PHASE_HELO, [ST_HELO] = PHASE_HELO,
            [ST_STARTTLS] = PHASE_TLS,  [ST_MAIL] = PHASE_MAIL, [ST_RCPT] = PHASE_RCPT,
            [ST_DATA] = PHASE_DATA,     [ST_DOT] = PHASE_DOT,
        };
        enum source_phase phase =
            s->state < sizeof(phase_of) / sizeof(phase_of[0]) ? phase_of[s->state] : PHASE_TXN;

        fail(s, FAIL_REPLY, code, phase);
        message_done(s);
        close_connection(s);
        session_next(s);
        return;
    }
    switch (s->state) {
    case ST_BANNER:
        record(s, PHASE_BANNER, s->phase_ns);
        if (code != 220) {
            fail(s, FAIL_REPLY, code, PHASE_BANNER);
            message_done(s);
            send_quit(s);
        } else if (opts->old_mode) {
            send_mail(s);
        } else {
            send_helo(s);
        }
        break;
    case ST_EHLO:
    case ST_HELO:
        record(s, PHASE_HELO, s->phase_ns);
        if (!ok && s->state == ST_EHLO && !opts->lmtp && code / 100 == 5 && !opts->tls) {
            send_cmd(s, "HELO %s", s->ctx->msg.helo_name);
            s->state = ST_HELO;
        } else if (!ok) {
            fail(s, FAIL_REPLY, code, PHASE_HELO);
            abandon_transaction(s);
        } else {
            s->extensions = s->state == ST_EHLO ? s->reply.extensions : 0;
            if (opts->tls && !s->tls_active) {
                if (!(s->extensions & SMTP_EXT_STARTTLS)) {
                    fail(s, FAIL_TLS, 0, PHASE_TLS);
                    abandon_transaction(s);
                } else {
                    send_cmd(s, "STARTTLS");
                    s->state = ST_STARTTLS;
                }
            } else {
                send_mail(s);
            }
        }
        break;
    case ST_STARTTLS:
        if (code != 220) {
            fail(s, FAIL_TLS, code, PHASE_TLS);
            abandon_transaction(s);
        } else {
            start_tls(s);
        }
        break;
    case ST_MAIL:
        record(s, PHASE_MAIL, s->phase_ns);
        if (!ok)
            fail(s, FAIL_REPLY, code, PHASE_MAIL);
        if (s->pipelined) {
            s->state = ST_RCPT;
        } else if (!ok) {
            abandon_transaction(s);
        } else {
            send_rcpt(s, 0);
            s->state = ST_RCPT;
        }
        break;
    case ST_RCPT:
        record(s, PHASE_RCPT, s->phase_ns);
        s->rcpt_done++;
        if (ok)
            s->rcpt_ok++;
        else if (code > 0 && code < SOURCE_MAX_CODE)
            s->ctx->stats.by_code[code][PHASE_RCPT]++;
        if (s->rcpt_done < opts->rcpts) {
            if (!s->pipelined)
                send_rcpt(s, s->rcpt_done);
            break;
        }
        if (s->rcpt_ok == 0 && !s->msg_failed) {
            /* Counted by code above; the message fails as a whole. */
            s->msg_failed = 1;
            s->ctx->stats.failures[FAIL_REPLY]++;
        }
        if (s->pipelined) {
            s->state = ST_DATA;
        } else if (s->msg_failed) {
            abandon_transaction(s);
        } else {
            send_line(s, "DATA\r\n", 6);
            s->state = ST_DATA;
        }
        break;
    case ST_DATA:
        record(s, PHASE_DATA, s->phase_ns);
        if (code == 354 && !s->msg_failed) {
            send_content(s);
        } else if (code == 354) {
            /* A server that says 354 with no valid recipient: end the empty message. */
            send_cmd(s, ".");
            s->dot_replies_left = 1;
            s->state = ST_DOT;
        } else {
            if (!s->msg_failed)
                fail(s, FAIL_REPLY, code, PHASE_DATA);
            abandon_transaction(s);
        }
        break;
    case ST_DOT:
        if (!ok)
            fail(s, FAIL_REPLY, code, PHASE_DOT);
        else if (s->queue_id[0] == 0) {
            const char *q = strstr(s->reply.text, "queued as ");

            if (q)
                snprintf(s->queue_id, sizeof(s->queue_id), "%.*s", (int)strcspn(q + 10, " "),
                         q + 10);
        }
        if (s->dot_replies_left > 1) {
            s->dot_replies_left--;
            break;
        }
        if (!s->msg_failed)
            record(s, PHASE_DOT, s->phase_ns);
        message_done(s);
        after_message(s);
        break;
    case ST_RSET:
        next_after_wait(s);
        break;
    case ST_QUIT:
        close_connection(s);
        next_after_wait(s);
        break;
    default:
        break;
    }
}

static void read_replies(struct source_session *s)
{
    while (s->connected && s->bev) {
        char line[SMTP_REPLY_LINE_LIMIT];
        size_t len;
        enum smtp_line_status status =
            smtp_input_line(&s->lines, bufferevent_get_input(s->bev), line, sizeof(line), &len);
        enum smtp_reply_status reply_status;

        if (status == SMTP_LINE_NEED_MORE)
            return;
        reply_status =
            status == SMTP_LINE_OK ? smtp_reply_line(&s->reply, line, len) : SMTP_REPLY_MALFORMED;
        if (reply_status == SMTP_REPLY_MALFORMED) {
            if (s->ctx->opts->verbose)
                msg_info("session %u: malformed reply", s->id);
            connection_lost(s, FAIL_PROTOCOL, PHASE_TXN);
            return;
        }
        if (reply_status == SMTP_REPLY_MORE)
            continue;
        if (s->state == ST_IDLE || s->state == ST_WAIT) {
            /* A reply nobody asked for, e.g. 421 on an idle connection. */
            smtp_reply_init(&s->reply);
            close_connection(s);
            return;
        }
        on_reply(s);
        smtp_reply_init(&s->reply);
    }
}

static void on_read(struct bufferevent *bev, void *arg)
{
    struct source_session *s = arg;

    (void)bev;
    read_replies(s);
    /*
     * A lent read (bev_in.h): a connection closed or moved to TLS meanwhile
     * stopped its bev_in, and a new connection's has lent nothing yet.
     */
    if (s->bev)
        bev_in_settle(&s->in);
    session_flush(s);
}

/*
 * Commands leave at the end of each event, all at once, written directly
 * on a plain connection: a bufferevent would turn its write event on and
 * off around every command, two epoll_ctl calls each time. EV_WRITE is
 * used only when the socket is full, and on TLS connections.
 */
static void session_flush(struct source_session *s)
{
    struct evbuffer *out;

    if (s->bev == NULL || !s->connected || s->tls_bev)
        return;
    out = bufferevent_get_output(s->bev);
    if (evbuffer_get_length(out) == 0)
        return;
    evbuffer_unfreeze(out, 1); /* a bufferevent keeps its output's start frozen */
    evbuffer_write(out, bufferevent_getfd(s->bev));
    evbuffer_freeze(out, 1);
    if (evbuffer_get_length(out) > 0)
        bufferevent_enable(s->bev, EV_WRITE); /* it finishes, or reports the error */
}

static void on_event(struct bufferevent *bev, short what, void *arg)
{
    (void)bev;
    handle_event(arg, what);
    session_flush(arg);
}

static void handle_event(struct source_session *s, short what)
{
    int saved_errno = EVUTIL_SOCKET_ERROR();

    if (what & BEV_EVENT_CONNECTED) {
        if (s->state == ST_TLS) {
            record(s, PHASE_TLS, s->phase_ns);
            s->tls_active = 1;
            s->ctx->stats.tls_sessions++;
            /* RFC 3207: forget everything learned before TLS and greet again. */
            send_helo(s);
            return;
        }
        record(s, PHASE_CONNECT, s->phase_ns);
        s->connected = 1;
        if (s->ctx->addr.ss_family != AF_UNIX) {
            int one = 1, fd = (int)bufferevent_getfd(s->bev);

            setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
            if (s->ctx->opts->tcp_window) {
                setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &s->ctx->opts->tcp_window, sizeof(int));
                setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &s->ctx->opts->tcp_window, sizeof(int));
            }
        }
        s->phase_ns = clock_now_ns();
        s->state = ST_BANNER;
        bufferevent_disable(s->bev, EV_WRITE);
        if (bev_in_start(&s->in, s->bev, on_read, on_event, s) == 0) {
            bev_in_lend(&s->in); /* on_read settles */
            set_timeouts(s, 1);
            bev_in_enable(&s->in);
        } else {
            bufferevent_enable(s->bev, EV_READ); /* slower, not wrong */
        }
        return;
    }
    if (s->state == ST_CONNECTING) {
        close_connection(s);
        if (saved_errno == ECONNREFUSED && s->retries_left > 0) {
            s->retries_left--;
            start_timer(s, 0.01);
            return;
        }
        source_report_connect_error(&s->ctx->stats,
                                    what & BEV_EVENT_TIMEOUT ? ETIMEDOUT : saved_errno);
        fail(s, FAIL_CONNECT, 0, PHASE_CONNECT);
        message_done(s);
        session_next(s);
        return;
    }
    if (what & BEV_EVENT_TIMEOUT) {
        connection_lost(s, FAIL_TIMEOUT, PHASE_TXN);
        return;
    }
    if (s->state == ST_QUIT || s->state == ST_IDLE || s->state == ST_WAIT) {
        /* Closing after QUIT, or an idle connection the server dropped: no failure. */
        close_connection(s);
        if (s->state == ST_QUIT)
            next_after_wait(s);
        return;
    }
    connection_lost(s, s->state == ST_TLS ? FAIL_TLS : FAIL_DISCONNECT, PHASE_TXN);
}

/* --------------------------------------------------------------- schedule */

static void begin_message(struct source_session *s, uint64_t start_ns)
{
    s->has_msg = 1;
    s->msg_failed = 0;
    s->seq = s->ctx->next_seq;
    s->ctx->next_seq += s->ctx->stride;
    s->start_ns = start_ns;
    s->retries_left = s->ctx->opts->connect_retries;
    s->ctx->stats.attempted++;
    atomic_store_explicit(&s->ctx->live_attempted, s->ctx->stats.attempted, memory_order_relaxed);
    if (s->connected) {
        set_timeouts(s, 1);
        send_mail(s);
    } else {
        session_connect(s);
    }
}

static void session_finished(struct source_session *s)
{
    s->state = ST_DONE;
    if (s->ctx->on_session_done)
        s->ctx->on_session_done(s->ctx);
}

static void session_next(struct source_session *s)
{
    struct source_ctx *ctx = s->ctx;
    uint64_t start_ns;

    if (s->finishing) {
        if (s->connected)
            send_quit(s);
        else
            session_finished(s);
        return;
    }
    switch (ctx->next_message(ctx, &start_ns)) {
    case SOURCE_NEXT_DONE:
        s->finishing = 1;
        if (s->connected)
            send_quit(s);
        else
            session_finished(s);
        break;
    case SOURCE_NEXT_WAIT:
        s->state = ST_IDLE;
        if (s->connected)
            set_timeouts(s, 0);
        s->next_idle = ctx->idle;
        ctx->idle = s;
        break;
    case SOURCE_NEXT_GO:
        begin_message(s, start_ns);
        break;
    }
}

static void on_timer(evutil_socket_t fd, short what, void *arg)
{
    struct source_session *s = arg;

    (void)fd;
    (void)what;
    if (s->has_msg && !s->connected)
        session_connect(s); /* a connect retry */
    else
        session_next(s);
    session_flush(s);
}

void source_session_wake_idle(struct source_ctx *ctx)
{
    while (ctx->idle) {
        struct source_session *s = ctx->idle;

        ctx->idle = s->next_idle;
        s->next_idle = NULL;
        session_next(s);
        session_flush(s);
        if (s->state == ST_IDLE)
            break; /* it went back to sleep: nothing left to hand out */
    }
}

struct source_session *source_session_new(struct source_ctx *ctx, unsigned id)
{
    struct source_session *s = xcalloc(1, sizeof(*s));

    s->ctx = ctx;
    s->id = id;
    s->state = ST_IDLE;
    return s;
}

void source_session_start(struct source_session *s)
{
    session_next(s);
    session_flush(s);
}

void source_session_free(struct source_session *s)
{
    close_connection(s);
    if (s->timer)
        event_free(s->timer);
    free(s);
}
