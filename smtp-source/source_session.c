/*
 * source_session - one smtp-source client session; see source_session.h.
 *
 * The session is a state machine driven by replies: each step names the
 * reply it waits for, and on_reply() moves to the next one. The
 * connection is smtp_client's (common/net), the transaction's order
 * smtp_txn's (common/smtp): with PIPELINING, MAIL, every RCPT and DATA
 * leave in one write and their replies are then taken in order. What
 * follows the greeting, EHLO and STARTTLS is smtp_txn_opening()'s too,
 * as for the relay's client.
 */
#include "config.h"

#include <errno.h>
#include <event2/buffer.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "checksum.h"
#include "clock.h"
#include "msg.h"
#include "smtp_client.h"
#include "smtp_reply.h"
#include "smtp_txn.h"
#include "source_session.h"
#include "xalloc.h"

struct source_session {
    struct source_ctx *ctx;
    struct source_session *next_idle;
    unsigned id;
    struct smtp_client_conn conn;
    struct event *timer;
    /* whose reply comes next; IDLE: no message, maybe connected (-d); WAIT: -w/-R or a retry */
    enum smtp_step state;
    int tls_active;
    int finishing; /* no more messages: QUIT and stop */
    unsigned extensions;
    unsigned retries_left;
    const struct smtp_reply *reply; /* the one on_reply() is taking */
    uint64_t phase_ns;              /* when the awaited command was sent */

    /* The message in progress. */
    int has_msg;
    int msg_failed;
    struct smtp_txn txn;
    uint64_t seq;
    uint64_t start_ns;
    uint64_t content_len;
    uint64_t log_size, checksum; /* the message log's key (checksum.h) */
    unsigned rcpt_ok;
    unsigned rcpts; /* this message's: -r, or drawn from --workload */
    char msgid[SOURCE_MSGID_MAX];
    char queue_id[64];
};

static void session_next(struct source_session *s);

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
    if (s->ctx->opts->tool.verbose)
        msg_info("session %u: %s failure at %s%s%s", s->id, source_report_failure_name(kind),
                 source_report_phase_name(phase), code ? ": " : "", code ? s->reply->text : "");
}

static void message_done(struct source_session *s)
{
    struct source_stats *st = &s->ctx->stats;

    if (!s->has_msg)
        return;
    s->has_msg = 0;
    if (s->msg_failed) {
        st->counts.failed++;
        atomic_store_explicit(&s->ctx->live_failed, st->counts.failed, memory_order_relaxed);
        return;
    }
    st->counts.delivered++;
    atomic_store_explicit(&s->ctx->live_delivered, st->counts.delivered, memory_order_relaxed);
    st->counts.bytes += s->content_len;
    st->counts.recipients += s->rcpt_ok;
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
    smtp_client_timeout(&s->conn, active);
}

static void close_connection(struct source_session *s)
{
    smtp_client_close(&s->conn);
    s->tls_active = 0;
    s->extensions = 0;
}

