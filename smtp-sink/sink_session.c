/*
 * sink_session - one smtp-sink session on a libevent loop; see sink_session.h.
 *
 * The connection is common/net's smtp_server core; this file is the policy it
 * calls back: command lines go through smtp_cmd / smtp_seq here, message
 * text to sink_message.c. Replies
 * that must wait (-w, -W, faults with delays) park the session on a timer;
 * nothing here sleeps or blocks.
 */
#include "config.h"

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/un.h>

#include "checksum.h"
#include "clock.h"
#include "msg.h"
#include "sink_dump.h"
#include "sink_private.h"
#include "sink_session.h"
#include "sink_text.h"
#include "smtp_cmd.h"
#include "smtp_data.h"
#include "smtp_line.h"
#include "smtp_seq.h"
#include "smtp_server.h"
#include "xalloc.h"

static void session_free(struct sink_session *s);

/* ---------------------------------------------------------------- replies */

void sink_session_reply(struct sink_session *s, const char *text)
{
    struct evbuffer *out = bufferevent_get_output(s->conn.bev);
    int code = sink_text_code(text);
    char line[512];
    size_t len;

    if (code > 0 && code < SINK_MAX_CODE)
        s->server->stats.replies[code]++;
    if (s->server->opts->no_enhanced) {
        size_t skip = sink_text_enhanced_len(text);

        if (skip) {
            evbuffer_add(out, text, 4);
            text += 4 + skip;
        }
    }
    if (s->server->opts->tool.verbose)
        msg_info("%s: > %s", s->conn.peer, text);
    len = strlen(text);
    if (len + 2 <= sizeof(line)) {
        /* One add, not two: each one runs the buffer's callbacks. */
        memcpy(line, text, len);
        memcpy(line + len, "\r\n", 2);
        evbuffer_add(out, line, len + 2);
        return;
    }
    evbuffer_add(out, text, len);
    evbuffer_add(out, "\r\n", 2);
}

/* Multi-line replies are prebuilt with their CR LFs. */
static void send_raw_reply(struct sink_session *s, const char *text)
{
    s->server->stats.replies[sink_text_code(text) % SINK_MAX_CODE]++;
    if (s->server->opts->tool.verbose)
        msg_info("%s: > %s", s->conn.peer, text);
    bufferevent_write(s->conn.bev, text, strlen(text));
}

/* One-line replies get their CR LF here; the prebuilt EHLO reply has its own. */
static void send_any_reply(struct sink_session *s, const char *text)
{
    if (strchr(text, '\n'))
        send_raw_reply(s, text);
    else
        sink_session_reply(s, text);
}

/* Send what the session has to say (smtp_server.h); a closing session then goes. */
void sink_session_flush(struct sink_session *s)
{
    smtp_server_flush(&s->conn);
}

void sink_session_close_after_flush(struct sink_session *s)
{
    smtp_server_close_after_flush(&s->conn);
    sink_session_flush(s);
}

/*
 * Callers up the stack may still hold the session (a command handler inside
 * the core's input loop), so it is freed from the event loop, not here.
 */
static void session_free_later(struct sink_session *s)
{
    smtp_server_free_later(&s->conn);
}

/* Postfix -W odds: roll 0..99 until a roll reaches `odds'; the rolls so far multiply. */
static double cmd_delay(struct sink_session *s, enum sink_cmd cmd)
{
    const struct sink_cmd_policy *pol = &s->server->opts->cmd[cmd];
    double delay = pol->delay;

    if (cmd == SINK_CMD_DATA)
        delay += s->server->opts->data_delay;
    if (pol->odds > 0 && delay > 0) {
        unsigned rolls = 0;

        while ((int)workload_prng_range(&s->server->rng, 0, 99) < pol->odds && rolls < 1000)
            rolls++;
        delay *= rolls;
    }
    return delay;
}

static void on_timer(evutil_socket_t fd, short what, void *arg);

static void pause_for(struct sink_session *s, double seconds)
{
    struct timeval tv;

    if (s->timer == NULL)
        s->timer = evtimer_new(s->server->base, on_timer, s);
    tv = clock_timeval(seconds);
    s->paused = 1;
    smtp_server_read(&s->conn, 0);
    evtimer_add(s->timer, &tv);
}

