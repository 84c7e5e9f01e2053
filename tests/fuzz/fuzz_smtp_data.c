/*
 * fuzz_smtp_data - smtp_data_feed() under all three bare-LF policies.
 *
 * The DATA reader decides where a message ends, which is exactly what
 * SMTP smuggling attacks, so its answer must not depend on how the bytes
 * were cut into reads. The input is fed whole and in a chunking drawn
 * from its hash, for strict, normalize and lenient, and checked against a
 * reference model written from smtp_data.h: the end-of-data position
 * (CR LF "." CR LF, the start counting as CR LF; lenient also takes "."
 * LF and "." CR LF after a bare LF), the un-stuffed content (a leading
 * dot dropped unless the line is only "."; bare LF stored as CR LF except
 * under strict; a held-back "." or "." CR at the end not yet emitted),
 * the bare LF / bare CR flags and what smtp_data_reject() says. Also:
 * nothing is consumed past the end, nothing more is taken once done,
 * content_bytes counts what was emitted, and the output never outgrows the
 * input by more than the CRs that normalizing bare LFs adds.
 */
#include "config.h"

#include "fuzz.h"
#include "smtp_data.h"

struct result {
    int done;
    size_t consumed;
    int bare_lf_seen, bare_cr_seen;
    struct fuzz_buf content;
};

static int line_start(const char *in, size_t i)
{
    return i == 0 || in[i - 1] == '\n';
}

/* Where the "." of the end-of-data line is, or n if there is none. */
static size_t find_end(const char *in, size_t n, enum smtp_bare_lf_policy policy, size_t *consumed)
{
    for (size_t d = 0; d < n; d++) {
        if (in[d] != '.')
            continue;
        if (policy == SMTP_BARE_LF_LENIENT) {
            if (!line_start(in, d))
                continue;
            if (d + 1 < n && in[d + 1] == '\n') {
                *consumed = d + 2;
                return d;
            }
        } else if (d != 0 && !(d >= 2 && in[d - 2] == '\r' && in[d - 1] == '\n')) {
            continue;
        }
        if (d + 2 < n && in[d + 1] == '\r' && in[d + 2] == '\n') {
            *consumed = d + 3;
            return d;
        }
    }
    *consumed = n;
    return n;
}

static void model(const char *in, size_t n, enum smtp_bare_lf_policy policy, struct result *r)
{
    size_t end = find_end(in, n, policy, &r->consumed);

    r->done = end < n;
    if (!r->done) {
        /* A "." or "." CR at the start of the last line waits for the next byte. */
        if (n >= 1 && in[n - 1] == '.' && line_start(in, n - 1))
            end = n - 1;
        else if (n >= 2 && in[n - 2] == '.' && in[n - 1] == '\r' && line_start(in, n - 2))
            end = n - 2;
    }
    for (size_t i = 0; i < end; i++) {
        char c = in[i];

        if (c == '.' && line_start(in, i)) {
            int only_dot = (i + 1 < n && in[i + 1] == '\n') ||
                           (i + 2 < n && in[i + 1] == '\r' && in[i + 2] == '\n');

            if (!only_dot)
                continue; /* dot-stuffing */
        }
        if (c == '\n' && (i == 0 || in[i - 1] != '\r') && policy != SMTP_BARE_LF_STRICT)
            fuzz_buf_put(&r->content, "\r", 1);
        fuzz_buf_put(&r->content, &c, 1);
    }
    for (size_t i = 0; i < r->consumed; i++) {
        /* Lenient's "." LF terminator ends in an LF that is no content line end. */
        if (r->done && policy == SMTP_BARE_LF_LENIENT && i == r->consumed - 1)
            break;
        if (in[i] == '\n' && (i == 0 || in[i - 1] != '\r'))
            r->bare_lf_seen = 1;
        if (in[i] == '\r' && i + 1 < r->consumed && in[i + 1] != '\n')
            r->bare_cr_seen = 1;
    }
}

