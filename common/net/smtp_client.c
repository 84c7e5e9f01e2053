/*
 * smtp_client - the connection half of an SMTP client session; see smtp_client.h.
 */
#include "config.h"

#include <errno.h>
#include <event2/buffer.h>
#include <event2/bufferevent_ssl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#if defined(__linux__)
#include <linux/sockios.h>
#endif

#include "bev_out.h"
#include "clock.h"
#include "smtp_client.h"
#include "smtp_input.h"
#include "tls_bev.h"

static void on_read(struct bufferevent *bev, void *arg);
static void on_write(struct bufferevent *bev, void *arg);
static void on_event(struct bufferevent *bev, short what, void *arg);

void smtp_client_init(struct smtp_client_conn *c, const struct smtp_client_config *cfg,
                      const struct smtp_client_ops *ops, void *ctx)
{
    memset(c, 0, sizeof(*c));
    c->cfg = *cfg;
    c->ops = ops;
    c->ctx = ctx;
    c->family = AF_UNSPEC;
    c->common_timeout = clock_timeval(cfg->timeout);
    if (cfg->timeout > 0) {
        const struct timeval *common =
            event_base_init_common_timeout(cfg->base, &c->common_timeout);

        if (common)
            c->common_timeout = *common;
    }
}

/*
 * The timeouts: bev_in's own timer for a plain connection's reading, the
 * bufferevent's for writing (and for a TLS connection's reading). The
 * bufferevent's is a common timeout of the loop: libevent adds it again
 * whenever writing starts, and on a common timeout that is a list append,
 * not a heap operation.
 */
static void apply_timeouts(struct smtp_client_conn *c)
{
    struct timeval tv = clock_timeval(c->cfg.timeout);
    int on = c->timeout_on && c->cfg.timeout > 0;
    const struct timeval *common = on ? &c->common_timeout : NULL;

    bufferevent_set_timeouts(c->bev, c->in.ev ? NULL : common, common);
    if (c->in.ev)
        bev_in_set_timeout(&c->in, on ? &tv : NULL);
}

void smtp_client_timeout(struct smtp_client_conn *c, int on)
{
    c->timeout_on = on;
    if (c->bev)
        apply_timeouts(c);
}

static void fail(struct smtp_client_conn *c, enum smtp_client_error error, int err)
{
    bev_in_disable(&c->in);
    bufferevent_disable(c->bev, EV_READ | EV_WRITE);
    c->ops->on_error(c->ctx, error, err);
}

/* TCP is up: the greeting is owed, and the core reads the socket itself where it can. */
static void up(struct smtp_client_conn *c)
{
    int fd = (int)bufferevent_getfd(c->bev);

    c->connected = 1;
    if (c->family != AF_UNIX && c->family != AF_UNSPEC) {
        int one = 1;

        int mss = 0;
        socklen_t mss_len = sizeof(mss);

        if (c->cfg.nodelay)
            setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
        else if (getsockopt(fd, IPPROTO_TCP, TCP_MAXSEG, &mss, &mss_len) == 0)
            c->stream_unit = smtp_client_stream_unit(mss);
        if (c->cfg.window) {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &c->cfg.window, sizeof(int));
            setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &c->cfg.window, sizeof(int));
        }
    }
    smtp_line_init(&c->lines, SMTP_REPLY_LINE_LIMIT);
    smtp_reply_init(&c->reply);
    c->owed = 1;
    c->dot_owed = 0;
    /* bev_out writes at once; EV_WRITE only when the socket is full. */
    bufferevent_disable(c->bev, EV_WRITE);
    if (bev_in_start(&c->in, c->bev, on_read, on_event, c) == 0) {
        bev_in_lend(&c->in); /* on_read settles */
        apply_timeouts(c);
        bev_in_enable(&c->in);
    } else {
        bufferevent_enable(c->bev, EV_READ); /* slower, not wrong */
    }
    c->ops->on_connected(c->ctx);
}

