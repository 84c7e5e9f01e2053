/*
 * Unit tests: smtp_server, the servers' session core, over a socketpair
 * against a client (this test) that pipelines commands and reads nothing
 * (docs/security.md item 11). The policy answers each command with a long
 * reply and notes, as it takes each one, how much output waited unsent:
 * the core takes a command only while that is within its high-water mark.
 * The core stops, its input stays within its own mark, and once the client
 * reads, every command that waited is answered, in order; with the core's
 * own reader (bev_in) and with the bufferevent's. While it waits, the event
 * loop must not spin on it (libevent re-runs a read callback that leaves
 * its input at a read watermark): the session's 10 s timeout would end it.
 */
#include "config.h"

#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>

#include "check_main.h"
#include "smtp_server.h"

#define COMMANDS 100000
#define COMMAND "NOOP\r\n"
#define COMMAND_LEN 6
#define REPLY_LEN 200 /* "250 " and the command's number, padded, and CR LF */

struct srv {
    struct smtp_server_conn conn;
    unsigned taken;
    size_t most_waiting; /* the most output unsent as a command was taken */
};

static void on_command(void *ctx, const char *line, size_t len)
{
    struct srv *s = ctx;
    struct evbuffer *out = bufferevent_get_output(s->conn.bev);
    char reply[REPLY_LEN + 1];
    size_t waiting = evbuffer_get_length(out);

    if (waiting > s->most_waiting)
        s->most_waiting = waiting;
    ck_assert(len == COMMAND_LEN - 2 && memcmp(line, COMMAND, len) == 0);
    memset(reply, 'x', REPLY_LEN);
    snprintf(reply, sizeof(reply), "250 %08u", s->taken++);
    reply[12] = 'x';
    memcpy(reply + REPLY_LEN - 2, "\r\n", 2);
    evbuffer_add(out, reply, REPLY_LEN);
}

static void unexpected(void *ctx)
{
    (void)ctx;
    ck_abort_msg("the core called a callback this test does not expect");
}

/* A loop that spins on a session it cannot serve never returns; its timeout ends it here. */
static void on_timeout(void *ctx)
{
    (void)ctx;
    ck_abort_msg("the session timed out: the event loop spun or the session stalled");
}

static void on_chunk(void *ctx, const char *buf, size_t len)
{
    (void)buf;
    (void)len;
    unexpected(ctx);
}

static const struct smtp_server_ops ops = {
    .on_command = on_command,
    .on_too_long = unexpected,
    .on_data_chunk = on_chunk,
    .on_data_end = unexpected,
    .on_timeout = on_timeout,
    .on_tls_started = unexpected,
    .on_free = unexpected,
};

static void turn(struct event_base *base, int times)
{
    for (int i = 0; i < times; i++)
        event_base_loop(base, EVLOOP_NONBLOCK);
}

/* Row 0: the core's own reader, as both servers run it; row 1: the bufferevent's. */
START_TEST(test_pipelined_without_reading)
{
    struct event_base *base = event_base_new();
    struct smtp_server_config cfg = {base, NULL, 10, 0, 0};
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    size_t total = (size_t)COMMANDS * COMMAND_LEN, sent = 0, got = 0, at = 0;
    char *commands = malloc(total), reply[REPLY_LEN], buf[1 << 16];
    unsigned answered = 0;
    struct srv s;
    int sv[2];

    ck_assert_ptr_nonnull(base);
    ck_assert_ptr_nonnull(commands);
    for (size_t i = 0; i < COMMANDS; i++)
        memcpy(commands + i * COMMAND_LEN, COMMAND, COMMAND_LEN);
    ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    ck_assert_int_eq(fcntl(sv[0], F_SETFL, O_NONBLOCK), 0);
    ck_assert_int_eq(fcntl(sv[1], F_SETFL, O_NONBLOCK), 0);
    memset(&s, 0, sizeof(s));
    ck_assert_int_eq(smtp_server_start(&s.conn, &cfg, &ops, &s, sv[0], (struct sockaddr *)&addr),
                     0);
    if (_i == 0)
        ck_assert_int_eq(smtp_server_direct_read(&s.conn), 0);
    smtp_server_read(&s.conn, 1);

    /* Write until the server takes nothing more; read nothing. */
    for (int idle = 0; idle < 50 && sent < total;) {
        ssize_t n = write(sv[1], commands + sent, total - sent);

        if (n > 0) {
            sent += (size_t)n;
            idle = 0;
        } else {
            idle++;
        }
        turn(base, 3);
    }
    turn(base, 50);
    ck_assert_msg(sent < total, "the server took all %zu bytes without a reply read", total);
    ck_assert_msg(s.taken < COMMANDS / 10, "%u commands taken", s.taken);
    ck_assert_uint_le(s.most_waiting, SMTP_SERVER_OUTPUT_HIGH_WATER);
    ck_assert_int_eq(s.conn.output_paused, 1);
    ck_assert_uint_le(evbuffer_get_length(bufferevent_get_input(s.conn.bev)),
                      SMTP_SERVER_INPUT_HIGH_WATER + BEV_IN_READ_MAX);

    /* Now read: the rest is written as it goes, and every reply comes, in order. */
    for (long round = 0; got < (size_t)COMMANDS * REPLY_LEN && round < 10000000; round++) {
        ssize_t n;

        if (sent < total && (n = write(sv[1], commands + sent, total - sent)) > 0)
            sent += (size_t)n;
        while ((n = read(sv[1], buf, sizeof(buf))) > 0) {
            for (ssize_t i = 0; i < n; i++) {
                reply[at++] = buf[i];
                if (at < REPLY_LEN)
                    continue;
                ck_assert_msg(strtoul(reply + 4, NULL, 10) == answered, "reply %u out of order",
                              answered);
                answered++;
                at = 0;
            }
            got += (size_t)n;
        }
        turn(base, 1);
    }
    ck_assert_uint_eq(answered, COMMANDS);
    ck_assert_uint_eq(s.taken, COMMANDS);
    ck_assert_uint_le(s.most_waiting, SMTP_SERVER_OUTPUT_HIGH_WATER);
    ck_assert_int_eq(s.conn.output_paused, 0);
    smtp_server_release(&s.conn);
    turn(base, 1);
    event_base_free(base);
    close(sv[1]);
    free(commands);
}
END_TEST

int main(void)
{
    const TTest *const none[] = {NULL};

    return check_run_loop("smtp_server", 60, none, test_pipelined_without_reading, 2);
}
