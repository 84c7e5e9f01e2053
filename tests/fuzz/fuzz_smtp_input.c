/*
 * fuzz_smtp_input - the servers' input path: common/net's smtp_server core.
 *
 * The input is written into one end of a bufferevent pair whose other end
 * is a smtp_server_conn, so the core's own read callback and input loop
 * run, as in smtp-sink and the relay: command lines through
 * smtp_input_line(), and after a line "DATA" message text through
 * smtp_input_data() to the end of data, then lines again. The input
 * arrives in a chunking drawn from its hash and is read after every chunk.
 * What the core hands its policy (each line, each over-long report, each
 * message's whole content, and what of an unfinished one was handed over
 * when the input ran out) must not depend on the chunking: it must equal
 * a run with the whole input in one chunk. After a read, less than the
 * line limit may stay buffered between commands, and nothing in DATA.
 */
#include "config.h"

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>

#include "fuzz.h"
#include "smtp_server.h"

/* Below the core's high-water mark with a line's rest, so a write always reaches it whole. */
#define PIECE (16 * 1024)

struct transcript {
    char *buf;
    size_t len, cap;
};

static void put(struct transcript *t, const void *p, size_t n)
{
    if (n == 0)
        return; /* an empty message has no buffer yet */
    if (t->len + n > t->cap) {
        t->cap = (t->len + n) * 2 + 64;
        t->buf = realloc(t->buf, t->cap);
        FUZZ_CHECK(t->buf != NULL);
    }
    memcpy(t->buf + t->len, p, n);
    t->len += n;
}

static void put_event(struct transcript *t, char kind, const void *p, size_t n)
{
    put(t, &kind, 1);
    put(t, &n, sizeof(n));
    put(t, p, n);
}

static int is_data(const char *line, size_t len)
{
    return len == 4 && (line[0] | 0x20) == 'd' && (line[1] | 0x20) == 'a' &&
           (line[2] | 0x20) == 't' && (line[3] | 0x20) == 'a';
}

struct server {
    struct smtp_server_conn conn;
    enum smtp_bare_lf_policy policy;
    struct transcript message; /* the content of the message being read */
    struct transcript out;
};

static void on_command(void *ctx, const char *line, size_t len)
{
    struct server *sv = ctx;

    FUZZ_CHECK(len < sv->conn.lines.limit);
    put_event(&sv->out, 'l', line, len);
    if (is_data(line, len))
        smtp_server_begin_data(&sv->conn, sv->policy);
}

static void on_too_long(void *ctx)
{
    put_event(&((struct server *)ctx)->out, 't', "", 0);
}

/* Content comes in runs that follow the chunking: only their sum counts. */
static void on_data_chunk(void *ctx, const char *p, size_t n)
{
    put(&((struct server *)ctx)->message, p, n);
}

static void on_data_end(void *ctx)
{
    struct server *sv = ctx;

    FUZZ_CHECK(!sv->conn.in_data);
    put_event(&sv->out, 'm', sv->message.buf, sv->message.len);
    put_event(&sv->out, '.', smtp_data_reject(&sv->conn.data) ? "r" : "a", 1);
    sv->message.len = 0;
}

/* No timer runs, no TLS is offered and nothing closes the session here. */
static void unreachable(void *ctx)
{
    (void)ctx;
    FUZZ_CHECK(0);
}

static const struct smtp_server_ops ops = {
    .on_command = on_command,
    .on_too_long = on_too_long,
    .on_data_chunk = on_data_chunk,
    .on_data_end = on_data_end,
    .on_timeout = unreachable,
    .on_tls_started = unreachable,
    .on_free = unreachable,
};

static void run(const uint8_t *data, size_t size, size_t limit, enum smtp_bare_lf_policy policy,
                struct fuzz_rng *rng, struct transcript *out)
{
    struct server sv;
    struct event_base *base = event_base_new();
    struct bufferevent *pair[2];
    struct smtp_server_config cfg = {base, NULL, 300, 0, limit};
    struct evbuffer *in, *client;
    size_t fed = 0;

    FUZZ_CHECK(base != NULL);
    FUZZ_CHECK(bufferevent_pair_new(base, 0, pair) == 0);
    memset(&sv, 0, sizeof(sv));
    sv.policy = policy;
    smtp_server_attach(&sv.conn, &cfg, &ops, &sv, pair[0]);
    smtp_server_read(&sv.conn, 1); /* the core reads through its API, as the servers do */
    bufferevent_enable(pair[1], EV_WRITE);
    in = bufferevent_get_input(pair[0]);
    client = bufferevent_get_output(pair[1]);
    while (fed < size) {
        size_t take = rng ? fuzz_chunk(rng, size - fed) : size - fed;

        for (size_t done = 0; done < take;) {
            size_t n = take - done < PIECE ? take - done : PIECE;

            /* A pair defers its callbacks: one pass of the loop runs the core's read. */
            FUZZ_CHECK(bufferevent_write(pair[1], data + fed + done, n) == 0);
            event_base_loop(base, EVLOOP_NONBLOCK);
            FUZZ_CHECK(evbuffer_get_length(client) == 0);
            done += n;
            if (sv.conn.in_data)
                FUZZ_CHECK(evbuffer_get_length(in) == 0); /* all text taken */
            else /* bounded memory: never a whole over-long line buffered */
                FUZZ_CHECK(evbuffer_get_length(in) < limit);
        }
        fed += take;
    }
    if (sv.conn.in_data)
        put_event(&sv.out, 'p', sv.message.buf, sv.message.len);
    free(sv.message.buf);
    smtp_server_release(&sv.conn);
    bufferevent_free(pair[1]);
    event_base_loop(base, EVLOOP_NONBLOCK); /* a bufferevent is finalized from the loop */
    event_base_free(base);
    *out = sv.out;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_rng rng;
    struct transcript whole, chunked;
    uint64_t h = fuzz_hash(data, size);
    size_t limit = 8 + (size_t)(h % (SMTP_COMMAND_LINE_LIMIT - 8 + 1)); /* small ones too */
    enum smtp_bare_lf_policy policy = (enum smtp_bare_lf_policy)((h >> 16) % 3);

    fuzz_rng_init(&rng, h);
    run(data, size, limit, policy, NULL, &whole);
    run(data, size, limit, policy, &rng, &chunked);
    FUZZ_CHECK(whole.len == chunked.len);
    FUZZ_CHECK(whole.len == 0 || memcmp(whole.buf, chunked.buf, whole.len) == 0);
    free(whole.buf);
    free(chunked.buf);
    return 0;
}