static void begin_tls(struct sink_session *s);

static void after_reply(struct sink_session *s, enum after_reply after)
{
    switch (after) {
    case AFTER_NONE:
        break;
    case AFTER_CLOSE:
        sink_session_close_after_flush(s);
        break;
    case AFTER_STARTTLS:
        begin_tls(s);
        break;
    case AFTER_DATA_BEGIN:
        if (s->server->opts->abort_delay >= 0) {
            s->abort_after_pause = 1;
            pause_for(s, s->server->opts->abort_delay);
        } else if (s->server->opts->read_delay > 0) {
            pause_for(s, s->server->opts->read_delay);
        }
        break;
    }
}

/* Reply now, or after the command's configured delay. */
void sink_session_reply_to(struct sink_session *s, enum sink_cmd cmd, const char *text,
                           enum after_reply after)
{
    double delay = cmd_delay(s, cmd);

    if (delay <= 0) {
        send_any_reply(s, text);
        after_reply(s, after);
        return;
    }
    free(s->pending_reply);
    s->pending_reply = xstrdup(text);
    s->pending_after = after;
    pause_for(s, delay);
}

static void on_timer(evutil_socket_t fd, short what, void *arg)
{
    struct sink_session *s = arg;

    (void)fd;
    (void)what;
    s->paused = 0;
    if (s->abort_after_pause) {
        sink_session_reply(s, "550 5.3.0 Error: DATA aborted");
        sink_session_close_after_flush(s);
        return;
    }
    if (s->pending_reply) {
        char *text = s->pending_reply;

        s->pending_reply = NULL;
        send_any_reply(s, text);
        free(text);
        after_reply(s, s->pending_after);
        if (s->conn.closing || s->paused) {
            sink_session_flush(s);
            return;
        }
    }
    smtp_server_read(&s->conn, 1);
    smtp_server_process(&s->conn);
    sink_session_flush(s);
}

/* ------------------------------------------------------------- protocol */

/* One protocol error more: 1 when it was the last one allowed, the 421 said and the session
 * closing. */
static int count_error(struct sink_session *s)
{
    char text[300];

    s->server->stats.protocol_errors++;
    if (++s->errors < s->server->opts->server.error_limit)
        return 0;
    snprintf(text, sizeof(text), "421 4.7.0 %s Error: too many errors", s->server->opts->hostname);
    sink_session_reply(s, text);
    sink_session_close_after_flush(s);
    return 1;
}

static void protocol_error(struct sink_session *s, const char *reply)
{
    if (!count_error(s))
        sink_session_reply(s, reply);
}

void sink_session_transaction_reset(struct sink_session *s)
{
    free(s->mail_args);
    s->mail_args = NULL;
    for (unsigned i = 0; i < s->rcpt_count; i++)
        free(s->rcpts[i]);
    s->rcpt_count = 0;
    smtp_seq_end_transaction(&s->seq);
}

/*
 * Faults decided by options: -q, -Q, -f, -r and --fault. Returns 1 when
 * the command was answered (or the session dropped) here.
 */
int sink_session_policy(struct sink_session *s, enum sink_cmd cmd)
{
    const struct sink_cmd_policy *pol = &s->server->opts->cmd[cmd];
    const struct sink_fault *fault = &pol->fault;
    char text[128];

    if (pol->drop) {
        session_free_later(s);
        return 1;
    }
    if (pol->drop_421) {
        sink_session_reply(s, "421 4.3.0 Error: closing connection");
        sink_session_close_after_flush(s);
        return 1;
    }
    if (pol->hard_reject) {
        sink_session_reply_to(s, cmd, s->server->opts->hard_reply, AFTER_NONE);
        return 1;
    }
    if (pol->soft_reject) {
        sink_session_reply_to(s, cmd, s->server->opts->soft_reply, AFTER_NONE);
        return 1;
    }
    if (fault->code && s->server->stats.messages >= fault->after &&
        (fault->percent >= 100 ||
         workload_prng_uniform01(&s->server->rng) * 100 < fault->percent)) {
        snprintf(text, sizeof(text), "%d %d.%d.0 Error: injected fault", fault->code,
                 fault->code / 100, fault->code == 552 ? 3 : 7);
        sink_session_reply_to(s, cmd, text, fault->code == 421 ? AFTER_CLOSE : AFTER_NONE);
        return 1;
    }
    return 0;
}

