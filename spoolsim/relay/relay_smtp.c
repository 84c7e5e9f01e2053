/*
 * relay_smtp - delivery to the next hop over SMTP.
 *
 * Up to --concurrency connections, each running one transaction at a
 * time: MAIL, RCPT for every recipient not yet marked done, DATA, the
 * text, the dot; MAIL, the RCPTs and DATA go in one write when the hop
 * offers PIPELINING, as Postfix's smtp client sends them, one per round
 * trip otherwise. A connection that has finished a message takes the
 * next one at once, and an idle one stays open for a while (Postfix's
 * connection cache), so a busy relay reuses connections. A connection is
 * looked at as it is taken: one on which the hop has spoken since its
 * last reply (a 421 before it closes, or junk) or that it has closed is
 * closed instead, and the message goes to another connection or a new
 * one, so that the hop's going away costs no message a deferral.
 * (Postfix's smtp client sends RSET on a cached connection for this, a
 * round trip per message; a look at the socket costs one system call.)
 *
 * This file is the relay's policy: what to send, and what a reply means
 * for each recipient and message. The connection is smtp_client's (the
 * reading, the replies owed and their assembly, writes, timeouts, TLS,
 * the dot's reply held to the hop's having the dot), and the order of a
 * transaction smtp_txn's.
 *
 * Nothing the next hop does can lose a message: a 4xx, a timeout, a
 * dropped connection, a reply too long or malformed, or text that arrives
 * before its command (smtp_client ends the connection) defers every
 * recipient not yet accepted after the dot; only a 5xx bounces. A hop
 * that cannot be reached defers what is waiting, as Postfix does for a
 * dead destination.
 *
 * The reply to the dot is the one that turns a message into delivered
 * mail, so it is believed only once the hop has the dot (smtp_client's
 * strict_dot: the text out of our buffers and, where the kernel tells,
 * every byte of it acknowledged by the hop's TCP); and nothing the hop
 * sent may already be waiting when the text goes out. A 250 that comes
 * earlier answers something the hop never received: the connection is
 * broken and the message deferred.
 *
 * The text goes out a window at a time, read from the queue file or
 * memory as the output drains (relay_smtp_text.c); a file found damaged
 * half-way drops the connection before the dot, so the hop discards what
 * it got, and the message goes to corrupt/; a read that fails defers it.
 *
 * With --hop-tls the connection says STARTTLS after EHLO when the hop
 * offers it (may) or defers the mail when it does not (encrypt). Whatever
 * the hop sent behind its 220 is discarded (CVE-2011-0411), and EHLO is
 * said again inside TLS.
 */
#include "config.h"

#include <errno.h>
#include <event2/event.h>
#include <stddef.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "endpoint.h"
#include "msg.h"
#include "relay_loop.h"
#include "relay_private.h"
#include "relay_deliver.h"
#include "relay_qmgr.h"
#include "relay_smtp_impl.h"
#include "smtp_reply.h"
#include "xalloc.h"

#define CACHE_TIME 2 /* seconds an idle connection is kept (smtp_connection_cache_time_limit) */
#define MAX_REPLY_LINES 100 /* a reply that goes on longer is an attack, not an answer */

static void conn_close(struct relay_conn *c);
static void conn_retire(struct relay_conn *c);
static void deliver_here(struct relay_loop *loop);

/* Send what is queued, outside smtp_client's callbacks (which send by themselves). */
static void conn_flush(struct relay_conn *c)
{
    smtp_client_flush(&c->client); /* a socket error comes back as on_error */
}

/* A command of the connection's own (DATA, RSET, QUIT, STARTTLS), its reply next, sent now. */
static void command(struct relay_conn *c, enum smtp_step step, const char *line)
{
    smtp_client_send(&c->client, line, strlen(line));
    c->state = step;
    conn_flush(c);
}

static void send_ehlo(struct relay_conn *c)
{
    smtp_client_sendf(&c->client, "EHLO %s", c->relay->opts->hostname);
    c->state = SMTP_STEP_EHLO;
    conn_flush(c);
}

void relay_smtp_room_commit(struct out_room *r)
{
    if (r->v.iov_base == NULL)
        return;
    r->v.iov_len = r->used;
    evbuffer_commit_space(r->out, &r->v, 1);
    r->v.iov_base = NULL;
    r->used = 0;
}

