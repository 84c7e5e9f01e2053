/*
 * fuzz_smtp_line - smtp_line_next() on arbitrary bytes in arbitrary chunks.
 *
 * The line reader is the first thing that touches bytes from the network
 * in both smtp-sink and smtp-source, and it is stateful across calls, so
 * the input is fed three ways: all at once, a byte at a time (inputs up
 * to 1 kB; longer ones get a second random chunking instead), and in a
 * chunking drawn from the input's hash; the line limit is drawn too (tiny
 * limits make the over-long path common). Every call must consume no more
 * than it was given and make progress whenever it returns a line or
 * TOO_LONG, and what a caller keeps buffered after NEED_MORE must stay
 * under the limit. The lines and TOO_LONG reports (by stream offset) must
 * not depend on the chunking at all, and must equal those of a plain
 * reference split of the whole stream per smtp_line.h.
 */
#include "config.h"

#include "fuzz.h"
#include "smtp_line.h"

struct event {
    int status;    /* SMTP_LINE_OK or SMTP_LINE_TOO_LONG */
    size_t offset; /* OK: where the line's text starts in the stream */
    size_t len;
    int bare_lf;
};

struct events {
    struct event *v;
    size_t n, cap;
};

static void add(struct events *e, int status, size_t offset, size_t len, int bare_lf)
{
    if (e->n == e->cap) {
        e->cap = e->cap ? 2 * e->cap : 64;
        e->v = realloc(e->v, e->cap * sizeof(*e->v));
        FUZZ_CHECK(e->v != NULL);
    }
    e->v[e->n].status = status;
    e->v[e->n].offset = offset;
    e->v[e->n].len = len;
    e->v[e->n].bare_lf = bare_lf;
    e->n++;
}

/* What smtp_line.h promises, written as plainly as possible. */
static void reference(const char *s, size_t n, size_t limit, struct events *out)
{
    size_t pos = 0;

    while (pos < n) {
        const char *lf = memchr(s + pos, '\n', n - pos);
        size_t raw = lf ? (size_t)(lf - (s + pos)) + 1 : n - pos; /* LF included */

        if (lf && raw <= limit) {
            size_t len = raw - 1;
            int bare = !(len > 0 && s[pos + len - 1] == '\r');

            add(out, SMTP_LINE_OK, pos, bare ? len : len - 1, bare);
            pos += raw;
        } else if (n - pos >= limit) {
            add(out, SMTP_LINE_TOO_LONG, 0, 0, 0);
            pos = lf ? pos + raw : n;
        } else {
            break; /* an unfinished short line */
        }
    }
}

/*
 * Feed s in chunks; chunk == 0 draws the sizes from rng. The reader gets
 * the unconsumed bytes and the new chunk in an allocation of exactly that
 * size, so ASan sees any read past what it was given.
 */
static void feed(const char *s, size_t n, size_t limit, size_t chunk, struct fuzz_rng *rng,
                 struct events *out)
{
    struct smtp_line_reader rd;
    char *buf = NULL;
    size_t have = 0, start = 0, fed = 0; /* buf[start, have) is unconsumed */

    smtp_line_init(&rd, limit);
    while (fed < n) {
        size_t take = chunk ? (chunk < n - fed ? chunk : n - fed) : fuzz_chunk(rng, n - fed);
        char *next = malloc(have - start + take);

        FUZZ_CHECK(next != NULL);
        if (have > start)
            memcpy(next, buf + start, have - start);
        memcpy(next + have - start, s + fed, take);
        free(buf);
        buf = next;
        have = have - start + take;
        start = 0;
        fed += take;
        for (;;) {
            struct smtp_line line;
            size_t consumed = (size_t)-1, avail = have - start;
            const char *p = buf + start;
            size_t base = fed - avail; /* stream offset of p[0] */
            enum smtp_line_status st = smtp_line_next(&rd, p, avail, &line, &consumed);

            FUZZ_CHECK(consumed <= avail);
            if (st == SMTP_LINE_OK) {
                FUZZ_CHECK(consumed > 0);
                FUZZ_CHECK(line.text >= p && line.text + line.len <= p + avail);
                FUZZ_CHECK(line.len < limit);
                /* The text, its optional CR and the LF fit the limit. */
                FUZZ_CHECK(line.len + (line.bare_lf ? 1 : 2) <= limit);
                FUZZ_CHECK(memchr(line.text, '\n', line.len) == NULL);
                FUZZ_CHECK(line.text[line.len + (line.bare_lf ? 0 : 1)] == '\n');
                add(out, st, base + (size_t)(line.text - p), line.len, line.bare_lf);
            } else if (st == SMTP_LINE_TOO_LONG) {
                FUZZ_CHECK(consumed > 0);
                add(out, st, 0, 0, 0);
            } else {
                FUZZ_CHECK(st == SMTP_LINE_NEED_MORE);
            }
            start += consumed;
            if (st == SMTP_LINE_NEED_MORE)
                break;
        }
        /* Bounded memory: a caller never holds a whole over-long line. */
        FUZZ_CHECK(have - start < limit);
    }
    free(buf);
}

static int same(const struct events *a, const struct events *b)
{
    if (a->n != b->n)
        return 0;
    for (size_t i = 0; i < a->n; i++) {
        const struct event *x = &a->v[i], *y = &b->v[i];

        if (x->status != y->status || x->offset != y->offset || x->len != y->len ||
            x->bare_lf != y->bare_lf)
            return 0;
    }
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const size_t limits[] = {
        0, 1, 3, 4, 5, 8, 16, 100, SMTP_COMMAND_LINE_LIMIT, SMTP_REPLY_LINE_LIMIT};
    const char *s = (const char *)data;
    struct fuzz_rng rng;
    struct events ref = {0}, whole = {0}, bytes = {0}, random = {0};
    size_t limit;

    fuzz_rng_init(&rng, fuzz_hash(data, size));
    limit = limits[fuzz_rng_next(&rng) % (sizeof(limits) / sizeof(limits[0]))];
    {
        struct smtp_line_reader rd;

        smtp_line_init(&rd, limit);
        limit = rd.limit; /* init raises a limit below 3 */
        FUZZ_CHECK(limit >= 3 && rd.discarding == 0);
    }
    reference(s, size, limit, &ref);
    feed(s, size, limit, size ? size : 1, &rng, &whole);
    if (size <= 1024) /* a byte at a time costs size x limit; random chunks have many 1s */
        feed(s, size, limit, 1, &rng, &bytes);
    else
        feed(s, size, limit, 0, &rng, &bytes);
    feed(s, size, limit, 0, &rng, &random);
    FUZZ_CHECK(same(&ref, &whole));
    FUZZ_CHECK(same(&ref, &bytes));
    FUZZ_CHECK(same(&ref, &random));
    free(ref.v);
    free(whole.v);
    free(bytes.v);
    free(random.v);
    return 0;
}
