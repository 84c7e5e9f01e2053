/*
 * sysusage - machine, process, kernel-thread and disk usage; see sysusage.h.
 */
#include "config.h"

#include <string.h>

#include "clock.h"
#include "platform.h"
#include "sysusage.h"

void sysusage_find_kthreads(struct sysusage_kthreads *k)
{
    k->count = platform_storage_threads(k->pids, SYSUSAGE_MAX_KTHREADS);
}

void sysusage_sample(struct sysusage_sample *s, const struct sysusage_kthreads *k, const char *disk)
{
    memset(s, 0, sizeof(*s));
    s->t_ns = clock_now_ns();
    s->has_cpu = platform_cpu_ticks(&s->cpu_busy_ticks, &s->cpu_total_ticks) == 0;
    if (!s->has_cpu)
        s->cpu_busy_ticks = s->cpu_total_ticks = 0;
    for (unsigned i = 0; k && i < k->count; i++) {
        uint64_t ticks;

        if (platform_process_ticks(k->pids[i], &ticks) == 0) /* else gone: counts 0 */
            s->kernel_ticks += ticks;
    }
    if (disk && platform_disk_read(disk, &s->disk) == 0)
        s->has_disk = 1;
}
