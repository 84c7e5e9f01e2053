/*
 * relay_usage - what the machine spent during the relay's busy window, and
 * what limited it.
 *
 * Every stats sample (relay_stats_sample) also records the machine's CPU,
 * the relay's own, the kernel's storage threads', the spool device's busy
 * time, the queue manager thread's busy time (sysusage.h, io_pool.h) and
 * the first event loop's CPU: the two serial stages that can be the wall.
 * Samples are also taken at the first arrival and whenever the queue
 * empties (at most every 100 ms), so that the busy window is bracketed
 * closely. relay_usage_window() turns the two samples around the window
 * into a `struct utilization' for bottleneck_verdict().
 */
#ifndef SPOOLSIM_RELAY_USAGE_H
#define SPOOLSIM_RELAY_USAGE_H

#include "bottleneck.h"
#include "json.h"

struct relay;

/* Find the spool's block device (once, at start). */
void relay_usage_init(struct relay *r);

/* A sample now, or 100 ms after the last one if that is sooner. */
void relay_usage_mark(struct relay *r);
void relay_usage_free(struct relay *r);

/* 0 and `u' filled for the busy window, or -1 with fewer than two samples. */
int relay_usage_window(const struct relay *r, struct utilization *u);
/* The same, and the busy fractions of the qmgr thread (< 0: no such thread) and of loop 0. */
int relay_usage_busy(const struct relay *r, struct utilization *u, double *qmgr_busy,
                     double *loop_busy);

/* The "utilization" object of the JSON summary. */
void relay_usage_json(const struct relay *r, struct json_writer *w);

#endif
