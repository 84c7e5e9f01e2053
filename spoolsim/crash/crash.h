/*
 * crash - `spoolsim crash', what a power cut loses: its options, which
 * crash.c parses and the report (crash_report.h) prints.
 */
#ifndef SPOOLSIM_CRASH_H
#define SPOOLSIM_CRASH_H

#include <stdint.h>

#include "crash_opts.h"
#include "crash_scan.h"
#include "optgroup.h"

struct json_run;

struct crash_options {
    struct optgroup_values common;
    char type[64];
    char mount_opts[512];
    char dropped[512]; /* --like: the options not carried over */
    const char *like;
    const struct crash_fs *fs;
    uint64_t image_size;
    unsigned points;
    unsigned keep_point; /* --keep-point: that point's image and logs kept (1..points), else 0 */
    const char *profile;
    const struct crash_restart *restart; /* the profile's MTA's restart */
    const char *sync;                    /* NULL: the profile's own */
    const char *model;                   /* the relay's --model; NULL: its default */
    const char *mta; /* --mta: the real MTA in the relay's place (crash_mta.h); NULL */
    const char *hop_delay;
    const char *work_parent;
    int dm; /* --recorder dm-log-writes, not spoolsim-recorder's FUSE */
    const struct json_run *run;
    uint64_t t_load;    /* when the load began (CLOCK_MONOTONIC) */
    uint64_t t_stopped; /* when the relay and the sink had stopped */
    double load_s;
};

#endif
