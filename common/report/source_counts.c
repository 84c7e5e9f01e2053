/*
 * source_counts - what an smtp-source run counts; see source_counts.h.
 */
#include "config.h"

#include <stddef.h>

#include "msg.h"
#include "source_counts.h"

static const struct {
    const char *name;
    size_t offset;
} counts[SOURCE_COUNTS_N] = {
    {"attempted", offsetof(struct source_counts, attempted)},
    {"delivered", offsetof(struct source_counts, delivered)},
    {"failed", offsetof(struct source_counts, failed)},
    {"bytes", offsetof(struct source_counts, bytes)},
    {"recipients", offsetof(struct source_counts, recipients)},
    {"connections", offsetof(struct source_counts, connections)},
    {"tls_sessions", offsetof(struct source_counts, tls_sessions)},
};

static void check_index(size_t i)
{
    if (i >= SOURCE_COUNTS_N)
        msg_panic("source_counts: no count %zu", i);
}

const char *source_counts_name(size_t i)
{
    check_index(i);
    return counts[i].name;
}

uint64_t *source_counts_at(struct source_counts *c, size_t i)
{
    check_index(i);
    return (uint64_t *)((char *)c + counts[i].offset);
}

static uint64_t count_of(const struct source_counts *c, size_t i)
{
    return *(const uint64_t *)((const char *)c + counts[i].offset);
}

void source_counts_add(struct source_counts *dst, const struct source_counts *src)
{
    for (size_t i = 0; i < SOURCE_COUNTS_N; i++)
        *source_counts_at(dst, i) += count_of(src, i);
}

void source_counts_write_json(struct json_writer *w, const struct source_counts *c, double secs)
{
    for (size_t i = 0; i < SOURCE_COUNTS_N; i++)
        json_uint(w, counts[i].name, count_of(c, i));
    json_double(w, "delivered_per_s", secs > 0 ? (double)c->delivered / secs : 0);
    json_double(w, "bytes_per_s", secs > 0 ? (double)c->bytes / secs : 0);
}
