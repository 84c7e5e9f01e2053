/*
 * bottleneck - name what limited a run; see bottleneck.h.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "bottleneck.h"

void utilization_init(struct utilization *u)
{
    memset(u, 0, sizeof(*u));
    u->disk_busy = -1;
    u->fsync_p50_ms = -1;
    u->serial_busy = -1;
}

void utilization_add(struct utilization *u, const char *name, double cores)
{
    if (u->part_count == BOTTLENECK_MAX_PARTS)
        return;
    u->parts[u->part_count].name = name;
    u->parts[u->part_count].cores = cores;
    u->part_count++;
}

static int pct(double fraction)
{
    return (int)(fraction * 100 + 0.5);
}

/* "relay 48 %, source 22 %": each part's share of the whole machine. */
static void parts_text(const struct utilization *u, char *buf, size_t len)
{
    size_t used = 0;

    buf[0] = 0;
    for (unsigned i = 0; i < u->part_count && used < len; i++) {
        int n = snprintf(buf + used, len - used, "%s%s %d %%", i ? ", " : "", u->parts[i].name,
                         pct(u->cores ? u->parts[i].cores / u->cores : 0));

        if (n < 0)
            break;
        used += (size_t)n;
    }
}

void bottleneck_verdict(const struct utilization *u, char *buf, size_t len)
{
    char parts[400], fsync[64] = "";
    double cpu = u->machine_busy, disk = u->disk_busy, serial = u->serial_busy;

    parts_text(u, parts, sizeof(parts));
    if (u->fsync_p50_ms >= 0)
        snprintf(fsync, sizeof(fsync), ", fsync p50 %.2f ms", u->fsync_p50_ms);
    /* The most saturated resource is the limit; a serial stage before the device it waits on. */
    if (serial >= BOTTLENECK_SATURATED && serial >= disk - 0.05 && serial >= cpu - 0.05) {
        snprintf(buf, len, "limited by %s: its thread %d %% busy (disk %s%d %%, CPU %d %%%s)",
                 u->serial_name ? u->serial_name : "a serial stage", pct(serial),
                 disk < 0 ? "n/a " : "", disk < 0 ? 0 : pct(disk), pct(cpu), fsync);
    } else if (disk >= BOTTLENECK_SATURATED && disk >= cpu) {
        snprintf(buf, len, "limited by the disk: %d %% busy%s (CPU %d %% of %u cores)", pct(disk),
                 fsync, pct(cpu), u->cores);
    } else if (cpu >= BOTTLENECK_SATURATED) {
        snprintf(buf, len, "limited by CPU: %u of %u cores %d %% busy (%s)", u->cores, u->cores,
                 pct(cpu), parts);
    } else if (cpu >= BOTTLENECK_NEAR && cpu >= disk && cpu >= serial) {
        snprintf(buf, len, "close to the CPU limit: %u cores %d %% busy (%s)", u->cores, pct(cpu),
                 parts);
    } else if (disk >= BOTTLENECK_NEAR && disk >= serial) {
        snprintf(buf, len, "close to the disk's limit: %d %% busy%s (CPU %d %% of %u cores)",
                 pct(disk), fsync, pct(cpu), u->cores);
    } else if (serial >= BOTTLENECK_NEAR) {
        snprintf(buf, len, "close to the limit of %s: its thread %d %% busy (CPU %d %%)",
                 u->serial_name ? u->serial_name : "a serial stage", pct(serial), pct(cpu));
    } else {
        char disk_text[48];

        if (disk < 0)
            snprintf(disk_text, sizeof(disk_text), "no disk (not a block device)");
        else
            snprintf(disk_text, sizeof(disk_text), "disk %d %% busy", pct(disk));
        snprintf(buf, len,
                 "not saturated: CPU %d %% of %u cores (%s), %s%s: the offered load or the "
                 "clients' round trips set the rate",
                 pct(cpu), u->cores, parts, disk_text, fsync);
    }
}
