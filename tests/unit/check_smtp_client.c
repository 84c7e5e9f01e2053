/*
 * Unit tests: smtp_client, the clients' connection core, over a socketpair
 * against a scripted peer. The peer is this test: it writes a script's
 * bytes (one at a time where a test says so) and turns the client's event
 * loop between its steps, so that every split of a reply reaches the core
 * as a read of its own. The TLS test runs its peer on a thread.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/event.h>
#include <openssl/ssl.h>

#include "smtp_client.h"
#include "tls.h"
#include "check_main.h"

#define MAX_REPLIES 16

/* The policy: it records what the core hands it, and says what its test tells it to. */
struct rec {
    struct smtp_client_conn c;
    struct event_base *base;
    int connected; /* on_connected calls */
    int codes[MAX_REPLIES];
    char texts[MAX_REPLIES][SMTP_REPLY_TEXT_MAX];
    unsigned extensions[MAX_REPLIES];
    int reusable[MAX_REPLIES]; /* smtp_client_reusable() as each reply came */
    int replies;
    int error; /* -1: none */
    int errors;
    int spoke_early; /* at the 354 (text_on_354) */
    size_t text_len; /* text_on_354: so much text, then the dot */
    int text_on_354;
    int ehlo_on_220; /* EHLO after the greeting */
    int starttls;    /* STARTTLS after the greeting, TLS at its 220, EHLO once in TLS */
    int done_at;     /* break the loop once so many replies are in */
};

static void rec_connected(void *ctx)
{
    struct rec *r = ctx;

    r->connected++;
    if (r->c.tls) {
        smtp_client_send(&r->c, "EHLO client.example\r\n", 21);
        smtp_client_flush(&r->c);
    }
}

static void rec_reply(void *ctx, const struct smtp_reply *reply)
{
    struct rec *r = ctx;
    int n = r->replies++;

    ck_assert_int_lt(n, MAX_REPLIES);
    r->codes[n] = reply->code;
    r->extensions[n] = reply->extensions;
    r->reusable[n] = smtp_client_reusable(&r->c);
    snprintf(r->texts[n], sizeof(r->texts[n]), "%s", reply->text);
    if (r->text_on_354 && reply->code == 354) {
        struct evbuffer *out = smtp_client_output(&r->c);
        char *text = malloc(r->text_len + 1);

        r->spoke_early = smtp_client_spoke_early(&r->c);
        memset(text, 'x', r->text_len);
        evbuffer_add(out, text, r->text_len);
        evbuffer_add(out, "\r\n.\r\n", 5);
        free(text);
        smtp_client_dot(&r->c);
    } else if (r->starttls && reply->code == 220 && n == 0) {
        smtp_client_send(&r->c, "STARTTLS\r\n", 10);
    } else if (r->starttls && reply->code == 220) {
        ck_assert_int_eq(smtp_client_start_tls(&r->c), 0);
    } else if (r->ehlo_on_220 && reply->code == 220) {
        smtp_client_send(&r->c, "EHLO client.example\r\n", 21);
    }
    if (r->done_at && r->replies >= r->done_at)
        event_base_loopbreak(r->base);
}

static void rec_error(void *ctx, enum smtp_client_error error, int err)
{
    struct rec *r = ctx;

    (void)err;
    r->error = (int)error;
    r->errors++;
    smtp_client_close(&r->c);
    event_base_loopbreak(r->base);
}

static const struct smtp_client_ops rec_ops = {
    .on_connected = rec_connected,
    .on_reply = rec_reply,
    .on_error = rec_error,
};

static int peer_fd;

/* A client on one end of a pair; the peer (this test) has the other, blocking. */
static void rec_start(struct rec *r, int strict_dot, SSL_CTX *tls_ctx)
{
    int sv[2];
    struct smtp_client_config cfg = {.timeout = 10, .max_reply_lines = 100};

    memset(r, 0, sizeof(*r));
    r->error = -1;
    r->base = event_base_new();
    ck_assert_ptr_nonnull(r->base);
    cfg.base = r->base;
    cfg.strict_dot = strict_dot;
    cfg.tls_ctx = tls_ctx;
    ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    ck_assert_int_eq(fcntl(sv[0], F_SETFL, O_NONBLOCK), 0);
    peer_fd = sv[1];
    smtp_client_init(&r->c, &cfg, &rec_ops, r);
    ck_assert_int_eq(smtp_client_attach(&r->c, sv[0]), 0);
    ck_assert_int_eq(r->connected, 1);
    ck_assert_uint_eq(r->c.owed, 1); /* the greeting */
}

