/*
 * fuzz.h - what the libFuzzer targets in tests/fuzz share.
 *
 * Each fuzz_<name>.c defines LLVMFuzzerTestOneInput() and checks the
 * invariants of one pure module with FUZZ_CHECK(), which stays on under
 * NDEBUG and traps, so that libFuzzer keeps the input as a crash artifact.
 * Where a target wants to vary something the input bytes themselves
 * should not (a chunking, a limit), it draws it from a generator seeded
 * with a hash of the whole input: the run stays reproducible from the
 * artifact alone and the seed corpora stay plain protocol text.
 *
 * Build and run them with `make fuzz' and scripts/fuzz.sh.
 */
#ifndef SPOOLSIM_FUZZ_H
#define SPOOLSIM_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_CHECK(cond)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__, #cond);           \
            __builtin_trap();                                                                      \
        }                                                                                          \
    } while (0)

/* FNV-1a over the input: the seed of everything a target derives from it. */
static inline uint64_t fuzz_hash(const uint8_t *data, size_t size)
{
    uint64_t h = 0xcbf29ce484222325u;

    for (size_t i = 0; i < size; i++)
        h = (h ^ data[i]) * 0x100000001b3u;
    return h;
}

/* xorshift64*: small, fast and good enough to pick chunk sizes. */
struct fuzz_rng {
    uint64_t s;
};

static inline void fuzz_rng_init(struct fuzz_rng *r, uint64_t seed)
{
    r->s = seed ? seed : 0x9e3779b97f4a7c15u;
}

static inline uint64_t fuzz_rng_next(struct fuzz_rng *r)
{
    r->s ^= r->s >> 12;
    r->s ^= r->s << 25;
    r->s ^= r->s >> 27;
    return r->s * 0x2545f4914f6cdd1du;
}

/*
 * The size of the next chunk, 1..left: often a single byte (the edges
 * where a reader must keep state), sometimes a few, sometimes large.
 */
static inline size_t fuzz_chunk(struct fuzz_rng *r, size_t left)
{
    uint64_t x = fuzz_rng_next(r);
    size_t n;

    switch (x & 3) {
    case 0:
        n = 1;
        break;
    case 1:
        n = 1 + (size_t)((x >> 8) % 8);
        break;
    case 2:
        n = 1 + (size_t)((x >> 8) % 700);
        break;
    default:
        n = 1 + (size_t)((x >> 8) % 9000);
        break;
    }
    return n < left ? n : left;
}

/* A NUL-terminated copy of the input, for the modules that read C strings. */
static inline char *fuzz_strdup(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);

    FUZZ_CHECK(s != NULL);
    if (size)
        memcpy(s, data, size);
    s[size] = 0;
    return s;
}

/* A growing byte buffer, e.g. for what a reader emits. */
struct fuzz_buf {
    char *data;
    size_t len, cap;
};

static inline void fuzz_buf_put(struct fuzz_buf *b, const void *p, size_t n)
{
    if (b->len + n > b->cap) {
        b->cap = (b->len + n) * 2 + 64;
        b->data = realloc(b->data, b->cap);
        FUZZ_CHECK(b->data != NULL);
    }
    if (n)
        memcpy(b->data + b->len, p, n);
    b->len += n;
}

#endif
