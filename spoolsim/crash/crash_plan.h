/*
 * crash_plan - which crash points spoolsim crash checks in a block-write
 * log, and what the disk holds at each (no I/O).
 *
 * The crash model: a disk that honours flushes, whose writes not yet
 * flushed may each have reached the medium or not, in any subset, and
 * that tears no sector (a write is there whole or not at all).
 *
 * A point is a cut after log record `end' - 1. Every write before
 * `barrier' (one past the last flush before the cut, 0 with none) is on
 * the disk; each write from `barrier' to the cut is there or not as the
 * point's own seed decides, independently, one chance in two. Two kinds:
 *
 * - a flush point: the cut right after a flush record (barrier == end):
 *   exactly what the filesystem had made durable, nothing more;
 * - a random point: the cut after a randomly drawn write, with a random
 *   subset of the unflushed writes before it; every other one is instead
 *   a cut at a time drawn evenly over the run, after whatever record came
 *   last (a flush point when that is a flush), so that a long stretch in
 *   which nothing reaches the disk is cut in proportion to its length.
 *
 * What the disk holds at a point holds from the record it cuts after
 * until the next record arrives (after the last one: until `end_ns', when
 * the load had stopped). The point's time is drawn, from its seed, in that
 * interval: a message is owed at the point when its 250 came before that
 * time. A cut right at a record would miss every power cut while nothing
 * reaches the disk: with no fsync, the whole load runs between two records.
 *
 * A log whose times are its marks' (blklog.h's mark_times, dm-log-writes'
 * log) knows of a record only that it came after the mark before it (its
 * t_ns) and before the mark after it (t_logged_ns). What the disk holds
 * after record i it holds from record i's mark after to record i + 1's
 * mark before (end_ns after the last record), and the point's time is
 * drawn in that interval as above (a point drawn by time keeps its time
 * when it lies there). Taking always the interval's end, as this once
 * did, misses every loss of a load that runs between two records: with
 * no fsync the whole load came between the mount's records and the
 * unmount's, and by the unmount's mark the sink had every message, so
 * the cut owed them all and lost none. A message whose 250 came before
 * the time is owed; the disk held the state then, or within a mark's
 * interval (10 ms) of it, never what came after the next record's mark.
 * Two records with no mark between them time a cut at the second's mark.
 *
 * crash_plan_make() picks at most `n' points from a seed, the same points
 * for the same log, n and seed: every flush when there are at most n / 2
 * (else n / 2 of them spread evenly over the log, the last included),
 * and random points for the rest, drawn only where there are writes to
 * draw. The points come sorted by barrier, then end, so that a replayer
 * can keep one image rolled forward from point to point.
 */
#ifndef SPOOLSIM_CRASH_PLAN_H
#define SPOOLSIM_CRASH_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "blklog.h"

struct crash_point {
    size_t end;     /* records [0, end) are before the cut */
    size_t barrier; /* writes in [0, barrier) are all on the disk */
    uint64_t t_ns;  /* the cut's time: from record end - 1's to the next record's */
    uint64_t seed;  /* decides the writes in [barrier, end) */
    int is_flush;
};

struct crash_plan {
    struct crash_point *v;
    size_t n;
    size_t flush_points, random_points;
};

void crash_plan_make(const struct blklog *log, unsigned n, uint64_t seed, uint64_t end_ns,
                     struct crash_plan *out);
void crash_plan_free(struct crash_plan *p);

/* Whether write record i (i < p->end) is on the disk at point p. */
int crash_plan_has(const struct crash_point *p, size_t i);

/* How many writes of [barrier, end) point p keeps, and of how many. */
void crash_plan_unflushed(const struct blklog *log, const struct crash_point *p, size_t *kept,
                          size_t *of);

#endif