static void send_cmd(struct source_session *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void send_cmd(struct source_session *s, const char *fmt, ...)
{
    struct evbuffer *out = smtp_client_output(&s->conn);
    va_list ap;

    va_start(ap, fmt);
    if (s->ctx->opts->tool.verbose) {
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
    smtp_client_owe(&s->conn, 1);
    s->phase_ns = clock_now_ns();
}

/* A prebuilt command line, CR LF included: the common commands need no printf. */
static void send_line(struct source_session *s, const char *line, size_t len)
{
    if (s->ctx->opts->tool.verbose)
        msg_info("session %u: > %.*s", s->id, (int)(len - 2), line);
    smtp_client_send(&s->conn, line, len);
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
    s->state = SMTP_STEP_WAIT;
    evtimer_add(s->timer, &tv);
}

static void session_connect(struct source_session *s)
{
    struct source_ctx *ctx = s->ctx;

    s->state = SMTP_STEP_CONNECT;
    s->phase_ns = clock_now_ns();
    ctx->stats.counts.connections++;
    if (smtp_client_connect(&s->conn, (const struct sockaddr *)&ctx->addr, ctx->addrlen) != 0) {
        /*
         * Immediate failures (no route, no local port, no such socket file)
         * come back here, not as events. The next message starts from the
         * loop, not from this stack: a million of them must not recurse.
         */
        int err = errno;

        if (ctx->opts->tool.verbose)
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
    s->state = SMTP_STEP_EHLO;
}

static void send_rcpt(struct source_session *s)
{
    const struct source_options *opts = s->ctx->opts;

    if (opts->number_rcpts || s->rcpts > 1) {
        send_cmd(s, "RCPT TO:<%llu%s>", (unsigned long long)s->ctx->next_rcpt, s->ctx->msg.to);
        s->ctx->next_rcpt += s->ctx->stride;
    } else
        send_line(s, s->ctx->msg.rcpt_cmd, s->ctx->msg.rcpt_cmd_len);
}

/* MAIL, and with PIPELINING also every RCPT and DATA, in one write. */
static void send_mail(struct source_session *s)
{
    const struct source_options *opts = s->ctx->opts;

    s->rcpts = opts->workload ? workload_file_rcpts(opts->workload, &s->ctx->rng) : opts->rcpts;
    smtp_txn_begin(&s->txn, s->rcpts, opts->pipelining && (s->extensions & SMTP_EXT_PIPELINING),
                   opts->tool.lmtp);
    s->rcpt_ok = 0;
    s->queue_id[0] = 0;
    send_line(s, s->ctx->msg.mail_cmd, s->ctx->msg.mail_cmd_len);
    if (s->txn.pipelined) {
        for (unsigned i = 0; i < s->rcpts; i++)
            send_rcpt(s);
        send_line(s, "DATA\r\n", 6);
    }
    /* Every pipelined reply is timed from the one write. */
    s->phase_ns = clock_now_ns();
    s->state = SMTP_STEP_MAIL;
}

static void send_content(struct source_session *s)
{
    struct source_ctx *ctx = s->ctx;
    struct evbuffer *out = smtp_client_output(&s->conn);
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
        const struct workload_file *wf = ctx->opts->workload;
        uint64_t want = wf ? workload_file_size(wf, &ctx->rng)
                           : workload_size_sample(&ctx->opts->size, &ctx->rng);
        size_t body_len;

        /* A log's sizes are whole messages: the header is part of one. */
        if (wf)
            want = want > header_len ? want - header_len : 0;
        body_len = source_message_body(&ctx->msg, want, &body);

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
    smtp_txn_text_sent(&s->txn);
    smtp_client_dot(&s->conn);
    smtp_client_owe(&s->conn, s->txn.dot_replies - 1); /* LMTP: one per recipient */
    if (ctx->opts->tool.verbose)
        msg_info("session %u: > (%llu bytes of message content)", s->id,
                 (unsigned long long)s->content_len);
    s->phase_ns = clock_now_ns();
    s->state = SMTP_STEP_DOT;
}

/*
 * --skip-quit-reply: once QUIT has left, the connection closes with a
 * FIN, the reply unread, as Postfix's smtp client does
 * (smtp_skip_quit_response). A server that waits for the client to close
 * first before it replies (Exim holds its 221 for up to 200 ms for that)
 * costs such a client nothing.
 */
static void on_output(void *arg)
{
    struct source_session *s = arg;

    if (s->state != SMTP_STEP_QUIT || !s->ctx->opts->skip_quit_reply ||
        evbuffer_get_length(smtp_client_output(&s->conn)) != 0)
        return;
    smtp_client_close_orderly(&s->conn);
    close_connection(s);
    next_after_wait(s);
}

static void send_quit(struct source_session *s)
{
    send_line(s, "QUIT\r\n", 6);
    s->state = SMTP_STEP_QUIT;
    if (s->ctx->opts->skip_quit_reply)
        smtp_client_notify_sent(&s->conn);
}

/* The transaction failed: RSET to go on with this connection, or QUIT. */
static void abandon_transaction(struct source_session *s)
{
    message_done(s);
    if (s->ctx->opts->reuse && !s->finishing) {
        send_line(s, "RSET\r\n", 6);
        s->state = SMTP_STEP_RSET;
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

/*
 * After STARTTLS's 220: whatever the server sent behind it is not to be
 * trusted (CVE-2011-0411); smtp_client throws it away with the plain
 * connection.
 */
static void start_tls(struct source_session *s)
{
    if (smtp_client_start_tls(&s->conn) != 0) {
        connection_lost(s, FAIL_TLS, PHASE_TLS);
        return;
    }
    s->phase_ns = clock_now_ns();
    s->state = SMTP_STEP_HANDSHAKE;
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

/* A reply to MAIL, a RCPT, DATA or the dot: smtp_txn says what comes next. */
static void on_txn_reply(struct source_session *s, int code)
{
    int ok = code / 100 == 2;
    enum smtp_step step = s->state;
    enum smtp_txn_next next;

    switch (step) {
    case SMTP_STEP_MAIL:
        record(s, PHASE_MAIL, s->phase_ns);
        if (!ok)
            fail(s, FAIL_REPLY, code, PHASE_MAIL);
        break;
    case SMTP_STEP_RCPT:
        record(s, PHASE_RCPT, s->phase_ns);
        if (ok)
            s->rcpt_ok++;
        else if (code > 0 && code < SOURCE_MAX_CODE)
            s->ctx->stats.by_code[code][PHASE_RCPT]++;
        break;
    case SMTP_STEP_DATA:
        record(s, PHASE_DATA, s->phase_ns);
        break;
    default: /* the dot */
        if (!ok)
            fail(s, FAIL_REPLY, code, PHASE_DOT);
        else if (s->queue_id[0] == 0) {
            const char *q = strstr(s->reply->text, "queued as ");

            if (q)
                snprintf(s->queue_id, sizeof(s->queue_id), "%.*s", (int)strcspn(q + 10, " "),
                         q + 10);
        }
        break;
    }
    next = smtp_txn_reply(&s->txn, code);
    s->state = s->txn.step;
    if (step == SMTP_STEP_RCPT && s->txn.rcpt_replies == s->rcpts && s->rcpt_ok == 0 &&
        !s->msg_failed) {
        /* Counted by code above; the message fails as a whole. */
        s->msg_failed = 1;
        s->ctx->stats.failures[FAIL_REPLY]++;
    }
    switch (next) {
    case SMTP_TXN_WAIT:
        break;
    case SMTP_TXN_SEND_RCPT:
        send_rcpt(s);
        break;
    case SMTP_TXN_SEND_DATA:
        send_line(s, "DATA\r\n", 6);
        break;
    case SMTP_TXN_SEND_TEXT:
        send_content(s);
        break;
    case SMTP_TXN_EMPTY_354:
        /* A server that says 354 with no valid recipient: end the empty message. */
        send_cmd(s, ".");
        smtp_txn_text_sent(&s->txn);
        s->state = SMTP_STEP_DOT;
        break;
    case SMTP_TXN_FAILED:
        if (step == SMTP_STEP_DATA && !s->msg_failed)
            fail(s, FAIL_REPLY, code, PHASE_DATA);
        abandon_transaction(s);
        break;
    case SMTP_TXN_DONE:
        if (!s->msg_failed)
            record(s, PHASE_DOT, s->phase_ns);
        message_done(s);
        after_message(s);
        break;
    }
}

/*
 * A reply to the greeting, EHLO (or HELO) or STARTTLS: smtp_txn_opening()
 * says what comes next, as for the relay's client, with TLS a must or
 * not wanted. smtp-source's own rules come first: the greeting must be
 * 220 itself, and an EHLO refused with a 5xx is followed by HELO (not
 * LMTP's LHLO, nor with TLS); with -o MAIL follows the greeting. A
 * refusal is counted in the phase it ends.
 */
static void on_opening_reply(struct source_session *s, const struct smtp_reply *reply)
{
    const struct source_options *opts = s->ctx->opts;
    enum smtp_step step = s->state;
    int code = reply->code;
    enum smtp_open_next next;

    if (step == SMTP_STEP_GREETING)
        record(s, PHASE_BANNER, s->phase_ns);
    else if (step != SMTP_STEP_STARTTLS)
        record(s, PHASE_HELO, s->phase_ns);
    if (step == SMTP_STEP_EHLO && code / 100 == 5 && !opts->tool.lmtp && !opts->tls) {
        send_cmd(s, "HELO %s", s->ctx->msg.helo_name);
        s->state = SMTP_STEP_HELO;
        return;
    }
    if (step == SMTP_STEP_GREETING && code != 220)
        next = SMTP_OPEN_REFUSED;
    else
        next = smtp_txn_opening(step, code, reply->extensions,
                                opts->tls ? SMTP_TLS_MUST : SMTP_TLS_NONE, s->tls_active);
    if ((step == SMTP_STEP_EHLO || step == SMTP_STEP_HELO) && code / 100 == 2)
        s->extensions = step == SMTP_STEP_EHLO ? reply->extensions : 0;
    switch (next) {
    case SMTP_OPEN_SEND_EHLO:
        if (opts->old_mode)
            send_mail(s);
        else
            send_helo(s);
        return;
    case SMTP_OPEN_SEND_STARTTLS:
        send_cmd(s, "STARTTLS");
        s->state = SMTP_STEP_STARTTLS;
        return;
    case SMTP_OPEN_START_TLS:
        start_tls(s);
        return;
    case SMTP_OPEN_READY:
        send_mail(s);
        return;
    case SMTP_OPEN_NO_TLS:
        fail(s, FAIL_TLS, 0, PHASE_TLS);
        abandon_transaction(s);
        return;
    case SMTP_OPEN_REFUSED:
        break;
    }
    if (step == SMTP_STEP_GREETING) {
        fail(s, FAIL_REPLY, code, PHASE_BANNER);
        message_done(s);
        send_quit(s);
    } else if (step == SMTP_STEP_STARTTLS) {
        fail(s, FAIL_TLS, code, PHASE_TLS);
        abandon_transaction(s);
    } else {
        fail(s, FAIL_REPLY, code, PHASE_HELO);
        abandon_transaction(s);
    }
}

/* The phase a 421 ends, by the reply it came for. */
static enum source_phase phase_of(enum smtp_step step)
{
    switch (step) {
    case SMTP_STEP_GREETING:
        return PHASE_BANNER;
    case SMTP_STEP_EHLO:
    case SMTP_STEP_HELO:
        return PHASE_HELO;
    case SMTP_STEP_STARTTLS:
        return PHASE_TLS;
    case SMTP_STEP_MAIL:
        return PHASE_MAIL;
    case SMTP_STEP_RCPT:
        return PHASE_RCPT;
    case SMTP_STEP_DATA:
        return PHASE_DATA;
    case SMTP_STEP_DOT:
        return PHASE_DOT;
    default:
        return PHASE_TXN;
    }
}

static void on_reply(void *arg, const struct smtp_reply *reply)
{
    struct source_session *s = arg;
    const struct source_options *opts = s->ctx->opts;
    int code = reply->code;

    s->reply = reply;
    if (opts->tool.verbose)
        msg_info("session %u: < %s", s->id, reply->text);
    if (code == 421 && s->state != SMTP_STEP_QUIT) {
        /* The server is closing: no QUIT, no RSET. */
        fail(s, FAIL_REPLY, code, phase_of(s->state));
        message_done(s);
        close_connection(s);
        session_next(s);
        return;
    }
    switch (s->state) {
    case SMTP_STEP_GREETING:
    case SMTP_STEP_EHLO:
    case SMTP_STEP_HELO:
    case SMTP_STEP_STARTTLS:
        on_opening_reply(s, reply);
        break;
    case SMTP_STEP_MAIL:
    case SMTP_STEP_RCPT:
    case SMTP_STEP_DATA:
    case SMTP_STEP_DOT:
        on_txn_reply(s, code);
        break;
    case SMTP_STEP_RSET:
        next_after_wait(s);
        break;
    case SMTP_STEP_QUIT:
        close_connection(s);
        next_after_wait(s);
        break;
    default:
        break;
    }
}

/* Up: TCP (the greeting comes next), or TLS's handshake done (greet again). */
static void on_connected(void *arg)
{
    struct source_session *s = arg;

    if (s->conn.tls) {
        record(s, PHASE_TLS, s->phase_ns);
        s->tls_active = 1;
        s->ctx->stats.counts.tls_sessions++;
        /* RFC 3207: forget everything learned before TLS and greet again. */
        send_helo(s);
        return;
    }
    record(s, PHASE_CONNECT, s->phase_ns);
    s->phase_ns = clock_now_ns();
    s->state = SMTP_STEP_GREETING;
}

static void on_error(void *arg, enum smtp_client_error error, int err)
{
    struct source_session *s = arg;

    switch (error) {
    case SMTP_CLIENT_CONNECT:
        close_connection(s);
        if (err == ECONNREFUSED && s->retries_left > 0) {
            s->retries_left--;
            start_timer(s, 0.01);
            return;
        }
        source_report_connect_error(&s->ctx->stats, err);
        fail(s, FAIL_CONNECT, 0, PHASE_CONNECT);
        message_done(s);
        session_next(s);
        return;
    case SMTP_CLIENT_TIMEOUT:
        connection_lost(s, FAIL_TIMEOUT, PHASE_TXN);
        return;
    case SMTP_CLIENT_TOO_LONG:
    case SMTP_CLIENT_MALFORMED:
        if (s->ctx->opts->tool.verbose)
            msg_info("session %u: malformed reply", s->id);
        connection_lost(s, FAIL_PROTOCOL, PHASE_TXN);
        return;
    case SMTP_CLIENT_UNASKED:
        if (s->state == SMTP_STEP_IDLE || s->state == SMTP_STEP_WAIT) {
            /* A reply nobody asked for, e.g. 421 on an idle connection. */
            close_connection(s);
            return;
        }
        connection_lost(s, FAIL_PROTOCOL, PHASE_TXN);
        return;
    default:
        break;
    }
    if (s->state == SMTP_STEP_QUIT || s->state == SMTP_STEP_IDLE || s->state == SMTP_STEP_WAIT) {
        /* Closing after QUIT, or an idle connection the server dropped: no failure. */
        close_connection(s);
        if (s->state == SMTP_STEP_QUIT)
            next_after_wait(s);
        return;
    }
    connection_lost(s, s->state == SMTP_STEP_HANDSHAKE ? FAIL_TLS : FAIL_DISCONNECT, PHASE_TXN);
}

static const struct smtp_client_ops session_ops = {
    .on_connected = on_connected,
    .on_reply = on_reply,
    .on_error = on_error,
    .on_output = on_output,
};

/* Commands leave at the end of each event, all at once (smtp_client_flush()). */
static void session_flush(struct source_session *s)
{
    smtp_client_flush(&s->conn);
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
    s->ctx->stats.counts.attempted++;
    atomic_store_explicit(&s->ctx->live_attempted, s->ctx->stats.counts.attempted,
                          memory_order_relaxed);
    if (s->conn.connected) {
        set_timeouts(s, 1);
        send_mail(s);
    } else {
        session_connect(s);
    }
}

static void session_finished(struct source_session *s)
{
    s->state = SMTP_STEP_DONE;
    if (s->ctx->on_session_done)
        s->ctx->on_session_done(s->ctx);
}

static void session_next(struct source_session *s)
{
    struct source_ctx *ctx = s->ctx;
    uint64_t start_ns;

    if (s->finishing) {
        if (s->conn.connected)
            send_quit(s);
        else
            session_finished(s);
        return;
    }
    switch (ctx->next_message(ctx, &start_ns)) {
    case SOURCE_NEXT_DONE:
        s->finishing = 1;
        if (s->conn.connected)
            send_quit(s);
        else
            session_finished(s);
        break;
    case SOURCE_NEXT_WAIT:
        s->state = SMTP_STEP_IDLE;
        if (s->conn.connected)
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
    if (s->has_msg && !s->conn.connected)
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
        if (s->state == SMTP_STEP_IDLE)
            break; /* it went back to sleep: nothing left to hand out */
    }
}

struct source_session *source_session_new(struct source_ctx *ctx, unsigned id)
{
    struct source_session *s = xcalloc(1, sizeof(*s));

    struct smtp_client_config cfg = {
        .base = ctx->base,
        .tls_ctx = ctx->tls_ctx,
        .timeout = ctx->opts->timeout,
        /*
         * As Postfix's smtp-source: the connection ends with a reset once the
         * reply to QUIT is in, not a FIN, so that neither host keeps a
         * TIME_WAIT entry per connection for a minute (and the kernel has none
         * to make and expire).
         */
        .abort_close = 1,
        .nodelay = 1,
        .window = ctx->opts->tool.tcp_window,
    };

    s->ctx = ctx;
    s->id = id;
    s->state = SMTP_STEP_IDLE;
    smtp_client_init(&s->conn, &cfg, &session_ops, s);
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