char *relay_smtp_room_get(struct out_room *r, size_t need, size_t want)
{
    if (r->v.iov_base != NULL && r->used + need <= r->v.iov_len)
        return (char *)r->v.iov_base + r->used;
    relay_smtp_room_commit(r);
    if (evbuffer_reserve_space(r->out, (ev_ssize_t)(want > need ? want : need), &r->v, 1) != 1)
        msg_fatal("out of memory for the next hop's output");
    return r->v.iov_base;
}

void relay_smtp_room_put(struct out_room *r, const char *data, size_t len)
{
    memcpy(relay_smtp_room_get(r, len, len), data, len);
    r->used += len;
}

/* "<verb><address>\r\n": MAIL FROM and RCPT TO (their replies are owed by the caller). */
static void put_path(struct out_room *r, const char *verb, const char *addr, size_t addr_len)
{
    size_t verb_len = strlen(verb);

    relay_smtp_room_get(r, verb_len + addr_len + 3, 0);
    relay_smtp_room_put(r, verb, verb_len);
    relay_smtp_room_put(r, addr, addr_len);
    relay_smtp_room_put(r, ">\r\n", 3);
}

static void set_reason(struct relay_msg *m, const struct relay_conn *c, const char *what)
{
    snprintf(m->reason, sizeof(m->reason), "host %s said: %s (in reply to %s)", c->relay->hop_desc,
             what, smtp_txn_step_name(c->state));
    snprintf(m->hop_reply, sizeof(m->hop_reply), "%s", what);
}

static void on_delivered_post(struct mailbox_item *item)
{
    relay_attempt_delivered(
        (struct relay_msg *)((char *)item - offsetof(struct relay_msg, posted)));
}

/* m's attempt is over: to the queue manager, on loop 0. */
static void hand_back(struct relay_loop *loop, struct relay_msg *m)
{
    if (loop->index == 0) {
        relay_attempt_delivered(m);
        return;
    }
    m->posted.run = on_delivered_post;
    mailbox_post(loop->relay->loops[0].inbox, &m->posted);
}

/* The message on `c' is finished, whatever happened; hand it back. */
static void message_done(struct relay_conn *c)
{
    struct relay_msg *m = c->msg;

    c->msg = NULL;
    if (m)
        hand_back(c->loop, m);
}

/* Every recipient without a final answer gets `result', and m->reason as its own. */
static void settle(struct relay_msg *m, enum relay_rcpt_result from, enum relay_rcpt_result to)
{
    for (unsigned i = 0; i < m->view.rcpt_count; i++)
        if (!m->view.rcpts[i].done && m->results[i] == from) {
            m->results[i] = to;
            if (to != RCPT_SENT)
                relay_msg_note(m, i);
        }
}

/*
 * The connection is unusable: defer what it carried. Accepted recipients
 * were not delivered until the hop acknowledged the dot, so they are
 * deferred too (a dot acknowledged but lost on the way means a duplicate).
 */
static void conn_fail(struct relay_conn *c, const char *why)
{
    struct relay *r = c->relay;

    if (c->closed)
        return;
    r->stats.hop_failures++;
    if (c->msg) {
        snprintf(c->msg->reason, sizeof(c->msg->reason), "lost connection with %s while %s: %.200s",
                 r->hop_desc, smtp_txn_step_name(c->state), why);
        c->msg->hop_reply[0] = 0;
        settle(c->msg, RCPT_UNTRIED, RCPT_DEFERRED);
        settle(c->msg, RCPT_SENT, RCPT_DEFERRED);
        message_done(c);
    } else if (c->state < SMTP_STEP_IDLE) {
        /* Not even a greeting: Postfix calls the destination dead and defers its mail. */
        struct relay_msg *m;

        if (!atomic_exchange(&r->hop_unreachable, 1))
            msg_warn("next hop %s: %s while %s; deferring mail until it answers", r->hop_desc, why,
                     smtp_txn_step_name(c->state));
        while ((m = relay_qmgr_next_ready(r)) != NULL) {
            snprintf(m->reason, sizeof(m->reason), "connect to %s: %.200s", r->hop_desc, why);
            m->hop_reply[0] = 0;
            settle(m, RCPT_UNTRIED, RCPT_DEFERRED);
            hand_back(c->loop, m);
        }
    }
    conn_close(c);
}

