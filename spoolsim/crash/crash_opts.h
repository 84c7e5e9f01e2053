/*
 * crash_opts - the mount options spoolsim crash copies from a mounted
 * filesystem (--spool DIR), and the filesystems it knows (no I/O).
 *
 * From the options /proc/self/mountinfo shows for DIR's mount (fsinfo.h),
 * crash_opts_like() keeps those that decide what a crash loses or when
 * data reaches the disk, and drops the rest (rw, the reserved blocks'
 * owner, a subvolume, a vendor's own), naming what it dropped: the image
 * is a new filesystem, and only these carry over. Kept: sync, dirsync,
 * the atime options, data=, barrier, barrier=, nobarrier, commit=, the
 * journal's checksum and async commit, delalloc and auto_da_alloc and
 * their negations, flushoncommit, wsync, logbufs= and logbsize=.
 *
 * crash_opts_fs_find(): the filesystem types spoolsim crash can make, check
 * and repair, with their tools and the smallest image each takes.
 */
#ifndef SPOOLSIM_CRASH_OPTS_H
#define SPOOLSIM_CRASH_OPTS_H

#include <stddef.h>
#include <stdint.h>

enum crash_repair { CRASH_REPAIR_E2FSCK, CRASH_REPAIR_XFS, CRASH_REPAIR_BTRFS };

struct crash_fs {
    const char *type;      /* as mount -t and /proc/filesystems name it */
    const char *mkfs;      /* the program that makes it */
    const char *repair;    /* the program that checks and repairs it */
    enum crash_repair how; /* how crash_point.c runs it */
    uint64_t min_size;     /* the smallest image mkfs makes */
    uint64_t default_size;
};

/* The type's entry, or NULL for one spoolsim crash does not know. */
const struct crash_fs *crash_opts_fs_find(const char *type);
/* "ext2, ext3, ext4, xfs, btrfs" */
const char *crash_opts_fs_names(void);

/*
 * The fixes e2fsck -fy made, from its output: every answered question
 * ("Fix? yes", "Clear? yes", ...) but those after "Free blocks count
 * wrong" and "Free inodes count wrong", which ext4 leaves so after every
 * unclean stop by design (the kernel keeps the summary counts lazily) and
 * which are no damage.
 */
unsigned crash_opts_e2fsck_fixes(const char *output);

/* Kept options into keep, dropped ones into dropped, each comma-separated ("" if none). */
void crash_opts_like(const char *options, char *keep, size_t keep_len, char *dropped,
                     size_t dropped_len);

#endif
