/*
 * crash_report - `spoolsim crash''s report: every point's count kept, the
 * totals, one verdict line, and JSON (docs/json.md).
 *
 * The verdict: "durable: 0 of 1,480 acknowledged messages lost over 200
 * power cuts" when no point lost an owed message, else "LOSES
 * acknowledged mail: up to 37 per cut, at 12 of 200 power cuts (ext2,
 * ...)". A run that acknowledged nothing, or had no point to check, is
 * inconclusive and says so. crash_report_verdict() is pure.
 */
#ifndef SPOOLSIM_CRASH_REPORT_H
#define SPOOLSIM_CRASH_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "blklog.h"
#include "crash.h"
#include "crash_plan.h"
#include "crash_point.h"
#include "crash_tally.h"

struct crash_row {
    double t_s; /* the cut, in seconds after the load began */
    int is_flush;
    size_t kept, unflushed;
    struct crash_tally tally;
    size_t corrupt;
    int repaired, repair_failed, unmountable, refused;
};

struct crash_report {
    const struct crash_options *o;
    size_t writes, flushes, acked;
    uint64_t bytes;
    size_t flush_points, random_points;
    struct crash_row *rows;
    size_t n, cap;
    /* the totals over the rows */
    size_t max_lost, points_losing, max_owed, corrupt_files, corrupt_points, repaired_points,
        repair_failed_points, unmountable_points, refused_points, max_duplicated;
    double check_s;
    char first_note[256]; /* the first point's trouble, if any */
};

void crash_report_begin(struct crash_report *r, const struct crash_options *o,
                        const struct blklog *log, const struct crash_plan *plan, size_t acked);
void crash_report_add(struct crash_report *r, const struct crash_point *p,
                      const struct crash_result *res, const struct crash_tally *t,
                      uint64_t t_load_ns);
void crash_report_free(struct crash_report *r);

int crash_report_durable(const struct crash_report *r);
/* exit_status.h's: 0 durable, 1 acknowledged mail lost, 3 inconclusive (nothing to check). */
int crash_report_exit_status(const struct crash_report *r);
/* The verdict line (no newline) into buf. */
void crash_report_verdict(const struct crash_report *r, char *buf, size_t len);
void crash_report_print(const struct crash_report *r, FILE *fp);
/* 0, or -1 with errno. */
int crash_report_json(const struct crash_report *r, const char *path);

#endif
