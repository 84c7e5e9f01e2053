/*
 * fsinfo - which filesystem a directory is on, and how it is mounted.
 *
 * Every spoolsim report names the filesystem type and mount options of
 * the directory it measured, so that two results are never compared
 * without knowing what they were measured on. fsinfo_parse() is the pure
 * part: it picks, from the text of /proc/self/mountinfo, the mount whose
 * mount point is the longest prefix of a resolved path.
 */
#ifndef SPOOLSIM_FSINFO_H
#define SPOOLSIM_FSINFO_H

#include <stddef.h>

struct fsinfo {
    char mount_point[512];
    char fstype[64];
    char source[256];
    char options[512]; /* per-mount then superblock options, comma-separated, each once */
};

/* 0 and `out' filled, or -1 when no line of `mountinfo' covers `path'. */
int fsinfo_parse(const char *mountinfo, const char *path, struct fsinfo *out);

/* Resolve `path' and look it up in /proc/self/mountinfo; -1 if unknown. */
int fsinfo_lookup(const char *path, struct fsinfo *out);

/*
 * A one-line note for a filesystem whose figures say nothing about a
 * disk (tmpfs, ramfs: memory, where fsync returns at once), or NULL.
 */
const char *fsinfo_note(const struct fsinfo *fs);

/* "tmpfs (rw,relatime,size=…) on /mnt/x" or "unknown filesystem" */
void fsinfo_describe(const struct fsinfo *fs, char *buf, size_t len);

#endif
