/*
 * relay_smtp - delivery to the next hop over SMTP.
 *
 * Up to --concurrency connections, each running one transaction at a
 * time: MAIL, RCPT for every recipient not yet marked done, DATA, the
 * text, the dot; MAIL, the RCPTs and DATA go in one write when the hop
 * offers PIPELINING, as Postfix's smtp client sends them, one per round
 * trip otherwise. Every reply is owed to a command: text from the hop
 * that no command asked for ends the connection. A connection that has finished
 * a message takes the next one at once, and an idle one stays open for a
 * while (Postfix's connection cache), so a busy relay reuses connections.
 *
 * Nothing the next hop does can lose a message: a 4xx, a timeout, a
 * dropped connection, a reply too long or malformed, or text that arrives
 * before its command defers every recipient not yet accepted after the
 * dot; only a 5xx bounces. A hop that cannot be reached defers what is
 * waiting, as Postfix does for a dead destination.
 *
 * The reply to the dot is the one that turns a message into delivered
 * mail, so it is believed only once the hop has the dot: the text must be
 * out of our buffers and, where the kernel tells (Linux, FreeBSD), every
 * byte of it acknowledged by the hop's TCP; and nothing the hop sent may
 * already be waiting when the text goes out. A 250 that comes earlier
 * answers something the hop never received: the connection is broken and
 * the message deferred.
 *
 * The text goes out a window at a time (RELAY_TEXT_WINDOW), as Postfix's
 * smtp copies the queue file's records to the socket through VSTREAM
 * buffers: the content of a large queue file is read on the connection's
 * cleanup threads while the connection waits, and the next piece is put in
 * the output only once the output has drained to its low-water mark; a
 * message kept in memory is stuffed the same way. A file found damaged
 * half-way (a record that does not read, a file cut short) drops the
 * connection before the dot, so the hop discards what it got, and the
 * message goes to corrupt/; a read that fails defers it.
 *
 * With --hop-tls the connection says STARTTLS after EHLO when the hop
 * offers it (may) or defers the mail when it does not (encrypt). Whatever
 * the hop sent behind its 220 is discarded (CVE-2011-0411), and EHLO is
 * said again inside TLS.
 */
#include "config.h"

#include <errno.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#if defined(__linux__)
#include <linux/sockios.h>
#endif
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <stddef.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bev_out.h"
#include "clock.h"
#include "endpoint.h"
#include "msg.h"
#include "relay_loop.h"
#include "relay_private.h"
#include "relay_qmgr.h"
#include "smtp_input.h"
#include "smtp_line.h"
#include "smtp_reply.h"
#include "smtp_stuff.h"
#include "tls_bev.h"
#include "xalloc.h"

#define CACHE_TIME 2 /* seconds an idle connection is kept (smtp_connection_cache_time_limit) */
#define MAX_REPLY_LINES 100 /* a reply that goes on longer is an attack, not an answer */

enum conn_state {
    CONN_CONNECTING,
    CONN_BANNER,
    CONN_EHLO,
    CONN_STARTTLS,
    CONN_HANDSHAKE,
    CONN_IDLE, /* states before this one are a connection starting up */
    CONN_MAIL,
    CONN_RCPT,
    CONN_DATA,
    CONN_TEXT, /* no reply owed: the text is on its way */
    CONN_DOT,
    CONN_RSET,
    CONN_QUIT,
};

static const char *const state_names[] = {
    "connect",     "greeting",  "EHLO",    "STARTTLS", "TLS handshake",
    "idle",        "MAIL FROM", "RCPT TO", "DATA",     "sending message body",
    "end of data", "RSET",      "QUIT"};

struct text_stream;

