/*
 * smtp_server - the connection half of an SMTP server session; see smtp_server.h.
 */
#include "config.h"

#include <arpa/inet.h>
#include <event2/buffer.h>
#include <stdio.h>

#include "bev_out.h"
#include "clock.h"
#include "msg.h"
#include "smtp_input.h"
#include "smtp_server.h"
#include "tls_bev.h"

static void on_read(struct bufferevent *bev, void *arg);
static void on_write(struct bufferevent *bev, void *arg);
static void on_event(struct bufferevent *bev, short what, void *arg);

void smtp_server_describe_peer(const struct sockaddr *addr, char *buf, size_t len)
{
    if (addr->sa_family == AF_INET)
        inet_ntop(AF_INET, &((const struct sockaddr_in *)addr)->sin_addr, buf, (socklen_t)len);
    else if (addr->sa_family == AF_INET6)
        inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)addr)->sin6_addr, buf, (socklen_t)len);
    else
        snprintf(buf, len, "local");
}

static size_t line_limit(const struct smtp_server_conn *c)
{
    return c->cfg.line_limit ? c->cfg.line_limit : SMTP_COMMAND_LINE_LIMIT;
}

/*
 * The input's high-water mark. Reading is on while the policy wants it
 * (smtp_server_read()), the session is not closing and the input holds less
 * than the mark; once it has reached the mark, reading stays off until the
 * session has taken it back under half. A read takes at most 4 KiB (the
 * core's own reader, libevent's socket reads), so the input stays within
 * the mark plus one read. A TLS bufferevent reads until the socket is dry:
 * it also keeps a libevent watermark at the mark all the time, to stop
 * within a burst. Reading is switched off rather than left to libevent's
 * watermark: libevent (2.1) calls the read callback again and again, from
 * its loop, while a watermark is reached and reading is on, and a session
 * that cannot take its input (the policy waits, or the output is full)
 * would spin on it. Its other cost: a watermark re-adds the read event
 * (and its timeout) on every change to the input buffer.
 */
static void update_reading(struct smtp_server_conn *c)
{
    int on = c->reading && !c->input_capped && !c->closing;

    if (c->in.ev) {
        if (on)
            bev_in_enable(&c->in);
        else
            bev_in_disable(&c->in);
    } else if (c->bev) {
        if (on)
            bufferevent_enable(c->bev, EV_READ);
        else
            bufferevent_disable(c->bev, EV_READ);
    }
}

static void cap_input(struct smtp_server_conn *c)
{
    size_t held;
    int capped;

    if (c->bev == NULL)
        return;
    held = evbuffer_get_length(bufferevent_get_input(c->bev));
    capped = held >= SMTP_SERVER_INPUT_HIGH_WATER ||
             (c->input_capped && held >= SMTP_SERVER_INPUT_HIGH_WATER / 2);
    if (capped != c->input_capped) {
        c->input_capped = capped;
        update_reading(c);
    }
}

/* Callbacks, timeouts and the high-water mark, on a new bufferevent or the TLS one. */
static void setup_bev(struct smtp_server_conn *c, int write_timeout)
{
    struct timeval tv = clock_timeval(c->cfg.timeout);

    bufferevent_setcb(c->bev, on_read, on_write, on_event, c);
    if (c->tls)
        bufferevent_setwatermark(c->bev, EV_READ, 0, SMTP_SERVER_INPUT_HIGH_WATER);
    c->input_capped = 0;
    c->write_timed = write_timeout;
    bufferevent_set_timeouts(c->bev, c->in.ev ? NULL : &tv, write_timeout ? &tv : NULL);
    if (c->in.ev)
        bev_in_set_timeout(&c->in, &tv);
}

void smtp_server_attach(struct smtp_server_conn *c, const struct smtp_server_config *cfg,
                        const struct smtp_server_ops *ops, void *ctx, struct bufferevent *bev)
{
    c->cfg = *cfg;
    c->ops = ops;
    c->ctx = ctx;
    c->bev = bev;
    c->in.ev = NULL;
    c->reading = 0;
    smtp_line_init(&c->lines, line_limit(c));
    setup_bev(c, cfg->write_timeout);
}

