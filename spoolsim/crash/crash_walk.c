/*
 * crash_walk - a spool's files for the scanners; see crash_walk.h.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "crash_walk.h"
#include "msg.h"
#include "xalloc.h"

#define WALK_DEPTH 4
#define WALK_FILE_MAX (64u << 20)

/* The file fd's bytes (st_size of them at most), or NULL. */
static char *read_fd(int fd, size_t size, size_t *len)
{
    char *buf = xmalloc(size ? size : 1);
    size_t got = 0;

    while (got < size) {
        ssize_t n = read(fd, buf + got, size - got);

        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            free(buf);
            return NULL;
        }
        if (n == 0)
            break;
        got += (size_t)n;
    }
    *len = got;
    return buf;
}

static void take_file(int dirfd, const char *name, const char *rel, struct scan_tree *t)
{
    int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    struct stat sb;
    char *data = NULL;
    size_t len = 0;

    if (fd >= 0 && fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) &&
        (uint64_t)sb.st_size <= WALK_FILE_MAX)
        data = read_fd(fd, (size_t)sb.st_size, &len);
    if (fd >= 0)
        close(fd);
    crash_scan_tree_add(t, xstrdup(rel), data, len);
}

/* The directory fd (taken over, closed here), rel its path under the spool ("" at the top). */
static int walk_dir(int fd, const char *rel, unsigned depth, struct scan_tree *t, char *err,
                    size_t errlen)
{
    DIR *d = fdopendir(fd);
    struct dirent *de;
    int status = 0;

    if (d == NULL) {
        close(fd);
        return msg_set_error(err, errlen, "cannot read %s: %s", rel[0] ? rel : "the spool",
                             strerror(errno));
    }
    while (status == 0 && (de = readdir(d)) != NULL) {
        char path[1024];
        struct stat sb;

        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        snprintf(path, sizeof(path), "%s%s%s", rel, rel[0] ? "/" : "", de->d_name);
        if (fstatat(dirfd(d), de->d_name, &sb, AT_SYMLINK_NOFOLLOW) != 0)
            continue; /* gone, or a name the repair left without an inode */
        if (S_ISREG(sb.st_mode)) {
            take_file(dirfd(d), de->d_name, path, t);
        } else if (S_ISDIR(sb.st_mode) && depth < WALK_DEPTH) {
            int sub = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

            if (sub >= 0)
                status = walk_dir(sub, path, depth + 1, t, err, errlen);
        }
    }
    closedir(d);
    return status;
}

int crash_walk(const char *dir, struct scan_tree *t, char *err, size_t errlen)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

    crash_scan_tree_init(t);
    if (fd < 0)
        return errno == ENOENT
                   ? 1
                   : msg_set_error(err, errlen, "cannot open %s: %s", dir, strerror(errno));
    if (walk_dir(fd, "", 0, t, err, errlen) != 0) {
        crash_scan_tree_free(t);
        return -1;
    }
    crash_scan_tree_sort(t);
    return 0;
}