static enum sink_cmd sink_cmd_of(enum smtp_verb verb)
{
    switch (verb) {
    case SMTP_VERB_HELO:
        return SINK_CMD_HELO;
    case SMTP_VERB_EHLO:
        return SINK_CMD_EHLO;
    case SMTP_VERB_LHLO:
        return SINK_CMD_LHLO;
    case SMTP_VERB_MAIL:
        return SINK_CMD_MAIL;
    case SMTP_VERB_RCPT:
        return SINK_CMD_RCPT;
    case SMTP_VERB_VRFY:
        return SINK_CMD_VRFY;
    case SMTP_VERB_DATA:
        return SINK_CMD_DATA;
    case SMTP_VERB_RSET:
        return SINK_CMD_RSET;
    case SMTP_VERB_QUIT:
        return SINK_CMD_QUIT;
    case SMTP_VERB_STARTTLS:
        return SINK_CMD_STARTTLS;
    case SMTP_VERB_NOOP:
        return SINK_CMD_NOOP;
    default:
        return SINK_CMD_COUNT; /* HELP: in no Postfix list, so no policy */
    }
}

/* AUTH, XCLIENT and XFORWARD are announced like Postfix's sink and simply accepted. */
static int handle_extra_verb(struct sink_session *s, const char *line, size_t len)
{
    const struct sink_options *opts = s->server->opts;
    char text[300];

#define VERB_IS(v)                                                                                 \
    (len >= strlen(v) && strncasecmp(line, v, strlen(v)) == 0 &&                                   \
     (len == strlen(v) || line[strlen(v)] == ' '))
    if (!((VERB_IS("AUTH") && !opts->no_auth) || (VERB_IS("XCLIENT") && !opts->no_xclient) ||
          (VERB_IS("XFORWARD") && !opts->no_xforward)) ||
        opts->no_esmtp)
        return 0;
    /* Accepted without effect, each of them: junk, as Postfix counts XCLIENT and XFORWARD. */
    if (smtp_junk_count(&s->junk) && count_error(s))
        return 1;
    if (VERB_IS("AUTH")) {
        sink_session_reply(s, "235 2.0.0 Authentication successful");
        return 1;
    }
    if (VERB_IS("XCLIENT")) {
        snprintf(text, sizeof(text), "220 %s ESMTP", opts->hostname);
        sink_session_reply(s, text);
        return 1;
    }
#undef VERB_IS
    sink_session_reply(s, SMTP_SERVER_REPLY_OK); /* XFORWARD */
    return 1;
}

/*
 * --min-data-rate: the DATA phase may last the -t timeout plus one second
 * per min_data_rate bytes received, so a client trickling a byte a second
 * cannot hold a session forever (docs/security.md item 8).
 */
