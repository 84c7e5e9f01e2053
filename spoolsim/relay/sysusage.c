/*
 * sysusage - machine, process, kernel-thread and disk usage; see sysusage.h.
 */
#include "config.h"

#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "clock.h"
#include "sysusage.h"

int sysusage_parse_cpu(const char *text, uint64_t *busy, uint64_t *total)
{
    uint64_t v[8] = {0};
    int n;

    if (strncmp(text, "cpu ", 4) != 0)
        return -1;
    n = sscanf(text + 4,
               "%" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64
               " %" SCNu64,
               &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]);
    if (n < 4)
        return -1;
    *total = 0;
    for (int i = 0; i < 8; i++)
        *total += v[i];
    *busy = *total - v[3] - v[4]; /* idle and iowait */
    return 0;
}

int sysusage_parse_pid_stat(const char *text, char *comm, size_t commlen, uint64_t *ticks)
{
    const char *open = strchr(text, '('), *close = strrchr(text, ')');
    unsigned long long utime, stime;
    size_t len;

    if (open == NULL || close == NULL || close < open)
        return -1;
    len = (size_t)(close - open - 1);
    if (commlen > 0) {
        if (len >= commlen)
            len = commlen - 1;
        memcpy(comm, open + 1, len);
        comm[len] = 0;
    }
    /* After ") ": state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime
     */
    if (sscanf(close + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &utime,
               &stime) != 2)
        return -1;
    *ticks = utime + stime;
    return 0;
}

int sysusage_parse_disk(const char *text, struct disk_counters *out)
{
    unsigned long long f[17] = {0};
    int n = sscanf(text,
                   "%llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu "
                   "%llu %llu",
                   &f[0], &f[1], &f[2], &f[3], &f[4], &f[5], &f[6], &f[7], &f[8], &f[9], &f[10],
                   &f[11], &f[12], &f[13], &f[14], &f[15], &f[16]);

    if (n < 11)
        return -1;
    out->reads = f[0];
    out->writes = f[4];
    out->busy_ms = f[9];
    out->flushes = n >= 16 ? f[15] : 0; /* flush requests: kernels since 5.5 */
    return 0;
}

int sysusage_storage_thread(const char *comm)
{
    static const char *const prefixes[] = {"jbd2/", "kworker/", "loop",    "xfs",
                                           "ext4-", "blkcg",    "kblockd", "dio/"};

    for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
        if (strncmp(comm, prefixes[i], strlen(prefixes[i])) == 0)
            return 1;
    return 0;
}

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

int sysusage_disk_of(const char *path, char *stat_path, size_t len)
{
    struct stat sb;
    char buf[512];

    if (stat(path, &sb) != 0 || major(sb.st_dev) == 0)
        return -1; /* tmpfs and other virtual filesystems have anonymous devices */
    snprintf(stat_path, len, "/sys/dev/block/%u:%u/stat", major(sb.st_dev), minor(sb.st_dev));
    return read_small(stat_path, buf, sizeof(buf));
}

void sysusage_find_kthreads(struct sysusage_kthreads *k)
{
    DIR *dp = opendir("/proc");
    struct dirent *de;

    k->count = 0;
    if (dp == NULL)
        return;
    while ((de = readdir(dp)) != NULL && k->count < SYSUSAGE_MAX_KTHREADS) {
        char path[300], text[1024], comm[64];
        uint64_t ticks;

        if (de->d_name[0] < '1' || de->d_name[0] > '9')
            continue;
        snprintf(path, sizeof(path), "/proc/%s/stat", de->d_name);
        if (read_small(path, text, sizeof(text)) == 0 &&
            sysusage_parse_pid_stat(text, comm, sizeof(comm), &ticks) == 0 &&
            sysusage_storage_thread(comm))
            k->pids[k->count++] = (pid_t)atol(de->d_name);
    }
    closedir(dp);
}

void sysusage_sample(struct sysusage_sample *s, const struct sysusage_kthreads *k,
                     const char *disk_stat)
{
    char text[4096];

    memset(s, 0, sizeof(*s));
    s->t_ns = clock_now_ns();
    if (read_small("/proc/stat", text, sizeof(text)) == 0)
        sysusage_parse_cpu(text, &s->cpu_busy_ticks, &s->cpu_total_ticks);
    for (unsigned i = 0; k && i < k->count; i++)
        s->kernel_ticks += sysusage_process_ticks(k->pids[i]);
    if (disk_stat && read_small(disk_stat, text, sizeof(text)) == 0 &&
        sysusage_parse_disk(text, &s->disk) == 0)
        s->has_disk = 1;
}

uint64_t sysusage_process_ticks(pid_t pid)
{
    char path[64], text[1024];
    uint64_t ticks;

    snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
    if (read_small(path, text, sizeof(text)) != 0 ||
        sysusage_parse_pid_stat(text, NULL, 0, &ticks) != 0)
        return 0;
    return ticks;
}

long sysusage_hz(void)
{
    long hz = sysconf(_SC_CLK_TCK);

    return hz > 0 ? hz : 100;
}
