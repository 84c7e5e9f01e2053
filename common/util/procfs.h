/*
 * procfs - the text of Linux's /proc and /sys files, parsed.
 *
 * The pure half of platform_linux.c: each function takes the text of one
 * file and returns what the platform calls (platform.h) report, so that
 * the parsing is tested on any machine, from fixed text. Nothing here
 * reads a file. -1 always means the text does not hold the answer (a
 * malformed or foreign file), and the caller reports the figure unknown.
 */
#ifndef SPOOLSIM_PROCFS_H
#define SPOOLSIM_PROCFS_H

#include <stddef.h>
#include <stdint.h>

#include "platform.h"

/*
 * /proc/self/mountinfo: the mount whose mount point is the longest prefix
 * of the resolved path `path' into out. 0, or -1 when no line covers it.
 */
int procfs_mountinfo(const char *mountinfo, const char *path, struct fsinfo *out);

/*
 * /proc/cpuinfo: the CPU model, the first "model name" (x86), else "cpu
 * model" (MIPS), "Model" or "Hardware" (ARM) or "cpu" (POWER); 0, or -1
 * and "" when none is there.
 */
int procfs_cpu_model(const char *cpuinfo, char *out, size_t len);

/* /proc/meminfo: MemTotal in bytes; 0, or -1 if it is not there. */
int procfs_mem_total(const char *meminfo, uint64_t *bytes);

/* The cpu line of /proc/stat: busy (all but idle and iowait) and total ticks; -1 if malformed. */
int procfs_stat_cpu(const char *text, uint64_t *busy, uint64_t *total);

/* /proc/PID/stat: the command name and utime + stime in ticks; -1 if malformed. */
int procfs_pid_stat(const char *text, char *comm, size_t commlen, uint64_t *ticks);

/*
 * A block device's stat file (the kernel's Documentation/block/stat.rst):
 * 11 fields, 15 with discards, 17 with flushes; -1 if malformed.
 */
int procfs_disk_stat(const char *text, struct disk_counters *out);

/*
 * /proc/self/mountinfo: whether the device "MAJ:MIN" holds more than the
 * file system mounted at mount_point: 1 when mount_point is "/" (the
 * system's disk) or the device is mounted at another point too (the first
 * such point in other), 0 when mount_point is its only mount, -1 when no
 * line names the device.
 */
int procfs_device_shared(const char *mountinfo, const char *dev, const char *mount_point,
                         char *other, size_t len);

/* 1 for the command name of a kernel thread that does a filesystem's or block device's work. */
int procfs_storage_thread(const char *comm);

#endif