struct relay_conn {
    struct relay *relay;
    struct relay_loop *loop; /* the one it runs on; its message is handed back to loop 0 */
    struct relay_conn *prev, *next;
    struct bufferevent *bev;
    enum conn_state state; /* whose reply comes next */
    unsigned pending;      /* replies still owed to commands sent */
    int pipelining;        /* the hop offered PIPELINING */
    int tls;               /* the connection runs inside TLS */
    unsigned extensions;   /* what the last EHLO reply offered */
    int closed;            /* freed at the next turn of the loop */
    int counted_idle;      /* in its loop's idle_conns */
    struct smtp_line_reader lines;
    struct smtp_reply reply;
    struct relay_msg *msg;
    unsigned rcpt;     /* index of the recipient whose RCPT reply comes next */
    unsigned accepted; /* recipients the hop took this transaction */
    struct event *idle_timer;
    struct event *rd; /* a plain connection's own read event: see on_socket_read */
    /*
     * The hop timeout and the cache time as libevent common timeouts: a
     * bufferevent adds its read timeout again after every read, and the
     * idle timer goes on and off with every message; on a common timeout
     * that is a list append, not a heap operation.
     */
    struct timeval io_timeout, cache_time;
    /* the text under way: its stuffing state, and where it is taken from */
    struct smtp_stuffer stuffer;
    uint64_t text_off;          /* a message in memory: the file offset of its next record */
    struct text_stream *stream; /* a file read a window at a time; NULL for one in memory */
};

/*
 * A large message's content on its way from the queue file: the reading
 * runs on the connection's loop's cleanup threads, one window per job. It
 * outlives a connection that ends while a job is under way (`conn' is
 * then NULL, and the job's done() frees it).
 */
struct text_stream {
    struct io_job job;
    struct relay_conn *conn;
    struct relay *relay;
    const struct pf_spool *spool;
    char id[PF_QUEUE_ID_MAX];
    uint64_t start, end; /* the content's file offsets */
    int opened, busy;
    int status, err; /* the last job's: 0, -1 with err (errno), -2 damage (rd.damage) */
    struct pf_spool_reader rd;
    struct pf_spool_stats st; /* what the reading cost, for the relay's counts */
};

static void conn_close(struct relay_conn *c);
static void deliver_here(struct relay_loop *loop);

static void conn_send(struct relay_conn *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Queue one command; its reply is owed. bev_out_flush() sends what is queued. */
static void conn_send(struct relay_conn *c, const char *fmt, ...)
{
    struct evbuffer *out = bufferevent_get_output(c->bev);
    va_list ap;

    va_start(ap, fmt);
    evbuffer_add_vprintf(out, fmt, ap);
    va_end(ap);
    evbuffer_add(out, "\r\n", 2);
    c->pending++;
}

static void conn_flush(struct relay_conn *c)
{
    if (c->tls)
        return;            /* OpenSSL's bufferevent writes by itself */
    bev_out_flush(c->bev); /* a socket error shows as EOF or an error on the read side */
}

/*
 * Bytes written straight into space reserved at the end of an output
 * buffer: a command or the stuffed text is put together in place, with
 * no printf, staging copy or allocation of its own.
 */
struct out_room {
    struct evbuffer *out;
    struct evbuffer_iovec v; /* v.iov_len: the size reserved */
    size_t used;
};

static void room_commit(struct out_room *r)
{
    if (r->v.iov_base == NULL)
        return;
    r->v.iov_len = r->used;
    evbuffer_commit_space(r->out, &r->v, 1);
    r->v.iov_base = NULL;
    r->used = 0;
}

/* At least `need' contiguous bytes free at r->v.iov_base + r->used; `want' if a new piece is taken.
 */
static char *room_get(struct out_room *r, size_t need, size_t want)
{
    if (r->v.iov_base != NULL && r->used + need <= r->v.iov_len)
        return (char *)r->v.iov_base + r->used;
    room_commit(r);
    if (evbuffer_reserve_space(r->out, (ev_ssize_t)(want > need ? want : need), &r->v, 1) != 1)
        msg_fatal("out of memory for the next hop's output");
    return r->v.iov_base;
}

static void room_put(struct out_room *r, const char *data, size_t len)
{
    memcpy(room_get(r, len, len), data, len);
    r->used += len;
}

/* "<verb><address>\r\n": MAIL FROM and RCPT TO, whose reply is owed. */
static void put_path(struct relay_conn *c, struct out_room *r, const char *verb, const char *addr,
                     size_t addr_len)
{
    size_t verb_len = strlen(verb);

    room_get(r, verb_len + addr_len + 3, 0);
    room_put(r, verb, verb_len);
    room_put(r, addr, addr_len);
    room_put(r, ">\r\n", 3);
    c->pending++;
}

static void expect(struct relay_conn *c, enum conn_state state)
{
    c->state = state;
    smtp_reply_init(&c->reply);
}

static void set_reason(struct relay_msg *m, const struct relay_conn *c, const char *what)
{
    snprintf(m->reason, sizeof(m->reason), "host %s said: %s (in reply to %s)", c->relay->hop_desc,
             what, state_names[c->state]);
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
                relay_qmgr_msg_note(m, i);
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
                 r->hop_desc, state_names[c->state], why);
        c->msg->hop_reply[0] = 0;
        settle(c->msg, RCPT_UNTRIED, RCPT_DEFERRED);
        settle(c->msg, RCPT_SENT, RCPT_DEFERRED);
        message_done(c);
    } else if (c->state < CONN_IDLE) {
        /* Not even a greeting: Postfix calls the destination dead and defers its mail. */
        struct relay_msg *m;

        if (!atomic_exchange(&r->hop_unreachable, 1))
            msg_warn("next hop %s: %s while %s; deferring mail until it answers", r->hop_desc, why,
                     state_names[c->state]);
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
    conn_send(c, "QUIT");
    expect(c, CONN_QUIT);
    conn_flush(c);
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
    struct out_room r = {.out = bufferevent_get_output(c->bev)};
    size_t size = sizeof("MAIL FROM:<>\r\n") + m->view.sender_len;

    c->msg = m;
    c->loop->deliveries++;
    if (c->counted_idle) {
        c->counted_idle = 0;
        c->loop->idle_conns--;
    }
    c->accepted = 0;
    c->rcpt = next_rcpt(m, 0);
    event_del(c->idle_timer);
    if (c->pipelining) {
        for (unsigned i = c->rcpt; i < m->view.rcpt_count; i = next_rcpt(m, i + 1))
            size += sizeof("RCPT TO:<>\r\n") + m->view.rcpts[i].addr_len;
        size += sizeof("DATA\r\n");
    }
    /* The whole group in one piece of the output, so that one write sends it. */
    room_get(&r, size, size);
    put_path(c, &r, "MAIL FROM:<", m->view.sender, m->view.sender_len);
    if (c->pipelining) {
        for (unsigned i = c->rcpt; i < m->view.rcpt_count; i = next_rcpt(m, i + 1))
            put_path(c, &r, "RCPT TO:<", m->view.rcpts[i].addr, m->view.rcpts[i].addr_len);
        room_put(&r, "DATA\r\n", 6);
        c->pending++;
    }
    room_commit(&r);
    expect(c, CONN_MAIL);
    conn_flush(c);
}

