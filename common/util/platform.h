/*
 * platform - what spoolsim asks the operating system that POSIX does not say.
 *
 * Every read of a system's own interfaces (on Linux /proc, /sys and
 * major()/minor()) is behind these calls, and one file implements them
 * for one system: platform_linux.c, or platform_none.c, which knows
 * nothing, for a system without a port of its own. configure picks the
 * file from the host (--with-platform overrides it); a port to another
 * system is one new file, platform_SYSTEM.c, and docs/portability.md says
 * call by call what it must provide and which interfaces of FreeBSD do.
 *
 * "Not available" is a legal answer to every call (-1, or no threads):
 * the caller then reports the figure as unknown, never as 0 or a guess.
 * No call prints, exits, or keeps state between calls.
 */
#ifndef SPOOLSIM_PLATFORM_H
#define SPOOLSIM_PLATFORM_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The file system that holds a path, as a report names it (fsinfo.h). */
struct fsinfo {
    char mount_point[512];
    char fstype[64];
    char source[256];  /* the device, or what the mount was made from */
    char options[512]; /* per-mount then superblock options, comma-separated, each once */
};

/*
 * A block device's counters since it appeared; the difference of two is a
 * window's. Sectors are 512 bytes whatever the device's own block size.
 */
struct disk_counters {
    uint64_t reads, writes, flushes; /* requests completed (flushes: 0 where not counted) */
    uint64_t busy_ms;                /* time with I/O in flight */
    uint64_t read_sectors, write_sectors;
    uint64_t discards, discard_sectors; /* 0 where not counted */
    int has_discards, has_flushes;      /* the system counts them (Linux: since 4.18, 5.5) */
};

/*
 * This program's file: absolute, with no symbolic link in it, NUL-ended
 * in out. 0, or -1 if the system cannot say or it does not fit in len
 * (the caller then looks at argv[0] and PATH: companion.c).
 */
int platform_self_path(char *out, size_t len);

/*
 * The mount of `path', an absolute path with no symbolic link in it
 * (realpath's): its mount point, file system type, source and options
 * into out. 0, or -1 if unknown.
 */
int platform_mount_of(const char *path, struct fsinfo *out);

/* The CPU's model name, NUL-ended in out; 0, or -1 (out "") if unknown. */
int platform_cpu_model(char *out, size_t len);

/* The machine's memory in bytes; 0, or -1 if unknown. */
int platform_memory_bytes(uint64_t *bytes);

/*
 * Since boot, over all CPUs: the clock ticks spent busy (neither idle nor
 * waiting for I/O) and in all. 0, or -1 if unknown.
 */
int platform_cpu_ticks(uint64_t *busy, uint64_t *total);

/* The user and system ticks of process (or kernel thread) pid, all its threads; 0, or -1. */
int platform_process_ticks(pid_t pid, uint64_t *ticks);

/*
 * Up to max kernel threads that do file systems' and block devices' work
 * (journal commits, writeback, loop devices), as ids for
 * platform_process_ticks(); how many were found, 0 if none or unknown.
 */
unsigned platform_storage_threads(pid_t *pids, unsigned max);

/* Ticks per second of the tick counts above; never 0. */
long platform_ticks_per_second(void);

/*
 * The block device under path, as a name for platform_disk_read() in id.
 * 0, or -1 where there is none (tmpfs, a network file system) or it
 * cannot be read.
 */
int platform_disk_of(const char *path, char *id, size_t len);

/* The counters of disk id (from platform_disk_of()); 0, or -1 if unreadable. */
int platform_disk_read(const char *id, struct disk_counters *out);

/*
 * The name the system gives disk id, as a person would look it up
 * ("vda1", "loop3", "dm-0 (vg-spool)"), NUL-ended in name; *partition set
 * to 1 when it is a partition of a larger disk. 0, or -1 if unknown.
 */
int platform_disk_name(const char *id, char *name, size_t len, int *partition);

/*
 * Whether disk id holds another file system's writes than the one mounted
 * at mount_point: 1 when it is mounted at "/" or also somewhere else as
 * well (the first such mount point in other), 0 when it is mounted there
 * alone, -1 if unknown.
 */
int platform_disk_shared(const char *id, const char *mount_point, char *other, size_t len);

/*
 * Move this process into a mount namespace of its own, private from the
 * root down: the mounts it and its children make are then in no other
 * namespace, so that another program that makes a namespace meanwhile
 * (unshare -m, a container, ip netns) cannot take a copy that keeps them
 * busy, and they vanish when the last process in it ends, however it
 * ends. 0, or -1 with errno (not root, or no namespaces).
 */
int platform_private_mounts(void);

/*
 * Tie every process this one starts from now on, and every process those
 * start in turn (daemons that fork twice to detach included), to this
 * process: they end when it ends, however it ends, kill -9 included.
 * (On Linux: they go into a new PID namespace whose first process,
 * started here, only waits; the kernel kills that one when this process
 * dies, and with it everything in the namespace.) Children started
 * before are not tied. The tie holds across exec. Call it from the
 * thread that lives as long as the process: the kernel fires its
 * parent-death signal when that thread ends.
 *
 * The children see PIDs of their own (they are not those the rest of the
 * machine sees, which /proc and this process go on seeing); their mounts
 * are the caller's business (platform_private_mounts()).
 *
 * 0; or -1 with errno (not root, no PID namespaces; ENOSYS where the
 * system has no such thing; ENOTSUP in a build with AddressSanitizer,
 * whose LeakSanitizer reads /proc/PID/task by the PID its process sees,
 * and in a PID namespace without a /proc of its own that is another
 * process's or none, so that every child would fail at its exit), and
 * then nothing changed.
 */
int platform_tie_children(void);

#endif
