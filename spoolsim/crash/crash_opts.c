/*
 * crash_opts - options copied from a mount, and the known filesystems;
 * see crash_opts.h.
 */
#include "config.h"

#include <string.h>

#include "crash_opts.h"

#define MIB (1024ULL * 1024)

static const struct crash_fs filesystems[] = {
    {"ext2", "mkfs.ext2", "e2fsck", CRASH_REPAIR_E2FSCK, 8 * MIB, 128 * MIB},
    {"ext3", "mkfs.ext3", "e2fsck", CRASH_REPAIR_E2FSCK, 16 * MIB, 128 * MIB},
    {"ext4", "mkfs.ext4", "e2fsck", CRASH_REPAIR_E2FSCK, 16 * MIB, 128 * MIB},
    {"xfs", "mkfs.xfs", "xfs_repair", CRASH_REPAIR_XFS, 300 * MIB, 320 * MIB},
    {"btrfs", "mkfs.btrfs", "btrfs", CRASH_REPAIR_BTRFS, 128 * MIB, 256 * MIB},
};

const struct crash_fs *crash_opts_fs_find(const char *type)
{
    for (size_t i = 0; i < sizeof(filesystems) / sizeof(filesystems[0]); i++)
        if (strcmp(type, filesystems[i].type) == 0)
            return &filesystems[i];
    return NULL;
}

const char *crash_opts_fs_names(void)
{
    return "ext2, ext3, ext4, xfs, btrfs";
}

static const char *const kept_names[] = {
    "sync",
    "dirsync",
    "noatime",
    "relatime",
    "strictatime",
    "lazytime",
    "nodiratime",
    "barrier",
    "nobarrier",
    "journal_checksum",
    "journal_async_commit",
    "delalloc",
    "nodelalloc",
    "auto_da_alloc",
    "noauto_da_alloc",
    "flushoncommit",
    "noflushoncommit",
    "wsync",
    NULL,
};
static const char *const kept_prefixes[] = {
    "data=", "barrier=", "commit=", "logbufs=", "logbsize=", NULL};

static int kept(const char *opt, size_t len)
{
    for (size_t i = 0; kept_names[i]; i++)
        if (strlen(kept_names[i]) == len && memcmp(opt, kept_names[i], len) == 0)
            return 1;
    for (size_t i = 0; kept_prefixes[i]; i++) {
        size_t n = strlen(kept_prefixes[i]);

        if (len > n && memcmp(opt, kept_prefixes[i], n) == 0)
            return 1;
    }
    return 0;
}

static void append(char *out, size_t out_len, const char *opt, size_t len)
{
    size_t have = strlen(out);

    if (have + (have > 0) + len + 1 > out_len)
        return; /* cut: the caller's buffers hold any real mount's options */
    if (have > 0)
        out[have++] = ',';
    memcpy(out + have, opt, len);
    out[have + len] = '\0';
}

void crash_opts_like(const char *options, char *keep, size_t keep_len, char *dropped,
                     size_t dropped_len)
{
    const char *p = options;

    keep[0] = dropped[0] = '\0';
    while (*p) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);

        if (len > 0) {
            if (kept(p, len))
                append(keep, keep_len, p, len);
            else
                append(dropped, dropped_len, p, len);
        }
        p += len + (comma != NULL);
    }
}

unsigned crash_opts_e2fsck_fixes(const char *output)
{
    const char *line = output, *prev = "";
    size_t prev_len = 0;
    unsigned fixes = 0;

    while (*line) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);

        if (len >= 5 && memcmp(line + len - 5, "? yes", 5) == 0) {
            /* the question's subject is on this line or the one before */
            const char *subject = len > 5 + 4 ? line : prev;
            size_t subject_len = len > 5 + 4 ? len : prev_len;

            if (!(subject_len >= 22 && (memcmp(subject, "Free blocks count wrong", 22) == 0 ||
                                        memcmp(subject, "Free inodes count wrong", 22) == 0)))
                fixes++;
        }
        if (len > 0) {
            prev = line;
            prev_len = len;
        }
        line += len + (nl != NULL);
    }
    return fixes;
}