static int new_bev(struct smtp_client_conn *c, evutil_socket_t fd)
{
    smtp_client_close(c); /* a connection still open goes first */
    c->bev = bufferevent_socket_new(c->cfg.base, fd, BEV_OPT_CLOSE_ON_FREE);
    if (c->bev == NULL) {
        if (fd >= 0)
            close(fd);
        errno = ENOMEM;
        return -1;
    }
    c->generation++;
    c->connected = c->tls = c->handshake = 0;
    c->write_errno = 0;
    c->unacked_seen = 0;
    c->in.ev = NULL;
    c->timeout_on = 1;
    bufferevent_setcb(c->bev, on_read, on_write, on_event, c);
    apply_timeouts(c); /* the write timeout covers the connect */
    return 0;
}

/*
 * A TCP connect of our own. On loopback the handshake is over before a
 * non-blocking connect() returns, though it says EINPROGRESS: a poll()
 * that finds the socket writable saves the wait for EPOLLOUT (two
 * epoll_ctl calls, a getsockopt and a loop pass per connection). The
 * socket, or -1 when connect() failed at once (the bufferevent then tries
 * again, and reports); *connected says whether it is up already.
 */
static evutil_socket_t connect_now(const struct smtp_client_conn *c, const struct sockaddr *addr,
                                   socklen_t len, int *connected)
{
    evutil_socket_t fd = socket(addr->sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    struct linger abort_close = {1, 0};
    struct pollfd pfd;

    *connected = 0;
    if (fd < 0)
        return -1;
    if (c->cfg.abort_close)
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &abort_close, sizeof(abort_close));
    if (connect(fd, addr, len) == 0) {
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

int smtp_client_connect(struct smtp_client_conn *c, const struct sockaddr *addr, socklen_t len)
{
    evutil_socket_t fd = -1;
    int connected = 0;

    c->family = addr->sa_family;
    if (addr->sa_family != AF_UNIX)
        fd = connect_now(c, addr, len, &connected);
    if (new_bev(c, fd) != 0)
        return -1;
    if (connected) {
        up(c);
        return 0;
    }
    /* With our socket, in progress, the bufferevent waits for it; else it connects. */
    if (bufferevent_socket_connect(c->bev, fd < 0 ? (struct sockaddr *)addr : NULL,
                                   fd < 0 ? (int)len : 0) != 0) {
        int err = errno;

        smtp_client_close(c);
        errno = err;
        return -1;
    }
    return 0;
}

int smtp_client_attach(struct smtp_client_conn *c, int fd)
{
    struct sockaddr_storage ss;
    socklen_t len = sizeof(ss);

    c->family = getsockname(fd, (struct sockaddr *)&ss, &len) == 0 ? ss.ss_family : AF_UNSPEC;
    if (new_bev(c, fd) != 0)
        return -1;
    up(c);
    return 0;
}

void smtp_client_close(struct smtp_client_conn *c)
{
    bev_in_stop(&c->in);
    if (c->bev) {
        bufferevent_free(c->bev);
        c->bev = NULL;
        c->generation++;
    }
    if (c->text) {
        evbuffer_free(c->text);
        c->text = NULL;
    }
    c->text_held = 0;
    c->stream_unit = 0;
    c->connected = c->tls = c->handshake = 0;
    c->owed = 0;
    c->dot_owed = 0;
}

void smtp_client_close_orderly(struct smtp_client_conn *c)
{
    struct linger orderly = {0, 0};
    evutil_socket_t fd = c->bev ? bufferevent_getfd(c->bev) : -1;

    if (fd >= 0)
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &orderly, sizeof(orderly));
    smtp_client_close(c);
}

void smtp_client_send(struct smtp_client_conn *c, const char *line, size_t len)
{
    evbuffer_add(bufferevent_get_output(c->bev), line, len);
    c->owed++;
}

void smtp_client_sendf(struct smtp_client_conn *c, const char *fmt, ...)
{
    struct evbuffer *out = bufferevent_get_output(c->bev);
    va_list ap;

    va_start(ap, fmt);
    evbuffer_add_vprintf(out, fmt, ap);
    va_end(ap);
    evbuffer_add(out, "\r\n", 2);
    c->owed++;
}

void smtp_client_owe(struct smtp_client_conn *c, unsigned replies)
{
    c->owed += replies;
}

struct evbuffer *smtp_client_output(struct smtp_client_conn *c)
{
    return c->text_held ? c->text : bufferevent_get_output(c->bev);
}

size_t smtp_client_stream_unit(int mss)
{
    const size_t page = 4096; /* VSTREAM_BUFSIZE */
    size_t unit;

    if (mss <= 0 || (size_t)mss <= page / 4)
        return page;
    unit = 4 * (size_t)mss;
    return (unit + page - 1) / page * page;
}

void smtp_client_text_begin(struct smtp_client_conn *c)
{
    if (c->stream_unit == 0 || c->tls)
        return;
    if (c->text == NULL && (c->text = evbuffer_new()) == NULL)
        return; /* then the text goes as it comes: slower at worst */
    c->text_held = 1;
}

/* Whole units of the held text to the output; all of it with `all'. */
static void text_release(struct smtp_client_conn *c, int all)
{
    size_t held = evbuffer_get_length(c->text);
    size_t n = all ? held : held - held % c->stream_unit;

    if (n > 0)
        evbuffer_remove_buffer(c->text, bufferevent_get_output(c->bev), n);
}

void smtp_client_dot(struct smtp_client_conn *c)
{
    if (c->text_held) {
        text_release(c, 1);
        c->text_held = 0;
    }
    c->owed++;
    c->dot_owed = c->cfg.strict_dot;
}

size_t smtp_client_pending(struct smtp_client_conn *c)
{
    return c->bev ? evbuffer_get_length(bufferevent_get_output(c->bev)) : 0;
}

/*
 * A plain connection writes its commands itself, at once, and keeps
 * EV_WRITE off unless the socket is full (bev_out.h). A socket error is
 * reported from the loop, as the bufferevent's own would be: the policy
 * that flushed may still be in the middle of what it does.
 */
int smtp_client_flush(struct smtp_client_conn *c)
{
    int status;

    if (c->bev == NULL || !c->connected || c->write_errno)
        return c->write_errno ? -1 : 0;
    if (c->tls)
        return evbuffer_get_length(bufferevent_get_output(c->bev)) > 0;
    if (c->text_held)
        text_release(c, 0);
    status = bev_out_flush(c->bev);
    if (status < 0) {
        c->write_errno = errno ? errno : EIO;
        bev_in_disable(&c->in);
        bufferevent_trigger_event(c->bev, BEV_EVENT_WRITING | BEV_EVENT_ERROR,
                                  BEV_TRIG_DEFER_CALLBACKS);
    }
    return status;
}

void smtp_client_write_low(struct smtp_client_conn *c, size_t low)
{
    bufferevent_setwatermark(c->bev, EV_WRITE, low, 0);
}

void smtp_client_notify_sent(struct smtp_client_conn *c)
{
    smtp_client_flush(c);
    bufferevent_enable(c->bev, EV_WRITE); /* its callback comes once the output is empty */
}

/*
 * Bytes written to the socket that the peer's TCP has not acknowledged,
 * or 0 where the system cannot tell (then only our own buffer is checked).
 */
static size_t unacknowledged(const struct smtp_client_conn *c)
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

/* The peer has all of the text, dot included: only now can it answer the dot. */
static int peer_has_dot(const struct smtp_client_conn *c)
{
    return evbuffer_get_length(bufferevent_get_output(c->bev)) == 0 && unacknowledged(c) == 0;
}

int smtp_client_spoke_early(const struct smtp_client_conn *c)
{
    char byte;

    if (evbuffer_get_length(bufferevent_get_input(c->bev)) > 0)
        return 1;
    if (c->tls)
        return 0; /* OpenSSL's bufferevent reads ahead into the input by itself */
    return recv(bufferevent_getfd(c->bev), &byte, 1, MSG_PEEK | MSG_DONTWAIT) > 0;
}

int smtp_client_reusable(const struct smtp_client_conn *c)
{
    SSL *ssl = smtp_client_ssl(c);
    char byte;

    if (c->bev == NULL || !c->connected || c->handshake || c->owed > 0 || c->write_errno)
        return 0;
    if (evbuffer_get_length(bufferevent_get_input(c->bev)) > 0 || (ssl && SSL_pending(ssl) > 0))
        return 0;
    /* Bytes (inside TLS: a record, an alert), or 0: the end of file. */
    if (recv(bufferevent_getfd(c->bev), &byte, 1, MSG_PEEK | MSG_DONTWAIT) >= 0)
        return 0;
    return errno == EAGAIN || errno == EWOULDBLOCK;
}

/*
 * STARTTLS's 220 is in: OpenSSL's bufferevent reads the socket from now
 * on, and whatever came behind the 220 goes with the plain one. Nothing
 * of ours is pending: the client waited for the 220.
 */
int smtp_client_start_tls(struct smtp_client_conn *c)
{
    bev_in_stop(&c->in);
    c->bev = tls_bev_upgrade(c->bev, c->cfg.tls_ctx, TLS_BEV_CLIENT);
    c->generation++;
    if (c->bev == NULL) {
        smtp_client_close(c);
        return -1;
    }
    c->tls = 1;
    c->handshake = 1;
    c->owed = 0;
    c->dot_owed = 0;
    smtp_line_init(&c->lines, SMTP_REPLY_LINE_LIMIT);
    smtp_reply_init(&c->reply);
    bufferevent_setcb(c->bev, on_read, on_write, on_event, c);
    apply_timeouts(c);
    bufferevent_enable(c->bev, EV_READ | EV_WRITE);
    return 0;
}

SSL *smtp_client_ssl(const struct smtp_client_conn *c)
{
    return c->bev && c->tls ? bufferevent_openssl_get_ssl(c->bev) : NULL;
}

const char *smtp_client_error_text(enum smtp_client_error error, int err)
{
    switch (error) {
    case SMTP_CLIENT_TIMEOUT:
        return "timeout";
    case SMTP_CLIENT_CLOSED:
        return "connection closed";
    case SMTP_CLIENT_TOO_LONG:
        return "reply line too long";
    case SMTP_CLIENT_MALFORMED:
        return "malformed reply";
    case SMTP_CLIENT_UNASKED:
        return "text before a command";
    case SMTP_CLIENT_EARLY_DOT:
        return "reply to the end of data before the hop received it";
    case SMTP_CLIENT_CONNECT:
        if (err == ETIMEDOUT)
            return "timeout"; /* ours (cfg.timeout) or the kernel's: the same to the policy */
        break;
    case SMTP_CLIENT_SOCKET:
        break;
    }
    return strerror(err);
}

/* Replies, as long as the connection is the one this read came on. */
static void read_replies(struct smtp_client_conn *c)
{
    unsigned generation = c->generation;

    while (c->generation == generation) {
        struct evbuffer *in = bufferevent_get_input(c->bev);
        char line[SMTP_REPLY_LINE_LIMIT];
        size_t len;
        enum smtp_line_status status;
        enum smtp_reply_status rs;

        if (evbuffer_get_length(in) == 0)
            return;
        if (c->owed == 0) {
            fail(c, SMTP_CLIENT_UNASKED, 0);
            return;
        }
        if (c->dot_owed && !peer_has_dot(c)) {
            fail(c, SMTP_CLIENT_EARLY_DOT, 0);
            return;
        }
        status = smtp_input_line(&c->lines, in, line, sizeof(line), &len);
        if (status == SMTP_LINE_NEED_MORE)
            return;
        if (status == SMTP_LINE_TOO_LONG) {
            fail(c, SMTP_CLIENT_TOO_LONG, 0);
            return;
        }
        rs = smtp_reply_line(&c->reply, line, len);
        if (rs == SMTP_REPLY_MALFORMED || (rs == SMTP_REPLY_MORE && c->cfg.max_reply_lines &&
                                           c->reply.lines >= c->cfg.max_reply_lines)) {
            fail(c, SMTP_CLIENT_MALFORMED, 0);
            return;
        }
        if (rs == SMTP_REPLY_DONE) {
            /*
             * The last reply owed, with more behind it: the peer sent that
             * before any command the policy may send now, so it answers none
             * of them (a stray reply taken for the next MAIL's would refuse
             * a message the peer never saw).
             */
            int stray = --c->owed == 0 && evbuffer_get_length(in) > 0;

            c->dot_owed = 0;
            c->ops->on_reply(c->ctx, &c->reply);
            if (c->generation != generation)
                return;
            smtp_reply_init(&c->reply);
            if (stray) {
                fail(c, SMTP_CLIENT_UNASKED, 0);
                return;
            }
        }
    }
}

static void on_read(struct bufferevent *bev, void *arg)
{
    struct smtp_client_conn *c = arg;

    (void)bev;
    read_replies(c);
    /*
     * A lent read (bev_in.h): a connection closed or moved to TLS meanwhile
     * stopped its bev_in, and a new connection's has lent nothing yet.
     */
    if (c->bev)
        bev_in_settle(&c->in);
    smtp_client_flush(c);
}

static void on_write(struct bufferevent *bev, void *arg)
{
    struct smtp_client_conn *c = arg;

    if (!c->tls)
        bev_out_written(bev);
    if (c->ops->on_output)
        c->ops->on_output(c->ctx);
}

/*
 * A timeout has run out while the peer may still be taking what we send (a
 * long text to a slow reader): then it is busy, not gone, and owes no reply
 * until it has all of it. Has its TCP acknowledged some of our bytes since
 * the last time this asked? (The kernel wakes a writer only once a third of
 * a large send buffer is free: at a slow reader's pace, longer than a
 * timeout.)
 */
static int peer_took_some(struct smtp_client_conn *c)
{
    size_t unacked = unacknowledged(c);

    if (unacked == 0 || unacked == c->unacked_seen)
        return 0;
    c->unacked_seen = unacked;
    return 1;
}

/*
 * The read timeout: output still in our buffer is watched by the write
 * timeout, which a write that makes progress starts again.
 */
static int still_taking(struct smtp_client_conn *c)
{
    return evbuffer_get_length(bufferevent_get_output(c->bev)) > 0 || peer_took_some(c);
}

static void on_event(struct bufferevent *bev, short what, void *arg)
{
    struct smtp_client_conn *c = arg;
    int err = c->write_errno ? c->write_errno : EVUTIL_SOCKET_ERROR();

    (void)bev;
    if ((what & BEV_EVENT_CONNECTED) && c->handshake) {
        c->handshake = 0;
        c->ops->on_connected(c->ctx);
    } else if (what & BEV_EVENT_CONNECTED) {
        up(c);
    } else if (!c->connected) {
        fail(c, SMTP_CLIENT_CONNECT, what & BEV_EVENT_TIMEOUT ? ETIMEDOUT : err);
    } else if ((what & BEV_EVENT_TIMEOUT) && (what & BEV_EVENT_READING) && still_taking(c)) {
        /* Reading is off after its timeout: on again, for another whole timeout. */
        if (c->in.ev)
            bev_in_enable(&c->in);
        else
            bufferevent_enable(c->bev, EV_READ);
    } else if ((what & BEV_EVENT_TIMEOUT) && (what & BEV_EVENT_WRITING) && peer_took_some(c)) {
        bufferevent_enable(c->bev, EV_WRITE); /* off after its timeout, as reading */
    } else if (what & BEV_EVENT_TIMEOUT) {
        fail(c, SMTP_CLIENT_TIMEOUT, 0);
    } else if (what & BEV_EVENT_EOF) {
        fail(c, SMTP_CLIENT_CLOSED, 0);
    } else {
        fail(c, SMTP_CLIENT_SOCKET, err);
    }
    smtp_client_flush(c); /* what the policy said meanwhile, on this connection or a new one */
}
