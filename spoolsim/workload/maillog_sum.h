/*
 * maillog_sum - the events of a mail log (maillog_line) summed into a
 * workload: how many messages, their sizes and recipients, the messages
 * a connection carried, arrivals per minute (peak, burstiness), and the
 * shares deferred and bounced.
 *
 * Pure: no I/O but the JSON writer's stream, no clock. Memory is bounded
 * whatever the log's length: the distributions are histograms of constant
 * size (common/report/histogram.h: exact below 128, within 0.4% above);
 * the messages between their arrival and their removal are a fixed table
 * of MAILLOG_SUM_WAYS * MAILLOG_SUM_SETS queue IDs, the oldest evicted when
 * a set is full (counted: an evicted message that is tried again later
 * counts as a second arrival, its later outcomes as recipients only); the
 * arrivals per minute are one counter a minute, over at most
 * MAILLOG_SUM_MINUTES_MAX minutes from the first (later or earlier ones
 * counted as out of range, not binned).
 *
 * A Postfix message that qmgr moves to the active queue again (a retry)
 * arrives once while its queue ID is in the table. Exim's recipients are
 * its outcome lines (=>, ->, *>, **) until Completed.
 */
#ifndef SPOOLSIM_MAILLOG_SUM_H
#define SPOOLSIM_MAILLOG_SUM_H

#include <stddef.h>
#include <stdint.h>

#include "histogram.h"
#include "maillog_line.h"

#define MAILLOG_SUM_WAYS 4
#define MAILLOG_SUM_SETS 16384
#define MAILLOG_SUM_MINUTES_MAX (400 * 24 * 60)

struct maillog_slot {
    char qid[MAILLOG_QID_MAX + 1];
    uint64_t age; /* order of arrival; 0: free */
    uint32_t rcpts;
    uint8_t mta, deferred, bounced;
};

/* Why the reader skipped a line before the parser saw it. */
enum maillog_skip { MAILLOG_SKIP_TOO_LONG, MAILLOG_SKIP_BINARY };

struct maillog_lines {
    uint64_t read;     /* every line, skipped or not */
    uint64_t used;     /* an event the workload counts */
    uint64_t ignored;  /* a mail program's line of no count (warnings, rejects, client=) */
    uint64_t other;    /* another program's, or no stamp we know */
    uint64_t unparsed; /* a mail program's line of a kind we count, broken */
    uint64_t too_long; /* longer than the reader's bound */
    uint64_t binary;   /* NUL bytes in it */
    uint64_t postfix, exim;
};

struct maillog_sum {
    struct maillog_lines lines;
    uint64_t messages; /* arrivals */
    uint64_t requeued; /* Postfix's qmgr lines of a message already counted */
    uint64_t bytes;
    uint64_t connections, disconnects_counted, disconnects_uncounted;
    uint64_t sent, deferred, bounced, expired;           /* outcome lines (recipients) */
    uint64_t msgs_finished, msgs_deferred, msgs_bounced; /* messages whose IDs were tracked */
    uint64_t evicted, out_of_order, out_of_range;
    double first, last, latest; /* times of the first and last events; the latest seen */
    struct histogram size, rcpts, per_conn, delay_us;
    double delays_sum[4];
    uint64_t delays_n;
    /* arrivals per minute from minute_base */
    int64_t minute_base;
    uint32_t *minutes;
    size_t n_minutes, cap_minutes;
    uint64_t clock; /* arrival order for eviction */
    struct maillog_slot *table;
};

struct maillog_rate {
    size_t minutes;   /* from the first arrival's minute to the last's */
    double mean;      /* arrivals a minute */
    uint32_t peak;    /* the busiest minute's arrivals */
    double peak_time; /* its start, Unix seconds */
    double peak_to_mean;
    double cv; /* standard deviation over mean of the minutes' counts */
};

void maillog_sum_init(struct maillog_sum *s);
void maillog_sum_free(struct maillog_sum *s);
/* One parsed line (of any kind) into the sums. */
void maillog_sum_add(struct maillog_sum *s, const struct maillog_event *ev);
/* One line the reader skipped before parsing. */
void maillog_sum_skip(struct maillog_sum *s, enum maillog_skip why);
/* At the log's end: the messages still in the table count as finished. */
void maillog_sum_finish(struct maillog_sum *s);
void maillog_sum_rate(const struct maillog_sum *s, struct maillog_rate *r);

struct json_writer;
/* The workload's keys (docs/json.md "spoolsim workload"), into an object already open. */
void maillog_sum_write_json(struct json_writer *w, const struct maillog_sum *s);

#endif
