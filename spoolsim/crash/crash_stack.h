/*
 * crash_stack - spoolsim crash's stack of devices and everything else a
 * run sets up, and its taking apart on every way out.
 *
 * The image is made from the base image (mkfs, then one trial mount with
 * the options asked for, the kernel being the judge) and served by one of
 * two recorders: spoolsim-recorder's FUSE file under a loop device with
 * direct I/O, or the kernel's dm-log-writes target over a loop device, its
 * log on another, marks in its log stamping the time (dmlog.h). Either way
 * the image is mounted at MNT and every block write and flush lands in the
 * log at LOG, whole once crash_stack_stop_recording() returns.
 *
 * crash_stack_fail() and crash_stack_finish() end the run: the load's
 * children, the check's image (crash_point.h), the mount, the loop
 * devices, the recorder, in that order, then the work directory, which
 * stays when anything is still mounted in it. Every function here either
 * does what it says or ends the run through crash_stack_fail().
 */
#ifndef SPOOLSIM_CRASH_STACK_H
#define SPOOLSIM_CRASH_STACK_H

#include <limits.h>
#include <stdint.h>

#include "crash.h"
#include "crash_mta.h"
#include "crash_point.h"
#include "drive.h"
#include "progress_out.h"

/* One run of spoolsim crash: what it set up, so that it can be taken apart. */
struct crash {
    struct crash_options *o;
    struct drive d;
    char recorder_path[PATH_MAX], sink_path[PATH_MAX], source_path[PATH_MAX];
    char unshare_path[PATH_MAX];
    char base[PATH_MAX], served[PATH_MAX], log[PATH_MAX], fuse_dir[PATH_MAX], mnt[PATH_MAX];
    char loop[64];
    int mounted, fuse_up, fuse_shared;
    /* --recorder dm-log-writes: the log's loop device, the target's name and node */
    char log_loop[64], dm_name[64], dm_dev[PATH_MAX];
    int dm_up, dm_control;
    uint64_t t_built;   /* the stack's time: the records before the first mark have it */
    uint64_t next_show; /* when the load's progress line is next due */
    int mark_errno;     /* a mark the target refused, with the load running */
    struct drive_child recorder, sink, relay, source; /* relay: the real MTA's, with --mta */
    struct crash_mta mta;                             /* --mta's */
    struct progress_out progress;
    struct crash_checker checker;
};

/* A notice of crash's own, unless -q. */
#define crash_stack_notice(c, ...)                                                                 \
    progress_out_notice(&(c)->progress, (c)->o->common.quiet, "spoolsim crash", __VA_ARGS__)

/* The base image made and tried with the mount options (a usage error, exit 2, if the kernel
 * refuses them). */
void crash_stack_make_image(struct crash *c);
/* A copy of the base image served by the recorder, mounted at c->mnt. */
void crash_stack_build(struct crash *c);
/* With dm-log-writes: a mark stamping time t in the log; 0 or -1 with errno. */
int crash_stack_mark(struct crash *c, uint64_t t);
/* Stop the recording: the stack taken down in order, the log whole. */
void crash_stack_stop_recording(struct crash *c);

/* Take everything apart, remove the work directory (unless something is still mounted in it),
 * exit with status (or the interrupt's). */
_Noreturn void crash_stack_finish(struct crash *c, int status);
/* A step failed: say what (and what the program NAME said, when not NULL), then
 * crash_stack_finish(c, 1). */
_Noreturn void crash_stack_fail(struct crash *c, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
