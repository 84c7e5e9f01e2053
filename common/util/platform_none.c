/*
 * platform_none - platform.h for a system without a port: nothing known.
 *
 * Every call answers "not available", so that the programs build and run
 * anywhere POSIX is, and report what this file cannot find out as
 * unknown: the file system, the CPU model, the machine's and the kernel's
 * CPU, the disk. A port starts from a copy of this file (docs/portability.md).
 */
#include "config.h"

#include <errno.h>
#include <unistd.h>

#include "platform.h"

int platform_self_path(char *out, size_t len)
{
    (void)out;
    (void)len;
    return -1;
}

int platform_mount_of(const char *path, struct fsinfo *out)
{
    (void)path;
    (void)out;
    return -1;
}

int platform_cpu_model(char *out, size_t len)
{
    if (len > 0)
        out[0] = 0;
    return -1;
}

int platform_memory_bytes(uint64_t *bytes)
{
    (void)bytes;
    return -1;
}

int platform_cpu_ticks(uint64_t *busy, uint64_t *total)
{
    (void)busy;
    (void)total;
    return -1;
}

int platform_process_ticks(pid_t pid, uint64_t *ticks)
{
    (void)pid;
    (void)ticks;
    return -1;
}

unsigned platform_storage_threads(pid_t *pids, unsigned max)
{
    (void)pids;
    (void)max;
    return 0;
}

long platform_ticks_per_second(void)
{
    long hz = sysconf(_SC_CLK_TCK);

    return hz > 0 ? hz : 100;
}

int platform_disk_of(const char *path, char *id, size_t len)
{
    (void)path;
    (void)id;
    (void)len;
    return -1;
}

int platform_disk_read(const char *id, struct disk_counters *out)
{
    (void)id;
    (void)out;
    return -1;
}

int platform_disk_name(const char *id, char *name, size_t len, int *partition)
{
    (void)id;
    if (len > 0)
        name[0] = 0;
    *partition = 0;
    return -1;
}

int platform_disk_shared(const char *id, const char *mount_point, char *other, size_t len)
{
    (void)id;
    (void)mount_point;
    if (len > 0)
        other[0] = 0;
    return -1;
}

int platform_private_mounts(void)
{
    errno = ENOSYS;
    return -1;
}

int platform_tie_children(void)
{
    errno = ENOSYS;
    return -1;
}
