/*
 * disk_probe - the device's snapshots around a run; see disk_probe.h.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "disk_probe.h"

void disk_probe_begin(struct diskstat *ds, const char *dir, const struct fsinfo *fs)
{
    memset(ds, 0, sizeof(*ds));
    ds->shared = -1;
    snprintf(ds->fstype, sizeof(ds->fstype), "%s", fs->fstype);
    if (platform_disk_of(dir, ds->id, sizeof(ds->id)) != 0) {
        ds->id[0] = 0;
        /* mounted from a device node, but the system would not say which: unknown, not none */
        ds->state = strncmp(fs->source, "/dev/", 5) == 0 ? DISKSTAT_UNREADABLE : DISKSTAT_NO_DEVICE;
        return;
    }
    platform_disk_name(ds->id, ds->device, sizeof(ds->device), &ds->partition);
    if (fs->mount_point[0])
        ds->shared =
            platform_disk_shared(ds->id, fs->mount_point, ds->shared_with, sizeof(ds->shared_with));
    ds->state =
        platform_disk_read(ds->id, &ds->before) == 0 ? DISKSTAT_MEASURED : DISKSTAT_UNREADABLE;
}

void disk_probe_end(struct diskstat *ds, double messages)
{
    struct disk_counters after;

    ds->messages = messages;
    if (ds->state != DISKSTAT_MEASURED)
        return;
    if (platform_disk_read(ds->id, &after) != 0 ||
        diskstat_delta(&ds->before, &after, &ds->delta) != 0)
        ds->state = DISKSTAT_UNREADABLE;
}
