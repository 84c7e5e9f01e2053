/*
 * crash_sys - the system's programs and image copies; see crash_sys.h.
 */
#include "config.h"

#define _FILE_OFFSET_BITS 64

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/dm-ioctl.h>
#include <linux/loop.h>

#include "crash_sys.h"
#include "fileutil.h"
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

/* What the kernel says of a loop device: the file it serves, and its flags. */
struct loop_state {
    int bound; /* 0: it serves no file */
    uint64_t file_dev, file_ino;
    uint32_t flags;
};

/* 0 with st filled, or -1 if it cannot be told. */
static int loop_state(const char *dev, struct loop_state *st)
{
    struct loop_info64 info;
    int fd = open(dev, O_RDONLY | O_CLOEXEC), rc;

    memset(st, 0, sizeof(*st));
    if (fd < 0)
        return errno == ENXIO || errno == ENOENT ? 0 : -1; /* gone, or being taken apart */
    rc = ioctl(fd, LOOP_GET_STATUS64, &info);
    if (rc != 0 && errno != ENXIO) {
        close(fd);
        return -1;
    }
    close(fd);
    if (rc == 0) {
        st->bound = 1;
        st->file_dev = info.lo_device;
        st->file_ino = info.lo_inode;
        st->flags = info.lo_flags;
    }
    return 0;
}

/* Append DEV and its file to WORK/loops: 0, or -1 (the device then detached). */
static int loop_list(const struct drive *d, const char *dev)
{
    char path[PATH_MAX], line[128];
    struct loop_state st;
    int fd, n;

    drive_path(d, "loops", path);
    if (loop_state(dev, &st) != 0 || !st.bound)
        return -1;
    n = snprintf(line, sizeof(line), "%s %llu %llu\n", dev, (unsigned long long)st.file_dev,
                 (unsigned long long)st.file_ino);
    fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0 || write(fd, line, (size_t)n) != n || close(fd) != 0) {
        char *argv[] = {"losetup", "-d", (char *)dev, NULL};

        msg_warn("cannot list %s in %s: %s", dev, path, strerror(errno));
        crash_sys_cmd(d, "losetup-d", argv);
        return -1;
    }
    return 0;
}

/*
 * The last record of DEV in WORK/loops into st (bound, with its file), or
 * of each device in turn to each(); the count of devices, or -1.
 */
static int loop_listed(const struct drive *d, const char *dev, struct loop_state *st,
                       void (*each)(const char *dev, void *ctx), void *ctx)
{
    char path[PATH_MAX], *text, *line, *save = NULL;
    char seen[64][64];
    int count = 0, found = -1;

    drive_path(d, "loops", path);
    if ((text = fileutil_read_all(path, NULL)) == NULL)
        return -1;
    for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char name[64];
        unsigned long long fdev, fino;
        int i;

        if (sscanf(line, "%63s %llu %llu", name, &fdev, &fino) != 3 ||
            strncmp(name, "/dev/loop", 9) != 0)
            continue;
        if (dev && strcmp(name, dev) == 0) {
            st->bound = 1;
            st->file_dev = fdev;
            st->file_ino = fino;
            found = 0;
        }
        for (i = 0; i < count && strcmp(seen[i], name) != 0; i++)
            continue;
        if (i == count && count < 64)
            snprintf(seen[count++], sizeof(seen[0]), "%s", name);
    }
    free(text);
    if (dev)
        return found;
    for (int i = 0; i < count; i++)
        each(seen[i], ctx);
    return count;
}

int crash_sys_loop_each_listed(const struct drive *d, void (*each)(const char *dev, void *ctx),
                               void *ctx)
{
    return loop_listed(d, NULL, NULL, each, ctx);
}

