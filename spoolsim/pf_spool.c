/*
 * pf_spool - a Postfix-style queue on disk; see pf_spool.h.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "pf_spool.h"
#include "xalloc.h"

#define WRITE_PIECE 4096 /* Postfix's VSTREAM buffer: one write per 4 KiB */

static const char *const queues[] = {"incoming", "active",   "deferred", "defer", "bounce", "trace",
                                     "hold",     "maildrop", "corrupt",  "flush", "saved"};

static const char *const sync_names[] = {"fsync", "fdatasync", "none"};

void pf_spool_stats_add(struct pf_spool_stats *to, const struct pf_spool_stats *from)
{
    to->creates += from->creates;
    to->renames += from->renames;
    to->unlinks += from->unlinks;
    to->probes += from->probes;
    to->fsyncs += from->fsyncs;
    to->chmods += from->chmods;
    to->writes += from->writes;
    to->bytes += from->bytes;
    to->utimes += from->utimes;
    to->mkdirs += from->mkdirs;
    to->stat_probes += from->stat_probes;
    to->locks += from->locks;
}

const char *pf_sync_name(enum pf_sync sync)
{
    return sync_names[sync];
}

int pf_sync_parse(const char *name, enum pf_sync *sync)
{
    for (int i = 0; i < 3; i++) {
        if (strcmp(name, sync_names[i]) == 0) {
            *sync = (enum pf_sync)i;
            return 0;
        }
    }
    return -1;
}

int pf_spool_open(struct pf_spool *sp, const char *dir, char *err, size_t errlen)
{
    char path[4096];
    struct stat st;

    sp->dir = xstrdup(dir);
    if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
        snprintf(err, errlen, "cannot create spool directory %s: %s", dir, strerror(errno));
        return -1;
    }
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode) || access(dir, W_OK | X_OK) != 0) {
        snprintf(err, errlen, "spool directory %s is not a writable directory", dir);
        return -1;
    }
    for (size_t i = 0; i < sizeof(queues) / sizeof(queues[0]); i++) {
        snprintf(path, sizeof(path), "%s/%s", dir, queues[i]);
        if (mkdir(path, 0700) != 0 && errno != EEXIST) {
            snprintf(err, errlen, "cannot create %s: %s", path, strerror(errno));
            return -1;
        }
    }
    return 0;
}

void pf_spool_close(struct pf_spool *sp)
{
    free(sp->dir);
    sp->dir = NULL;
}

static int hashed(const char *queue)
{
    return strcmp(queue, "deferred") == 0 || strcmp(queue, "defer") == 0;
}

int pf_spool_path(const struct pf_spool *sp, const char *queue, const char *id, char *out,
                  size_t len)
{
    char hash[16] = "";
    int n;

    /* Validate before any path is built: an ID never walks out of its queue. */
    if (!pf_queue_id_ok(id))
        return -1;
    if (hashed(queue) && sp->hash_depth > 0 &&
        pf_queue_hash(id, sp->hash_depth, hash, sizeof(hash)) != 0)
        return -1;
    n = snprintf(out, len, "%s/%s/%s%s%s", sp->dir, queue, hash, hash[0] ? "/" : "", id);
    return n < 0 || (size_t)n >= len ? -1 : 0;
}

static int write_all(int fd, const char *p, size_t n, struct pf_spool_stats *st)
{
    while (n > 0) {
        size_t piece = n < WRITE_PIECE ? n : WRITE_PIECE;
        ssize_t done = write(fd, p, piece);

        if (done < 0 && errno == EINTR)
            continue;
        if (done <= 0)
            return -1;
        st->writes++;
        st->bytes += (uint64_t)done;
        p += done;
        n -= (size_t)done;
    }
    return 0;
}

static int sync_file(const struct pf_spool *sp, int fd, struct pf_spool_stats *st)
{
    if (sp->sync == PF_SYNC_NONE)
        return 0;
    st->fsyncs++;
    return sp->sync == PF_SYNC_FSYNC ? fsync(fd) : fdatasync(fd);
}

int pf_spool_enqueue(const struct pf_spool *sp, const struct pf_qfile *q, char *id, size_t idlen,
                     struct pf_spool_stats *st)
{
    char temp[4096], path[4096], probe[4096], size_record[PF_SIZE_RECORD_LEN];
    static const char *const probes[] = {"defer", "bounce", "trace"};
    struct timeval tv;
    struct stat sb;
    int fd, saved;

