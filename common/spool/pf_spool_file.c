/*
 * pf_spool_file - the message files of a Postfix-style queue on disk; see pf_spool.h.
 *
 * A message's life in files, one system call at a time: cleanup's create,
 * append and commit (or pf_spool_file_enqueue() for all three), the queue
 * manager's activation, read and deferral, the logs beside a message, the
 * delivery agent's D marks and the last unlink. Every name comes from
 * pf_spool_locate() (pf_spool.c), so nothing here walks out of its queue
 * or follows a link; every call says in a pf_spool_stats what it cost.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "fileutil.h"
#include "pf_spool.h"
#include "pf_spool_impl.h"
#include "xalloc.h"

static int sync_file(const struct pf_spool *sp, int fd, struct pf_spool_stats *st)
{
    if (sp->sync == PF_SYNC_NONE)
        return 0;
    st->fsyncs++;
    return sp->sync == PF_SYNC_FSYNC ? fsync(fd) : fdatasync(fd);
}

void pf_spool_file_abort(struct pf_spool_file *f)
{
    int saved = errno;

    if (f->fd < 0)
        return;
    close(f->fd);
    f->fd = -1;
    unlinkat(f->at, f->name, 0); /* nothing half-written stays in the queue */
    errno = saved;
}

static int fail_file(struct pf_spool_file *f)
{
    pf_spool_file_abort(f);
    return -1;
}

int pf_spool_file_create(const struct pf_spool *sp, struct pf_spool_file *f, char *id, size_t idlen,
                         struct pf_spool_stats *st)
{
    char rel[128], path[sizeof(f->name)], probe[4096];
    static const char *const probes[] = {PF_QUEUE_DEFER, PF_QUEUE_BOUNCE, PF_QUEUE_TRACE};
    int to, probe_at;
    struct timeval tv;
    struct stat sb;

    f->fd = -1;
    f->left = 0;
    f->buf_len = 0;
    gettimeofday(&tv, NULL);
    snprintf(rel, sizeof(rel), "%ld.%ld", (long)tv.tv_usec, sp->pid);
    if (pf_spool_in_queue(sp, pf_spool_queue_index(PF_QUEUE_INCOMING), rel, &f->at, f->name,
                          sizeof(f->name), NULL) != 0)
        return -1;
    /* Threads of one process share the pid: O_EXCL tells us to try another name. */
    while ((f->fd = openat(f->at, f->name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                           0600)) < 0 &&
           errno == EEXIST) {
        gettimeofday(&tv, NULL);
        snprintf(rel, sizeof(rel), "%ld.%ld.%lx", (long)tv.tv_usec, sp->pid,
                 (unsigned long)random());
        if (pf_spool_in_queue(sp, pf_spool_queue_index(PF_QUEUE_INCOMING), rel, &f->at, f->name,
                              sizeof(f->name), NULL) != 0)
            return -1;
    }
    if (f->fd < 0)
        return -1;
    st->creates++;
    if (fstat(f->fd, &sb) != 0)
        return fail_file(f);
    gettimeofday(&tv, NULL);
    if (sp->long_ids)
        pf_queue_id_long(id, idlen, (unsigned long)tv.tv_sec, (unsigned long)tv.tv_usec,
                         (unsigned long)sb.st_ino);
    else
        pf_queue_id_short(id, idlen, (unsigned long)tv.tv_usec, (unsigned long)sb.st_ino);
    if (pf_spool_locate(sp, PF_QUEUE_INCOMING, id, &to, path, sizeof(path), NULL) != 0 ||
        renameat(f->at, f->name, to, path) != 0)
        return fail_file(f);
    f->at = to;
    memcpy(f->name, path, sizeof(path));
    st->renames++;
    /* A recycled short ID may have stale logs: Postfix removes them, expecting ENOENT. */
    for (size_t i = 0; i < 3; i++) {
        if (pf_spool_locate(sp, probes[i], id, &probe_at, probe, sizeof(probe), NULL) == 0) {
            st->probes++;
            if (unlinkat(probe_at, probe, 0) != 0 && errno != ENOENT)
                return fail_file(f);
        }
    }
    return 0;
}