int smtp_server_start(struct smtp_server_conn *c, const struct smtp_server_config *cfg,
                      const struct smtp_server_ops *ops, void *ctx, int fd,
                      const struct sockaddr *addr)
{
    struct bufferevent *bev;

    smtp_server_describe_peer(addr, c->peer, sizeof(c->peer));
    bev = bufferevent_socket_new(cfg->base, fd, BEV_OPT_CLOSE_ON_FREE);
    if (bev == NULL) {
        msg_warn("cannot set up a session for %s", c->peer);
        evutil_closesocket(fd);
        return -1;
    }
    /*
     * A new bufferevent has writing on: the greeting would wait for an
     * EPOLLOUT and cost two epoll_ctl calls, where bev_out writes it at once.
     */
    bufferevent_disable(bev, EV_WRITE);
    smtp_server_attach(c, cfg, ops, ctx, bev);
    return 0;
}

int smtp_server_direct_read(struct smtp_server_conn *c)
{
    if (c->tls || c->in.ev)
        return c->in.ev ? 0 : -1;
    if (bev_in_start(&c->in, c->bev, on_read, on_event, c) != 0)
        return -1;
    bev_in_lend(&c->in); /* on_read settles */
    bufferevent_disable(c->bev, EV_READ);
    setup_bev(c, c->cfg.write_timeout);
    return 0;
}

void smtp_server_read(struct smtp_server_conn *c, int on)
{
    c->reading = on;
    update_reading(c);
}

void smtp_server_begin_data(struct smtp_server_conn *c, enum smtp_bare_lf_policy bare_lf)
{
    smtp_data_init(&c->data, bare_lf);
    c->in_data = 1;
}

/*
 * The output brake. A client that pipelines commands and never reads its
 * replies would otherwise have them all buffered here: gigabytes for an
 * EHLO flood (docs/security.md item 11). Past the bound a plain session
 * tries the socket first (bev_out writes at once); what the socket will
 * not take stops the parsing, and the input then fills to its high-water
 * mark, where reading stops and TCP holds the client back, as Postfix's
 * smtpd blocks in write(). on_write() goes on once the client has read.
 * A paused session's client has the idle timeout to read, whatever the
 * server's configuration says of slow readers: with reading off, nothing
 * else would ever end the session.
 */
static int output_full(struct smtp_server_conn *c)
{
    struct evbuffer *out = bufferevent_get_output(c->bev);
    struct timeval tv;

    if (evbuffer_get_length(out) <= SMTP_SERVER_OUTPUT_HIGH_WATER)
        return 0;
    if (!c->tls && bev_out_flush(c->bev) == 0)
        return 0; /* the socket took it all; an error is the next flush's to find */
    c->output_paused = 1;
    if (!c->write_timed) {
        tv = clock_timeval(c->cfg.timeout);
        bufferevent_set_timeouts(c->bev, c->in.ev ? NULL : &tv, &tv);
        c->write_timed = 1;
    }
    return 1;
}

static void process_input(struct smtp_server_conn *c)
{
    const struct smtp_server_ops *ops = c->ops;
    struct evbuffer *in = bufferevent_get_input(c->bev);

    while (!c->closing && !c->free_scheduled && !c->tls_pending &&
           (ops->may_read == NULL || ops->may_read(c->ctx)) && !output_full(c)) {
        char line[SMTP_COMMAND_LINE_LIMIT];
        size_t len;

        if (c->in_data) {
            if (!smtp_input_data(&c->data, in, ops->on_data_chunk, c->ctx)) {
                if (ops->on_data_wait)
                    ops->on_data_wait(c->ctx);
                return;
            }
            c->in_data = 0;
            ops->on_data_end(c->ctx);
            continue;
        }
        switch (smtp_input_line(&c->lines, in, line, sizeof(line), &len)) {
        case SMTP_LINE_OK:
            ops->on_command(c->ctx, line, len);
            break;
        case SMTP_LINE_TOO_LONG:
            ops->on_too_long(c->ctx);
            break;
        case SMTP_LINE_NEED_MORE:
            return;
        }
    }
}

void smtp_server_process(struct smtp_server_conn *c)
{
    process_input(c);
    /* A policy that resumes a paused session calls this, not on_read: room to read again? */
    if (c->input_capped)
        cap_input(c);
}

static void on_free_later(evutil_socket_t fd, short what, void *arg)
{
    struct smtp_server_conn *c = arg;

    (void)fd;
    (void)what;
    c->ops->on_free(c->ctx);
}