    gettimeofday(&tv, NULL);
    snprintf(temp, sizeof(temp), "%s/incoming/%ld.%ld", sp->dir, (long)tv.tv_usec, (long)getpid());
    /* Threads of one process share the pid: O_EXCL tells us to try another name. */
    while ((fd = open(temp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600)) < 0 && errno == EEXIST) {
        gettimeofday(&tv, NULL);
        snprintf(temp, sizeof(temp), "%s/incoming/%ld.%ld.%lx", sp->dir, (long)tv.tv_usec,
                 (long)getpid(), (unsigned long)random());
    }
    if (fd < 0)
        return -1;
    st->creates++;
    if (fstat(fd, &sb) != 0)
        goto fail_temp;
    gettimeofday(&tv, NULL);
    if (sp->long_ids)
        pf_queue_id_long(id, idlen, (unsigned long)tv.tv_sec, (unsigned long)tv.tv_usec,
                         (unsigned long)sb.st_ino);
    else
        pf_queue_id_short(id, idlen, (unsigned long)tv.tv_usec, (unsigned long)sb.st_ino);
    if (pf_spool_path(sp, "incoming", id, path, sizeof(path)) != 0 || rename(temp, path) != 0)
        goto fail_temp;
    st->renames++;
    /* A recycled short ID may have stale logs: Postfix removes them, expecting ENOENT. */
    for (size_t i = 0; i < 3; i++) {
        if (pf_spool_path(sp, probes[i], id, probe, sizeof(probe)) == 0) {
            st->probes++;
            if (unlink(probe) != 0 && errno != ENOENT)
                goto fail;
        }
    }
    if (write_all(fd, q->buf, q->len, st) != 0)
        goto fail;
    /* cleanup rewrites the size record in place once the file is complete */
    pf_qfile_size_record(q, size_record);
    if (pwrite(fd, size_record, sizeof(size_record), 0) != (ssize_t)sizeof(size_record))
        goto fail;
    st->writes++;
    if (fchmod(fd, 0700) != 0)
        goto fail;
    st->chmods++;
    if (sync_file(sp, fd, st) != 0)
        goto fail;
    if (close(fd) != 0) {
        fd = -1;
        goto fail;
    }
    return 0;

fail_temp:
    snprintf(path, sizeof(path), "%s", temp);
fail:
    saved = errno;
    if (fd >= 0)
        close(fd);
    unlink(path); /* nothing half-written stays in the queue */
    errno = saved;
    return -1;
}

int pf_spool_activate(const struct pf_spool *sp, const char *id, int from_deferred,
                      struct pf_spool_stats *st)
{
    char from[4096], to[4096];
    struct stat sb;

    if (pf_spool_path(sp, from_deferred ? "deferred" : "incoming", id, from, sizeof(from)) != 0 ||
        pf_spool_path(sp, "active", id, to, sizeof(to)) != 0) {
        errno = EINVAL;
        return -1;
    }
    /* qmgr looks before it moves: only a file marked complete (0700) goes on. */
    st->stat_probes++;
    if (lstat(from, &sb) != 0)
        return -1;
    if (!S_ISREG(sb.st_mode) || (sb.st_mode & 0700) != 0700) {
        errno = EAGAIN;
        return -1;
    }
    if (rename(from, to) != 0)
        return -1;
    st->renames++;
    return 0;
}

int pf_spool_read(const struct pf_spool *sp, const char *id, char **buf, size_t *len,
                  struct pf_spool_stats *st)
{
    char path[4096];
    struct stat sb;
    size_t got = 0;
    int fd, saved;

    *buf = NULL;
    *len = 0;
    if (pf_spool_path(sp, "active", id, path, sizeof(path)) != 0) {
        errno = EINVAL;
        return -1;
    }
    if ((fd = open(path, O_RDWR | O_CLOEXEC)) < 0)
        return -1;
    /* qmgr locks the file it works on; a lock held by another says it is busy */
    if (flock(fd, LOCK_EX | LOCK_NB) != 0 || fstat(fd, &sb) != 0)
        goto fail;
    st->locks++;
    *buf = xmalloc((size_t)sb.st_size + 1);
    while (got < (size_t)sb.st_size) {
        ssize_t n = read(fd, *buf + got, (size_t)sb.st_size - got);

        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            goto fail;
        if (n == 0)
            break;
        got += (size_t)n;
    }
    *len = got;
    close(fd);
    return 0;

fail:
    saved = errno;
    close(fd);
    free(*buf);
    *buf = NULL;
    errno = saved;
    return -1;
}

