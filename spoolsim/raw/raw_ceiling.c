/*
 * raw_ceiling - the bare limits of a directory at a given concurrency.
 *
 * Two loops, each on W threads for the same time: a 4 KiB write and an
 * fsync, over and over, on one file per thread (fio's --rw=write --bs=4k
 * --fsync=1); and the smallest spool cycle, create + 1 KiB write + fsync
 * + close + rename + unlink, one directory for all threads. A profile's
 * rate divided by the second is how close it comes to what the
 * filesystem can do for a spool (docs/postfix-observed.md section 6).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "interrupt.h"
#include "raw_report.h"
#include "xalloc.h"

#define FILE_WRAP (16u * 1024 * 1024)

struct ceiling_thread {
    pthread_t thread;
    const char *dir;
    unsigned index;
    int loop; /* 0: write + fsync; 1: spool cycle */
    uint64_t deadline_ns;
    uint64_t done;
    int error;
};

static void *fsync_loop(struct ceiling_thread *t)
{
    char path[4096], block[4096];
    off_t off = 0;
    int fd;

    memset(block, 'x', sizeof(block));
    snprintf(path, sizeof(path), "%s/ceiling-fsync.%u", t->dir, t->index);
    if ((fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)) < 0) {
        t->error = errno;
        return NULL;
    }
    while (clock_now_ns() < t->deadline_ns && !interrupt_signal()) {
        if (pwrite(fd, block, sizeof(block), off) != (ssize_t)sizeof(block) || fsync(fd) != 0) {
            t->error = errno;
            break;
        }
        off = (off + (off_t)sizeof(block)) % FILE_WRAP;
        t->done++;
    }
    close(fd);
    unlink(path);
    return NULL;
}

static void *spool_loop(struct ceiling_thread *t)
{
    char tmp[4096], name[4096], block[1024];

    memset(block, 'x', sizeof(block));
    while (clock_now_ns() < t->deadline_ns && !interrupt_signal()) {
        int fd;

        snprintf(tmp, sizeof(tmp), "%s/ceiling-t.%u.%llu", t->dir, t->index,
                 (unsigned long long)t->done);
        snprintf(name, sizeof(name), "%s/ceiling-q.%u.%llu", t->dir, t->index,
                 (unsigned long long)t->done);
        if ((fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600)) < 0 ||
            write(fd, block, sizeof(block)) != (ssize_t)sizeof(block) || fsync(fd) != 0 ||
            close(fd) != 0 || rename(tmp, name) != 0 || unlink(name) != 0) {
            t->error = errno;
            unlink(tmp);
            break;
        }
        t->done++;
    }
    return NULL;
}

static void *ceiling_main(void *arg)
{
    struct ceiling_thread *t = arg;

    return t->loop ? spool_loop(t) : fsync_loop(t);
}

static double run_loop(const struct raw_options *opts, const char *dir, double seconds, int loop,
                       int *error)
{
    struct ceiling_thread *threads = xcalloc(opts->workers, sizeof(*threads));
    uint64_t t0 = clock_now_ns(), total = 0;
    double elapsed;
    unsigned started = 0;

    for (unsigned i = 0; i < opts->workers; i++) {
        int err;

        threads[i].dir = dir;
        threads[i].index = i;
        threads[i].loop = loop;
        threads[i].deadline_ns = t0 + (uint64_t)(seconds * 1e9);
        if ((err = pthread_create(&threads[i].thread, NULL, ceiling_main, &threads[i])) != 0) {
            /* Fewer workers than asked would measure another ceiling: say so, with the ones there.
             */
            *error = err;
            break;
        }
        started++;
    }
    for (unsigned i = 0; i < started; i++) {
        pthread_join(threads[i].thread, NULL);
        total += threads[i].done;
        if (threads[i].error)
            *error = threads[i].error;
    }
    elapsed = (double)(clock_now_ns() - t0) / 1e9;
    free(threads);
    return elapsed > 0 ? (double)total / elapsed : 0;
}

int raw_ceiling(const struct raw_options *opts, const char *dir, double seconds,
                struct raw_result *res)
{
    int error = 0;

    if (seconds < 1)
        seconds = 1;
    if (seconds > 10)
        seconds = 10;
    res->fsync_ceiling = run_loop(opts, dir, seconds, 0, &error);
    if (!interrupt_signal())
        res->loop_ceiling = run_loop(opts, dir, seconds, 1, &error);
    if (error) {
        snprintf(res->error, sizeof(res->error), "ceiling in %s: %s", dir, strerror(error));
        return -1;
    }
    return 0;
}