static void rec_end(struct rec *r)
{
    smtp_client_close(&r->c);
    event_base_loop(r->base, EVLOOP_NONBLOCK);
    event_base_free(r->base);
    close(peer_fd);
}

/* Turn the client's loop a few times: whatever is readable is read. */
static void turn(struct rec *r)
{
    for (int i = 0; i < 3; i++)
        event_base_loop(r->base, EVLOOP_NONBLOCK);
}

/*
 * The peer says `text', one byte a write when `split', the loop turned
 * after each; it stops once the client has failed (and closed).
 */
static void peer_say(struct rec *r, const char *text, int split)
{
    size_t len = strlen(text);
    size_t step = split ? 1 : len;

    for (size_t i = 0; i < len && r->errors == 0; i += step) {
        ck_assert_int_eq(write(peer_fd, text + i, step), (ssize_t)step);
        turn(r);
    }
}

/* The peer reads until it has had `want' (or times out), turning the client's loop. */
static void peer_expect(struct rec *r, const char *want)
{
    static char buf[1 << 18];
    size_t have = 0;

    for (int i = 0; i < 200 && (have < strlen(want) || memcmp(buf, want, strlen(want))); i++) {
        struct pollfd p = {.fd = peer_fd, .events = POLLIN};
        ssize_t n;

        turn(r);
        if (poll(&p, 1, 10) != 1)
            continue;
        n = recv(peer_fd, buf + have, sizeof(buf) - 1 - have, 0);
        ck_assert_int_gt(n, 0);
        have += (size_t)n;
    }
    buf[have] = 0;
    ck_assert_str_eq(buf, want);
}

/* Greeting and a multi-line EHLO reply, every byte in a read of its own. */
START_TEST(test_split_every_byte)
{
    struct rec r;

    rec_start(&r, 0, NULL);
    r.ehlo_on_220 = 1;
    peer_say(&r, "220 mx.example ESMTP\r\n", 1);
    ck_assert_int_eq(r.replies, 1);
    ck_assert_int_eq(r.codes[0], 220);
    ck_assert_str_eq(r.texts[0], "220 mx.example ESMTP");
    peer_expect(&r, "EHLO client.example\r\n");
    peer_say(&r, "250-mx.example\r\n250-PIPELINING\r\n250 STARTTLS\r\n", 1);
    ck_assert_int_eq(r.replies, 2);
    ck_assert_int_eq(r.codes[1], 250);
    ck_assert_uint_eq(r.extensions[1], SMTP_EXT_PIPELINING | SMTP_EXT_STARTTLS);
    ck_assert_int_eq(r.errors, 0);
    ck_assert_uint_eq(r.c.owed, 0);
    rec_end(&r);
}
END_TEST

/* A pipelined group's replies split at every point between two writes: the same three replies. */
START_TEST(test_split_anywhere)
{
    static const char replies[] = "250 2.1.0 Ok\r\n250-2.1.5\r\n250 2.1.5 Ok\r\n354 go\r\n";

    for (size_t cut = 0; cut <= sizeof(replies) - 1; cut++) {
        struct rec r;
        char head[sizeof(replies)];

        rec_start(&r, 0, NULL);
        peer_say(&r, "220 hi\r\n", 0);
        smtp_client_send(&r.c, "MAIL FROM:<a@b>\r\nRCPT TO:<c@d>\r\nDATA\r\n", 38);
        smtp_client_owe(&r.c, 2);
        smtp_client_flush(&r.c);
        peer_expect(&r, "MAIL FROM:<a@b>\r\nRCPT TO:<c@d>\r\nDATA\r\n");
        memcpy(head, replies, cut);
        head[cut] = 0;
        peer_say(&r, head, 0);
        peer_say(&r, replies + cut, 0);
        ck_assert_int_eq(r.replies, 4);
        ck_assert_int_eq(r.codes[1], 250);
        ck_assert_int_eq(r.codes[2], 250);
        ck_assert_str_eq(r.texts[2], "250-2.1.5");
        ck_assert_int_eq(r.codes[3], 354);
        ck_assert_int_eq(r.errors, 0);
        rec_end(&r);
    }
}
END_TEST

/*
 * A reply that comes before its command was sent is owed nothing: the
 * connection fails, also when the policy answers the greeting at once (the
 * reply behind it was sent before EHLO, so it is not EHLO's, as one behind
 * the dot's reply is not the next MAIL's).
 */