static void handle_command(struct sink_session *s, const char *line, size_t len)
{
    const struct sink_options *opts = s->server->opts;
    struct smtp_cmd cmd;
    /* sink_text_ehlo() offers no SMTPUTF8, so none is taken (docs/security.md item 10). */
    int status = smtp_cmd_parse(line, len, 0, &cmd);
    const char *seq_error;
    enum sink_cmd sc;
    char text[600];

    if (opts->tool.verbose)
        msg_info("%s: < %.*s", s->conn.peer, (int)len, line);
    if (status == 502 && handle_extra_verb(s, line, len))
        return;
    sc = sink_cmd_of(cmd.verb);
    if (status == 0 && sc != SINK_CMD_COUNT && opts->cmd[sc].log)
        msg_info("%s: %.*s", s->conn.peer, (int)len, line);
    if (status == 0 && opts->tool.lmtp != (cmd.verb == SMTP_VERB_LHLO) &&
        (cmd.verb == SMTP_VERB_HELO || cmd.verb == SMTP_VERB_EHLO || cmd.verb == SMTP_VERB_LHLO)) {
        protocol_error(s, SMTP_SERVER_REPLY_UNKNOWN);
        return;
    }
    if (status == 0 && cmd.verb == SMTP_VERB_EHLO && opts->no_esmtp) {
        protocol_error(s, SMTP_SERVER_REPLY_UNKNOWN);
        return;
    }
    if (status != 0) {
        protocol_error(s, cmd.error);
        return;
    }
    if ((seq_error = smtp_seq_check(&s->seq, cmd.verb)) != NULL) {
        protocol_error(s, seq_error);
        return;
    }
    if (cmd.verb == SMTP_VERB_STARTTLS && s->server->tls_ctx == NULL) {
        protocol_error(s, SMTP_SERVER_REPLY_NOT_IMPLEMENTED);
        return;
    }
    if (smtp_junk_command(&s->junk, cmd.verb, s->rcpt_count >= opts->server.max_rcpt) &&
        count_error(s))
        return; /* docs/security.md item 11 */
    if (cmd.verb == SMTP_VERB_DATA && evbuffer_get_length(bufferevent_get_input(s->conn.bev)) > 0) {
        /* Message text sent before our 354: an early talker (docs/security.md item 6). */
        s->server->stats.protocol_errors++;
        sink_session_reply(s, SMTP_SERVER_REPLY_SYNC);
        sink_session_close_after_flush(s);
        return;
    }
    if (sc != SINK_CMD_COUNT && sink_session_policy(s, sc))
        return;

    switch (cmd.verb) {
    case SMTP_VERB_HELO:
        free(s->helo);
        s->helo = xstrndup(cmd.arg.ptr, cmd.arg.len);
        sink_session_transaction_reset(s);
        smtp_seq_commit(&s->seq, cmd.verb);
        snprintf(text, sizeof(text), "250 %s", opts->hostname);
        sink_session_reply_to(s, sc, text, AFTER_NONE);
        break;
    case SMTP_VERB_EHLO:
    case SMTP_VERB_LHLO:
        free(s->helo);
        s->helo = xstrndup(cmd.arg.ptr, cmd.arg.len);
        sink_session_transaction_reset(s);
        smtp_seq_commit(&s->seq, cmd.verb);
        s->proto = opts->tool.lmtp ? "LMTP" : s->conn.tls ? "ESMTPS" : "ESMTP";
        sink_session_reply_to(
            s, sc, s->conn.tls ? s->server->ehlo_reply_tls : s->server->ehlo_reply, AFTER_NONE);
        break;
    case SMTP_VERB_MAIL:
        if (opts->server.max_size && cmd.has_size && cmd.size > opts->server.max_size) {
            sink_session_reply_to(s, sc, SMTP_SERVER_REPLY_TOO_BIG, AFTER_NONE);
            break;
        }
        smtp_seq_commit(&s->seq, cmd.verb);
        free(s->mail_args);
        s->mail_args = xstrndup(cmd.arg.ptr + 5, cmd.arg.len - 5);
        sink_session_reply_to(s, sc, SMTP_SERVER_REPLY_MAIL_OK, AFTER_NONE);
        break;
    case SMTP_VERB_RCPT:
        if (s->rcpt_count >= opts->server.max_rcpt) {
            sink_session_reply_to(s, sc, SMTP_SERVER_REPLY_TOO_MANY_RCPTS, AFTER_NONE);
            break;
        }
        smtp_seq_commit(&s->seq, cmd.verb);
        if (s->rcpt_count == s->rcpt_alloc) {
            s->rcpt_alloc = s->rcpt_alloc ? 2 * s->rcpt_alloc : 4;
            s->rcpts = xrealloc(s->rcpts, s->rcpt_alloc * sizeof(*s->rcpts));
        }
        s->rcpts[s->rcpt_count++] = xstrndup(cmd.arg.ptr + 3, cmd.arg.len - 3);
        sink_session_reply_to(s, sc, SMTP_SERVER_REPLY_RCPT_OK, AFTER_NONE);
        break;
    case SMTP_VERB_DATA:
        sink_message_begin(s);
        sink_session_reply_to(s, sc, SMTP_SERVER_REPLY_DATA, AFTER_DATA_BEGIN);
        break;
    case SMTP_VERB_RSET:
        sink_session_transaction_reset(s);
        sink_session_reply_to(s, sc, SMTP_SERVER_REPLY_OK, AFTER_NONE);
        break;
    case SMTP_VERB_NOOP:
        sink_session_reply_to(s, sc, SMTP_SERVER_REPLY_OK, AFTER_NONE);
        break;
    case SMTP_VERB_VRFY:
        sink_session_reply_to(s, sc, SMTP_SERVER_REPLY_VRFY, AFTER_NONE);
        break;
    case SMTP_VERB_HELP:
        sink_session_reply(s, SMTP_SERVER_REPLY_HELP);
        break;
    case SMTP_VERB_QUIT:
        sink_session_reply_to(s, sc, SMTP_SERVER_REPLY_BYE, AFTER_CLOSE);
        break;
    case SMTP_VERB_STARTTLS:
        sink_session_reply_to(s, sc, SMTP_SERVER_REPLY_STARTTLS, AFTER_STARTTLS);
        break;
    default:
        protocol_error(s, SMTP_SERVER_REPLY_UNKNOWN);
        break;
    }
}