/*
 * The hop answered EHLO with our own name: what it takes comes back to us
 * (Postfix's smtp client: "mail for X loops back to myself"). Everything
 * waiting for the hop bounces with 5.4.6, as a loop and not as delivered
 * mail, and the connection says QUIT: a notification that goes the same
 * way bounces in its turn and, from the null sender, is discarded.
 */
static void loop_back(struct relay_conn *c)
{
    struct relay *r = c->relay;
    struct relay_msg *m;

    msg_warn("next hop %s replied to EHLO with my own hostname %s", r->hop_desc, r->opts->hostname);
    while ((m = relay_qmgr_next_ready(r)) != NULL) {
        snprintf(m->reason, sizeof(m->reason), "mail for %s loops back to myself", r->hop_desc);
        m->hop_reply[0] = 0;
        m->own_status = "5.4.6";
        m->looped = 1;
        settle(m, RCPT_UNTRIED, RCPT_BOUNCED);
        msg_info("%s: from=<%.*s>, status=bounced 5.4.6 (%s)", m->id, (int)m->view.sender_len,
                 m->view.sender, m->reason);
        hand_back(c->loop, m);
    }
    c->loop->conn_starting--; /* no longer starting, never idle: conn_close() counts neither */
    command(c, SMTP_STEP_QUIT, "QUIT\r\n");
}

/* The next recipient not yet marked done, from index `i'. */
static unsigned next_rcpt(const struct relay_msg *m, unsigned i)
{
    while (i < m->view.rcpt_count && m->view.rcpts[i].done)
        i++;
    return i;
}

/*
 * MAIL FROM; with PIPELINING also every RCPT TO and DATA in the same
 * write (RFC 2920), otherwise one command per reply.
 */
static void start_message(struct relay_conn *c, struct relay_msg *m)
{
    struct out_room r = {.out = smtp_client_output(&c->client)};
    size_t size = sizeof("MAIL FROM:<>\r\n") + m->view.sender_len;
    unsigned rcpts = 0;

    c->msg = m;
    c->loop->deliveries++;
    if (c->counted_idle) {
        c->counted_idle = 0;
        c->loop->idle_conns--;
    }
    c->rcpt = next_rcpt(m, 0);
    event_del(c->idle_timer);
    for (unsigned i = c->rcpt; i < m->view.rcpt_count; i = next_rcpt(m, i + 1)) {
        rcpts++;
        if (c->pipelining)
            size += sizeof("RCPT TO:<>\r\n") + m->view.rcpts[i].addr_len;
    }
    if (c->pipelining)
        size += sizeof("DATA\r\n");
    smtp_txn_begin(&c->txn, rcpts, c->pipelining, 0);
    /* The whole group in one piece of the output, so that one write sends it. */
    relay_smtp_room_get(&r, size, size);
    put_path(&r, "MAIL FROM:<", m->view.sender, m->view.sender_len);
    if (c->pipelining) {
        for (unsigned i = c->rcpt; i < m->view.rcpt_count; i = next_rcpt(m, i + 1))
            put_path(&r, "RCPT TO:<", m->view.rcpts[i].addr, m->view.rcpts[i].addr_len);
        relay_smtp_room_put(&r, "DATA\r\n", 6);
    }
    relay_smtp_room_commit(&r);
    smtp_client_owe(&c->client, smtp_txn_group_size(&c->txn));
    c->state = c->txn.step;
    conn_flush(c);
}

/* Without PIPELINING: the RCPT whose reply comes next. */
static void send_rcpt(struct relay_conn *c)
{
    const struct pf_qfile_rcpt *rc = &c->msg->view.rcpts[c->rcpt];
    struct out_room r = {.out = smtp_client_output(&c->client)};

    put_path(&r, "RCPT TO:<", rc->addr, rc->addr_len);
    relay_smtp_room_commit(&r);
    smtp_client_owe(&c->client, 1);
    conn_flush(c);
}

/*
 * May the idle connection `c' take a message? Not when the hop has said
 * something since its last reply, or closed its end (smtp_client_reusable):
 * the message's MAIL would get that for its reply, or the message would
 * be lost with the connection and deferred. Such a connection is closed
 * now, counted as a failure of the hop's, with no message on it; the
 * caller then looks for other work.
 */