START_TEST(test_early_reply)
{
    for (int ehlo = 0; ehlo <= 1; ehlo++) {
        struct rec r;

        rec_start(&r, 0, NULL);
        r.ehlo_on_220 = ehlo;
        peer_say(&r, "220 hi\r\n250 ahead of EHLO\r\n", 0);
        ck_assert_int_eq(r.replies, 1);
        ck_assert_int_eq(r.error, SMTP_CLIENT_UNASKED);
        ck_assert_ptr_null(r.c.bev);
        rec_end(&r);
    }
}
END_TEST

/* One reply more than the commands sent: the extra one reaches nobody. */
START_TEST(test_reply_never_asked)
{
    struct rec r;

    rec_start(&r, 0, NULL);
    peer_say(&r, "220 hi\r\n", 1);
    smtp_client_send(&r.c, "NOOP\r\n", 6);
    smtp_client_send(&r.c, "NOOP\r\n", 6);
    smtp_client_flush(&r.c);
    peer_expect(&r, "NOOP\r\nNOOP\r\n");
    peer_say(&r, "250 one\r\n250 two\r\n250 three\r\n", 1);
    ck_assert_int_eq(r.replies, 3);
    ck_assert_str_eq(r.texts[2], "250 two");
    ck_assert_int_eq(r.error, SMTP_CLIENT_UNASKED);
    rec_end(&r);
}
END_TEST

START_TEST(test_malformed_and_long)
{
    struct rec r;
    char line[SMTP_REPLY_LINE_LIMIT + 16];

    rec_start(&r, 0, NULL);
    peer_say(&r, "220-hi\r\n221 not the same code\r\n", 0);
    ck_assert_int_eq(r.replies, 0);
    ck_assert_int_eq(r.error, SMTP_CLIENT_MALFORMED);
    rec_end(&r);

    rec_start(&r, 0, NULL);
    memset(line, 'x', sizeof(line) - 1);
    memcpy(line, "220 ", 4);
    line[sizeof(line) - 1] = 0;
    peer_say(&r, line, 0);
    ck_assert_int_eq(r.error, SMTP_CLIENT_TOO_LONG);
    rec_end(&r);

    /* cfg.max_reply_lines: 100 */
    rec_start(&r, 0, NULL);
    for (int i = 0; i < 120 && r.errors == 0; i++)
        peer_say(&r, "220-more\r\n", 0);
    ck_assert_int_eq(r.error, SMTP_CLIENT_MALFORMED);
    rec_end(&r);
}
END_TEST

/* Up to the 354: greeting, then MAIL, RCPT, DATA in one group. */
static void to_354(struct rec *r, const char *replies)
{
    peer_say(r, "220 hi\r\n", 0);
    smtp_client_send(&r->c, "MAIL FROM:<a@b>\r\n", 17);
    smtp_client_send(&r->c, "RCPT TO:<c@d>\r\n", 15);
    smtp_client_send(&r->c, "DATA\r\n", 6);
    smtp_client_flush(&r->c);
    peer_expect(r, "MAIL FROM:<a@b>\r\nRCPT TO:<c@d>\r\nDATA\r\n");
    peer_say(r, replies, 0);
}

/* A 250 behind the 354, before the text was sent: smtp_client_spoke_early() tells. */
static const struct {
    const char *replies;
    int spoke_early;
} before_text[] = {
    {"250 ok\r\n250 ok\r\n354 go\r\n250 2.0.0 queued before the text\r\n", 1},
    {"250 ok\r\n250 ok\r\n354 go\r\n", 0},
};

START_TEST(test_250_before_text)
{
    struct rec r;

    rec_start(&r, 1, NULL);
    r.text_on_354 = 1;
    r.text_len = 10;
    to_354(&r, before_text[_i].replies);
    ck_assert_int_eq(r.spoke_early, before_text[_i].spoke_early);
    rec_end(&r);
}
END_TEST

/* A 250 to the dot from a peer that has not read the dot: not believed with strict_dot. */
START_TEST(test_250_before_dot)
{
    size_t sizes[] = {10, 1 << 20};

    for (size_t i = 0; i < 2; i++) {
        struct rec r;

        rec_start(&r, 1, NULL);
        r.text_on_354 = 1;
        r.text_len = sizes[i];
        to_354(&r, "250 ok\r\n250 ok\r\n354 go\r\n");
        ck_assert_int_eq(r.replies, 4);
        peer_say(&r, "250 2.0.0 queued unread\r\n", 0);
        ck_assert_int_eq(r.replies, 4);
        ck_assert_int_eq(r.error, SMTP_CLIENT_EARLY_DOT);
        rec_end(&r);
    }
}
END_TEST