int pf_spool_file_append(struct pf_spool_file *f, const char *data, size_t len,
                         struct pf_spool_stats *st)
{
    while (len > 0) {
        size_t take = sizeof(f->buf) - f->buf_len;

        if (take > len)
            take = len;
        memcpy(f->buf + f->buf_len, data, take);
        f->buf_len += take;
        data += take;
        len -= take;
        /* A full buffer goes out at once, as a VSTREAM's does: a write per 4 KiB. */
        if (f->buf_len == sizeof(f->buf)) {
            if (fileutil_write_all(f->fd, f->buf, f->buf_len, WRITE_PIECE, &st->writes,
                                   &st->bytes) != 0)
                return fail_file(f);
            f->buf_len = 0;
        }
    }
    return 0;
}

/* Sync the directory that holds `name' (under `at'), as the policy says. */
static int sync_dir_of(const struct pf_spool *sp, int at, const char *name,
                       struct pf_spool_stats *st)
{
    const char *slash = strrchr(name, '/');
    char dir[4096];
    int fd, status, saved;

    if (sp->sync == PF_SYNC_NONE)
        return 0;
    if (slash == NULL)
        snprintf(dir, sizeof(dir), ".");
    else if (slash == name)
        snprintf(dir, sizeof(dir), "/");
    else
        snprintf(dir, sizeof(dir), "%.*s", (int)(slash - name), name);
    if ((fd = openat(at, dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
        return -1;
    st->fsyncs++;
    status = fsync(fd);
    saved = errno;
    close(fd);
    errno = saved;
    return status;
}

/*
 * A commit that fails once the file is marked complete: its client will
 * hear 4xx and send the message again, so no restart may find the file
 * and deliver it as well. A sync that fails may have put the file on disk
 * whole, mark and all, and a removal not yet on disk is undone by a
 * crash: the mark goes (a file in incoming/ without it is removed at
 * recovery), then the file, and either is synced before the answer.
 * Where nothing can be written any more (a file system shut down), the
 * file may come back: f->left says so. errno stays the commit's.
 */
static int withdraw(const struct pf_spool *sp, struct pf_spool_file *f, int fd,
                    struct pf_spool_stats *st)
{
    int saved = errno, unmarked = 0, removed, safe;

    f->fd = -1;
    if (fd >= 0 && fchmod(fd, 0600) == 0) {
        st->chmods++;
        unmarked = 1;
    }
    if ((removed = unlinkat(f->at, f->name, 0) == 0)) {
        st->unlinks++;
        safe = sync_dir_of(sp, f->at, f->name, st) == 0;
    } else if (errno == ENOENT && sp->scan_incoming) {
        /* a scan moved it on: it must not stay in active/, where a restart would deliver it */
        const char *base = strrchr(f->name, '/');
        int active = pf_spool_queue_fd(sp, PF_QUEUE_ACTIVE);

        base = base ? base + 1 : f->name;
        if ((removed = active >= 0 && unlinkat(active, base, 0) == 0))
            st->unlinks++;
        safe = removed && sync_dir_of(sp, active, base, st) == 0;
    } else {
        safe = 0;
    }
    if (!safe && unmarked) /* there or not, it is no longer marked on disk */
        safe = sync_file(sp, fd, st) == 0;
    f->left = !safe;
    if (fd >= 0)
        close(fd);
    errno = saved;
    return -1;
}

int pf_spool_file_commit(const struct pf_spool *sp, struct pf_spool_file *f,
                         const char size_record[PF_SIZE_RECORD_LEN], struct pf_spool_stats *st)
{
    int fd = f->fd;

    f->left = 0;
    if (fileutil_write_all(fd, f->buf, f->buf_len, WRITE_PIECE, &st->writes, &st->bytes) != 0)
        return fail_file(f);
    f->buf_len = 0;
    /* cleanup rewrites the size record in place once the file is complete */
    if (pwrite(fd, size_record, PF_SIZE_RECORD_LEN, 0) != (ssize_t)PF_SIZE_RECORD_LEN)
        return fail_file(f);
    st->writes++;
    if (fchmod(fd, 0700) != 0)
        return fail_file(f);
    st->chmods++;
    /* From here on the file is marked complete: a failure withdraws it. */
    if (sync_file(sp, fd, st) != 0)
        return withdraw(sp, f, fd, st);
    f->fd = -1;
    if (close(fd) != 0) /* after a sync that worked: the file is on disk, and must go */
        return withdraw(sp, f, -1, st);
    return 0;
}

int pf_spool_file_commit_qfile(const struct pf_spool *sp, struct pf_spool_file *f,
                               const struct pf_qfile *q, struct pf_spool_stats *st)
{
    char size_record[PF_SIZE_RECORD_LEN];

    pf_qfile_size_record(q, size_record);
    if (pf_spool_file_append(f, q->buf, q->len, st) != 0)
        return -1;
    return pf_spool_file_commit(sp, f, size_record, st);
}

int pf_spool_file_enqueue(const struct pf_spool *sp, const struct pf_qfile *q, char *id,
                          size_t idlen, struct pf_spool_stats *st)
{
    struct pf_spool_file *f = xmalloc(sizeof(*f));
    int status = -1, saved;

    if (pf_spool_file_create(sp, f, id, idlen, st) == 0)
        status = pf_spool_file_commit_qfile(sp, f, q, st);
    saved = errno;
    free(f);
    errno = saved;
    return status;
}

int pf_spool_file_activate(const struct pf_spool *sp, const char *id, int from_deferred,
                           struct pf_spool_stats *st)
{
    char from[4096], to[4096];
    int from_at, to_at;
    struct stat sb;

    if (pf_spool_locate(sp, from_deferred ? PF_QUEUE_DEFERRED : PF_QUEUE_INCOMING, id, &from_at,
                        from, sizeof(from), NULL) != 0 ||
        pf_spool_locate(sp, PF_QUEUE_ACTIVE, id, &to_at, to, sizeof(to), NULL) != 0)
        return -1;
    /* qmgr looks before it moves: only a file marked complete (0700) goes on. */
    st->stat_probes++;
    if (fstatat(from_at, from, &sb, AT_SYMLINK_NOFOLLOW) != 0) {
        int saved = errno;

        /* a scan of incoming/ took it already (pf_spool_scan_incoming()) */
        if (saved == ENOENT && sp->scan_incoming && !from_deferred &&
            fstatat(to_at, to, &sb, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(sb.st_mode))
            return 1;
        errno = saved;
        return -1;
    }
    if (!S_ISREG(sb.st_mode) || (sb.st_mode & 0700) != 0700) {
        errno = EAGAIN;
        return -1;
    }
    if (renameat(from_at, from, to_at, to) != 0)
        return -1;
    st->renames++;
    return 0;
}

/* The rest of an open file, whose fstat said `size', into a malloc'd buffer. */
static int read_rest(int fd, off_t size, char **buf, size_t *len)
{
    size_t got = 0;

    *buf = xmalloc((size_t)size + 1);
    while (got < (size_t)size) {
        ssize_t n = read(fd, *buf + got, (size_t)size - got);

        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            int saved = errno;

            free(*buf);
            *buf = NULL;
            errno = saved;
            return -1;
        }
        if (n == 0)
            break;
        got += (size_t)n;
    }
    (*buf)[got] = 0;
    *len = got;
    return 0;
}

/*
 * Open `path' under `at' and size it before anything is allocated: a
 * regular file (else EINVAL) of at most sp->max_file bytes (else EFBIG,
 * with *size set), so that no file can make us take more than the bound.
 * The descriptor, or -1.
 */
static int open_sized(const struct pf_spool *sp, int at, const char *path, int flags, off_t *size)
{
    struct stat sb;
    int fd, saved;

    *size = 0;
    if ((fd = openat(at, path, flags | O_NOFOLLOW | O_CLOEXEC)) < 0)
        return -1;
    if (fstat(fd, &sb) != 0)
        goto fail;
    *size = sb.st_size;
    if (!S_ISREG(sb.st_mode) || sb.st_size < 0) {
        errno = EINVAL;
        goto fail;
    }
    if (sp->max_file && (uint64_t)sb.st_size > sp->max_file) {
        errno = EFBIG;
        goto fail;
    }
    return fd;

fail:
    saved = errno;
    close(fd);
    errno = saved;
    return -1;
}

/* `want' bytes at `off', short only at the end of the file: the count, or -1. */
static ssize_t pread_full(int fd, char *buf, size_t want, off_t off)
{
    size_t got = 0;

    while (got < want) {
        ssize_t n = pread(fd, buf + got, want - got, off + (off_t)got);

        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -1;
        if (n == 0)
            break;
        got += (size_t)n;
    }
    return (ssize_t)got;
}

/*
 * The envelope of a file longer than a window, as qmgr reads one: the head
 * up to the content, a seek over it, the rest. A C record that does not
 * say where the content lies within the file leaves the first window
 * alone in buf, for the reader to call damaged.
 */
static int read_envelope_apart(int fd, off_t size, size_t window, char **buf, size_t *len,
                               uint64_t *gap)
{
    uint64_t coff, csize, tail;
    ssize_t n;

    *buf = xmalloc(window + 1);
    if ((n = pread_full(fd, *buf, window, 0)) < 0)
        goto fail;
    *len = (size_t)n;
    if (pf_qfile_layout(*buf, *len, &coff, &csize) != 0 || coff > (uint64_t)size ||
        csize > (uint64_t)size - coff)
        return 0;
    tail = (uint64_t)size - coff - csize;
    *buf = xrealloc(*buf, (size_t)(coff + tail) + 1);
    /* the head goes on past the window only when the envelope does (a long sender, say) */
    if (coff > *len && pread_full(fd, *buf + *len, (size_t)coff - *len, (off_t)*len) < 0)
        goto fail;
    if ((n = pread_full(fd, *buf + coff, (size_t)tail, (off_t)(coff + csize))) < 0)
        goto fail;
    *len = (size_t)(coff + (uint64_t)n);
    *gap = csize;
    return 0;

fail:
    free(*buf);
    *buf = NULL;
    *len = 0;
    return -1;
}

int pf_spool_file_read_envelope(const struct pf_spool *sp, const char *id, size_t window,
                                char **buf, size_t *len, uint64_t *gap, struct pf_spool_stats *st)
{
    char path[4096];
    off_t size;
    int at, fd, saved, status;

    *buf = NULL;
    *len = 0;
    *gap = 0;
    if (pf_spool_locate(sp, PF_QUEUE_ACTIVE, id, &at, path, sizeof(path), NULL) != 0)
        return -1;
    if ((fd = open_sized(sp, at, path, O_RDWR, &size)) < 0) {
        if (errno == EFBIG)
            *len = (size_t)size;
        return -1;
    }
    /* qmgr locks the file it works on; a lock held by another says it is busy */
    if (flock(fd, LOCK_EX | LOCK_NB) != 0)
        goto fail;
    st->locks++;
    if ((uint64_t)size <= window)
        status = read_rest(fd, size, buf, len);
    else
        status = read_envelope_apart(fd, size, window, buf, len, gap);
    if (status != 0)
        goto fail;
    close(fd);
    return 0;

fail:
    saved = errno;
    close(fd);
    errno = saved;
    return -1;
}

int pf_spool_file_read(const struct pf_spool *sp, const char *id, char **buf, size_t *len,
                       struct pf_spool_stats *st)
{
    uint64_t gap;

    return pf_spool_file_read_envelope(sp, id, SIZE_MAX, buf, len, &gap, st); /* a window of all */
}

int pf_spool_file_load(const struct pf_spool *sp, const char *id, size_t window, char **buf,
                       size_t *len, struct pf_qfile_view *view, char *err, size_t errlen,
                       struct pf_spool_stats *st)
{
    uint64_t gap;

    if (pf_spool_file_read_envelope(sp, id, window, buf, len, &gap, st) != 0)
        return -1;
    if (pf_qfile_read_envelope(*buf, *len, gap, view, err, errlen) != 0) {
        free(*buf);
        *buf = NULL;
        return -2;
    }
    return 0;
}

int pf_spool_file_reader_open(const struct pf_spool *sp, const char *id, uint64_t start,
                              uint64_t end, size_t window, struct pf_spool_reader *rd,
                              struct pf_spool_stats *st)
{
    char path[4096];
    off_t size;
    int at;

    memset(rd, 0, sizeof(*rd));
    rd->fd = -1;
    rd->at = rd->next = start;
    rd->end = end;
    rd->cap = window;
    if (pf_spool_locate(sp, PF_QUEUE_ACTIVE, id, &at, path, sizeof(path), NULL) != 0)
        return -1;
    if ((rd->fd = open_sized(sp, at, path, O_RDONLY, &size)) < 0)
        return -1;
    /* the delivery agent's shared lock, as mark_done takes it: not having it stops nothing */
    if (flock(rd->fd, LOCK_SH | LOCK_NB) == 0)
        st->locks++;
    if ((uint64_t)size < end) {
        rd->damage = "the file is shorter than its content";
        return -2;
    }
    rd->buf = xmalloc(window);
    return 0;
}

int pf_spool_file_reader_fill(struct pf_spool_reader *rd)
{
    size_t keep = rd->len - rd->pos, want;
    ssize_t n;

    if (rd->next >= rd->end)
        return 0; /* all of it is in the window */
    if (keep == rd->cap) {
        rd->damage = "a content record longer than the reading window";
        return -2;
    }
    memmove(rd->buf, rd->buf + rd->pos, keep);
    rd->at += rd->pos;
    rd->pos = 0;
    rd->len = keep;
    want = rd->cap - keep;
    if ((uint64_t)want > rd->end - rd->next)
        want = (size_t)(rd->end - rd->next);
    if ((n = pread_full(rd->fd, rd->buf + keep, want, (off_t)rd->next)) < 0)
        return -1;
    if ((size_t)n < want) {
        rd->damage = "the file was cut short";
        return -2;
    }
    rd->len += (size_t)n;
    rd->next += (uint64_t)n;
    return 0;
}

void pf_spool_file_reader_close(struct pf_spool_reader *rd)
{
    if (rd->fd >= 0)
        close(rd->fd);
    free(rd->buf);
    rd->fd = -1;
    rd->buf = NULL;
}

int pf_spool_file_content_each(const struct pf_spool *sp, const char *id,
                               const struct pf_qfile_view *v, size_t window, pf_spool_text_fn *each,
                               void *ctx, char *why, size_t whylen, struct pf_spool_stats *st)
{
    struct pf_spool_reader rd;
    /* a record's text is never longer than the record: a window of text holds a window's */
    char *text = NULL;
    int status, saved;

    if ((status = pf_spool_file_reader_open(sp, id, v->content_start, v->content_end, window, &rd,
                                            st)) != 0)
        goto out;
    text = xmalloc(window);
    for (;;) {
        enum pf_qfile_piece piece;
        size_t n = 0;

        if ((status = pf_spool_file_reader_fill(&rd)) != 0)
            goto out;
        for (;;) {
            const char *data;
            size_t len, used;
            int line_end;

            piece = pf_qfile_content_piece(rd.buf + rd.pos, rd.len - rd.pos, rd.at + rd.pos, rd.end,
                                           &data, &len, &line_end, &used);
            if (piece != PF_PIECE_RECORD)
                break;
            memcpy(text + n, data, len);
            n += len;
            if (line_end) {
                text[n++] = '\r';
                text[n++] = '\n';
            }
            rd.pos += used;
        }
        if (piece == PF_PIECE_BAD) {
            rd.damage = "not a content record";
            status = -2;
            goto out;
        }
        if (n > 0 && each(ctx, text, n) != 0) {
            status = 1;
            goto out;
        }
        if (piece == PF_PIECE_END)
            break;
    }
out:
    if (status == -2)
        snprintf(why, whylen, "queue file content at offset %llu: %s",
                 (unsigned long long)(rd.at + rd.pos), rd.damage);
    else if (status == -1)
        snprintf(why, whylen, "cannot read the queue file: %s", strerror(errno));
    saved = errno;
    pf_spool_file_reader_close(&rd);
    free(text);
    errno = saved;
    return status;
}

int pf_spool_file_log_read(const struct pf_spool *sp, const char *log, const char *id, char **buf,
                           size_t *len, struct pf_spool_stats *st)
{
    char path[4096];
    off_t size;
    int at, fd, status;

    (void)st; /* reads are not counted, as pf_spool_file_read()'s are not */
    *buf = NULL;
    *len = 0;
    if (pf_spool_locate(sp, log, id, &at, path, sizeof(path), NULL) != 0)
        return -1;
    /* a log holds a block per recipient: no longer than the queue file it speaks of */
    if ((fd = open_sized(sp, at, path, O_RDONLY, &size)) < 0)
        return -1;
    status = read_rest(fd, size, buf, len);
    if (status != 0) {
        int saved = errno;

        close(fd);
        errno = saved;
        return -1;
    }
    close(fd);
    return 0;
}

/*
 * Make the hash directories of `name' under `at', every level of them
 * (those after `from': the part inside the queue), as Postfix makes them
 * when first needed.
 */
static int make_levels(int at, const char *name, size_t from, struct pf_spool_stats *st)
{
    char dir[4096];
    char *slash;

    snprintf(dir, sizeof(dir), "%s", name);
    for (char *p = dir + from; (slash = strchr(p, '/')) != NULL; p = slash + 1) {
        *slash = 0;
        if (mkdirat(at, dir, 0700) == 0)
            st->mkdirs++;
        else if (errno != EEXIST)
            return -1;
        *slash = '/';
    }
    return 0;
}

int pf_spool_file_defer(const struct pf_spool *sp, const char *id, long retry_sec,
                        struct pf_spool_stats *st)
{
    char from[4096], to[4096];
    struct timespec times[2];
    int from_at, to_at;
    size_t rel_off;

    if (pf_spool_locate(sp, PF_QUEUE_ACTIVE, id, &from_at, from, sizeof(from), NULL) != 0 ||
        pf_spool_locate(sp, PF_QUEUE_DEFERRED, id, &to_at, to, sizeof(to), &rel_off) != 0)
        return -1;
    times[0].tv_sec = times[1].tv_sec = retry_sec;
    times[0].tv_nsec = times[1].tv_nsec = 0;
    if (utimensat(from_at, from, times, AT_SYMLINK_NOFOLLOW) != 0)
        return -1;
    st->utimes++;
    if (renameat(from_at, from, to_at, to) != 0 &&
        (errno != ENOENT || make_levels(to_at, to, rel_off, st) != 0 ||
         renameat(from_at, from, to_at, to) != 0))
        return -1;
    st->renames++;
    return 0;
}

int pf_spool_file_log_append(const struct pf_spool *sp, const char *log, const char *id,
                             const char *text, struct pf_spool_stats *st)
{
    const int flags = O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC;
    char path[4096];
    size_t len = strlen(text), rel_off;
    int at, fd, status = 0;

    if (pf_spool_locate(sp, log, id, &at, path, sizeof(path), &rel_off) != 0)
        return -1;
    fd = openat(at, path, flags, 0600);
    if (fd < 0 && errno == ENOENT && make_levels(at, path, rel_off, st) == 0)
        fd = openat(at, path, flags, 0600);
    if (fd < 0)
        return -1;
    st->creates++;
    if (fileutil_write_all(fd, text, len, WRITE_PIECE, &st->writes, &st->bytes) != 0 ||
        sync_file(sp, fd, st) != 0)
        status = -1;
    if (close(fd) != 0)
        status = -1;
    return status;
}

int pf_spool_file_log_remove(const struct pf_spool *sp, const char *log, const char *id,
                             struct pf_spool_stats *st)
{
    char path[4096];
    int at;

    if (pf_spool_locate(sp, log, id, &at, path, sizeof(path), NULL) != 0)
        return -1;
    if (unlinkat(at, path, 0) != 0) {
        if (errno != ENOENT)
            return -1;
        st->probes++; /* Postfix's qmgr makes this call for every message: mostly a probe */
        return 0;
    }
    st->unlinks++;
    return 0;
}

int pf_spool_file_log_stat(const struct pf_spool *sp, const char *log, const char *id, off_t *size,
                           struct pf_spool_stats *st)
{
    char path[4096];
    struct stat sb;
    int at;

    *size = 0;
    if (pf_spool_locate(sp, log, id, &at, path, sizeof(path), NULL) != 0)
        return 0;
    st->stat_probes++;
    if (fstatat(at, path, &sb, AT_SYMLINK_NOFOLLOW) != 0)
        return 0;
    *size = sb.st_size;
    return 1;
}

int pf_spool_file_log_exists(const struct pf_spool *sp, const char *log, const char *id,
                             struct pf_spool_stats *st)
{
    off_t size;

    return pf_spool_file_log_stat(sp, log, id, &size, st);
}

int pf_spool_file_corrupt(const struct pf_spool *sp, const char *queue, const char *id)
{
    char from[4096], to[4096];
    int from_at, to_at;

    if (pf_spool_locate(sp, queue, id, &from_at, from, sizeof(from), NULL) != 0 ||
        pf_spool_locate(sp, PF_QUEUE_CORRUPT, id, &to_at, to, sizeof(to), NULL) != 0)
        return -1;
    return renameat(from_at, from, to_at, to);
}

int pf_spool_file_mark_done(const struct pf_spool *sp, const char *id, size_t offset,
                            struct pf_spool_stats *st)
{
    char path[4096];
    int at, fd, status = 0;

    if (pf_spool_locate(sp, PF_QUEUE_ACTIVE, id, &at, path, sizeof(path), NULL) != 0)
        return -1;
    if ((fd = openat(at, path, O_RDWR | O_NOFOLLOW | O_CLOEXEC)) < 0)
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

int pf_spool_file_remove(const struct pf_spool *sp, const char *id, struct pf_spool_stats *st)
{
    char path[4096];
    int at;

    if (pf_spool_locate(sp, PF_QUEUE_ACTIVE, id, &at, path, sizeof(path), NULL) != 0)
        return -1;
    if (unlinkat(at, path, 0) != 0)
        return -1;
    st->unlinks++;
    return 0;
}
