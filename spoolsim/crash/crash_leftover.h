/*
 * crash_leftover - what a spoolsim crash that was killed outright (kill -9,
 * the OOM killer) left in its work directory's parent, found and removed
 * by a later run.
 *
 * Its children and its mounts end with it (platform_tie_children(), a
 * mount namespace of its own) and its loop devices detach themselves at
 * their unmount (crash_sys.h); what stays is the work directory with its
 * images, a loop device attached in the moment before its mount, and a
 * log-writes device (the device-mapper's devices belong to no process).
 *
 * The contract:
 * - crash_leftover_mark() marks a run's work directory with WORK/owner,
 *   its PID in it, locked (flock) for as long as the run lives: the lock,
 *   not the PID, says that it lives, so a PID used again misleads nobody.
 * - crash_leftover_clean() looks at every spoolsim-crash.* in PARENT. One
 *   that is a directory of this user's, mode 0700 (as mkdtemp made it; or
 *   0711, opened to a real MTA's daemons: crash_mta.h), with an owner file nobody holds, is a dead
 * run's: what is mounted below it is detached, its log-writes device removed, the loop devices its
 * list names and that still serve its files detached, and the directory removed, each directory
 * with a line saying so. One that cannot be taken apart stays, with a warning. A directory without
 * an owner file (a run of an older spoolsim, or one killed in its first moment) or with a live
 * owner is left alone.
 */
#ifndef SPOOLSIM_CRASH_LEFTOVER_H
#define SPOOLSIM_CRASH_LEFTOVER_H

#include "drive.h"

/* Mark d's work directory as this process's, for its life: the lock's descriptor, or -1. */
int crash_leftover_mark(const struct drive *d);

/* Remove what dead runs left in parent (NULL: $TMPDIR or /tmp); the count removed. */
int crash_leftover_clean(const char *parent);

#endif
