/*
 * sysusage - what the machine spent while a run was busy: CPU by the whole
 * machine, by a process, by the kernel's storage threads, and the spool's
 * block device.
 *
 * Two samples, at the start and the end of the busy window, give the
 * utilization that bottleneck.h turns into a verdict. The figures come
 * from the system through platform.h (on Linux /proc/stat, /proc/PID/stat
 * and the block device's stat file under /sys); what it cannot say is
 * flagged here, and the report says unknown.
 */
#ifndef SPOOLSIM_SYSUSAGE_H
#define SPOOLSIM_SYSUSAGE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "platform.h" /* struct disk_counters */

struct sysusage_sample {
    uint64_t t_ns;                            /* monotonic */
    int has_cpu;                              /* the two below are known */
    uint64_t cpu_busy_ticks, cpu_total_ticks; /* all CPUs (platform_cpu_ticks()) */
    uint64_t kernel_ticks;                    /* jbd2, kworker, loop, xfs, ext4 threads */
    int has_disk;
    struct disk_counters disk;
};

/*
 * The kernel's storage threads, found once (they live as long as the
 * machine, or their device): reading only their stat files keeps a sample
 * cheap enough to take often.
 */
#define SYSUSAGE_MAX_KTHREADS 256
struct sysusage_kthreads {
    pid_t pids[SYSUSAGE_MAX_KTHREADS];
    unsigned count;
};
void sysusage_find_kthreads(struct sysusage_kthreads *k);

/*
 * Take a sample; `disk' (platform_disk_of()'s id) may be NULL (no disk),
 * `k' too (no kernel threads counted). Ticks are platform_ticks_per_second()'s.
 */
void sysusage_sample(struct sysusage_sample *s, const struct sysusage_kthreads *k,
                     const char *disk);

#endif