void smtp_server_free_later(struct smtp_server_conn *c)
{
    if (c->free_scheduled)
        return;
    c->free_scheduled = 1;
    c->closing = 1;
    if (c->bev)
        bufferevent_disable(c->bev, EV_READ | EV_WRITE);
    bev_in_disable(&c->in);
    if (c->ops->on_stop)
        c->ops->on_stop(c->ctx);
    /* Not event_base_once: a session released at exit must take its pending free with it. */
    c->free_ev = event_new(c->cfg.base, -1, 0, on_free_later, c);
    if (c->free_ev == NULL)
        msg_fatal("cannot schedule a session's end");
    event_active(c->free_ev, EV_TIMEOUT, 0);
}

void smtp_server_release(struct smtp_server_conn *c)
{
    bev_in_stop(&c->in);
    if (c->bev)
        bufferevent_free(c->bev);
    c->bev = NULL;
    if (c->free_ev)
        event_free(c->free_ev); /* from its own callback too: libevent allows it */
    c->free_ev = NULL;
}

/*
 * STARTTLS: once our 220 has left, the plain bufferevent hands its socket
 * to an OpenSSL one. Until then the session reads nothing, and whatever
 * the client sent behind STARTTLS is thrown away: plaintext must never run
 * inside TLS (CVE-2011-0411).
 */
void smtp_server_begin_tls(struct smtp_server_conn *c)
{
    tls_bev_hold(c->bev);
    bev_in_stop(&c->in); /* the TLS bufferevent reads for itself */
    c->reading = 0;
    c->tls_pending = 1;
}

static void start_tls(struct smtp_server_conn *c)
{
    struct bufferevent *tls = tls_bev_upgrade(c->bev, c->cfg.tls_ctx, TLS_BEV_SERVER);

    c->tls_pending = 0;
    c->bev = tls;
    if (tls == NULL) {
        msg_warn("%s: cannot start TLS", c->peer);
        smtp_server_free_later(c);
        return;
    }
    c->tls = 1;
    smtp_line_init(&c->lines, line_limit(c));
    c->ops->on_tls_started(c->ctx);
    setup_bev(c, 1);
    bufferevent_enable(tls, EV_WRITE);
    smtp_server_read(c, 1);
}

/*
 * A plain session writes its replies itself, at once, and keeps EV_WRITE
 * off unless the socket is full (bev_out.h). A TLS session's output goes
 * through OpenSSL, which its bufferevent drives by itself.
 */
void smtp_server_flush(struct smtp_server_conn *c)
{
    int status;

    if (c->bev == NULL || c->free_scheduled)
        return;
    if (c->tls)
        status = evbuffer_get_length(bufferevent_get_output(c->bev)) > 0;
    else
        status = bev_out_flush(c->bev);
    if (status < 0 || (status == 0 && c->closing))
        smtp_server_free_later(c);
    else if (status == 0 && c->tls_pending)
        start_tls(c);
}

void smtp_server_close_after_flush(struct smtp_server_conn *c)
{
    c->closing = 1;
    bufferevent_disable(c->bev, EV_READ);
    bev_in_disable(&c->in);
}

static void on_read(struct bufferevent *bev, void *arg)
{
    struct smtp_server_conn *c = arg;

    (void)bev;
    process_input(c);
    /* Before the flush: it may start TLS, which frees the plain bufferevent. */
    bev_in_settle(&c->in);
    cap_input(c);
    smtp_server_flush(arg);
}

/*
 * The output has drained (libevent calls this at its write low-water mark,
 * 0): a session paused by the output brake takes the commands that waited
 * in its input, which no read event would bring back, and reads again.
 */
static void on_write(struct bufferevent *bev, void *arg)
{
    struct smtp_server_conn *c = arg;

    if (!c->tls && !bev_out_written(bev))
        return;
    if (c->output_paused && !c->free_scheduled) {
        c->output_paused = 0;
        process_input(c);
        cap_input(c);
    }
    smtp_server_flush(c);
}

static void on_event(struct bufferevent *bev, short what, void *arg)
{
    struct smtp_server_conn *c = arg;

    (void)bev;
    if (c->free_scheduled)
        return;
    if ((what & BEV_EVENT_TIMEOUT) && !c->closing) {
        c->ops->on_timeout(c->ctx);
        /* A client that has not read for the whole timeout will not read the 421 either. */
        if (what & BEV_EVENT_WRITING)
            smtp_server_free_later(c);
        else
            smtp_server_flush(c);
        return;
    }
    if (what & (BEV_EVENT_EOF | BEV_EVENT_ERROR | BEV_EVENT_TIMEOUT))
        smtp_server_free_later(c); /* a BEV_EVENT_CONNECTED ends a TLS handshake: nothing to do */
}