/* The peer reads the text and the dot first: its 250 is the dot's. Without strict_dot, at once. */
START_TEST(test_250_after_dot)
{
    struct rec r;
    char *want = malloc(100000 + 6);

    memset(want, 'x', 100000);
    strcpy(want + 100000, "\r\n.\r\n");
    rec_start(&r, 1, NULL);
    r.text_on_354 = 1;
    r.text_len = 100000;
    to_354(&r, "250 ok\r\n250 ok\r\n354 go\r\n");
    peer_expect(&r, want);
    peer_say(&r, "250 2.0.0 queued\r\n", 1);
    ck_assert_int_eq(r.replies, 5);
    ck_assert_int_eq(r.errors, 0);
    rec_end(&r);
    free(want);

    rec_start(&r, 0, NULL);
    r.text_on_354 = 1;
    r.text_len = 10;
    to_354(&r, "250 ok\r\n250 ok\r\n354 go\r\n");
    peer_say(&r, "250 2.0.0 queued\r\n", 0);
    ck_assert_int_eq(r.replies, 5);
    ck_assert_int_eq(r.errors, 0);
    rec_end(&r);
}
END_TEST

/* ------------------------------------------------------------------ TLS */

struct tls_peer {
    int fd;
    SSL_CTX *ctx;
    int inject_apart; /* the plaintext comes in a write of its own, after the 220 */
    char ehlo[128];   /* what came inside TLS */
    int handshake_ok;
};

/* The peer thread: a client that has failed may have closed its end already. */
static void write_all(int fd, const char *text)
{
    if (write(fd, text, strlen(text)) < 0)
        return;
}

static void *tls_peer_run(void *arg)
{
    struct tls_peer *p = arg;
    char buf[256];
    size_t have = 0;
    SSL *ssl;
    int n;

    write_all(p->fd, "220 mx.example\r\n");
    while (have < 10) {
        ssize_t got = read(p->fd, buf + have, 10 - have);

        if (got <= 0)
            return NULL;
        have += (size_t)got;
    }
    if (memcmp(buf, "STARTTLS\r\n", 10) != 0)
        return NULL;
    if (p->inject_apart) {
        write_all(p->fd, "220 go ahead\r\n");
        usleep(100000);
        write_all(p->fd, "250 injected in plain text\r\n");
    } else {
        write_all(p->fd, "220 go ahead\r\n250 injected in plain text\r\n");
    }
    ssl = SSL_new(p->ctx);
    SSL_set_fd(ssl, p->fd);
    if (SSL_accept(ssl) == 1) {
        p->handshake_ok = 1;
        n = SSL_read(ssl, p->ehlo, sizeof(p->ehlo) - 1);
        if (n > 0) {
            p->ehlo[n] = 0;
            SSL_write(ssl, "250 inside TLS\r\n", 16);
        }
    }
    SSL_shutdown(ssl);
    SSL_free(ssl);
    return NULL;
}

/*
 * STARTTLS, with plaintext pipelined behind the 220: it is never read
 * as a reply, neither in plain text nor inside TLS (CVE-2011-0411). In
 * the same read as the 220 it is thrown away with the plain input; in a
 * later one, it breaks the handshake.
 */
static void run_tls(int inject_apart)
{
    char err[256];
    SSL_CTX *server = tls_server_ctx_new(NULL, NULL, err, sizeof(err));
    SSL_CTX *client = tls_client_ctx_new(0, NULL, err, sizeof(err));
    struct tls_peer p = {.inject_apart = inject_apart};
    pthread_t th;
    struct rec r;

    ck_assert_ptr_nonnull(server);
    ck_assert_ptr_nonnull(client);
    rec_start(&r, 0, client);
    r.starttls = 1;
    r.done_at = 3;
    p.fd = peer_fd;
    p.ctx = server;
    ck_assert_int_eq(pthread_create(&th, NULL, tls_peer_run, &p), 0);
    event_base_dispatch(r.base);
    if (!inject_apart) {
        ck_assert_int_eq(r.errors, 0);
        ck_assert_int_eq(r.replies, 3);
        ck_assert_int_eq(r.codes[1], 220);
        ck_assert_str_eq(r.texts[2], "250 inside TLS");
        ck_assert_int_eq(r.connected, 2);
        ck_assert_ptr_nonnull(smtp_client_ssl(&r.c));
        ck_assert_str_eq(p.ehlo, "EHLO client.example\r\n");
    } else {
        /* the handshake failed: no reply after the 220, and no EHLO went */
        ck_assert_int_eq(r.replies, 2);
        ck_assert_int_eq(r.errors, 1);
        ck_assert_int_eq(r.connected, 1);
    }
    smtp_client_close(&r.c);
    shutdown(peer_fd, SHUT_RDWR);
    pthread_join(th, NULL);
    rec_end(&r);
    SSL_CTX_free(server);
    SSL_CTX_free(client);
}

