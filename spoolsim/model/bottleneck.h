/*
 * bottleneck - name what limited a run, from the utilization of each
 * resource over its busy window (no I/O).
 *
 * A rate means little without knowing what held it there: the disk, the
 * CPU (and whose), or a serial stage such as the queue manager, which can
 * be the limit with the disk and the cores half idle. The caller measures
 * (sysusage.h) and fills a `struct utilization'; bottleneck_verdict() says,
 * in one line, which resource was saturated (90 % or more), the most
 * saturated first; which was close to it (80 % or more); or that none was,
 * so the offered load or the clients' round trips set the rate.
 */
#ifndef SPOOLSIM_BOTTLENECK_H
#define SPOOLSIM_BOTTLENECK_H

#include <stddef.h>

#define BOTTLENECK_MAX_PARTS 8
#define BOTTLENECK_SATURATED 0.9
#define BOTTLENECK_NEAR 0.8 /* "close to the limit": the run is likely to be near its knee */

struct utilization {
    unsigned cores;      /* online CPUs */
    double machine_busy; /* fraction of all cores' time busy, 0..1 */
    struct {
        const char *name; /* "relay", "source", "sink", "kernel threads" */
        double cores;     /* CPU used, in cores (1.0 = one core for the whole window) */
    } parts[BOTTLENECK_MAX_PARTS];
    unsigned part_count;
    double disk_busy;        /* fraction of the window the spool's device was busy; < 0: no disk */
    double fsync_p50_ms;     /* < 0: unknown */
    double serial_busy;      /* fraction of the window a serial stage was busy; < 0: none */
    const char *serial_name; /* "the queue manager" */
};

void bottleneck_utilization_init(struct utilization *u);

/* Add a part's CPU (ignored beyond BOTTLENECK_MAX_PARTS). */
void bottleneck_utilization_add(struct utilization *u, const char *name, double cores);

/* One line: "limited by CPU: 2 of 2 cores 97 % busy (relay 48 %, ...)" and the like. */
void bottleneck_verdict(const struct utilization *u, char *buf, size_t len);

/*
 * Whether the harness (smtp-source and smtp-sink), not the relay or the
 * disk, held the rate: a benchmark of the spool then measures its load
 * generator. Two signs, each from the programs' own CPU per message:
 * - one of them needs 80 % or more of the cores its event loops can use
 *   (CPU per message times the rate, against --harness-threads, at most
 *   the machine's cores): it cannot offer or absorb more;
 * - the machine is 80 % busy or more and the two together take more of it
 *   than the relay: they hold cores the relay would have used. (On a
 *   machine with idle cores the harness's share limits nothing.)
 * The remedy named is more threads for the harness while that can help (a
 * program at its threads' limit, cores left), else other hosts for the
 * load (docs/multi-host.md).
 */
#define HARNESS_NEAR 0.8

struct harness_usage {
    unsigned cores;      /* online CPUs */
    double machine_busy; /* fraction of all cores' time busy, 0..1; < 0: unknown */
    double rate;         /* messages/s the run carried */
    double relay_s;      /* CPU per message, in seconds, of each; < 0: unknown (no sink) */
    double source_s;
    double sink_s;
    unsigned threads; /* event loops of each of smtp-source and smtp-sink */
};

/* 1 and the line ("the harness is the limit: ..."), or 0 and the empty string. */
int bottleneck_harness_verdict(const struct harness_usage *h, char *buf, size_t len);

#endif
