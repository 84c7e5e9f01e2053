/*
 * crash_leftover - a dead run's work directory found and removed; see crash_leftover.h.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "crash_leftover.h"
#include "crash_sys.h"
#include "fileutil.h"
#include "msg.h"

#define OWNER_FILE "owner"
#define WORK_PREFIX "spoolsim-crash."

int crash_leftover_mark(const struct drive *d)
{
    char path[PATH_MAX], tmp[PATH_MAX], pid[32];
    int fd, n;

    /*
     * Locked before it has its name: a run cleaning up at the same moment
     * must never find the owner file there and not yet held.
     */
    drive_path(d, OWNER_FILE ".new", tmp);
    drive_path(d, OWNER_FILE, path);
    fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0)
        return -1;
    n = snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
    if (flock(fd, LOCK_EX | LOCK_NB) != 0 || write(fd, pid, (size_t)n) != n ||
        rename(tmp, path) != 0) {
        int saved = errno;

        close(fd);
        unlink(tmp);
        errno = saved;
        return -1;
    }
    return fd; /* held until exit */
}

struct detach_ctx {
    const struct drive *dead;
    unsigned detached, stuck;
};

static void detach_listed(const char *dev, void *arg)
{
    struct detach_ctx *x = arg;
    int ours = crash_sys_loop_ours(x->dead, dev);

    if (ours == 1 && crash_sys_loop_detach(x->dead, dev) == 0)
        x->detached++;
    else if (ours != 0)
        x->stuck++;
}

/* Is the log-writes device of the run PID still there? (/sys: no dmsetup that makes nodes.) */
static int dm_device_left(long pid, char *name, size_t len)
{
    DIR *dp = opendir("/sys/block");
    struct dirent *de;
    int found = 0;

    snprintf(name, len, "spoolsim-crash-%ld", pid);
    if (dp == NULL)
        return 0;
    while (!found && (de = readdir(dp)) != NULL) {
        char path[300], *text;

        if (strncmp(de->d_name, "dm-", 3) != 0)
            continue;
        snprintf(path, sizeof(path), "/sys/block/%s/dm/name", de->d_name);
        if ((text = fileutil_read_all(path, NULL)) != NULL) {
            text[strcspn(text, "\n")] = '\0';
            found = strcmp(text, name) == 0;
            free(text);
        }
    }
    closedir(dp);
    return found;
}

/* Take apart and remove the dead run's directory PATH; 0, or -1 if it stays. */
static int clean_one(const char *path, long pid)
{
    struct drive dead;
    struct detach_ctx x = {.dead = &dead};
    char dm[64];
    int unmounted;

    memset(&dead, 0, sizeof(dead));
    if (strlen(path) >= sizeof(dead.work))
        return -1;
    memcpy(dead.work, path, strlen(path) + 1);
    if ((unmounted = crash_sys_unmount_below(path)) < 0) {
        msg_warn("%s, left by spoolsim crash process %ld (gone), stays: something below it "
                 "will not unmount",
                 path, pid);
        return -1;
    }
    if (dm_device_left(pid, dm, sizeof(dm))) {
        char *argv[] = {"dmsetup", "remove", "--noudevsync", dm, NULL};

        if (crash_sys_cmd(&dead, "dmsetup-remove", argv) != 0) {
            msg_warn("%s, left by spoolsim crash process %ld (gone), stays: cannot remove its "
                     "device %s",
                     path, pid, dm);
            return -1;
        }
    }
    crash_sys_loop_each_listed(&dead, detach_listed, &x);
    if (x.stuck) {
        msg_warn("%s, left by spoolsim crash process %ld (gone), stays: %u of its loop devices "
                 "will not detach",
                 path, pid, x.stuck);
        return -1;
    }
    fileutil_tree_remove(path);
    if (unmounted > 0 || x.detached > 0)
        msg_info(
            "removed %s, left by spoolsim crash process %ld, which is gone, and what of it was "
            "still there: %d mounts, %u loop devices",
            path, pid, unmounted, x.detached);
    else
        msg_info("removed %s, left by spoolsim crash process %ld, which is gone", path, pid);
    return 0;
}

/*
 * Is NAME in the open directory dfd a dead run's? Its owner file then,
 * locked (a second run cleaning at the same time then leaves it), and
 * the PID in pid; else -1.
 */
static int dead_owner(int dfd, const char *name, long *pid)
{
    struct stat sb;
    char text[32];
    int dir, fd;
    ssize_t n;

    if ((dir = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
        return -1;
    /* mkdtemp's, and ours: nobody else can have put a file in it (0711 with --mta, whose
     * daemons must pass through it, still lets nobody else write there) */
    if (fstat(dir, &sb) != 0 || sb.st_uid != geteuid() || (sb.st_mode & 066) != 0) {
        close(dir);
        return -1;
    }
    /* for writing: NFS makes flock() a byte-range lock, and an exclusive one on a descriptor
     * opened read-only fails there (EBADF), which would make every dead run look alive */
    fd = openat(dir, OWNER_FILE, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
    close(dir);
    if (fd < 0)
        return -1;
    if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_uid == geteuid() &&
        flock(fd, LOCK_EX | LOCK_NB) == 0 && (n = read(fd, text, sizeof(text) - 1)) > 0) {
        text[n] = '\0';
        if ((*pid = strtol(text, NULL, 10)) > 0)
            return fd;
    }
    close(fd);
    return -1;
}

int crash_leftover_clean(const char *parent)
{
    DIR *dp;
    struct dirent *de;
    int removed = 0;

    if (parent == NULL)
        parent = fileutil_tmp_dir();
    if ((dp = opendir(parent)) == NULL)
        return 0; /* the run itself says what is wrong with it */
    while ((de = readdir(dp)) != NULL) {
        char path[PATH_MAX];
        long pid;
        int lock, cleaned;

        if (strncmp(de->d_name, WORK_PREFIX, strlen(WORK_PREFIX)) != 0 ||
            (lock = dead_owner(dirfd(dp), de->d_name, &pid)) < 0)
            continue;
        if ((size_t)snprintf(path, sizeof(path), "%s/%s", parent, de->d_name) >= sizeof(path)) {
            close(lock);
            continue;
        }
        cleaned = clean_one(path, pid) == 0;
        close(lock);
        /* On NFS the owner file, removed while still open, lived on as a .nfs file and kept
         * the directory; closed now, it and the directory go. */
        if (cleaned && access(path, F_OK) == 0)
            fileutil_tree_remove(path);
        removed += cleaned;
    }
    closedir(dp);
    return removed;
}