/* Make the hash directory of `path' (everything before its last slash). */
static int make_parent(const char *path, struct pf_spool_stats *st)
{
    char dir[4096];
    char *slash;

    snprintf(dir, sizeof(dir), "%s", path);
    if ((slash = strrchr(dir, '/')) == NULL)
        return -1;
    *slash = 0;
    if (mkdir(dir, 0700) == 0)
        st->mkdirs++;
    else if (errno != EEXIST)
        return -1;
    return 0;
}

int pf_spool_defer(const struct pf_spool *sp, const char *id, long retry_sec,
                   struct pf_spool_stats *st)
{
    char from[4096], to[4096];
    struct timeval times[2];

    if (pf_spool_path(sp, "active", id, from, sizeof(from)) != 0 ||
        pf_spool_path(sp, "deferred", id, to, sizeof(to)) != 0) {
        errno = EINVAL;
        return -1;
    }
    times[0].tv_sec = times[1].tv_sec = retry_sec;
    times[0].tv_usec = times[1].tv_usec = 0;
    if (utimes(from, times) != 0)
        return -1;
    st->utimes++;
    /* Hash directories are made when first needed, as Postfix makes them. */
    if (rename(from, to) != 0 &&
        (errno != ENOENT || make_parent(to, st) != 0 || rename(from, to) != 0))
        return -1;
    st->renames++;
    return 0;
}

int pf_spool_log_append(const struct pf_spool *sp, const char *log, const char *id,
                        const char *text, struct pf_spool_stats *st)
{
    char path[4096];
    size_t len = strlen(text);
    int fd, status = 0;

    if (pf_spool_path(sp, log, id, path, sizeof(path)) != 0) {
        errno = EINVAL;
        return -1;
    }
    fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (fd < 0 && errno == ENOENT && make_parent(path, st) == 0)
        fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (fd < 0)
        return -1;
    st->creates++;
    if (write_all(fd, text, len, st) != 0 || sync_file(sp, fd, st) != 0)
        status = -1;
    if (close(fd) != 0)
        status = -1;
    return status;
}

int pf_spool_log_remove(const struct pf_spool *sp, const char *log, const char *id,
                        struct pf_spool_stats *st)
{
    char path[4096];

    if (pf_spool_path(sp, log, id, path, sizeof(path)) != 0) {
        errno = EINVAL;
        return -1;
    }
    if (unlink(path) != 0) {
        if (errno != ENOENT)
            return -1;
        st->probes++; /* Postfix's qmgr makes this call for every message: mostly a probe */
        return 0;
    }
    st->unlinks++;
    return 0;
}

int pf_spool_log_exists(const struct pf_spool *sp, const char *log, const char *id,
                        struct pf_spool_stats *st)
{
    char path[4096];
    struct stat sb;

    if (pf_spool_path(sp, log, id, path, sizeof(path)) != 0)
        return 0;
    st->stat_probes++;
    return stat(path, &sb) == 0;
}

int pf_spool_corrupt(const struct pf_spool *sp, const char *queue, const char *id)
{
    char from[4096], to[4096];

    if (pf_spool_path(sp, queue, id, from, sizeof(from)) != 0 ||
        pf_spool_path(sp, "corrupt", id, to, sizeof(to)) != 0) {
        errno = EINVAL;
        return -1;
    }
    return rename(from, to);
}

int pf_spool_mark_done(const struct pf_spool *sp, const char *id, size_t offset,
                       struct pf_spool_stats *st)
{
    char path[4096];
    int fd, status = 0;

    if (pf_spool_path(sp, "active", id, path, sizeof(path)) != 0) {
        errno = EINVAL;
        return -1;
    }
    if ((fd = open(path, O_RDWR | O_CLOEXEC)) < 0)
        return -1;
    if (flock(fd, LOCK_SH | LOCK_NB) == 0) /* the delivery agent's shared lock */
        st->locks++;
    /* Postfix's smtp overwrites the type byte, no fsync: a lost D means a duplicate, not a loss */
    if (pwrite(fd, "D", 1, (off_t)offset) != 1)
        status = -1;
    else
        st->writes++;
    if (close(fd) != 0)
        status = -1;
    return status;
}

int pf_spool_remove(const struct pf_spool *sp, const char *id, struct pf_spool_stats *st)
{
    char path[4096];

    if (pf_spool_path(sp, "active", id, path, sizeof(path)) != 0) {
        errno = EINVAL;
        return -1;
    }
    if (unlink(path) != 0)
        return -1;
    st->unlinks++;
    return 0;
}
