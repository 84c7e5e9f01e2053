/*
 * platform_linux - platform.h on Linux: /proc, /sys and the device numbers.
 *
 * The files' text is parsed by procfs.c; this file only reads them. The
 * files sampled while a run is busy (/proc/stat, a thread's stat, a block
 * device's stat) are read into a buffer on the stack, without malloc, to
 * keep a sample cheap enough to take often.
 */
#include "config.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "fileutil.h"
#include "platform.h"
#include "procfs.h"

static int read_small(const char *path, char *buf, size_t len)
{
    FILE *fp = fopen(path, "r");
    size_t n;

    if (fp == NULL)
        return -1;
    n = fread(buf, 1, len - 1, fp);
    fclose(fp);
    buf[n] = 0;
    return n > 0 ? 0 : -1;
}

int platform_self_path(char *out, size_t len)
{
    ssize_t n = len > 1 ? readlink("/proc/self/exe", out, len - 1) : -1;

    if (n <= 0 || (size_t)n >= len - 1)
        return -1;
    out[n] = 0;
    return 0;
}

int platform_mount_of(const char *path, struct fsinfo *out)
{
    char *text = fileutil_read_all("/proc/self/mountinfo", NULL);
    int status;

    if (text == NULL)
        return -1;
    status = procfs_mountinfo(text, path, out);
    free(text);
    return status;
}

int platform_cpu_model(char *out, size_t len)
{
    char *text = fileutil_read_all("/proc/cpuinfo", NULL);
    int status;

    if (len > 0)
        out[0] = 0;
    if (text == NULL)
        return -1;
    status = procfs_cpu_model(text, out, len);
    free(text);
    return status;
}

int platform_memory_bytes(uint64_t *bytes)
{
    char *text = fileutil_read_all("/proc/meminfo", NULL);
    int status;

    if (text == NULL)
        return -1;
    status = procfs_mem_total(text, bytes);
    free(text);
    return status;
}

int platform_cpu_ticks(uint64_t *busy, uint64_t *total)
{
    char text[4096];

    if (read_small("/proc/stat", text, sizeof(text)) != 0)
        return -1;
    return procfs_stat_cpu(text, busy, total);
}

int platform_process_ticks(pid_t pid, uint64_t *ticks)
{
    char path[64], text[1024];

    snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
    if (read_small(path, text, sizeof(text)) != 0)
        return -1;
    return procfs_pid_stat(text, NULL, 0, ticks);
}

unsigned platform_storage_threads(pid_t *pids, unsigned max)
{
    DIR *dp = opendir("/proc");
    struct dirent *de;
    unsigned count = 0;

    if (dp == NULL)
        return 0;
    while ((de = readdir(dp)) != NULL && count < max) {
        char path[300], text[1024], comm[64];
        uint64_t ticks;

        if (de->d_name[0] < '1' || de->d_name[0] > '9')
            continue;
        snprintf(path, sizeof(path), "/proc/%s/stat", de->d_name);
        if (read_small(path, text, sizeof(text)) == 0 &&
            procfs_pid_stat(text, comm, sizeof(comm), &ticks) == 0 && procfs_storage_thread(comm))
            pids[count++] = (pid_t)atol(de->d_name);
    }
    closedir(dp);
    return count;
}

long platform_ticks_per_second(void)
{
    long hz = sysconf(_SC_CLK_TCK);

    return hz > 0 ? hz : 100;
}

int platform_disk_of(const char *path, char *id, size_t len)
{
    struct stat sb;
    char buf[512];

    if (stat(path, &sb) != 0 || major(sb.st_dev) == 0)
        return -1; /* tmpfs and other virtual filesystems have anonymous devices */
    snprintf(id, len, "/sys/dev/block/%u:%u/stat", major(sb.st_dev), minor(sb.st_dev));
    return read_small(id, buf, sizeof(buf));
}

int platform_disk_read(const char *id, struct disk_counters *out)
{
    char text[4096];

    if (read_small(id, text, sizeof(text)) != 0)
        return -1;
    return procfs_disk_stat(text, out);
}
