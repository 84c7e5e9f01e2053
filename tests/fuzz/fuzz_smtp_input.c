/*
 * fuzz_smtp_input - a server's input path, from a libevent buffer.
 *
 * The input is read as smtp-sink and the relay read it: command lines
 * through smtp_input_line(), and after a line "DATA" message text through
 * smtp_input_data() to the end of data, then lines again. It arrives in
 * a chunking drawn from the input's hash, appended to the evbuffer the way
 * reads append, and is read after every chunk. What is read (each line,
 * each over-long report, each message's whole content, and what of an
 * unfinished one was handed over when the input ran out) must
 * not depend on the chunking: it must equal a run with the whole input in
 * one chunk. After NEED_MORE less than the line limit may stay buffered,
 * and the DATA reader must leave what follows the end of data unread.
 */
#include "config.h"

#include <event2/buffer.h>

#include "fuzz.h"
#include "smtp_input.h"

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

/* Content comes in runs that follow the chunking: only their sum counts. */
static void on_content(void *ctx, const char *p, size_t n)
{
    put(ctx, p, n);
}

static int is_data(const char *line, size_t len)
{
    return len == 4 && (line[0] | 0x20) == 'd' && (line[1] | 0x20) == 'a' &&
           (line[2] | 0x20) == 't' && (line[3] | 0x20) == 'a';
}

struct server {
    struct smtp_line_reader lines;
    struct smtp_data_reader data;
    int in_data;
    enum smtp_bare_lf_policy policy;
    struct transcript message; /* the content of the message being read */
    struct transcript out;
};

/* Read what is buffered, as a session does after each read. */
static void drain(struct server *sv, struct evbuffer *in)
{
    for (;;) {
        char line[SMTP_COMMAND_LINE_LIMIT];
        size_t len = 0;

        if (sv->in_data) {
            size_t before = evbuffer_get_length(in);

            if (!smtp_input_data(&sv->data, in, on_content, &sv->message)) {
                FUZZ_CHECK(evbuffer_get_length(in) == 0); /* all of it taken */
                return;
            }
            FUZZ_CHECK(evbuffer_get_length(in) <= before);
            put_event(&sv->out, 'm', sv->message.buf, sv->message.len);
            put_event(&sv->out, '.', smtp_data_reject(&sv->data) ? "r" : "a", 1);
            sv->message.len = 0;
            sv->in_data = 0;
            continue;
        }
        switch (smtp_input_line(&sv->lines, in, line, sizeof(line), &len)) {
        case SMTP_LINE_OK:
            FUZZ_CHECK(len < sv->lines.limit);
            put_event(&sv->out, 'l', line, len);
            if (is_data(line, len)) {
                smtp_data_init(&sv->data, sv->policy);
                sv->in_data = 1;
            }
            break;
        case SMTP_LINE_TOO_LONG:
            put_event(&sv->out, 't', "", 0);
            break;
        case SMTP_LINE_NEED_MORE:
            /* Bounded memory: never a whole over-long line buffered. */
            FUZZ_CHECK(evbuffer_get_length(in) < sv->lines.limit);
            return;
        }
    }
}

static void run(const uint8_t *data, size_t size, size_t limit, enum smtp_bare_lf_policy policy,
                struct fuzz_rng *rng, struct transcript *out)
{
    struct server sv;
    struct evbuffer *in = evbuffer_new();
    size_t fed = 0;

    FUZZ_CHECK(in != NULL);
    memset(&sv, 0, sizeof(sv));
    smtp_line_init(&sv.lines, limit);
    sv.policy = policy;
    while (fed < size) {
        size_t take = rng ? fuzz_chunk(rng, size - fed) : size - fed;

        evbuffer_add(in, data + fed, take);
        fed += take;
        drain(&sv, in);
    }
    if (sv.in_data)
        put_event(&sv.out, 'p', sv.message.buf, sv.message.len);
    free(sv.message.buf);
    evbuffer_free(in);
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