START_TEST(test_tls_injection_same_read)
{
    run_tls(0);
}
END_TEST

START_TEST(test_tls_injection_apart)
{
    run_tls(1);
}
END_TEST

/* The peer closes: one error, CLOSED; a connect that cannot happen fails at once or later. */
START_TEST(test_closed_and_connect)
{
    struct rec r;
    struct sockaddr_un un = {.sun_family = AF_UNIX};

    snprintf(un.sun_path, sizeof(un.sun_path), "/nonexistent/check_smtp_client.sock");

    rec_start(&r, 0, NULL);
    peer_say(&r, "220 hi\r\n", 0);
    shutdown(peer_fd, SHUT_WR);
    turn(&r);
    ck_assert_int_eq(r.error, SMTP_CLIENT_CLOSED);
    ck_assert_int_eq(r.errors, 1);
    rec_end(&r);

    rec_start(&r, 0, NULL);
    smtp_client_close(&r.c);
    if (smtp_client_connect(&r.c, (struct sockaddr *)&un, sizeof(un)) == 0) {
        event_base_dispatch(r.base);
        ck_assert_int_eq(r.error, SMTP_CLIENT_CONNECT);
    }
    ck_assert_int_eq(r.connected, 1); /* only the pair's */
    rec_end(&r);
}
END_TEST

/*
 * A connection that owes nothing may take the next transaction only while
 * the peer has said nothing more: not with bytes behind the last reply
 * (read with it), nor on the socket still unread, nor after the peer's
 * end of file; and not while a reply is owed.
 */
START_TEST(test_reusable)
{
    struct rec r;

    rec_start(&r, 0, NULL);
    ck_assert_int_eq(smtp_client_reusable(&r.c), 0); /* the greeting is owed */
    peer_say(&r, "220 hi\r\n", 0);
    ck_assert_int_eq(r.reusable[0], 1);
    ck_assert_int_eq(smtp_client_reusable(&r.c), 1);
    ck_assert_int_eq(write(peer_fd, "421 bye\r\n", 9), 9); /* not read yet */
    ck_assert_int_eq(smtp_client_reusable(&r.c), 0);
    turn(&r);
    ck_assert_int_eq(r.error, SMTP_CLIENT_UNASKED);
    ck_assert_int_eq(smtp_client_reusable(&r.c), 0); /* closed */
    rec_end(&r);

    /* the peer's end of file, not read yet */
    rec_start(&r, 0, NULL);
    peer_say(&r, "220 hi\r\n", 0);
    shutdown(peer_fd, SHUT_WR);
    ck_assert_int_eq(smtp_client_reusable(&r.c), 0);
    rec_end(&r);

    /* a reply owed; then its reply with a stray one behind it, read at once */
    rec_start(&r, 0, NULL);
    peer_say(&r, "220 hi\r\n", 0);
    smtp_client_send(&r.c, "NOOP\r\n", 6);
    ck_assert_int_eq(smtp_client_reusable(&r.c), 0);
    smtp_client_flush(&r.c);
    peer_expect(&r, "NOOP\r\n");
    peer_say(&r, "250 ok\r\n421 bye\r\n", 0);
    ck_assert_int_eq(r.replies, 2);
    ck_assert_int_eq(r.reusable[1], 0);
    ck_assert_int_eq(r.error, SMTP_CLIENT_UNASKED);
    rec_end(&r);
}
END_TEST

/* Postfix's VSTREAM buffer on TCP: four times the MSS in whole pages (as Postfix 3.7 writes). */
START_TEST(test_stream_unit)
{
    ck_assert_uint_eq(smtp_client_stream_unit(0), 4096);    /* unknown */
    ck_assert_uint_eq(smtp_client_stream_unit(536), 4096);  /* under a quarter of 4096 */
    ck_assert_uint_eq(smtp_client_stream_unit(1024), 4096); /* a quarter: not over it */
    ck_assert_uint_eq(smtp_client_stream_unit(1025), 8192);
    ck_assert_uint_eq(smtp_client_stream_unit(1448), 8192);    /* Ethernet: 5,792 in pages */
    ck_assert_uint_eq(smtp_client_stream_unit(32741), 131072); /* loopback, as seen */
    ck_assert_uint_eq(smtp_client_stream_unit(65483), 262144); /* loopback at its largest */
}
END_TEST

