/*
 * smtp_server - the connection half of an SMTP server session.
 *
 * smtp-sink and the relay differ in what they answer, not in how a
 * session reads and writes. This core owns the bufferevent and does the
 * parts both need: it names the peer, reads command lines and message
 * text through smtp_input, writes replies straight to the socket
 * (bev_out), moves the socket into TLS after STARTTLS's 220, and frees
 * the session from the event loop once it is closed. The server's policy
 * comes through struct smtp_server_ops: what to do with a command line,
 * with message text, at the end of data, on a timeout, once TLS is up
 * and when the session is freed.
 *
 * While more than SMTP_SERVER_OUTPUT_HIGH_WATER of replies wait unsent the
 * core takes no command; it goes on, with what waited in the input, once
 * the client has read them, and a client that reads nothing for the idle
 * timeout is dropped (docs/security.md item 11).
 *
 * The policy embeds a struct smtp_server_conn in its session, writes its
 * replies to conn.bev's output and calls smtp_server_flush() after it has
 * said something outside the core's read callback.
 */
#ifndef SPOOLSIM_SMTP_SERVER_H
#define SPOOLSIM_SMTP_SERVER_H

#include <netinet/in.h>
#include <stddef.h>
#include <sys/socket.h>

#include <event2/bufferevent.h>
#include <event2/event.h>
#include <openssl/ssl.h>

#include "bev_in.h"
#include "smtp_data.h"
#include "smtp_line.h"

/*
 * The replies smtp-sink and the relay both give, in Postfix's words, so
 * that a client meets one server's wording whichever of them it talks to.
 */
#define SMTP_SERVER_REPLY_OK "250 2.0.0 Ok"
#define SMTP_SERVER_REPLY_MAIL_OK "250 2.1.0 Ok"
#define SMTP_SERVER_REPLY_RCPT_OK "250 2.1.5 Ok"
#define SMTP_SERVER_REPLY_DATA "354 End data with <CR><LF>.<CR><LF>"
#define SMTP_SERVER_REPLY_VRFY "252 2.0.0 Send mail to find out"
#define SMTP_SERVER_REPLY_HELP "214 2.0.0 See RFC 5321"
#define SMTP_SERVER_REPLY_BYE "221 2.0.0 Bye"
#define SMTP_SERVER_REPLY_STARTTLS "220 2.0.0 Ready to start TLS"
#define SMTP_SERVER_REPLY_TOO_MANY_RCPTS "452 4.5.3 Error: too many recipients"
#define SMTP_SERVER_REPLY_TOO_BIG "552 5.3.4 Message size exceeds fixed limit"
#define SMTP_SERVER_REPLY_TOO_LONG "500 5.5.2 Error: command too long"
#define SMTP_SERVER_REPLY_UNKNOWN "502 5.5.2 Error: command not recognized"
#define SMTP_SERVER_REPLY_NOT_IMPLEMENTED "502 5.5.1 Error: command not implemented"
#define SMTP_SERVER_REPLY_SYNC "554 5.5.0 Error: SMTP protocol synchronization"

/* The input buffer's high-water mark: a session holds at most this much unread. */
#define SMTP_SERVER_INPUT_HIGH_WATER (64 * 1024)
/*
 * The output's: past it no command is taken until the client has read what
 * it was told (docs/security.md item 11), so a session holds at most this
 * plus one command's reply unsent.
 */
#define SMTP_SERVER_OUTPUT_HIGH_WATER (32 * 1024)

struct smtp_server_ops {
    /* May the session read now? NULL: always, as far as the policy goes. */
    int (*may_read)(void *ctx);
    /* A command line, without its CR LF. */
    void (*on_command)(void *ctx, const char *line, size_t len);
    /* A command line over the limit (its rest is skipped). */
    void (*on_too_long)(void *ctx);
    /* Message text, un-stuffed, in runs that follow the reads. */
    void (*on_data_chunk)(void *ctx, const char *buf, size_t len);
    /* All buffered text was taken and the end of data is not in it. NULL: nothing. */
    void (*on_data_wait)(void *ctx);
    /* The end of data; conn.data says whether the text was acceptable. */
    void (*on_data_end)(void *ctx);
    /* The idle timeout, while not closing: say 421 and close. */
    void (*on_timeout)(void *ctx);
    /* The session is in TLS: forget the EHLO and whatever else TLS resets. */
    void (*on_tls_started)(void *ctx);
    /* The session is to be freed: stop its timers (NULL: nothing to stop). */
    void (*on_stop)(void *ctx);
    /* From the event loop: free the session (calling smtp_server_release()). */
    void (*on_free)(void *ctx);
};

