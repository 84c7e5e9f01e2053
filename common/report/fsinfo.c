/*
 * fsinfo - which filesystem a directory is on; see fsinfo.h.
 */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fsinfo.h"
#include "platform.h"

int fsinfo_lookup(const char *path, struct fsinfo *out)
{
    char resolved[PATH_MAX];

    memset(out, 0, sizeof(*out));
    if (realpath(path, resolved) == NULL || platform_mount_of(resolved, out) != 0) {
        memset(out, 0, sizeof(*out)); /* a port may have filled part: say nothing */
        return -1;
    }
    return 0;
}

const char *fsinfo_note(const struct fsinfo *fs)
{
    if (strcmp(fs->fstype, "tmpfs") == 0)
        return "tmpfs is memory, not a disk: fsync costs nothing there";
    if (strcmp(fs->fstype, "ramfs") == 0)
        return "ramfs is memory, not a disk: fsync costs nothing there";
    return NULL;
}

void fsinfo_describe(const struct fsinfo *fs, char *buf, size_t len)
{
    if (fs->fstype[0] == 0)
        snprintf(buf, len, "unknown filesystem");
    else
        snprintf(buf, len, "%s (%s) on %s", fs->fstype, fs->options, fs->mount_point);
}