static int conn_reusable(struct relay_conn *c)
{
    if (smtp_client_reusable(&c->client))
        return 1;
    c->relay->stats.hop_failures++;
    if (c->relay->opts->verbose)
        msg_info("next hop %s closed or spoke out of turn on an idle connection; not reused",
                 c->relay->hop_desc);
    conn_retire(c);
    return 0;
}

static void go_idle(struct relay_conn *c)
{
    struct relay *r = c->relay;
    struct relay_msg *m;

    c->state = SMTP_STEP_IDLE;
    /*
     * Looked at only when a message may be taken now; an idle one is looked
     * at when deliver_here() takes it, and meanwhile what the hop sends or
     * its close is read as an error of the idle connection.
     */
    if (relay_qmgr_ready_count(r) > 0 && !conn_reusable(c)) {
        deliver_here(c->loop);
        return;
    }
    /*
     * Counted idle before the list is looked at: a message readied meanwhile
     * is either seen here or, by deliver_ready(), this count.
     */
    c->counted_idle = 1;
    c->loop->idle_conns++;
    if ((m = relay_qmgr_next_ready(r)) != NULL) {
        start_message(c, m);
        return;
    }
    event_add(c->idle_timer, &c->cache_time);
}

/*
 * The text cannot go on: the connection is dropped before the dot, so
 * the hop discards what it has. A damaged file goes to corrupt/, a file
 * that could not be read waits for its retry.
 */
void relay_smtp_text_failed(struct relay_conn *c, int damaged, const char *why)
{
    struct relay_msg *m = c->msg;

    msg_warn("%s: %s; dropping the connection to %s before the end of data", m->id, why,
             c->relay->hop_desc);
    snprintf(m->reason, sizeof(m->reason), "%s", why);
    m->hop_reply[0] = 0;
    m->damaged = damaged;
    settle(m, RCPT_UNTRIED, RCPT_DEFERRED);
    settle(m, RCPT_SENT, RCPT_DEFERRED);
    message_done(c);
    conn_close(c);
}

/* Past EHLO (and STARTTLS): the connection takes messages. */
static void session_ready(struct relay_conn *c)
{
    c->pipelining = (c->extensions & SMTP_EXT_PIPELINING) != 0;
    c->loop->conn_starting--;
    if (atomic_exchange(&c->relay->hop_unreachable, 0))
        msg_info("next hop %s answers again", c->relay->hop_desc);
    go_idle(c);
}

/* After the hop's 220 to STARTTLS; on_connected says when the handshake is done. */
static void start_tls(struct relay_conn *c)
{
    if (smtp_client_start_tls(&c->client) != 0) {
        conn_fail(c, "cannot start TLS");
        return;
    }
    c->relay->stats.hop_tls++;
    c->state = SMTP_STEP_HANDSHAKE;
}

/*
 * A reply to MAIL, a RCPT, DATA or the dot: first what it means for the
 * message's recipients, then what smtp_txn says comes next.
 */
