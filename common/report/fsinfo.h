/*
 * fsinfo - which filesystem a directory is on, and how it is mounted.
 *
 * Every spoolsim report names the filesystem type and mount options of
 * the directory it measured, so that two results are never compared
 * without knowing what they were measured on. The system says which
 * mount holds a path (platform_mount_of(), platform.h; on Linux from
 * /proc/self/mountinfo); where it cannot, the report says "unknown
 * filesystem".
 */
#ifndef SPOOLSIM_FSINFO_H
#define SPOOLSIM_FSINFO_H

#include <stddef.h>

#include "platform.h" /* struct fsinfo */

/* Resolve `path' and ask the system for its mount; -1, and out all empty, if unknown. */
int fsinfo_lookup(const char *path, struct fsinfo *out);

/*
 * A one-line note for a filesystem whose figures say nothing about a
 * disk (tmpfs, ramfs: memory, where fsync returns at once), or NULL.
 */
const char *fsinfo_note(const struct fsinfo *fs);

/* "tmpfs (rw,relatime,size=…) on /mnt/x" or "unknown filesystem" */
void fsinfo_describe(const struct fsinfo *fs, char *buf, size_t len);

#endif