/* ------------------------------------------------- the core's callbacks */

static int may_read(void *arg)
{
    struct sink_session *s = arg;

    /* With a greeting due, what arrives is judged then (on_greet_timer). */
    return !s->paused && !s->server->draining && !s->greeting_pending;
}

static void on_command(void *arg, const char *line, size_t len)
{
    handle_command(arg, line, len);
}

static void on_too_long(void *arg)
{
    protocol_error(arg, SMTP_SERVER_REPLY_TOO_LONG);
}

static void on_timeout(void *arg)
{
    struct sink_session *s = arg;
    char text[300];

    s->server->stats.timeouts++;
    snprintf(text, sizeof(text), "421 4.4.2 %s Error: timeout exceeded", s->server->opts->hostname);
    sink_session_reply(s, text);
    sink_session_close_after_flush(s);
}

/*
 * STARTTLS: the core drops what came behind the command and, once our 220
 * has left, moves the socket into TLS; the session forgets its HELO.
 */
static void begin_tls(struct sink_session *s)
{
    smtp_server_begin_tls(&s->conn);
    sink_session_flush(s);
}

static void on_tls_started(void *arg)
{
    struct sink_session *s = arg;

    s->server->stats.tls_sessions++;
    smtp_seq_tls_started(&s->seq);
    free(s->helo);
    s->helo = NULL;
}

/* Nothing may fire between the decision to free and the free. */
static void on_stop(void *arg)
{
    struct sink_session *s = arg;

    if (s->timer)
        evtimer_del(s->timer);
    data_deadline_stop(&s->data_deadline);
}

static void on_free(void *arg)
{
    session_free(arg);
}

static const struct smtp_server_ops sink_ops = {
    .may_read = may_read,
    .on_command = on_command,
    .on_too_long = on_too_long,
    .on_data_chunk = sink_message_content,
    .on_data_end = sink_message_finish,
    .on_timeout = on_timeout,
    .on_tls_started = on_tls_started,
    .on_stop = on_stop,
    .on_free = on_free,
};

static void session_free(struct sink_session *s)
{
    struct sink_server *server = s->server;

    sink_message_end_dumps(s, 0);
    sink_session_transaction_reset(s);
    if (s->timer)
        event_free(s->timer);
    data_deadline_free(&s->data_deadline);
    smtp_server_release(&s->conn);
    free(s->pending_reply);
    free(s->helo);
    free(s->rcpts);
    free(s->header);
    if (s->prev)
        s->prev->next = s->next;
    else
        server->sessions = s->next;
    if (s->next)
        s->next->prev = s->prev;
    free(s);
    server->stats.active--;
    server->stats.sessions_ended++;
    if (server->on_session_end)
        server->on_session_end(server);
}

static void greet(struct sink_session *s)
{
    if (!sink_session_policy(s, SINK_CMD_CONNECT))
        sink_session_reply_to(s, SINK_CMD_CONNECT, s->server->greeting, AFTER_NONE);
    sink_session_flush(s);
}