static void go_idle(struct relay_conn *c)
{
    struct relay *r = c->relay;
    struct relay_msg *m;

    expect(c, CONN_IDLE);
    /*
     * Counted idle before the list is looked at: a message readied meanwhile
     * is either seen here or, by relay_smtp_deliver(), this count.
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
 * Bytes written to the socket that the hop's TCP has not acknowledged, or 0
 * where the system cannot tell (then only our own buffer is checked).
 */
static size_t unacknowledged(const struct relay_conn *c)
{
    int queued = 0;
    evutil_socket_t fd = bufferevent_getfd(c->bev);

    if (fd < 0)
        return 0;
#if defined(SIOCOUTQ)
    if (ioctl(fd, SIOCOUTQ, &queued) != 0)
        return 0;
#elif defined(FIONWRITE)
    if (ioctl(fd, FIONWRITE, &queued) != 0)
        return 0;
#endif
    return queued > 0 ? (size_t)queued : 0;
}

/* The hop has all of the text, dot included: only now can it answer the dot. */
static int hop_has_dot(const struct relay_conn *c)
{
    return evbuffer_get_length(bufferevent_get_output(c->bev)) == 0 && unacknowledged(c) == 0;
}

/* The hop has said something no command has asked for yet. */
static int hop_spoke_early(const struct relay_conn *c)
{
    char byte;

    if (evbuffer_get_length(bufferevent_get_input(c->bev)) > 0)
        return 1;
    if (c->tls)
        return 0; /* OpenSSL's bufferevent reads ahead into the input by itself */
    return recv(bufferevent_getfd(c->bev), &byte, 1, MSG_PEEK | MSG_DONTWAIT) > 0;
}

#define STUFF_PIECE 4096
#define TEXT_ROOM 65536 /* the most reserved at once for the stuffed text */

/* Stuff `len' bytes into the output a piece at a time, whatever a record's size. */
static void stuff_out(struct out_room *r, struct smtp_stuffer *st, const char *data, size_t len,
                      size_t want)
{
    while (len > 0) {
        size_t piece = len < STUFF_PIECE ? len : STUFF_PIECE;

        r->used += smtp_stuff(st, data, piece, room_get(r, SMTP_STUFF_BOUND(piece), want));
        data += piece;
        len -= piece;
    }
}

/* The dot after the last of the text: its reply is the one that counts. */
static void text_end(struct relay_conn *c, struct out_room *r)
{
    r->used +=
        smtp_stuff_finish(&c->stuffer, room_get(r, SMTP_STUFF_FINISH_MAX, SMTP_STUFF_FINISH_MAX));
    room_commit(r);
    bufferevent_setwatermark(c->bev, EV_WRITE, 0, 0);
    c->pending++;
    expect(c, CONN_DOT);
}

/* The output has room for more text: over its low-water mark, it waits for on_write. */
static int output_low(const struct relay_conn *c)
{
    return evbuffer_get_length(bufferevent_get_output(c->bev)) <= RELAY_TEXT_WINDOW;
}

/*
 * A message in memory, up to a window's worth of records into the output
 * each time, until the dot. A small one (the file within a window) goes
 * whole, with its dot, in one write, as before.
 */
static void text_from_memory(struct relay_conn *c)
{
    struct relay_msg *m = c->msg;

    while (c->state == CONN_TEXT && output_low(c)) {
        struct out_room r = {.out = bufferevent_get_output(c->bev)};
        size_t start = c->text_off, len, end = m->view.content_end;
        /* Stuffing at most doubles the records (their headers included). */
        size_t want = end >= start ? 2 * (end - start) + SMTP_STUFF_FINISH_MAX : TEXT_ROOM;
        const char *data;
        int line_end;

        if (want > TEXT_ROOM)
            want = TEXT_ROOM;
        while (c->text_off - start < RELAY_TEXT_WINDOW &&
               pf_qfile_content_next(m->file, &m->view, &c->text_off, &data, &len, &line_end)) {
            stuff_out(&r, &c->stuffer, data, len, want);
            if (line_end)
                stuff_out(&r, &c->stuffer, "\r\n", 2, want);
        }
        if (c->text_off - start < RELAY_TEXT_WINDOW)
            text_end(c, &r); /* no record left: pf_qfile_read() has seen them all */
        room_commit(&r);
        conn_flush(c);
    }
}

static void stream_free(struct relay *r, struct text_stream *ts)
{
    pf_spool_file_reader_close(&ts->rd);
    pthread_mutex_lock(&r->stats_lock);
    pf_spool_stats_add(&r->stats.spool, &ts->st);
    pthread_mutex_unlock(&r->stats_lock);
    free(ts);
}

/* Pool thread: open the file the first time, then read the next window. */
static void stream_work(struct io_job *job)
{
    struct text_stream *ts = (struct text_stream *)job;

    if (!ts->opened) {
        ts->opened = 1;
        ts->status = pf_spool_file_reader_open(ts->spool, ts->id, ts->start, ts->end,
                                               RELAY_TEXT_WINDOW, &ts->rd, &ts->st);
        ts->err = errno;
        if (ts->status != 0)
            return;
    }
    ts->status = pf_spool_file_reader_fill(&ts->rd);
    ts->err = errno;
}

/*
 * The text cannot go on: the connection is dropped before the dot, so
 * the hop discards what it has. A damaged file goes to corrupt/, a file
 * that could not be read waits for its retry.
 */
static void text_abort(struct relay_conn *c, int damaged, const char *why)
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

static void stream_submit(struct relay_conn *c)
{
    c->stream->busy = 1;
    io_pool_submit(c->loop->cleanup, &c->stream->job);
}

/* Loop: a window has been read; its whole records go into the output. */
static void stream_done(struct io_job *job)
{
    struct text_stream *ts = (struct text_stream *)job;
    struct relay_conn *c = ts->conn;
    struct pf_spool_reader *rd = &ts->rd;
    struct out_room r;
    enum pf_qfile_piece piece = PF_PIECE_MORE;
    char why[300];

    ts->busy = 0;
    if (c == NULL) {
        stream_free(ts->relay, ts); /* the connection has ended meanwhile */
        return;
    }
    if (ts->status == -1) {
        snprintf(why, sizeof(why), "cannot read the queue file: %s", strerror(ts->err));
        text_abort(c, 0, why);
        return;
    }
    if (ts->status == -2) {
        snprintf(why, sizeof(why), "queue file content at offset %llu: %s",
                 (unsigned long long)(rd->at + rd->pos), rd->damage);
        text_abort(c, 1, why);
        return;
    }
    r = (struct out_room){.out = bufferevent_get_output(c->bev)};
    for (;;) {
        const char *data;
        size_t len, used;
        int line_end;

        piece = pf_qfile_content_piece(rd->buf + rd->pos, rd->len - rd->pos, rd->at + rd->pos,
                                       rd->end, &data, &len, &line_end, &used);
        if (piece != PF_PIECE_RECORD)
            break;
        stuff_out(&r, &c->stuffer, data, len, TEXT_ROOM);
        if (line_end)
            stuff_out(&r, &c->stuffer, "\r\n", 2, TEXT_ROOM);
        rd->pos += used;
    }
    if (piece == PF_PIECE_BAD) {
        room_commit(&r);
        snprintf(why, sizeof(why), "queue file content at offset %llu: not a content record",
                 (unsigned long long)(rd->at + rd->pos));
        text_abort(c, 1, why);
        return;
    }
    if (piece == PF_PIECE_END) {
        text_end(c, &r);
        c->stream = NULL;
        stream_free(c->relay, ts);
    }
    room_commit(&r);
    conn_flush(c);
    if (c->state == CONN_TEXT && output_low(c))
        stream_submit(c);
}

/* The output has drained to its low-water mark: the next piece of text. */
static void text_resume(struct relay_conn *c)
{
    if (c->state != CONN_TEXT || c->closed || !output_low(c))
        return;
    if (c->stream == NULL)
        text_from_memory(c);
    else if (!c->stream->busy)
        stream_submit(c);
}

/* After the hop's 354: the text, then the dot. */
static void send_text(struct relay_conn *c)
{
    struct relay_msg *m = c->msg;
    struct text_stream *ts;

    if (hop_spoke_early(c)) {
        /* A reply to a dot not yet sent (a hop that answers ahead, or a liar). */
        conn_fail(c, "reply before the message text was sent");
        return;
    }
    smtp_stuff_init(&c->stuffer);
    c->text_off = m->view.content_start;
    expect(c, CONN_TEXT);
    /* on_write is called once the output is down to a window, not only when it is empty */
    bufferevent_setwatermark(c->bev, EV_WRITE, RELAY_TEXT_WINDOW, 0);
    if (!m->view.content_unread) {
        text_from_memory(c);
        return;
    }
    ts = xcalloc(1, sizeof(*ts));
    ts->job.work = stream_work;
    ts->job.done = stream_done;
    ts->conn = c;
    ts->relay = c->relay;
    ts->spool = &c->relay->spool;
    snprintf(ts->id, sizeof(ts->id), "%s", m->id);
    ts->start = m->view.content_start;
    ts->end = m->view.content_end;
    ts->rd.fd = -1;
    c->stream = ts;
    stream_submit(c);
}

/* After MAIL or a RCPT reply: the next RCPT's reply, or DATA's. */
static void after_envelope_reply(struct relay_conn *c)
{
    struct relay_msg *m = c->msg;

    if (c->rcpt < m->view.rcpt_count) {
        if (!c->pipelining) {
            const struct pf_qfile_rcpt *rc = &m->view.rcpts[c->rcpt];
            struct out_room r = {.out = bufferevent_get_output(c->bev)};

            put_path(c, &r, "RCPT TO:<", rc->addr, rc->addr_len);
            room_commit(&r);
            conn_flush(c);
        }
        expect(c, CONN_RCPT);
        return;
    }
    if (!c->pipelining) {
        if (c->accepted == 0) {
            /* No recipient taken: end the transaction, keep the connection. */
            message_done(c);
            conn_send(c, "RSET");
            expect(c, CONN_RSET);
            conn_flush(c);
            return;
        }
        conn_send(c, "DATA");
        conn_flush(c);
    }
    expect(c, CONN_DATA);
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

static void on_read(struct bufferevent *bev, void *arg);
static void on_write(struct bufferevent *bev, void *arg);
static void on_event(struct bufferevent *bev, short what, void *arg);
static void on_socket_read(evutil_socket_t fd, short what, void *arg);

static void set_timeouts(struct relay_conn *c)
{
    bufferevent_set_timeouts(c->bev, &c->io_timeout, &c->io_timeout);
}

/* `tv' as a common timeout of `base' (a copy works alike), or itself where libevent has no room. */
static struct timeval common_timeout(struct event_base *base, struct timeval tv)
{
    const struct timeval *common;

    if (!evutil_timerisset(&tv))
        return tv; /* no timeout at all, which a common one cannot say */
    common = event_base_init_common_timeout(base, &tv);
    return common ? *common : tv;
}

/* After the hop's 220 to STARTTLS; the handshake's end shows in on_event. */
static void start_tls(struct relay_conn *c)
{
    /*
     * OpenSSL's bufferevent reads the socket from now on; what came behind
     * the 220 goes with the plain one. (Freed with the connection: this
     * runs inside the read event's own callback.)
     */
    event_del(c->rd);
    c->bev = tls_bev_upgrade(c->bev, c->relay->hop_tls_ctx, TLS_BEV_CLIENT);
    if (c->bev == NULL) {
        conn_fail(c, "cannot start TLS");
        return;
    }
    c->tls = 1;
    c->relay->stats.hop_tls++;
    bufferevent_setcb(c->bev, on_read, on_write, on_event, c);
    set_timeouts(c);
    bufferevent_enable(c->bev, EV_READ | EV_WRITE);
    smtp_line_init(&c->lines, SMTP_REPLY_LINE_LIMIT);
    expect(c, CONN_HANDSHAKE);
}

/* One complete reply in c->reply, to the command of c->state. */
static void handle_reply(struct relay_conn *c)
{
    struct relay *r = c->relay;
    int class = SMTP_REPLY_CLASS(c->reply.code);
    enum relay_rcpt_result failure = class == 5 ? RCPT_BOUNCED : RCPT_DEFERRED;
    struct relay_msg *m = c->msg;

    switch (c->state) {
    case CONN_BANNER:
        if (class != 2) {
            conn_fail(c, c->reply.text);
            return;
        }
        if (smtp_reply_names(&c->reply, r->opts->hostname)) /* only EHLO's decides, as Postfix */
            msg_warn("next hop %s greeted me with my own hostname %s", r->hop_desc,
                     r->opts->hostname);
        conn_send(c, "EHLO %s", r->opts->hostname);
        expect(c, CONN_EHLO);
        conn_flush(c);
        return;
    case CONN_EHLO:
        if (class != 2) {
            conn_fail(c, c->reply.text);
            return;
        }
        if (smtp_reply_names(&c->reply, r->opts->hostname)) {
            loop_back(c);
            return;
        }
        c->extensions = c->reply.extensions;
        if (!c->tls && r->opts->hop_tls != RELAY_HOP_TLS_NONE) {
            if (c->extensions & SMTP_EXT_STARTTLS) {
                conn_send(c, "STARTTLS");
                expect(c, CONN_STARTTLS);
                conn_flush(c);
                return;
            }
            if (r->opts->hop_tls == RELAY_HOP_TLS_ENCRYPT) {
                conn_fail(c, "TLS is required, but was not offered");
                return;
            }
        }
        session_ready(c);
        return;
    case CONN_STARTTLS:
        if (c->reply.code == 220)
            start_tls(c);
        else if (r->opts->hop_tls == RELAY_HOP_TLS_ENCRYPT)
            conn_fail(c, c->reply.text);
        else
            session_ready(c); /* may: on in plain text */
        return;
    case CONN_MAIL:
        if (class != 2) {
            set_reason(m, c, c->reply.text);
            settle(m, RCPT_UNTRIED, failure);
            if (!c->pipelining)
                c->rcpt = m->view.rcpt_count; /* no RCPT follows */
        }
        after_envelope_reply(c);
        return;
    case CONN_RCPT:
        if (m->results[c->rcpt] != RCPT_UNTRIED) {
            /* MAIL failed: this reply to a pipelined RCPT changes nothing */
        } else if (class == 2) {
            m->results[c->rcpt] = RCPT_SENT; /* final only after the dot */
            c->accepted++;
        } else {
            set_reason(m, c, c->reply.text);
            m->results[c->rcpt] = failure;
            relay_qmgr_msg_note(m, c->rcpt);
        }
        c->rcpt = next_rcpt(m, c->rcpt + 1);
        after_envelope_reply(c);
        return;
    case CONN_DATA:
        if (c->reply.code == 354 && c->accepted > 0) {
            send_text(c);
            return;
        }
        if (c->reply.code == 354) {
            /* A go-ahead with no recipient: the text cannot be taken back. */
            conn_fail(c, "354 without an accepted recipient");
            return;
        }
        if (c->accepted > 0) {
            set_reason(m, c, c->reply.text);
            settle(m, RCPT_SENT, failure);
        }
        message_done(c);
        conn_send(c, "RSET");
        expect(c, CONN_RSET);
        conn_flush(c);
        return;
    case CONN_DOT:
        if (class != 2) {
            set_reason(m, c, c->reply.text);
            settle(m, RCPT_SENT, failure);
        }
        message_done(c);
        go_idle(c);
        return;
    case CONN_RSET:
        if (class != 2) {
            conn_fail(c, c->reply.text);
            return;
        }
        go_idle(c);
        return;
    case CONN_QUIT:
        conn_close(c);
        return;
    default:
        conn_fail(c, "reply without a command");
        return;
    }
}

static void on_read(struct bufferevent *bev, void *arg)
{
    struct relay_conn *c = arg;
    struct evbuffer *in;

    (void)bev; /* after a 220 to STARTTLS, c->bev is another one */
    while (!c->closed && evbuffer_get_length(in = bufferevent_get_input(c->bev)) > 0) {
        char line[SMTP_REPLY_LINE_LIMIT];
        size_t len;
        enum smtp_line_status status;
        enum smtp_reply_status rs;

        if (c->pending == 0) {
            /* Nothing was asked: text before a command is an attack or a broken hop. */
            conn_fail(c, "text before a command");
            return;
        }
        if (c->state == CONN_DOT && !hop_has_dot(c)) {
            conn_fail(c, "reply to the end of data before the hop received it");
            return;
        }
        status = smtp_input_line(&c->lines, in, line, sizeof(line), &len);
        if (status == SMTP_LINE_TOO_LONG) {
            conn_fail(c, "reply line too long");
            return;
        }
        if (status == SMTP_LINE_NEED_MORE)
            return;
        rs = smtp_reply_line(&c->reply, line, len);
        if (rs == SMTP_REPLY_MALFORMED ||
            (rs == SMTP_REPLY_MORE && c->reply.lines >= MAX_REPLY_LINES)) {
            conn_fail(c, "malformed reply");
            return;
        }
        if (rs == SMTP_REPLY_DONE) {
            c->pending--;
            handle_reply(c);
        }
    }
}

/* The connection is gone or stuck: the end of a QUIT, otherwise a failure. */
static void conn_lost(struct relay_conn *c, const char *why)
{
    if (c->state == CONN_QUIT)
        conn_close(c);
    else
        conn_fail(c, why);
}

#define READ_ROOM 4096 /* replies are short: a pipelined group's fit many times over */

/*
 * A plain connection reads its socket itself, into the bufferevent's
 * input: the bufferevent would ask the kernel (FIONREAD) how much is
 * waiting before every read, one more system call per reply for nothing.
 * EOF and errors show here, as a write error does on the next read.
 */
static void on_socket_read(evutil_socket_t fd, short what, void *arg)
{
    struct relay_conn *c = arg;
    struct evbuffer *in = bufferevent_get_input(c->bev);
    struct evbuffer_iovec v;
    ssize_t n;

    if (what & EV_TIMEOUT) {
        conn_lost(c, "timeout");
        return;
    }
    if (evbuffer_reserve_space(in, READ_ROOM, &v, 1) != 1)
        msg_fatal("out of memory for the next hop's replies");
    n = recv(fd, v.iov_base, v.iov_len, 0);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
        return;
    if (n <= 0) {
        conn_lost(c, n == 0 ? "connection closed" : strerror(errno));
        return;
    }
    v.iov_len = (size_t)n;
    evbuffer_commit_space(in, &v, 1);
    on_read(c->bev, c);
}

static void on_event(struct bufferevent *bev, short what, void *arg)
{
    struct relay_conn *c = arg;

    (void)bev;
    if ((what & BEV_EVENT_CONNECTED) && c->state == CONN_HANDSHAKE) {
        conn_send(c, "EHLO %s", c->relay->opts->hostname); /* TLS forgets the first */
        expect(c, CONN_EHLO);
        return;
    }
    if (what & BEV_EVENT_CONNECTED) {
        c->pending = 1; /* the greeting */
        expect(c, CONN_BANNER);
        c->rd = event_new(c->loop->base, bufferevent_getfd(c->bev), EV_READ | EV_PERSIST,
                          on_socket_read, c);
        if (c->rd == NULL || event_add(c->rd, &c->io_timeout) != 0)
            conn_fail(c, "cannot watch the connection");
        return;
    }
    conn_lost(c, (what & BEV_EVENT_TIMEOUT) ? "timeout"
                 : (what & BEV_EVENT_EOF)   ? "connection closed"
                                            : strerror(EVUTIL_SOCKET_ERROR()));
}

static void on_write(struct bufferevent *bev, void *arg)
{
    struct relay_conn *c = arg;

    if (!c->tls)
        bev_out_written(bev);
    text_resume(c);
}

static void on_idle_timer(evutil_socket_t fd, short what, void *arg)
{
    struct relay_conn *c = arg;

    (void)fd;
    (void)what;
    conn_send(c, "QUIT");
    expect(c, CONN_QUIT);
    conn_flush(c);
}

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
    if (c->rd)
        event_free(c->rd);
    if (c->bev)
        bufferevent_free(c->bev);
    event_free(c->idle_timer);
    free(c);
}

static void on_free_later(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    destroy(arg);
}

/*
 * Out of the list and the counts at once; the memory goes at the next turn
 * of the loop, as callbacks up the stack may still hold `c'.
 */
static void conn_close(struct relay_conn *c)
{
    struct relay_loop *loop = c->loop;

    if (c->closed)
        return;
    c->closed = 1;
    if (c->state < CONN_IDLE)
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
    event_del(c->idle_timer);
    if (c->rd)
        event_del(c->rd);
    if (c->stream) {
        if (c->stream->busy)
            c->stream->conn = NULL; /* its job's done() frees it */
        else
            stream_free(c->relay, c->stream);
        c->stream = NULL;
    }
    if (c->bev) {
        bufferevent_disable(c->bev, EV_READ | EV_WRITE);
        bufferevent_setcb(c->bev, NULL, NULL, NULL, NULL);
    }
    event_base_once(loop->base, -1, EV_TIMEOUT, on_free_later, c, NULL);
    /* Messages may be waiting for a free connection. */
    deliver_here(loop);
}

static void conn_open(struct relay_loop *loop)
{
    struct relay *r = loop->relay;
    struct relay_conn *c = xcalloc(1, sizeof(*c));
    struct timeval io_timeout = clock_timeval(r->opts->hop_timeout), cache_time = {CACHE_TIME, 0};

    c->relay = r;
    c->loop = loop;
    expect(c, CONN_CONNECTING);
    smtp_line_init(&c->lines, SMTP_REPLY_LINE_LIMIT);
    c->bev = bufferevent_socket_new(loop->base, -1, BEV_OPT_CLOSE_ON_FREE);
    c->idle_timer = evtimer_new(loop->base, on_idle_timer, c);
    c->io_timeout = common_timeout(loop->base, io_timeout);
    c->cache_time = common_timeout(loop->base, cache_time);
    bufferevent_setcb(c->bev, on_read, on_write, on_event, c);
    set_timeouts(c); /* the write timeout covers the connect */
    c->next = loop->conns;
    if (loop->conns)
        loop->conns->prev = c;
    loop->conns = c;
    loop->conn_count++;
    loop->conn_starting++;
    r->stats.hop_connects++;
    if (bufferevent_socket_connect(c->bev, (struct sockaddr *)&r->hop_addr, (int)r->hop_addr_len) !=
        0)
        conn_fail(c, strerror(errno));
}

/* On `loop': its idle connections take ready messages, and new ones open while more wait. */
static void deliver_here(struct relay_loop *loop)
{
    struct relay *r = loop->relay;

    if (r->stopping)
        return;
    for (struct relay_conn *c = loop->conns; c && relay_qmgr_ready_count(r) > 0; c = c->next)
        if (c->state == CONN_IDLE && c->msg == NULL) {
            struct relay_msg *m = relay_qmgr_next_ready(r);

            if (m == NULL)
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
void relay_smtp_deliver(struct relay *r)
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
