/*
 * crash_point - one power cut, checked: the crash image built from the
 * base image and the block-write log (crash_plan.h says what the disk
 * holds at the point), the filesystem's own repair, a mount, and what the
 * relay would find and deliver from its spool at a restart.
 *
 * The images: `cursor' is the base image rolled forward to the barrier
 * of the points checked so far (they come sorted by barrier, so each
 * write is applied to it once); `image' is a copy of the cursor with the
 * point's subset of unflushed writes on top, then repaired and mounted
 * on a loop device of its own at `mnt'.
 *
 * The repair is what a boot would run: e2fsck -fy for ext2, ext3 and ext4;
 * for xfs a mount and unmount (which replays the log, as xfs_repair
 * wants), xfs_repair -L when that mount fails, then xfs_repair -n and, if
 * it finds damage, xfs_repair; for btrfs, btrfs check --readonly (its
 * --repair is not trusted by its own manual) and then the mount, which
 * replays the log tree. `repaired' says the repair had to change
 * something beyond replaying a journal; `repair_failed' that it said it
 * could not fix everything.
 *
 * The restart, postfix profile: the relay's own recovery (pf_recover_spool:
 * active/ back to incoming/, unmarked and temporary files removed), then
 * every queue file it would deliver, read and parsed as the queue manager
 * does; a file that does not parse is `corrupt', one that does is
 * recovered with the key the sink would log for it (Message-ID, size,
 * checksum of the text the relay would send). A file whose recipients are
 * all marked done is not delivered again and counts as neither. The other
 * MTAs' profiles: the spool's files read (crash_walk.h) and judged as that
 * MTA's restart would find them (crash_scan.h). The null profile keeps its
 * queue in memory: nothing is recovered. With --mta the real MTA restarts
 * on the mounted spool and delivers to a fresh sink (crash_mta.h): what
 * arrives there is recovered, the files it set aside are corrupt.
 *
 * With `keep' set (--keep-point), the point's files stay in the work
 * directory as pointN.*: .img, the image as rebuilt, before its repair
 * (the state the cut left, for debugfs); .repair.out and .repair.err,
 * what the repair said; .restart.log, the relay's recovery (its counts,
 * and every queue file it would deliver with what became of it), or with
 * --mta the MTA's restart's .out and .err and the fresh sink's log.
 */
#ifndef SPOOLSIM_CRASH_POINT_H
#define SPOOLSIM_CRASH_POINT_H

#include <limits.h>
#include <stddef.h>

#include "blklog.h"
#include "crash_opts.h"
#include "crash_plan.h"
#include "crash_scan.h"
#include "drive.h"
#include "msglog.h"

struct crash_mta;

struct crash_checker {
    const struct drive *d;
    const struct crash_fs *fs;
    const char *options;                 /* the mount options, "" for none */
    const struct crash_restart *restart; /* how the profile's MTA restarts (crash_scan.h) */
    const char *spool_rel;               /* the spool, relative to the filesystem's root */
    struct crash_mta *mta;               /* --mta: the real MTA's own restart, else NULL */
    const struct blklog *log;
    const unsigned char *log_buf; /* the log's bytes, which log's records point into */
    char cursor[PATH_MAX], image[PATH_MAX], mnt[PATH_MAX];
    int cursor_fd;
    size_t cursor_at;
    char loop[64]; /* the point's loop device while attached, else "" */
    int mounted;
    unsigned keep; /* --keep-point: this point's number, its files to be kept; else 0 */
};

struct crash_result {
    int repaired, repair_failed, unmountable;
    int refused; /* the restart (--mta: the real MTA) would not take the spool: nothing recovered */
    size_t kept, unflushed; /* writes after the barrier kept, of how many */
    size_t corrupt;
    struct msglog_set recovered;
    char note[256]; /* what went wrong, for the report; "" */
};

/* Opens the cursor (a copy of base); 0, or -1 with err. */
int crash_point_checker_open(struct crash_checker *c, const char *base, char *err, size_t errlen);
void crash_point_checker_close(struct crash_checker *c);

/* Check point p; r is set up here (crash_point_result_free() it). 0, or -1 with err for a failure
 * of ours. */
int crash_point_check(struct crash_checker *c, const struct crash_point *p, struct crash_result *r,
                      char *err, size_t errlen);
void crash_point_result_free(struct crash_result *r);

/* Unmount and detach what a check left (after an interrupt); safe to call twice. */
void crash_point_teardown(struct crash_checker *c);

#endif
