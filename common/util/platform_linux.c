/*
 * platform_linux - platform.h on Linux: /proc, /sys and the device numbers.
 *
 * The files' text is parsed by procfs.c; this file only reads them. The
 * files sampled while a run is busy (/proc/stat, a thread's stat, a block
 * device's stat) are read into a buffer on the stack, without malloc, to
 * keep a sample cheap enough to take often.
 *
 * platform_tie_children() is `unshare --pid --fork --kill-child' done in
 * process: a new PID namespace for the children, its first process a
 * holder that dies with the caller (PR_SET_PDEATHSIG), since the kernel
 * kills everything in a namespace whose first process dies. The holder
 * is forked, not a separate program, so that the tie needs nothing
 * installed and survives the caller's exec.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
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

/*
 * A file system on a block device whose files show an anonymous device
 * number (btrfs, one per subvolume): the device its mount was made from.
 */
static int mounted_from(const char *path, dev_t *dev)
{
    char resolved[PATH_MAX];
    struct fsinfo fs;
    struct stat sb;

    if (realpath(path, resolved) == NULL || platform_mount_of(resolved, &fs) != 0 ||
        strncmp(fs.source, "/dev/", 5) != 0 || stat(fs.source, &sb) != 0 || !S_ISBLK(sb.st_mode))
        return -1;
    *dev = sb.st_rdev;
    return 0;
}

int platform_disk_of(const char *path, char *id, size_t len)
{
    struct stat sb;
    dev_t dev;
    char buf[512];

    if (stat(path, &sb) != 0)
        return -1;
    dev = sb.st_dev;
    if (major(dev) == 0 && mounted_from(path, &dev) != 0)
        return -1; /* tmpfs, NFS, overlay: an anonymous device and no block device under it */
    /* a link to the partition, or to the whole device, that holds the file system */
    snprintf(id, len, "/sys/dev/block/%u:%u/stat", major(dev), minor(dev));
    return read_small(id, buf, sizeof(buf));
}

/* The device's directory under /sys from an id: the id less its "/stat". */
static int disk_dir(const char *id, char *dir, size_t len)
{
    const char *slash = strrchr(id, '/');

    if (slash == NULL || strcmp(slash, "/stat") != 0 || (size_t)(slash - id) >= len)
        return -1;
    snprintf(dir, len, "%.*s", (int)(slash - id), id);
    return 0;
}

int platform_disk_name(const char *id, char *name, size_t len, int *partition)
{
    char dir[PATH_MAX], resolved[PATH_MAX], path[PATH_MAX + 16], dm[128];
    const char *base;

    if (len > 0)
        name[0] = 0;
    *partition = 0;
    if (disk_dir(id, dir, sizeof(dir)) != 0 || realpath(dir, resolved) == NULL ||
        (base = strrchr(resolved, '/')) == NULL || base[1] == 0)
        return -1;
    base++;
    snprintf(path, sizeof(path), "%s/partition", resolved);
    *partition = access(path, F_OK) == 0;
    snprintf(path, sizeof(path), "%s/dm/name", resolved);
    if (read_small(path, dm, sizeof(dm)) == 0) { /* dm-0 says little: its name says more */
        dm[strcspn(dm, "\n")] = 0;
        snprintf(name, len, "%s (%s)", base, dm);
    } else {
        snprintf(name, len, "%s", base);
    }
    return 0;
}

int platform_disk_shared(const char *id, const char *mount_point, char *other, size_t len)
{
    unsigned maj, min;
    char dev[32], *text;
    int status;

    if (len > 0)
        other[0] = 0;
    if (sscanf(id, "/sys/dev/block/%u:%u/", &maj, &min) != 2 ||
        (text = fileutil_read_all("/proc/self/mountinfo", NULL)) == NULL)
        return -1;
    snprintf(dev, sizeof(dev), "%u:%u", maj, min);
    status = procfs_device_shared(text, dev, mount_point, other, len);
    free(text);
    return status;
}

int platform_disk_read(const char *id, struct disk_counters *out)
{
    char text[4096];

    if (read_small(id, text, sizeof(text)) != 0)
        return -1;
    return procfs_disk_stat(text, out);
}

int platform_private_mounts(void)
{
    if (unshare(CLONE_NEWNS) != 0)
        return -1;
    /* a shared / would still propagate our mounts back to the namespace we left */
    return mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL);
}

static void holder_wake(int sig)
{
    (void)sig; /* only to end sigsuspend() */
}

/*
 * The first process of the children's PID namespace: the reaper of every
 * orphan in it (a detached daemon's first fork), and the process whose
 * death takes the namespace down. It tells the caller over `sock' (one
 * byte: 0, or the errno of what failed) that it is tied, then waits.
 */
static _Noreturn void holder(int sock)
{
    struct sigaction sa;
    struct pollfd pfd = {.fd = sock, .events = POLLIN};
    sigset_t chld, none;
    unsigned char status = 0;
    long fds = sysconf(_SC_OPEN_MAX);
    int null = open("/dev/null", O_RDWR);

    /* nothing of the caller's: its output pipes must see their end when it ends */
    if (null >= 0) {
        for (int fd = 0; fd < 3; fd++)
            dup2(null, fd);
    }
    for (int fd = 3; fd < (fds > 0 && fds < 65536 ? fds : 65536); fd++)
        if (fd != sock)
            close(fd);
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = SIG_DFL;
    for (int sig = 1; sig < NSIG; sig++)
        sigaction(sig, &sa, NULL); /* the caller's handlers are not ours; KILL and STOP refuse */
    sa.sa_handler = holder_wake;
    sigaction(SIGCHLD, &sa, NULL);
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &chld, NULL);
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0)
        status = (unsigned char)errno;
    else if (poll(&pfd, 1, 0) > 0)
        _exit(0); /* the caller died before the signal was set: nobody holds the other end */
    if (write(sock, &status, 1) != 1 || status != 0)
        _exit(1);
    close(sock);
    for (;;) {
        while (waitpid(-1, NULL, WNOHANG) > 0)
            continue;
        sigsuspend(&none);
    }
}

/* AddressSanitizer's build: its LeakSanitizer cannot run in the children's namespace (platform.h). */
#if defined(__SANITIZE_ADDRESS__)
#define TIE_UNDER_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TIE_UNDER_SANITIZER 1
#endif
#endif

int platform_tie_children(void)
{
    int sv[2], ns, saved;
    unsigned char status = 0;
    ssize_t n;
    pid_t pid;

#ifdef TIE_UNDER_SANITIZER
    errno = ENOTSUP;
    return -1;
#endif
    if ((ns = open("/proc/self/ns/pid", O_RDONLY | O_CLOEXEC)) < 0)
        return -1;
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
        saved = errno;
        close(ns);
        errno = saved;
        return -1;
    }
    if (unshare(CLONE_NEWPID) != 0 || (pid = fork()) < 0) {
        saved = errno;
        goto undo;
    }
    if (pid == 0) {
        close(sv[0]);
        holder(sv[1]);
    }
    close(sv[1]);
    sv[1] = -1;
    do
        n = read(sv[0], &status, 1);
    while (n < 0 && errno == EINTR);
    if (n == 1 && status == 0) {
        close(sv[0]);
        close(ns);
        return 0;
    }
    saved = n == 1 ? status : ECHILD;
    waitpid(pid, NULL, 0);
undo:
    /* a namespace whose first process is gone takes no more children: back to ours */
    (void)setns(ns, CLONE_NEWPID);
    close(ns);
    close(sv[0]);
    if (sv[1] >= 0)
        close(sv[1]);
    errno = saved;
    return -1;
}
