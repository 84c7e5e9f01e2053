/*
 * crash_sys - the system's programs and image copies; see crash_sys.h.
 */
#include "config.h"

#define _FILE_OFFSET_BITS 64

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/dm-ioctl.h>

#include "crash_sys.h"
#include "msg.h"

extern char **environ;

static int executable_in(const char *dir, size_t dir_len, const char *name, char *out, size_t len)
{
    struct stat sb;

    if ((size_t)snprintf(out, len, "%.*s/%s", (int)dir_len, dir, name) >= len)
        return -1;
    return stat(out, &sb) == 0 && S_ISREG(sb.st_mode) && access(out, X_OK) == 0 ? 0 : -1;
}

int crash_sys_which(const char *name, char *out, size_t len)
{
    const char *path = getenv("PATH"), *extra = "/usr/sbin:/sbin";

    for (int pass = 0; pass < 2; pass++) {
        const char *p = pass == 0 ? (path ? path : "") : extra;

        while (*p) {
            const char *colon = strchr(p, ':');
            size_t n = colon ? (size_t)(colon - p) : strlen(p);

            if (n > 0 && executable_in(p, n, name, out, len) == 0)
                return 0;
            p += n + (colon != NULL);
        }
    }
    return -1;
}

int crash_sys_cmd(const struct drive *d, const char *name, char *const argv[])
{
    char prog[PATH_MAX], out[PATH_MAX], err[PATH_MAX];
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    pid_t pid;
    int rc, status;

    if (crash_sys_which(argv[0], prog, sizeof(prog)) != 0) {
        msg_warn("no %s in PATH, /usr/sbin or /sbin", argv[0]);
        return -1;
    }
    drive_path(d, name, out);
    drive_path(d, name, err);
    strncat(out, ".out", sizeof(out) - strlen(out) - 1);
    strncat(err, ".err", sizeof(err) - strlen(err) - 1);
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_addopen(&fa, 2, err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawnattr_init(&attr);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&attr, 0);
    rc = posix_spawn(&pid, prog, &fa, &attr, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    if (rc != 0) {
        msg_warn("cannot run %s: %s", prog, strerror(rc));
        return -1;
    }
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static int last_line(const char *path, char *out, size_t len)
{
    FILE *fp = fopen(path, "r");
    char line[1024];

    out[0] = '\0';
    if (fp == NULL)
        return -1;
    while (fgets(line, sizeof(line), fp)) {
        line[strcspn(line, "\r\n")] = '\0';
        if (line[0])
            snprintf(out, len, "%s", line);
    }
    fclose(fp);
    return out[0] ? 0 : -1;
}

void crash_sys_cmd_said(const struct drive *d, const char *name, char *out, size_t len)
{
    char path[PATH_MAX];

    drive_path(d, name, path);
    strncat(path, ".err", sizeof(path) - strlen(path) - 1);
    if (last_line(path, out, len) == 0)
        return;
    drive_path(d, name, path);
    strncat(path, ".out", sizeof(path) - strlen(path) - 1);
    last_line(path, out, len);
}

int crash_sys_loop_attach(const struct drive *d, const char *file, int direct_io, char *dev,
                          size_t len)
{
    char *argv[] = {"losetup",    "--find",
                    "--show",     direct_io ? "--direct-io=on" : "--direct-io=off",
                    (char *)file, NULL};
    char path[PATH_MAX];
    FILE *fp;

    dev[0] = '\0';
    if (crash_sys_cmd(d, "losetup", argv) != 0)
        return -1;
    drive_path(d, "losetup.out", path);
    if ((fp = fopen(path, "r")) == NULL)
        return -1;
    if (fgets(dev, (int)len, fp) == NULL)
        dev[0] = '\0';
    fclose(fp);
    dev[strcspn(dev, "\r\n")] = '\0';
    return strncmp(dev, "/dev/loop", 9) == 0 ? 0 : -1;
}

static void sys_path(const char *dev, const char *leaf, char *out, size_t len)
{
    const char *base = strrchr(dev, '/');

    snprintf(out, len, "/sys/block/%s/loop/%s", base ? base + 1 : dev, leaf);
}

int crash_sys_loop_dio(const char *dev)
{
    char path[PATH_MAX];
    FILE *fp;
    int c;

    sys_path(dev, "dio", path, sizeof(path));
    if ((fp = fopen(path, "r")) == NULL)
        return -1;
    c = fgetc(fp);
    fclose(fp);
    return c == '1' ? 1 : c == '0' ? 0 : -1;
}

/* The file the loop device serves, as sysfs names it, into out ("" if none). */
static void backing_file(const char *dev, char *out, size_t len)
{
    char path[PATH_MAX];
    FILE *fp;

    out[0] = '\0';
    sys_path(dev, "backing_file", path, sizeof(path));
    if ((fp = fopen(path, "r")) == NULL)
        return;
    if (fgets(out, (int)len, fp) == NULL)
        out[0] = '\0';
    fclose(fp);
}

/*
 * How long a loop device or a mount may take to let go: a loop device
 * lets go of its file some time after losetup -d returns (and the FUSE
 * mount below it is busy until then), which a loaded machine (CI's
 * distcheck, load about 12) was seen to take over 5 s.
 */
#define RELEASE_WAIT_MS 30000

int crash_sys_loop_detach(const struct drive *d, const char *dev)
{
    char *argv[] = {"losetup", "-d", (char *)dev, NULL};
    char ours[PATH_MAX + 2], now[PATH_MAX + 2];

    backing_file(dev, ours, sizeof(ours));
    if (crash_sys_cmd(d, "losetup-d", argv) != 0)
        return -1;
    /*
     * The device lets go of its file from a work queue, a moment later.
     * Then another program may take the free device at once (losetup
     * --find, on a machine where others make loop devices too): what is
     * waited for is that it no longer serves our file.
     */
    for (int i = 0; i < RELEASE_WAIT_MS / 10; i++) {
        backing_file(dev, now, sizeof(now));
        if (now[0] == '\0' || strcmp(now, ours) != 0)
            return 0;
        usleep(10000);
    }
    return -1;
}

int crash_sys_mount(const struct drive *d, const char *dev, const char *dir, const char *type,
                    const char *opts)
{
    char *argv[10];
    int n = 0;

    argv[n++] = "mount";
    argv[n++] = "-t";
    argv[n++] = (char *)type;
    if (opts && *opts) {
        argv[n++] = "-o";
        argv[n++] = (char *)opts;
    }
    argv[n++] = (char *)dev;
    argv[n++] = (char *)dir;
    argv[n] = NULL;
    return crash_sys_cmd(d, "mount", argv) == 0 ? 0 : -1;
}

int crash_sys_private_mounts(void)
{
    if (unshare(CLONE_NEWNS) != 0)
        return -1;
    /* a shared / would still propagate our mounts back to the namespace we left */
    return mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL);
}

int crash_sys_umount(const struct drive *d, const char *dir)
{
    char *argv[] = {"umount", (char *)dir, NULL};

    for (int i = 0; i < RELEASE_WAIT_MS / 100; i++) {
        if (crash_sys_cmd(d, "umount", argv) == 0)
            return 0;
        if (crash_sys_is_mount(dir) == 0)
            return 0;   /* gone meanwhile: a FUSE server unmounts its own on SIGTERM */
        usleep(100000); /* busy: a child that has just gone may still hold it */
    }
    return -1;
}

int crash_sys_is_mount(const char *dir)
{
    char parent[PATH_MAX + 4];
    struct stat here, above;

    if (stat(dir, &here) != 0)
        return errno == ENOTCONN ? 1 : errno == ENOENT ? 0 : -1;
    snprintf(parent, sizeof(parent), "%s/..", dir);
    if (stat(parent, &above) != 0)
        return -1;
    return here.st_dev != above.st_dev;
}

int crash_sys_copy_sparse(const char *from, const char *to, char *err, size_t errlen)
{
    int in = open(from, O_RDONLY | O_CLOEXEC), out = -1, status = -1;
    struct stat sb;
    off_t at = 0;

    if (in < 0 || fstat(in, &sb) != 0) {
        msg_set_error(err, errlen, "cannot read %s: %s", from, strerror(errno));
        goto done;
    }
    out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (out < 0 || ftruncate(out, sb.st_size) != 0) {
        msg_set_error(err, errlen, "cannot make %s: %s", to, strerror(errno));
        goto done;
    }
    while (at < sb.st_size) {
        off_t data = lseek(in, at, SEEK_DATA), hole;

        if (data < 0 && errno == ENXIO)
            break; /* holes to the end */
        if (data < 0 || (hole = lseek(in, data, SEEK_HOLE)) < 0) {
            msg_set_error(err, errlen, "cannot map %s: %s", from, strerror(errno));
            goto done;
        }
        for (off_t src = data, dst = data; src < hole;) {
            ssize_t n = copy_file_range(in, &src, out, &dst, (size_t)(hole - src), 0);

            if (n <= 0) {
                msg_set_error(err, errlen, "cannot copy %s to %s: %s", from, to,
                              n < 0 ? strerror(errno) : "short copy");
                goto done;
            }
        }
        at = hole;
    }
    status = 0;
done:
    if (in >= 0)
        close(in);
    if (out >= 0 && close(out) != 0 && status == 0)
        status = msg_set_error(err, errlen, "cannot write %s: %s", to, strerror(errno));
    return status;
}

int crash_sys_dm_open(void)
{
    return open("/dev/mapper/control", O_RDWR | O_CLOEXEC);
}

int crash_sys_dm_message(int control, const char *name, const char *text)
{
    union {
        struct dm_ioctl io;
        unsigned char bytes[sizeof(struct dm_ioctl) + sizeof(struct dm_target_msg) + 256];
    } u;
    struct dm_target_msg *m = (struct dm_target_msg *)(u.bytes + sizeof(struct dm_ioctl));
    size_t room = sizeof(u) - sizeof(struct dm_ioctl) - sizeof(*m);

    if (strlen(name) >= sizeof(u.io.name) || strlen(text) >= room) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memset(&u, 0, sizeof(u));
    /* the oldest interface of this major version: the kernel takes any minor up to its own */
    u.io.version[0] = DM_VERSION_MAJOR;
    u.io.data_size = sizeof(u);
    u.io.data_start = sizeof(struct dm_ioctl);
    memcpy(u.io.name, name, strlen(name) + 1);
    m->sector = 0;
    memcpy(m->message, text, strlen(text) + 1);
    return ioctl(control, DM_TARGET_MSG, &u.io) == 0 ? 0 : -1;
}
