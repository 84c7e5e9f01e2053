/*
 * smtp_client - the connection half of an SMTP client session.
 *
 * smtp-source and the relay's client differ in what they send and what a
 * reply means to them, not in how a connection reads and writes: this
 * core is theirs as smtp_server is the servers'. It connects (or takes a
 * connected socket), reads the socket itself with one read() per event
 * (bev_in), writes commands straight to it (bev_out), counts the replies
 * its commands are owed, puts reply lines together (smtp_reply) and hands
 * each complete reply to the policy, and moves the socket into TLS after
 * STARTTLS's 220 (tls_bev).
 *
 * What it promises: a reply reaches the policy only when one is owed, in
 * the order the commands went (text from the peer with nothing owed, or
 * behind the last reply owed, is an error, SMTP_CLIENT_UNASKED, reported
 * after that reply); what the peer sent behind its 220 to
 * STARTTLS is thrown away, never read inside TLS (CVE-2011-0411); with
 * cfg.strict_dot, a reply to the dot is believed only once the peer has
 * the dot (our output empty and, where the kernel tells, every byte
 * acknowledged), and smtp_client_spoke_early() tells a 354 that came with
 * a reply behind it. Every failure ends in one ops->on_error() with
 * reading off; the policy then calls smtp_client_close().
 *
 * The policy embeds a struct smtp_client_conn, queues commands with
 * smtp_client_send() (each owes a reply) or text with the output buffer,
 * and calls smtp_client_flush() once it has said what it had to say
 * outside the core's read callback (which flushes by itself). The policy
 * may close the connection, or open a new one on the same conn, from any
 * of its callbacks.
 */
#ifndef SPOOLSIM_SMTP_CLIENT_H
#define SPOOLSIM_SMTP_CLIENT_H

#include <stddef.h>
#include <sys/socket.h>

#include <event2/bufferevent.h>
#include <event2/event.h>
#include <openssl/ssl.h>

#include "bev_in.h"
#include "smtp_line.h"
#include "smtp_reply.h"

enum smtp_client_error {
    SMTP_CLIENT_CONNECT,   /* the connection did not come up; err: errno (ETIMEDOUT) */
    SMTP_CLIENT_TIMEOUT,   /* nothing read, nor any of our output taken, for cfg.timeout */
    SMTP_CLIENT_CLOSED,    /* the peer closed the connection */
    SMTP_CLIENT_SOCKET,    /* a socket or TLS error; err: errno, if any */
    SMTP_CLIENT_TOO_LONG,  /* a reply line over SMTP_REPLY_LINE_LIMIT */
    SMTP_CLIENT_MALFORMED, /* not a reply, or more lines than cfg.max_reply_lines */
    SMTP_CLIENT_UNASKED,   /* text from the peer when no reply is owed */
    SMTP_CLIENT_EARLY_DOT, /* cfg.strict_dot: a reply to the dot before the peer had it */
};

struct smtp_client_ops {
    /* Up: TCP, the greeting owed (c->tls 0), or TLS's handshake done, nothing owed (1). */
    void (*on_connected)(void *ctx);
    /* A complete reply, to the oldest command still owed one. */
    void (*on_reply)(void *ctx, const struct smtp_reply *reply);
    /* The connection failed (see above); err is 0 unless said. */
    void (*on_error)(void *ctx, enum smtp_client_error error, int err);
    /* The write callback: the output is down to its low-water mark. NULL: nothing. */
    void (*on_output)(void *ctx);
};

struct smtp_client_config {
    struct event_base *base;
    SSL_CTX *tls_ctx;         /* STARTTLS's; NULL: the policy never asks for it */
    double timeout;           /* reading, writing and connecting, in seconds */
    unsigned max_reply_lines; /* 0: no limit */
    int strict_dot;           /* hold the dot's reply to the peer's having the dot (above) */
    int abort_close;          /* SO_LINGER 0: a close ends in a reset, no TIME_WAIT */
    int nodelay;              /* TCP_NODELAY on a TCP connection */
    int window;               /* SO_RCVBUF and SO_SNDBUF; 0: the system's */
};

struct smtp_client_conn {
    struct bufferevent *bev; /* NULL: no connection */
    struct bev_in in;        /* a plain connection's reader (in.ev NULL: none, or TLS) */
    struct smtp_line_reader lines;
    struct smtp_reply reply;
    unsigned owed;       /* replies owed to the commands sent */
    unsigned generation; /* counts connections and closes: a callback's conn is still its own? */
    int connected;       /* TCP is up */
    int tls;             /* c->bev is OpenSSL's (the handshake may still run) */
    int handshake;       /* TLS's handshake runs */
    int dot_owed;        /* the next reply is the dot's (cfg.strict_dot) */
    int timeout_on;      /* smtp_client_timeout() */
    int write_errno;     /* a write failed: reported from the loop */
    size_t unacked_seen; /* our bytes the peer had not acknowledged at the last read timeout */
    size_t stream_unit;  /* text goes out in whole units of this (smtp_client_text_begin); 0: any */
    struct evbuffer *text;         /* the text held back from the output, less than a unit of it */
    int text_held;                 /* between smtp_client_text_begin() and the dot */
    int family;                    /* the socket's address family */
    struct timeval common_timeout; /* cfg.timeout as a common timeout of the loop */
    struct smtp_client_config cfg;
    const struct smtp_client_ops *ops;
    void *ctx;
};