int crash_sys_loop_autoclear(const char *dev)
{
    struct loop_info64 info;
    int fd = open(dev, O_RDONLY | O_CLOEXEC), rc = -1, saved;

    if (fd < 0)
        return -1;
    if (ioctl(fd, LOOP_GET_STATUS64, &info) == 0) {
        info.lo_flags |= LO_FLAGS_AUTOCLEAR;
        rc = ioctl(fd, LOOP_SET_STATUS64, &info);
    }
    saved = errno;
    close(fd);
    errno = saved;
    return rc == 0 ? 0 : -1;
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
    if (strncmp(dev, "/dev/loop", 9) != 0)
        return -1;
    return loop_list(d, dev);
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

/*
 * How long a loop device or a mount may take to let go: a loop device
 * lets go of its file some time after losetup -d returns (and the FUSE
 * mount below it is busy until then), which a loaded machine (CI's
 * distcheck, load about 12) was seen to take over 5 s.
 */
#define RELEASE_WAIT_MS 30000

/* Does the device now serve the file `ours' names? 1, 0, or -1 if it cannot be told. */
static int loop_serves(const char *dev, const struct loop_state *ours, struct loop_state *now)
{
    if (loop_state(dev, now) != 0)
        return -1;
    return now->bound && now->file_dev == ours->file_dev && now->file_ino == ours->file_ino;
}

int crash_sys_loop_ours(const struct drive *d, const char *dev)
{
    struct loop_state ours, now;

    if (loop_listed(d, dev, &ours, NULL, NULL) != 0)
        return -1;
    return loop_serves(dev, &ours, &now);
}

int crash_sys_loop_detach(const struct drive *d, const char *dev)
{
    char *argv[] = {"losetup", "-d", (char *)dev, NULL};
    struct loop_state ours, now;
    int serves;

    if (loop_listed(d, dev, &ours, NULL, NULL) != 0) {
        /* not listed (the list could not be read): what it serves now counts as ours */
        if (loop_state(dev, &ours) != 0)
            return -1;
        if (!ours.bound)
            return 0;
    }
    if ((serves = loop_serves(dev, &ours, &now)) <= 0)
        return serves; /* detached itself at the unmount (and maybe taken by another since) */
    if (!(now.flags & LO_FLAGS_AUTOCLEAR) && crash_sys_cmd(d, "losetup-d", argv) != 0)
        return -1;
    /*
     * The device lets go of its file from a work queue, a moment later.
     * Then another program may take the free device at once (losetup
     * --find, on a machine where others make loop devices too): what is
     * waited for is that it no longer serves our file.
     */
    for (int i = 0; i < RELEASE_WAIT_MS / 10; i++) {
        if (loop_serves(dev, &ours, &now) == 0)
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
    if (crash_sys_cmd(d, "mount", argv) != 0)
        return -1;
    if (strncmp(dev, "/dev/loop", 9) == 0 && crash_sys_loop_autoclear(dev) != 0)
        msg_warn("cannot make %s detach itself at its unmount (%s): a kill -9 now would leave it "
                 "attached until the next run",
                 dev, strerror(errno));
    return 0;
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

int crash_sys_share_dir(const char *dir)
{
    int saved;

    if (mount(dir, dir, NULL, MS_BIND, NULL) != 0)
        return -1;
    if (mount(NULL, dir, NULL, MS_SHARED, NULL) == 0)
        return 0;
    saved = errno;
    umount2(dir, 0);
    errno = saved;
    return -1;
}

int crash_sys_unshare_dir(const char *dir)
{
    return umount2(dir, 0) == 0 || errno == EINVAL || errno == ENOENT ? 0 : -1;
}

/* A mount point of mountinfo, its octal escapes (\\040 for a space) undone, in place. */
static void unescape(char *p)
{
    char *out = p;

    for (; *p; p++) {
        if (p[0] == '\\' && p[1] >= '0' && p[1] <= '3' && p[2] >= '0' && p[2] <= '7' &&
            p[3] >= '0' && p[3] <= '7') {
            *out++ = (char)((p[1] - '0') << 6 | (p[2] - '0') << 3 | (p[3] - '0'));
            p += 3;
        } else {
            *out++ = *p;
        }
    }
    *out = '\0';
}

static int longer_first(const void *a, const void *b)
{
    size_t la = strlen(*(char *const *)a), lb = strlen(*(char *const *)b);

    return la < lb ? 1 : la > lb ? -1 : 0;
}

int crash_sys_unmount_below(const char *dir)
{
    char *text = fileutil_read_all("/proc/self/mountinfo", NULL), *line, *save = NULL;
    char *below[256];
    size_t n = 0, len = strlen(dir);
    int status = 0;

    if (text == NULL)
        return -1;
    for (line = strtok_r(text, "\n", &save); line && n < 256; line = strtok_r(NULL, "\n", &save)) {
        char *field = line, *end;

        for (int i = 0; i < 4 && field; i++) /* ID PARENT MAJ:MIN ROOT, then the mount point */
            field = (field = strchr(field, ' ')) ? field + 1 : NULL;
        if (field == NULL)
            continue;
        if ((end = strchr(field, ' ')) != NULL)
            *end = '\0';
        unescape(field);
        if (strncmp(field, dir, len) == 0 && field[len] == '/')
            below[n++] = field;
    }
    qsort(below, n, sizeof(below[0]), longer_first);
    for (size_t i = 0; i < n; i++) {
        if (umount2(below[i], MNT_DETACH) != 0 && errno != EINVAL && errno != ENOENT) {
            msg_warn("cannot unmount %s: %s", below[i], strerror(errno));
            status = -1;
        }
    }
    free(text);
    return status == 0 ? (int)n : -1;
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