/* --greet-delay is over: greet, unless the client spoke first (docs/security.md item 6). */
static void on_greet_timer(evutil_socket_t fd, short what, void *arg)
{
    struct sink_session *s = arg;

    (void)fd;
    (void)what;
    s->greeting_pending = 0;
    event_free(s->timer);
    s->timer = NULL;
    if (evbuffer_get_length(bufferevent_get_input(s->conn.bev)) > 0) {
        s->server->stats.protocol_errors++;
        sink_session_reply(s, "554 5.5.0 Error: talked before the greeting");
        sink_session_close_after_flush(s);
        return;
    }
    greet(s);
}

/*
 * Replies go out at once (no Nagle wait behind a reply the client has not
 * yet acknowledged, which a pipelining client's delayed ACK would make a
 * 40 ms stall). Inherited from the listener, it costs no system call a
 * session: one getsockopt on the first session to see that it was.
 */
static void set_nodelay(struct sink_server *server, int fd)
{
    int on = 0;
    socklen_t len = sizeof(on);

    if (server->nodelay == SINK_NODELAY_INHERITED)
        return;
    if (server->nodelay == SINK_NODELAY_LISTENER) {
        server->nodelay = getsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, &len) == 0 && on
                              ? SINK_NODELAY_INHERITED
                              : SINK_NODELAY_EACH;
        if (server->nodelay == SINK_NODELAY_INHERITED)
            return;
    }
    on = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof(on));
}

void sink_session_start(struct sink_server *server, int fd, const struct sockaddr *addr,
                        int addrlen)
{
    struct sink_session *s = xcalloc(1, sizeof(*s));
    const struct sink_options *opts = server->opts;
    struct smtp_server_config cfg = {server->base, server->tls_ctx, opts->timeout, 1, 0};

    (void)addrlen;
    s->server = server;
    s->proto = "SMTP";
    if (addr->sa_family != AF_UNIX)
        set_nodelay(server, fd);
    if (smtp_server_start(&s->conn, &cfg, &sink_ops, s, fd, addr) < 0) {
        free(s);
        return;
    }
    smtp_server_direct_read(&s->conn);
    smtp_seq_init(&s->seq);
    smtp_junk_init(&s->junk, opts->server.junk_limit);
    data_deadline_init(&s->data_deadline, server->base, opts->timeout, opts->server.min_data_rate,
                       sink_message_too_slow, s);
    s->next = server->sessions;
    if (s->next)
        s->next->prev = s;
    server->sessions = s;
    if (server->stats.sessions++ == 0)
        server->stats.first_ns = clock_now_ns();
    if (++server->stats.active > server->stats.max_active)
        server->stats.max_active = server->stats.active;
    smtp_server_read(&s->conn, 1);
    if (opts->tool.verbose)
        msg_info("connect from %s", s->conn.peer);
    if (opts->cmd[SINK_CMD_CONNECT].log)
        msg_info("%s: connect", s->conn.peer);
    if (opts->greet_delay > 0) {
        /* Keep reading meanwhile: whatever arrives before the greeting convicts the client. */
        struct timeval wait = {
            (time_t)opts->greet_delay,
            (suseconds_t)((opts->greet_delay - (time_t)opts->greet_delay) * 1e6)};

        s->greeting_pending = 1;
        s->timer = evtimer_new(server->base, on_greet_timer, s);
        evtimer_add(s->timer, &wait);
        return;
    }
    greet(s);
}

void sink_session_close_all(struct sink_server *server)
{
    server->on_session_end = NULL;
    while (server->sessions)
        session_free(server->sessions);
}

/* -------------------------------------------------------- prebuilt replies */

void sink_session_init_replies(struct sink_server *server)
{
    server->greeting = sink_text_greeting(server->opts);
    server->ehlo_reply = sink_text_ehlo(server->opts, server->tls_ctx != NULL);
    server->ehlo_reply_tls = sink_text_ehlo(server->opts, 0);
}

void sink_session_free_replies(struct sink_server *server)
{
    free(server->greeting);
    free(server->ehlo_reply);
    free(server->ehlo_reply_tls);
}