static void txn_reply(struct relay_conn *c, const struct smtp_reply *reply)
{
    struct relay_msg *m = c->msg;
    int class = SMTP_REPLY_CLASS(reply->code);
    enum relay_rcpt_result failure = class == 5 ? RCPT_BOUNCED : RCPT_DEFERRED;

    switch (c->state) {
    case SMTP_STEP_MAIL:
        if (class != 2) {
            set_reason(m, c, reply->text);
            settle(m, RCPT_UNTRIED, failure);
        }
        break;
    case SMTP_STEP_RCPT:
        if (c->txn.mail_refused) {
            /* this reply to a pipelined RCPT changes nothing */
        } else if (class == 2) {
            m->results[c->rcpt] = RCPT_SENT; /* final only after the dot */
        } else {
            set_reason(m, c, reply->text);
            m->results[c->rcpt] = failure;
            relay_msg_note(m, c->rcpt);
        }
        c->rcpt = next_rcpt(m, c->rcpt + 1);
        break;
    case SMTP_STEP_DATA:
        if (reply->code != 354 && c->txn.accepted > 0) {
            set_reason(m, c, reply->text);
            settle(m, RCPT_SENT, failure);
        }
        break;
    default: /* the dot */
        if (class != 2) {
            set_reason(m, c, reply->text);
            settle(m, RCPT_SENT, failure);
        }
        break;
    }
    switch (smtp_txn_reply(&c->txn, reply->code)) {
    case SMTP_TXN_WAIT:
        c->state = c->txn.step;
        return;
    case SMTP_TXN_SEND_RCPT:
        c->state = c->txn.step;
        send_rcpt(c);
        return;
    case SMTP_TXN_SEND_DATA:
        command(c, c->txn.step, "DATA\r\n");
        return;
    case SMTP_TXN_SEND_TEXT:
        if (smtp_client_spoke_early(&c->client)) {
            /* A reply to a dot not yet sent (a hop that answers ahead, or a liar). */
            conn_fail(c, "reply before the message text was sent"); /* still DATA's step */
            return;
        }
        relay_smtp_text_start(c);
        return;
    case SMTP_TXN_EMPTY_354:
        /* A go-ahead with no recipient: the text cannot be taken back. */
        conn_fail(c, "354 without an accepted recipient");
        return;
    case SMTP_TXN_FAILED:
        /* No recipient taken, or none can be: end the transaction, keep the connection. */
        message_done(c);
        command(c, SMTP_STEP_RSET, "RSET\r\n");
        return;
    case SMTP_TXN_DONE:
        message_done(c);
        go_idle(c);
        return;
    }
}

static enum smtp_tls_want tls_want(const struct relay *r)
{
    switch (r->opts->hop_tls) {
    case RELAY_HOP_TLS_MAY:
        return SMTP_TLS_MAY;
    case RELAY_HOP_TLS_ENCRYPT:
        return SMTP_TLS_MUST;
    default:
        return SMTP_TLS_NONE;
    }
}

/*
 * A reply to the greeting, EHLO or STARTTLS: a hop that calls itself by
 * our name in its EHLO reply is a loop; then smtp_txn says what comes next.
 */
static void opening_reply(struct relay_conn *c, const struct smtp_reply *reply)
{
    struct relay *r = c->relay;

    if (SMTP_REPLY_CLASS(reply->code) == 2 && c->state != SMTP_STEP_STARTTLS &&
        smtp_reply_names(reply, r->opts->hostname)) {
        if (c->state == SMTP_STEP_EHLO) {
            loop_back(c);
            return;
        }
        /* only EHLO's decides, as Postfix */
        msg_warn("next hop %s greeted me with my own hostname %s", r->hop_desc, r->opts->hostname);
    }
    if (c->state == SMTP_STEP_EHLO)
        c->extensions = reply->extensions;
    switch (
        smtp_txn_opening(c->state, reply->code, reply->extensions, tls_want(r), c->client.tls)) {
    case SMTP_OPEN_SEND_EHLO:
        send_ehlo(c);
        return;
    case SMTP_OPEN_SEND_STARTTLS:
        command(c, SMTP_STEP_STARTTLS, "STARTTLS\r\n");
        return;
    case SMTP_OPEN_START_TLS:
        start_tls(c);
        return;
    case SMTP_OPEN_READY:
        session_ready(c); /* with TLS as wanted, or without it where it may */
        return;
    case SMTP_OPEN_REFUSED:
        conn_fail(c, reply->text);
        return;
    case SMTP_OPEN_NO_TLS:
        conn_fail(c, "TLS is required, but was not offered");
        return;
    }
}

/* smtp_client: a complete reply, to the command of c->state. */
static void on_reply(void *arg, const struct smtp_reply *reply)
{
    struct relay_conn *c = arg;

    switch (c->state) {
    case SMTP_STEP_GREETING:
    case SMTP_STEP_EHLO:
    case SMTP_STEP_STARTTLS:
        opening_reply(c, reply);
        return;
    case SMTP_STEP_MAIL:
    case SMTP_STEP_RCPT:
    case SMTP_STEP_DATA:
    case SMTP_STEP_DOT:
        txn_reply(c, reply);
        return;
    case SMTP_STEP_RSET:
        if (SMTP_REPLY_CLASS(reply->code) != 2) {
            conn_fail(c, reply->text);
            return;
        }
        go_idle(c);
        return;
    case SMTP_STEP_QUIT:
        conn_close(c);
        return;
    default:
        conn_fail(c, "reply without a command");
        return;
    }
}

