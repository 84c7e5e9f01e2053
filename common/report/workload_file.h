/*
 * workload_file - a workload that `spoolsim workload --from-maillog' wrote
 * (docs/json.md, "spoolsim workload"), read back to drive a load: message
 * sizes drawn from its empirical quantiles, recipients from its counts,
 * and the open-loop arrival rate from its arrivals per minute (the mean,
 * the busiest minute, or the log's own minute by minute profile).
 *
 * Pure: the text is parsed from memory and the draws take the caller's
 * struct prng (workload.h), so that a seed gives the same load on every
 * run; no I/O, no clock, no state beyond the caller's struct. Parsing
 * refuses a text that is not whole JSON, another program's result, or a
 * workload without the keys a load needs, with a one-line message in err.
 */
#ifndef SPOOLSIM_WORKLOAD_FILE_H
#define SPOOLSIM_WORKLOAD_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "workload.h"

/* The program a workload file's header names: anything else is refused. */
#define WORKLOAD_FILE_PROGRAM "spoolsim workload"
#define WORKLOAD_FILE_QUANTILES_MAX 1024
#define WORKLOAD_FILE_RCPT_ROWS_MAX 4096
/* The most recipients a drawn message gets (smtp-source's -r bound). */
#define WORKLOAD_FILE_RCPTS_MAX 100000
/* The most minutes of profile read: maillog_sum.h's 400 days. */
#define WORKLOAD_FILE_MINUTES_MAX (400 * 24 * 60)

struct workload_file {
    uint64_t messages;
    double quantiles[WORKLOAD_FILE_QUANTILES_MAX][2]; /* [percent, bytes], ascending */
    size_t n_quantiles;
    double rcpts[WORKLOAD_FILE_RCPT_ROWS_MAX][2]; /* [recipients, messages] */
    size_t n_rcpts;
    double rcpt_weight; /* the messages of rcpts added */
    double mean_per_min, peak_per_min;
    size_t minutes;
    /* replay: cumulative arrivals at the start of each minute, minutes + 1 of them; NULL: none */
    double *cum;
};

/*
 * 0 and wf filled (free it with workload_file_free()), or -1 with err
 * naming the problem: not JSON, another program's result, a workload of
 * no messages, or keys missing or out of order.
 */
int workload_file_parse(const char *text, struct workload_file *wf, char *err, size_t errlen);
void workload_file_free(struct workload_file *wf);

/* A message size in bytes: a uniform percent, interpolated between its two quantiles. */
uint64_t workload_file_size(const struct workload_file *wf, struct prng *p);
/* The median of the sizes, as workload_file_size() draws them (for reports). */
double workload_file_size_median(const struct workload_file *wf);
/* A message's recipients, by the counts as weights; 1 to WORKLOAD_FILE_RCPTS_MAX. */
unsigned workload_file_rcpts(const struct workload_file *wf, struct prng *p);

/* Messages per second: the mean minute's, or with peak the busiest one's. */
double workload_file_rate(const struct workload_file *wf, int peak);

/*
 * Replay: the log's arrivals minute by minute, each minute lasting
 * 60 / factor seconds and holding scale times its arrivals, spread evenly.
 * The number of arrivals in the whole replay, and the time in seconds from
 * its start of arrival k (from 0): 0, or -1 when k is past the last.
 */
uint64_t workload_file_replay_count(const struct workload_file *wf, double scale);
int workload_file_replay_time(const struct workload_file *wf, double factor, double scale,
                              uint64_t k, double *t_s);

#endif