static void emit(void *ctx, const char *buf, size_t len)
{
    FUZZ_CHECK(len > 0 && buf != NULL);
    fuzz_buf_put(ctx, buf, len);
}

/*
 * Feed in chunks (rng NULL: all at once), each chunk in an allocation of
 * its exact size so that ASan sees a read past it; the reader's view in r.
 */
static void run(const char *in, size_t n, enum smtp_bare_lf_policy policy, struct fuzz_rng *rng,
                struct result *r)
{
    struct smtp_data_reader rd;
    size_t fed = 0, lfs = 0; /* LFs in the bytes consumed so far */

    smtp_data_init(&rd, policy);
    while (fed < n) {
        size_t take = rng ? fuzz_chunk(rng, n - fed) : n - fed, used;
        char *chunk = malloc(take);

        FUZZ_CHECK(chunk != NULL);
        memcpy(chunk, in + fed, take);
        used = smtp_data_feed(&rd, chunk, take, emit, &r->content);
        free(chunk);
        FUZZ_CHECK(used <= take);
        for (size_t i = fed; i < fed + used; i++)
            lfs += in[i] == '\n';
        fed += used;
        FUZZ_CHECK(rd.content_bytes == r->content.len);
        /* Un-stuffing only removes bytes; normalizing adds a CR per bare LF. */
        if (policy == SMTP_BARE_LF_STRICT)
            FUZZ_CHECK(r->content.len <= fed);
        else
            FUZZ_CHECK(r->content.len <= fed + lfs);
        if (rd.done)
            break;
        FUZZ_CHECK(used == take); /* not done: everything is taken */
    }
    r->done = rd.done;
    r->consumed = fed;
    r->bare_lf_seen = rd.bare_lf_seen;
    r->bare_cr_seen = rd.bare_cr_seen;
    if (rd.done) {
        size_t before = r->content.len;

        FUZZ_CHECK(fed >= 3 || (fed == 2 && policy == SMTP_BARE_LF_LENIENT));
        FUZZ_CHECK(in[fed - 1] == '\n');
        /* Once done, nothing more is read or emitted. */
        FUZZ_CHECK(smtp_data_feed(&rd, in, n, emit, &r->content) == 0);
        FUZZ_CHECK(r->content.len == before);
    }
    if (policy == SMTP_BARE_LF_STRICT)
        FUZZ_CHECK((smtp_data_reject(&rd) != NULL) == (rd.bare_lf_seen || rd.bare_cr_seen));
    else
        FUZZ_CHECK(smtp_data_reject(&rd) == NULL);
}

static void compare(const struct result *a, const struct result *b)
{
    FUZZ_CHECK(a->done == b->done);
    FUZZ_CHECK(a->consumed == b->consumed);
    FUZZ_CHECK(a->bare_lf_seen == b->bare_lf_seen);
    FUZZ_CHECK(a->bare_cr_seen == b->bare_cr_seen);
    FUZZ_CHECK(a->content.len == b->content.len);
    FUZZ_CHECK(a->content.len == 0 ||
               memcmp(a->content.data, b->content.data, a->content.len) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const enum smtp_bare_lf_policy policies[] = {SMTP_BARE_LF_STRICT, SMTP_BARE_LF_NORMALIZE,
                                                        SMTP_BARE_LF_LENIENT};
    const char *in = (const char *)data;
    struct fuzz_rng rng;

    fuzz_rng_init(&rng, fuzz_hash(data, size));
    for (size_t p = 0; p < sizeof(policies) / sizeof(policies[0]); p++) {
        struct result ref = {0}, whole = {0}, chunked = {0};

        model(in, size, policies[p], &ref);
        run(in, size, policies[p], NULL, &whole);
        run(in, size, policies[p], &rng, &chunked);
        compare(&ref, &whole);
        compare(&ref, &chunked);
        free(ref.content.data);
        free(whole.content.data);
        free(chunked.content.data);
    }
    return 0;
}
