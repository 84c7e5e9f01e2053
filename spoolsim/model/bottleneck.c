/*
 * bottleneck - name what limited a run; see bottleneck.h.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "bottleneck.h"

void bottleneck_utilization_init(struct utilization *u)
{
    memset(u, 0, sizeof(*u));
    u->disk_busy = -1;
    u->fsync_p50_ms = -1;
    u->serial_busy = -1;
}

void bottleneck_utilization_add(struct utilization *u, const char *name, double cores)
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

/* A program's load in cores, and the cores its threads can use. */
static double need(const struct harness_usage *h, double cpu_s)
{
    return cpu_s > 0 ? cpu_s * h->rate : 0;
}

static unsigned usable_cores(const struct harness_usage *h)
{
    unsigned cores = h->cores ? h->cores : 1, threads = h->threads ? h->threads : 1;

    return threads < cores ? threads : cores;
}

int bottleneck_harness_verdict(const struct harness_usage *h, char *buf, size_t len)
{
    static const char elsewhere[] = "run smtp-source and smtp-sink on other hosts "
                                    "(docs/multi-host.md)";
    const char *names[2] = {"smtp-source", "smtp-sink"};
    double cpu[2] = {h->source_s, h->sink_s};
    unsigned usable = usable_cores(h), threads = h->threads ? h->threads : 1;
    int worst = need(h, cpu[1]) > need(h, cpu[0]);
    double harness = need(h, cpu[0]) + need(h, cpu[1]), relay = need(h, h->relay_s);

    buf[0] = 0;
    if (h->rate <= 0)
        return 0;
    if (need(h, cpu[worst]) >= HARNESS_NEAR * usable) {
        char remedy[96];

        /* More threads help only with cores to put them on, not with the machine already full. */
        if (threads < h->cores && !(h->machine_busy >= BOTTLENECK_SATURATED))
            snprintf(remedy, sizeof(remedy), "try --harness-threads %u",
                     2 * threads < h->cores ? 2 * threads : h->cores);
        else
            snprintf(remedy, sizeof(remedy), "%s", elsewhere);
        snprintf(buf, len,
                 "the harness is the limit: %s needs %.2f of the %u core%s its %u thread%s can "
                 "use (%.0f us per message at %.0f msgs/s); %s",
                 names[worst], need(h, cpu[worst]), usable, usable == 1 ? "" : "s", threads,
                 threads == 1 ? "" : "s", cpu[worst] * 1e6, h->rate, remedy);
        return 1;
    }
    if (h->machine_busy >= BOTTLENECK_NEAR && h->cores && harness > relay) {
        double busy = h->machine_busy * h->cores;

        snprintf(buf, len,
                 "the harness is the limit: smtp-source and smtp-sink take %d %% of the "
                 "machine's busy CPU, the relay %d %% (%u cores %d %% busy); %s",
                 pct(harness / busy < 1 ? harness / busy : 1),
                 pct(relay / busy < 1 ? relay / busy : 1), h->cores, pct(h->machine_busy),
                 elsewhere);
        return 1;
    }
    return 0;
}