struct smtp_server_config {
    struct event_base *base;
    SSL_CTX *tls_ctx;  /* NULL: no STARTTLS */
    double timeout;    /* idle seconds */
    int write_timeout; /* the timeout applies to writing too, from the start */
    size_t line_limit; /* 0: SMTP_COMMAND_LINE_LIMIT */
};

struct smtp_server_conn {
    struct bufferevent *bev; /* NULL once a TLS upgrade failed */
    struct smtp_line_reader lines;
    struct smtp_data_reader data;
    int in_data;
    int closing;           /* no more reading; freed once the output has left */
    int free_scheduled;    /* smtp_server_free_later() was called */
    struct event *free_ev; /* its event: ours, so that release() can cancel it */
    int tls;               /* the session runs inside TLS */
    int tls_pending;       /* our 220 to STARTTLS is on its way; the handshake follows */
    int input_capped;      /* reading is off: the input reached its high-water mark */
    int reading;           /* the policy wants input (smtp_server_read()) */
    int output_paused;     /* no command taken until the output drains (output_full()) */
    int write_timed;       /* the idle timeout applies to writing */
    struct bev_in in;      /* direct reading, until TLS: the socket's reader */
    char peer[INET6_ADDRSTRLEN + 8];
    struct smtp_server_config cfg;
    const struct smtp_server_ops *ops;
    void *ctx;
};

/* The client's address as text; "local" for a UNIX-domain socket. */
void smtp_server_describe_peer(const struct sockaddr *addr, char *buf, size_t len);

/*
 * Take a connected socket: name the peer and set up its bufferevent, with
 * reading still off (the policy enables it, around its greeting). Returns
 * 0, or -1 with the socket closed.
 */
int smtp_server_start(struct smtp_server_conn *c, const struct smtp_server_config *cfg,
                      const struct smtp_server_ops *ops, void *ctx, int fd,
                      const struct sockaddr *addr);
/* The same on a bufferevent made elsewhere (a pair, in the fuzz target); `bev' is the core's. */
void smtp_server_attach(struct smtp_server_conn *c, const struct smtp_server_config *cfg,
                        const struct smtp_server_ops *ops, void *ctx, struct bufferevent *bev);

/*
 * Right after smtp_server_start(), before reading is on: the core reads the
 * plain socket itself (bev_in), one read() per event instead of the
 * bufferevent's ioctl and readv. The policy then turns reading on and off
 * with smtp_server_read(), never on conn.bev. Without an event of its own
 * (-1), the bufferevent goes on reading: slower, not wrong.
 */
int smtp_server_direct_read(struct smtp_server_conn *c);
/* Reading on or off: on the bufferevent, or on the core's own reader. */
void smtp_server_read(struct smtp_server_conn *c, int on);

/* Read what is buffered, handing it to the policy, until it must wait or nothing is left. */
void smtp_server_process(struct smtp_server_conn *c);
/* After the 354: what follows is message text. */
void smtp_server_begin_data(struct smtp_server_conn *c, enum smtp_bare_lf_policy bare_lf);

/* Send what has been said; then a closing session goes, a STARTTLS one starts its handshake. */
void smtp_server_flush(struct smtp_server_conn *c);
/* Read nothing more; the session goes at the next flush that empties the output. */
void smtp_server_close_after_flush(struct smtp_server_conn *c);
/* After the 220 to STARTTLS: drop what came behind it; TLS starts once the 220 has left. */
void smtp_server_begin_tls(struct smtp_server_conn *c);

/* Free the session from the event loop, not under callers that may still hold it. */
void smtp_server_free_later(struct smtp_server_conn *c);
/*
 * From on_free, or for every session at exit: the bufferevent and the
 * socket go. libevent may finish freeing a bufferevent only from its loop
 * (callbacks it still had pending): a server that stops should run its
 * loop once more, EVLOOP_NONBLOCK, after releasing its sessions.
 */
void smtp_server_release(struct smtp_server_conn *c);

#endif
