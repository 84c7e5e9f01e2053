/*
 * sysusage - what the machine spent while a run was busy: CPU by the whole
 * machine, by a process, by the kernel's storage threads, and the spool's
 * block device.
 *
 * Two samples, at the start and the end of the busy window, give the
 * utilization that bottleneck.h turns into a verdict. The *_parse
 * functions are the pure part (a line of /proc/stat, /proc/PID/stat, a
 * block device's stat file); sysusage_sample() and friends read the files.
 * Linux only: elsewhere every figure is reported as unknown.
 */
#ifndef SPOOLSIM_SYSUSAGE_H
#define SPOOLSIM_SYSUSAGE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct disk_counters {
    uint64_t reads, writes, flushes; /* requests completed */
    uint64_t busy_ms;                /* io_ticks: time with I/O in flight */
};

struct sysusage_sample {
    uint64_t t_ns;                            /* monotonic */
    uint64_t cpu_busy_ticks, cpu_total_ticks; /* all CPUs, from /proc/stat */
    uint64_t kernel_ticks;                    /* jbd2, kworker, loop, xfs, ext4 threads */
    int has_disk;
    struct disk_counters disk;
};

/* The cpu line of /proc/stat: busy (all but idle and iowait) and total ticks; -1 if malformed. */
int sysusage_parse_cpu(const char *text, uint64_t *busy, uint64_t *total);

/* /proc/PID/stat: the command name and utime + stime in ticks; -1 if malformed. */
int sysusage_parse_pid_stat(const char *text, char *comm, size_t commlen, uint64_t *ticks);

/* A block device's stat file (Documentation/block/stat.rst); -1 if malformed. */
int sysusage_parse_disk(const char *text, struct disk_counters *out);

/* 1 for a kernel thread that does a filesystem's or block device's work. */
int sysusage_storage_thread(const char *comm);

/*
 * The stat file of the block device under `path' (/sys/dev/block/M:m/stat),
 * or -1 where there is none (tmpfs, a network filesystem).
 */
int sysusage_disk_of(const char *path, char *stat_path, size_t len);

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

/* Take a sample; `disk_stat' may be NULL (no disk), `k' too (no kernel threads counted). */
void sysusage_sample(struct sysusage_sample *s, const struct sysusage_kthreads *k,
                     const char *disk_stat);

/* utime + stime of a process, all its threads, in ticks; 0 if it is gone. */
uint64_t sysusage_process_ticks(pid_t pid);

/* Clock ticks per second (for the tick counts above). */
long sysusage_hz(void);

#endif