void smtp_client_init(struct smtp_client_conn *c, const struct smtp_client_config *cfg,
                      const struct smtp_client_ops *ops, void *ctx);
/*
 * Connect to `addr': 0 when under way (on_connected or on_error follows,
 * maybe before this returns), -1 with errno when it failed at once.
 */
int smtp_client_connect(struct smtp_client_conn *c, const struct sockaddr *addr, socklen_t len);
/* Take a connected socket (a pair, in tests): on_connected follows at once, the greeting owed. */
int smtp_client_attach(struct smtp_client_conn *c, int fd);
/* The connection goes now, with what it held; nothing more is called. Harmless when closed. */
void smtp_client_close(struct smtp_client_conn *c);
/* The same, ending with a FIN even with cfg.abort_close (a peer that waits for our close). */
void smtp_client_close_orderly(struct smtp_client_conn *c);

/* The idle timeout on (cfg.timeout) or off (a connection kept while nothing is owed). */
void smtp_client_timeout(struct smtp_client_conn *c, int on);

/* One command line, CR LF included, whose reply is owed. */
void smtp_client_send(struct smtp_client_conn *c, const char *line, size_t len);
/* The same from a format, CR LF added. */
void smtp_client_sendf(struct smtp_client_conn *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Commands put in the output by the policy itself: their replies are owed. */
void smtp_client_owe(struct smtp_client_conn *c, unsigned replies);
/* The output, for the text (it owes no reply) and for commands built in place. */
struct evbuffer *smtp_client_output(struct smtp_client_conn *c);
/*
 * A message's text follows: until smtp_client_dot(), smtp_client_output()
 * is a buffer from which flushes take whole stream units only, so that
 * the text leaves in full segments and only its tail, with the dot, is a
 * short one, as Postfix's VSTREAM writes it (smtp_client_stream_unit()).
 * A short segment sent in the middle of a text would make Nagle's
 * algorithm hold the next one until the peer's delayed ACK, 40 ms a
 * message. A no-op where no unit applies (TLS, a local socket).
 */
void smtp_client_text_begin(struct smtp_client_conn *c);
/* The dot is in the output: its reply is owed, and held as cfg.strict_dot says. */
void smtp_client_dot(struct smtp_client_conn *c);
/* Bytes in the output on their way to the socket, not counting text held back. */
size_t smtp_client_pending(struct smtp_client_conn *c);
/*
 * The stream unit of a TCP connection whose maximum segment size is `mss'
 * (0: unknown): Postfix's VSTREAM buffer, 4096 bytes, made four times the
 * MSS where the MSS is over a quarter of it (vstream_tweak_tcp() since
 * Postfix 3.5), in whole 4096-byte pages: a Postfix 3.7 that read an MSS
 * of 32,741 on loopback wrote its text 131,072 bytes at a time.
 */
size_t smtp_client_stream_unit(int mss);

/* Send what is queued: 0 all sent, 1 some waits for room, -1 a socket error (on_error follows). */
int smtp_client_flush(struct smtp_client_conn *c);
/* The write callback also when the output is down to `low' (0: only when empty). */
void smtp_client_write_low(struct smtp_client_conn *c, size_t low);
/* Call ops->on_output once the output is empty, even if all of it has left already. */
void smtp_client_notify_sent(struct smtp_client_conn *c);

/* Has the peer said something no command has asked for yet? (cfg.strict_dot's test.) */
int smtp_client_spoke_early(const struct smtp_client_conn *c);

/*
 * May the connection take another transaction now? Only when it is up,
 * owes nothing, and the peer has said nothing since its last reply: bytes
 * waiting (in our input, behind that reply, or unread on the socket) or
 * the peer's end of file mean a peer that is going away (a 421, then the
 * close) or talks out of turn, and the next command would get them for
 * its reply or be lost with the connection. For a connection kept between
 * transactions, asked as it is taken: one recv() with MSG_PEEK.
 */
int smtp_client_reusable(const struct smtp_client_conn *c);

/*
 * After STARTTLS's 220: the rest of the plain input goes, and the TLS
 * handshake starts; on_connected says when it is done. -1: TLS cannot
 * start (the connection is closed, and no callback follows).
 */
int smtp_client_start_tls(struct smtp_client_conn *c);
/* The connection's SSL, once in TLS; else NULL. */
SSL *smtp_client_ssl(const struct smtp_client_conn *c);

/*
 * A short text for an error, as the relay's messages say it ("timeout",
 * "connection closed"); a connect that timed out says "timeout" too.
 */
const char *smtp_client_error_text(enum smtp_client_error error, int err);

#endif
