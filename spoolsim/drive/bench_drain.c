/*
 * bench_drain - when `spoolsim bench' may call the relay's queue empty;
 * see bench_drain.h.
 */
#include "config.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench_drain.h"
#include "spool_backend.h"

#define MAX_DEPTH 8 /* the deepest profile tree is queue/HH/ID/file */

/* Regular files (and anything else that is not a directory) below the open directory fd. */
static size_t count_files(int fd, int depth, const char *skip)
{
    DIR *dir = fdopendir(fd);
    struct dirent *e;
    size_t n = 0;

    if (dir == NULL) {
        close(fd);
        return 0;
    }
    while ((e = readdir(dir)) != NULL) {
        struct stat sb;
        int sub;

        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        if (skip && strcmp(e->d_name, skip) == 0)
            continue;
        /* a file that goes while we look is simply not counted */
        if (fstatat(dirfd(dir), e->d_name, &sb, AT_SYMLINK_NOFOLLOW) != 0)
            continue;
        if (!S_ISDIR(sb.st_mode)) {
            n++;
            continue;
        }
        if (depth < MAX_DEPTH &&
            (sub = openat(dirfd(dir), e->d_name,
                          O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) >= 0)
            n += count_files(sub, depth + 1, NULL);
    }
    closedir(dir);
    return n;
}

static size_t queued_files(const struct profile *p, const char *spool)
{
    const struct spool_backend *b = spool_backend_of(p);
    const char *const *dirs = b->queues(p), *const *lasting = b->lasting(p);
    size_t n = 0;

    for (size_t i = 0; dirs[i]; i++) {
        char path[4096];
        int fd;

        snprintf(path, sizeof(path), "%s/%s", spool, dirs[i]);
        if ((fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
            continue;
        /* qmail's pid/ is also where the relay keeps its lock */
        n += count_files(fd, 0, strcmp(dirs[i], "pid") == 0 ? "relay.pid" : NULL);
    }
    /* The profile's own lasting files (Exim's hints databases and their locks) are no message. */
    for (size_t i = 0; lasting && lasting[i]; i++) {
        char path[4096];
        struct stat sb;

        snprintf(path, sizeof(path), "%s/%s", spool, lasting[i]);
        if (n > 0 && lstat(path, &sb) == 0 && S_ISREG(sb.st_mode))
            n--;
    }
    return n;
}

size_t bench_drain_tally_update(struct line_tally *t, const char *path)
{
    char buf[65536];
    ssize_t got;
    int fd = open(path, O_RDONLY | O_CLOEXEC);

    if (fd < 0)
        return t->lines;
    while ((got = pread(fd, buf, sizeof(buf), t->offset)) > 0) {
        /* only whole lines: a line being written is counted once it ends */
        ssize_t last = got - 1;

        while (last >= 0 && buf[last] != '\n')
            last--;
        if (last < 0)
            break;
        for (ssize_t i = 0; i <= last; i++)
            t->lines += buf[i] == '\n';
        t->offset += last + 1;
    }
    close(fd);
    return t->lines;
}

void bench_drain_init(struct bench_drain *d, const struct profile *p, const char *spool,
                      const char *sent_log, const char *sink_log)
{
    memset(d, 0, sizeof(*d));
    d->profile = p;
    d->spool = spool;
    d->sent_log = sent_log;
    d->sink_log = sink_log;
}

size_t bench_drain_pending(struct bench_drain *d)
{
    size_t sent, received;

    if (!spool_backend_of(d->profile)->no_io)
        return queued_files(d->profile, d->spool);
    if (d->sink_log == NULL)
        return 0; /* in memory and discarded at once: nothing to wait for */
    sent = bench_drain_tally_update(&d->sent, d->sent_log);
    received = bench_drain_tally_update(&d->received, d->sink_log);
    return sent > received ? sent - received : 0;
}