/* smtp_client: TCP is up (the greeting is owed), or TLS's handshake is done. */
static void on_connected(void *arg)
{
    struct relay_conn *c = arg;

    if (c->client.tls)
        send_ehlo(c); /* TLS forgets the first */
    else
        c->state = SMTP_STEP_GREETING;
}

/*
 * smtp_client: the connection is gone or stuck (after QUIT its end,
 * otherwise a failure), or the hop broke the protocol (a failure even
 * after QUIT).
 */
static void on_error(void *arg, enum smtp_client_error error, int err)
{
    struct relay_conn *c = arg;
    int lost = error == SMTP_CLIENT_CONNECT || error == SMTP_CLIENT_TIMEOUT ||
               error == SMTP_CLIENT_CLOSED || error == SMTP_CLIENT_SOCKET;

    if (lost && c->state == SMTP_STEP_QUIT)
        conn_close(c);
    else
        conn_fail(c, smtp_client_error_text(error, err));
}

/* smtp_client: the output has drained to its low-water mark. */
static void on_output(void *arg)
{
    relay_smtp_text_resume(arg);
}

static const struct smtp_client_ops conn_ops = {
    .on_connected = on_connected,
    .on_reply = on_reply,
    .on_error = on_error,
    .on_output = on_output,
};

static void unlink_conn(struct relay_conn **list, struct relay_conn *c)
{
    if (c->prev)
        c->prev->next = c->next;
    else
        *list = c->next;
    if (c->next)
        c->next->prev = c->prev;
    c->prev = c->next = NULL;
}

static void destroy(struct relay_conn *c)
{
    unlink_conn(&c->loop->dead_conns, c);
    smtp_client_close(&c->client); /* closed already */
    event_free(c->idle_timer);     /* and with it a free still to come */
    free(c);
}

/* The cache time is over: QUIT. For a connection closed meanwhile, its free. */
static void on_idle_timer(evutil_socket_t fd, short what, void *arg)
{
    struct relay_conn *c = arg;

    (void)fd;
    (void)what;
    if (c->closed) {
        destroy(c);
        return;
    }
    command(c, SMTP_STEP_QUIT, "QUIT\r\n");
}

/*
 * Out of the list and the counts, and the connection closed, at once; the
 * memory goes at the next turn of the loop, as callbacks up the stack
 * (smtp_client's among them) may still hold `c'. Nothing more: the
 * caller looks for work itself.
 */
static void conn_retire(struct relay_conn *c)
{
    struct relay_loop *loop = c->loop;

    c->closed = 1;
    if (c->state < SMTP_STEP_IDLE)
        loop->conn_starting--;
    if (c->counted_idle) {
        c->counted_idle = 0;
        loop->idle_conns--;
    }
    unlink_conn(&loop->conns, c);
    c->next = loop->dead_conns;
    if (loop->dead_conns)
        loop->dead_conns->prev = c;
    loop->dead_conns = c;
    loop->conn_count--;
    relay_smtp_text_drop(c);
    smtp_client_close(&c->client);
    event_del(c->idle_timer);
    event_active(c->idle_timer, EV_TIMEOUT, 1); /* on_idle_timer frees it */
}

/* The connection goes (conn_retire()); messages may be waiting for a free one. */
static void conn_close(struct relay_conn *c)
{
    if (c->closed)
        return;
    conn_retire(c);
    deliver_here(c->loop);
}

/* `tv' as a common timeout of `base' (a copy works alike), or itself where libevent has no room. */
static struct timeval common_timeout(struct event_base *base, struct timeval tv)
{
    const struct timeval *common = event_base_init_common_timeout(base, &tv);

    return common ? *common : tv;
}