/* The bytes the peer can read now, without waiting (the client's loop turned first). */
static size_t peer_drain(struct rec *r)
{
    static char buf[1 << 16];
    size_t have = 0;
    ssize_t n;

    turn(r);
    while ((n = recv(peer_fd, buf, sizeof(buf), MSG_DONTWAIT)) > 0)
        have += (size_t)n;
    return have;
}

/*
 * A text leaves in whole stream units until its dot, which takes the rest:
 * a short piece in the middle would wait behind Nagle's algorithm.
 */
START_TEST(test_text_in_units)
{
    struct rec r;
    static char text[10000];

    memset(text, 'x', sizeof(text));
    rec_start(&r, 0, NULL);
    peer_say(&r, "220 hi\r\n", 0);
    r.c.stream_unit = 4096; /* a pair has none: as a TCP connection's would be */
    smtp_client_text_begin(&r.c);
    evbuffer_add(smtp_client_output(&r.c), text, 3000);
    ck_assert_int_eq(smtp_client_flush(&r.c), 0);
    ck_assert_uint_eq(smtp_client_pending(&r.c), 0);
    ck_assert_uint_eq(peer_drain(&r), 0); /* under a unit: held */
    evbuffer_add(smtp_client_output(&r.c), text, sizeof(text) - 3000);
    smtp_client_flush(&r.c);
    ck_assert_uint_eq(peer_drain(&r), 8192); /* two whole units */
    evbuffer_add(smtp_client_output(&r.c), "\r\n.\r\n", 5);
    smtp_client_dot(&r.c);
    smtp_client_flush(&r.c);
    ck_assert_uint_eq(peer_drain(&r), sizeof(text) - 8192 + 5); /* the rest with the dot */
    ck_assert_uint_eq(r.c.owed, 1);
    /* after the dot, commands go at once again */
    smtp_client_send(&r.c, "QUIT\r\n", 6);
    smtp_client_flush(&r.c);
    ck_assert_uint_eq(peer_drain(&r), 6);
    rec_end(&r);

    /* no unit (TLS, a local socket): the text goes as it comes */
    rec_start(&r, 0, NULL);
    peer_say(&r, "220 hi\r\n", 0);
    smtp_client_text_begin(&r.c);
    evbuffer_add(smtp_client_output(&r.c), text, 3000);
    smtp_client_flush(&r.c);
    ck_assert_uint_eq(peer_drain(&r), 3000);
    rec_end(&r);
}
END_TEST

/* The words the relay's messages use: a connect that timed out is a timeout like any other. */
START_TEST(test_error_text)
{
    ck_assert_str_eq(smtp_client_error_text(SMTP_CLIENT_TIMEOUT, 0), "timeout");
    ck_assert_str_eq(smtp_client_error_text(SMTP_CLIENT_CONNECT, ETIMEDOUT), "timeout");
    ck_assert_str_eq(smtp_client_error_text(SMTP_CLIENT_CONNECT, ECONNREFUSED),
                     strerror(ECONNREFUSED));
    ck_assert_str_eq(smtp_client_error_text(SMTP_CLIENT_SOCKET, ETIMEDOUT), strerror(ETIMEDOUT));
    ck_assert_str_eq(smtp_client_error_text(SMTP_CLIENT_CLOSED, 0), "connection closed");
    ck_assert_str_eq(smtp_client_error_text(SMTP_CLIENT_UNASKED, 0), "text before a command");
}
END_TEST

int main(void)
{
    signal(SIGPIPE, SIG_IGN); /* a peer that writes to a client that has closed */
    const TTest *const tests[] = {test_split_every_byte,
                                  test_split_anywhere,
                                  test_early_reply,
                                  test_reply_never_asked,
                                  test_malformed_and_long,
                                  test_250_before_dot,
                                  test_250_after_dot,
                                  test_tls_injection_same_read,
                                  test_tls_injection_apart,
                                  test_closed_and_connect,
                                  test_reusable,
                                  test_error_text,
                                  test_stream_unit,
                                  test_text_in_units,
                                  NULL};

    return check_run_loop("smtp_client", 0, tests, test_250_before_text, CHECK_ROWS(before_text));
}
