/*
 * disk_probe - the two snapshots of the block device under a directory
 * that diskstat.h turns into a run's counts: one before the load, one
 * after the drain.
 *
 * The device is the one the directory's file system is on (platform.h:
 * on Linux its st_dev, /sys/dev/block/MAJ:MIN, which is the partition, a
 * device-mapper or loop device, or the whole disk); a file system without
 * one (tmpfs, NFS, overlay) is recorded as such, with its type from fs.
 * The I/O is here and nothing else: what the counts mean is diskstat's.
 */
#ifndef SPOOLSIM_DISK_PROBE_H
#define SPOOLSIM_DISK_PROBE_H

#include "diskstat.h"
#include "fsinfo.h"

/* Find the device under dir (fs: its file system, as fsinfo_lookup() found it) and snapshot it. */
void disk_probe_begin(struct diskstat *ds, const char *dir, const struct fsinfo *fs);

/* The second snapshot: the counts since disk_probe_begin(), over `messages'. */
void disk_probe_end(struct diskstat *ds, double messages);

#endif