static void conn_open(struct relay_loop *loop)
{
    struct relay *r = loop->relay;
    struct relay_conn *c = xcalloc(1, sizeof(*c));
    struct timeval cache_time = {CACHE_TIME, 0};
    struct smtp_client_config cfg = {
        .base = loop->base,
        .tls_ctx = r->hop_tls_ctx,
        .timeout = r->opts->hop_timeout,
        .max_reply_lines = MAX_REPLY_LINES,
        .strict_dot = 1,
    };

    c->relay = r;
    c->loop = loop;
    c->state = SMTP_STEP_CONNECT;
    c->idle_timer = evtimer_new(loop->base, on_idle_timer, c);
    c->cache_time = common_timeout(loop->base, cache_time);
    smtp_client_init(&c->client, &cfg, &conn_ops, c);
    c->next = loop->conns;
    if (loop->conns)
        loop->conns->prev = c;
    loop->conns = c;
    loop->conn_count++;
    loop->conn_starting++;
    r->stats.hop_connects++;
    if (smtp_client_connect(&c->client, (struct sockaddr *)&r->hop_addr, r->hop_addr_len) != 0)
        conn_fail(c, strerror(errno));
}

/* On `loop': its idle connections take ready messages, and new ones open while more wait. */
static void deliver_here(struct relay_loop *loop)
{
    struct relay *r = loop->relay;

    if (r->stopping)
        return;
    for (struct relay_conn *c = loop->conns, *next; c && relay_qmgr_ready_count(r) > 0; c = next) {
        struct relay_msg *m;

        next = c->next; /* `c' may leave the list */
        if (c->state != SMTP_STEP_IDLE || c->msg != NULL || !conn_reusable(c))
            continue;
        if ((m = relay_qmgr_next_ready(r)) == NULL)
            break; /* another loop's connection took it */
        start_message(c, m);
    }
    while (relay_qmgr_ready_count(r) > loop->conn_starting && loop->conn_count < loop->concurrency)
        conn_open(loop);
}

static void on_deliver_item(struct mailbox_item *item)
{
    struct relay_loop *loop =
        (struct relay_loop *)((char *)item - offsetof(struct relay_loop, deliver_item));

    loop->deliver_posted = 0;
    deliver_here(loop);
}

/*
 * Loop 0 delivers at once (when it has connections: with one loop); every
 * other loop that could take a message (an idle connection, or room for
 * one more) gets a word, at most one on its way to each. A word to only
 * some would leave a message waiting whenever those are busy and another
 * has room; a word to a loop with every connection busy would be a
 * wake-up for nothing: a connection that finishes a message takes the
 * next one itself (go_idle).
 */
static void deliver_ready(struct relay *r)
{
    for (unsigned i = 0; i < r->loop_count && relay_qmgr_ready_count(r) > 0; i++) {
        struct relay_loop *loop = &r->loops[i];

        if (loop->concurrency == 0)
            continue;
        if (loop->index == 0)
            deliver_here(loop);
        else if ((loop->idle_conns > 0 || loop->conn_count < loop->concurrency) &&
                 !atomic_exchange(&loop->deliver_posted, 1)) {
            loop->deliver_item.run = on_deliver_item;
            mailbox_post(loop->inbox, &loop->deliver_item);
        }
    }
}

const struct relay_agent relay_smtp_agent = {.name = "smtp", .deliver_ready = deliver_ready};

void relay_smtp_close_all(struct relay *r)
{
    for (unsigned i = 0; i < r->loop_count; i++) {
        struct relay_loop *loop = &r->loops[i];

        while (loop->conns) {
            struct relay_conn *c = loop->conns;

            if (c->msg) {
                /* Not delivered as far as we know: it stays in active/ for the next start. */
                relay_qmgr_abandoned(c->msg);
                c->msg = NULL;
            }
            conn_close(c);
        }
        /* The loops have ended: each goes now, and the event that would have freed it. */
        while (loop->dead_conns)
            destroy(loop->dead_conns);
    }
}

int relay_smtp_init(struct relay *r, char *err, size_t errlen)
{
    struct endpoint ep;

    if (r->opts->hop_kind != RELAY_HOP_SMTP)
        return 0;
    if (endpoint_parse_client(r->opts->hop_arg, "25", &ep, err, errlen) != 0)
        return -1;
    endpoint_describe(&ep, r->hop_desc, sizeof(r->hop_desc));
    r->hop_addr_len = sizeof(r->hop_addr);
    if (endpoint_resolve(&ep, AF_UNSPEC, &r->hop_addr, &r->hop_addr_len, err, errlen) != 0) {
        endpoint_free(&ep);
        return -1;
    }
    endpoint_free(&ep);
    return 0;
}
