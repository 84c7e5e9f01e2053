/*
 * source_counts - what an smtp-source run counts: the messages attempted,
 * delivered and failed, and what the delivered ones carried. smtp-source
 * writes them in its JSON result; spoolsim merge reads them back from
 * several results and adds them up. One struct, one list of names and one
 * writer, so that the two cannot come to disagree on a name.
 */
#ifndef SPOOLSIM_SOURCE_COUNTS_H
#define SPOOLSIM_SOURCE_COUNTS_H

#include <stddef.h>
#include <stdint.h>

#include "json.h"

struct source_counts {
    uint64_t attempted, delivered, failed;
    uint64_t bytes;      /* content bytes of delivered messages */
    uint64_t recipients; /* accepted recipients of delivered messages */
    uint64_t connections;
    uint64_t tls_sessions;
};

/* How many counts there are; source_counts_name(i) and source_counts_at(c, i) for each. */
#define SOURCE_COUNTS_N 7

/* The JSON name of count i ("attempted", ...), in the struct's order. */
const char *source_counts_name(size_t i);

/* Count i of c, to read into or from. */
uint64_t *source_counts_at(struct source_counts *c, size_t i);

/* dst += src, count by count. */
void source_counts_add(struct source_counts *dst, const struct source_counts *src);

/*
 * Each count under its name, then delivered_per_s and bytes_per_s over
 * secs (0 when secs is not positive).
 */
void source_counts_write_json(struct json_writer *w, const struct source_counts *c, double secs);

#endif
