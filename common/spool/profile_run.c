/*
 * profile_run - run a spool profile's file operations; see profile_run.h.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "clock.h"
#include "fileutil.h"
#include "pf_qfile.h"
#include "profile_run.h"
#include "spool_backend.h"
#include "spool_envelope.h"
#include "xalloc.h"

#define WRITE_PIECE 4096

static const char *const pf_measure_names[] = {
    "pf_enqueue", "pf_activate", "pf_read", "pf_mark_done", "pf_remove", "pf_log", "pf_defer"};

const char *profile_measure_name(unsigned measure)
{
    if (measure < OP_KIND_COUNT)
        return profile_op_name((enum profile_op_kind)measure);
    return pf_measure_names[measure - OP_KIND_COUNT];
}

static int make_dir(const char *path, char *err, size_t errlen)
{
    if (mkdir(path, 0700) != 0 && errno != EEXIST) {
        snprintf(err, errlen, "cannot create %s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

int profile_setup(const struct profile *p, const char *root, char *err, size_t errlen)
{
    if (make_dir(root, err, errlen) != 0)
        return -1;
    return spool_backend_of(p)->setup(p, root, err, errlen);
}

static int table_setup(const struct profile *p, const char *root, char *err, size_t errlen)
{
    char path[4096];

    for (size_t i = 0; p->dirs[i]; i++) {
        snprintf(path, sizeof(path), "%s/%s", root, p->dirs[i]);
        if (make_dir(path, err, errlen) != 0)
            return -1;
    }
    for (size_t i = 0; p->splits && p->splits[i]; i++) {
        for (int n = 0; n < 23; n++) {
            snprintf(path, sizeof(path), "%s/%s/%d", root, p->splits[i], n);
            if (make_dir(path, err, errlen) != 0)
                return -1;
        }
    }
    for (size_t i = 0; p->buckets && p->buckets[i]; i++) {
        for (int n = 0; n < 256; n++) {
            snprintf(path, sizeof(path), "%s/%s/%02x", root, p->buckets[i], n);
            if (make_dir(path, err, errlen) != 0)
                return -1;
        }
    }
    for (size_t i = 0; p->files && p->files[i]; i++) {
        int fd;

        snprintf(path, sizeof(path), "%s/%s", root, p->files[i]);
        if ((fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600)) < 0) {
            snprintf(err, errlen, "cannot create %s: %s", path, strerror(errno));
            return -1;
        }
        close(fd);
    }
    return 0;
}

static int pf_setup(const struct profile *p, const char *root, char *err, size_t errlen)
{
    struct pf_spool sp = {0};
    int status = pf_spool_open(&sp, root, err, errlen);

    (void)p;
    pf_spool_close(&sp);
    return status;
}

void profile_runner_init(struct profile_runner *pr, const struct profile *p, const char *root,
                         enum profile_sync sync, unsigned worker)
{
    memset(pr, 0, sizeof(*pr));
    pr->profile = p;
    pr->backend = spool_backend_of(p);
    pr->root = root;
    pr->sync = sync;
    pr->worker = worker;
    for (unsigned i = 0; i < PROFILE_SLOTS; i++)
        pr->fd[i] = -1;
    for (unsigned i = 0; i < MEASURE_COUNT; i++)
        histogram_init(&pr->latency[i]);
    if (pr->backend->runner_init)
        pr->backend->runner_init(pr);
}

static void pf_runner_init(struct profile_runner *pr)
{
    pr->pf.dir = xstrdup(pr->root);
    pr->pf.hash_depth = 1;
    pr->pf.sync = pr->sync == PROFILE_SYNC_NONE        ? PF_SYNC_NONE
                  : pr->sync == PROFILE_SYNC_FDATASYNC ? PF_SYNC_FDATASYNC
                                                       : PF_SYNC_FSYNC;
}

static void pf_runner_free(struct profile_runner *pr)
{
    pf_spool_close(&pr->pf);
}

/* A phase that stopped on an error leaves its files open: they go here. */
static void close_slots(struct profile_runner *pr)
{
    for (unsigned i = 0; i < PROFILE_SLOTS; i++) {
        if (pr->fd[i] >= 0)
            close(pr->fd[i]);
        pr->fd[i] = -1;
    }
}

void profile_runner_free(struct profile_runner *pr)
{
    close_slots(pr);
    free(pr->body);
    free(pr->envelope);
    if (pr->backend->runner_free)
        pr->backend->runner_free(pr);
}

/* Only the runner's thread writes its counters: no read-modify-write needs to be atomic. */
static void count(struct profile_runner *pr, enum profile_op_kind kind, uint64_t n)
{
    _Atomic uint64_t *c = &pr->ops[kind];

    atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + n,
                          memory_order_relaxed);
}

void profile_runner_ops(const struct profile_runner *pr, uint64_t ops[OP_KIND_COUNT])
{
    for (unsigned k = 0; k < OP_KIND_COUNT; k++)
        ops[k] += atomic_load_explicit(&pr->ops[k], memory_order_relaxed);
}

static void body_of(struct profile_runner *pr, size_t size)
{
    if (pr->body_cap < size + 1) {
        pr->body_cap = size + 1;
        pr->body = xrealloc(pr->body, pr->body_cap);
    }
    /* 72-character lines, like mail */
    for (size_t i = 0; i < size; i++)
        pr->body[i] = (i % 74 == 72) ? '\r' : (i % 74 == 73) ? '\n' : 'x';
}

static int fail(struct profile_runner *pr, const char *what, const char *path)
{
    snprintf(pr->err, sizeof(pr->err), "%s %s: %s", what, path ? path : "", strerror(errno));
    return -1;
}

static int do_sync(struct profile_runner *pr, int fd, enum profile_op_kind kind)
{
    int data_only = kind == OP_FDATASYNC;

    if (pr->sync == PROFILE_SYNC_NONE)
        return 0;
    if (pr->sync == PROFILE_SYNC_FSYNC)
        data_only = 0;
    else if (pr->sync == PROFILE_SYNC_FDATASYNC)
        data_only = 1;
    count(pr, data_only ? OP_FDATASYNC : OP_FSYNC, 1);
    return data_only ? fdatasync(fd) : fsync(fd);
}

static int make_parent(const char *path)
{
    char dir[4096];
    char *slash;

    snprintf(dir, sizeof(dir), "%s", path);
    if ((slash = strrchr(dir, '/')) == NULL)
        return -1;
    *slash = 0;
    return mkdir(dir, 0700) == 0 || errno == EEXIST ? 0 : -1;
}

/* Read a directory to its end, as a walk of it does; -1 with errno set. */
static int read_dir(const char *path)
{
    DIR *d = opendir(path);

    if (d == NULL)
        return -1;
    errno = 0;
    while (readdir(d) != NULL)
        ;
    if (errno != 0) {
        int saved = errno;

        closedir(d);
        errno = saved;
        return -1;
    }
    return closedir(d);
}

static int run_op(struct profile_runner *pr, const struct profile_op *op, struct profile_msg *m,
                  unsigned r)
{
    char path[4096], path2[4096], rel[1024];
    struct timeval times[2];
    struct stat sb;
    int *slot = &pr->fd[op->slot];
    int fd;

    path[0] = path2[0] = 0;
    if (op->path) {
        if (profile_expand(op->path, m->id, pr->worker, r, rel, sizeof(rel)) != 0)
            return fail(pr, "bad path template", op->path);
        snprintf(path, sizeof(path), "%s/%s", pr->root, rel);
    }
    if (op->path2) {
        if (profile_expand(op->path2, m->id, pr->worker, r, rel, sizeof(rel)) != 0)
            return fail(pr, "bad path template", op->path2);
        snprintf(path2, sizeof(path2), "%s/%s", pr->root, rel);
    }
    switch (op->kind) {
    case OP_CREATE:
    case OP_OPEN:
    case OP_APPEND:
        fd = op->kind == OP_CREATE
                 ? open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, (mode_t)op->arg)
             : op->kind == OP_OPEN ? open(path, O_RDWR | O_CLOEXEC)
                                   : open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
        if (fd < 0)
            return fail(pr, profile_op_name(op->kind), path);
        count(pr, op->kind, 1);
        *slot = fd;
        return 0;
    case OP_WRITE: {
        uint64_t writes = 0;
        int status;

        if (op->arg == 0) {
            status = write_all(*slot, m->content ? m->content : pr->body, m->size, WRITE_PIECE,
                               &writes, NULL);
        } else {
            /* where the MTA writes an envelope: one that names its message (spool_envelope.h) */
            if (pr->envelope_cap < op->arg) {
                pr->envelope_cap = op->arg;
                pr->envelope = xrealloc(pr->envelope, pr->envelope_cap);
            }
            spool_envelope_fill(pr->envelope, op->arg, m->id);
            status = write_all(*slot, pr->envelope, op->arg, WRITE_PIECE, &writes, NULL);
        }
        count(pr, OP_WRITE, writes);
        return status == 0 ? 0 : fail(pr, "write", NULL);
    }
    case OP_PWRITE:
        count(pr, OP_PWRITE, 1);
        return pwrite(*slot, "D", 1, 0) == 1 ? 0 : fail(pr, "pwrite", NULL);
    case OP_FSYNC:
    case OP_FDATASYNC:
        return do_sync(pr, *slot, op->kind) == 0 ? 0 : fail(pr, "fsync", NULL);
    case OP_FSYNC_DIR:
        if (pr->sync == PROFILE_SYNC_NONE)
            return 0;
        if ((fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
            return fail(pr, "open directory", path);
        count(pr, OP_FSYNC_DIR, 1);
        if (fsync(fd) != 0 && errno != EINVAL) {
            close(fd);
            return fail(pr, "fsync directory", path);
        }
        close(fd);
        return 0;
    case OP_FCHMOD:
        count(pr, OP_FCHMOD, 1);
        return fchmod(*slot, (mode_t)op->arg) == 0 ? 0 : fail(pr, "fchmod", NULL);
    case OP_FCHOWN:
        count(pr, OP_FCHOWN, 1);
        return fchown(*slot, geteuid(), getegid()) == 0 ? 0 : fail(pr, "fchown", NULL);
    case OP_LOCK:
        count(pr, OP_LOCK, 1);
        /* a shared lock file is waited for, as the MTA's processes wait for each other */
        while (flock(*slot, op->arg == 1 ? LOCK_EX : LOCK_EX | LOCK_NB) != 0)
            if (errno != EINTR)
                return fail(pr, "flock", NULL);
        return 0;
    case OP_CLOSE:
        fd = *slot;
        *slot = -1;
        count(pr, OP_CLOSE, 1);
        return close(fd) == 0 ? 0 : fail(pr, "close", NULL);
    case OP_LINK:
        count(pr, OP_LINK, 1);
        return link(path, path2) == 0 ? 0 : fail(pr, "link", path2);
    case OP_RENAME:
        count(pr, OP_RENAME, 1);
        if (rename(path, path2) == 0)
            return 0;
        /* A bucket made when first needed, as OpenSMTPD and Postfix make theirs. */
        if (errno == ENOENT && op->arg == 1 && make_parent(path2) == 0) {
            count(pr, OP_MKDIR, 1);
            if (rename(path, path2) == 0)
                return 0;
        }
        return fail(pr, "rename", path);
    case OP_UNLINK:
        count(pr, OP_UNLINK, 1);
        return unlink(path) == 0 ? 0 : fail(pr, "unlink", path);
    case OP_PROBE:
        count(pr, OP_PROBE, 1);
        return unlink(path) == 0 || errno == ENOENT ? 0 : fail(pr, "unlink", path);
    case OP_STAT:
        count(pr, OP_STAT, 1);
        return stat(path, &sb) == 0 || errno == ENOENT ? 0 : fail(pr, "stat", path);
    case OP_MKDIR:
        count(pr, OP_MKDIR, 1);
        return mkdir(path, 0700) == 0 ? 0 : fail(pr, "mkdir", path);
    case OP_RMDIR:
        count(pr, OP_RMDIR, 1);
        return rmdir(path) == 0 ? 0 : fail(pr, "rmdir", path);
    case OP_READDIR:
        count(pr, OP_READDIR, 1);
        return read_dir(path) == 0 ? 0 : fail(pr, "read directory", path);
    case OP_UTIME:
        gettimeofday(&times[0], NULL);
        times[0].tv_sec += 300;
        times[1] = times[0];
        count(pr, OP_UTIME, 1);
        return utimes(path, times) == 0 ? 0 : fail(pr, "utimes", path);
    default:
        return fail(pr, "unknown operation", NULL);
    }
}

static int run_table(struct profile_runner *pr, enum profile_phase phase, struct profile_msg *m)
{
    const struct profile *p = pr->profile;

    pr->failed = 0;
    if (phase == PHASE_ACCEPT && m->content == NULL)
        body_of(pr, m->size);
    for (size_t i = 0; i < p->phase_len[phase];) {
        const struct profile_op *ops = p->phase[phase];
        size_t end = profile_group_end(ops, p->phase_len[phase], i);
        unsigned repeat = (ops[i].flags & OP_PER_RCPT) ? m->rcpts : 1;

        for (unsigned r = 0; r < repeat; r++) {
            for (size_t k = i; k < end; k++) {
                uint64_t t0 = clock_now_ns();

                if (run_op(pr, &ops[k], m, r) != 0) {
                    close_slots(pr);
                    pr->failed = 1;
                    pr->failed_phase = phase;
                    pr->failed_op = k;
                    pr->failed_round = r;
                    return -1;
                }
                histogram_record(&pr->latency[ops[k].kind], clock_now_ns() - t0);
            }
        }
        i = end;
    }
    return 0;
}

/* One step of a phase: operation k of its table, for recipient r. */
struct step {
    size_t k;
    unsigned r;
};

/* The steps of the last failed phase that succeeded, in order; their count in *n. */
static struct step *steps_done(const struct profile_runner *pr, const struct profile_msg *m,
                               size_t *n)
{
    const struct profile_op *ops = pr->profile->phase[pr->failed_phase];
    size_t len = pr->profile->phase_len[pr->failed_phase], cap = 16;
    struct step *done = xcalloc(cap, sizeof(*done));

    *n = 0;
    for (size_t i = 0; i < len;) {
        size_t end = profile_group_end(ops, len, i);
        unsigned repeat = (ops[i].flags & OP_PER_RCPT) ? m->rcpts : 1;

        for (unsigned r = 0; r < repeat; r++) {
            for (size_t k = i; k < end; k++) {
                if (k == pr->failed_op && r == pr->failed_round)
                    return done;
                if (*n == cap)
                    done = xrealloc(done, (cap *= 2) * sizeof(*done));
                done[(*n)++] = (struct step){k, r};
            }
        }
        i = end;
    }
    return done;
}

static int names_message(const char *tmpl)
{
    return tmpl != NULL && strstr(tmpl, "{id}") != NULL;
}

/* A file, or a directory with what is in it; gone already is fine. */
static void remove_path(const char *tmpl, const struct profile_runner *pr,
                        const struct profile_msg *m, unsigned r)
{
    char rel[1024], path[4096];
    struct stat sb;

    if (tmpl == NULL || profile_expand(tmpl, m->id, pr->worker, r, rel, sizeof(rel)) != 0)
        return;
    snprintf(path, sizeof(path), "%s/%s", pr->root, rel);
    if (lstat(path, &sb) != 0)
        return;
    if (S_ISDIR(sb.st_mode))
        tree_remove(path);
    else
        unlink(path);
}

void profile_undo(struct profile_runner *pr, struct profile_msg *m)
{
    const struct profile_op *ops;
    struct step *done;
    size_t n;
    int whole;

    if (!pr->failed || pr->backend != &spool_backend_table)
        return;
    pr->failed = 0;
    ops = pr->profile->phase[pr->failed_phase];
    whole = pr->failed_phase == PHASE_ACCEPT;
    done = steps_done(pr, m, &n);
    /* Backwards: what was made inside a directory goes before the directory. */
    while (n-- > 0) {
        const struct profile_op *op = &ops[done[n].k];
        unsigned r = done[n].r;

        switch (op->kind) {
        case OP_CREATE: /* O_EXCL: this phase made it */
        case OP_MKDIR:
            remove_path(op->path, pr, m, r);
            break;
        case OP_LINK:
            remove_path(op->path2, pr, m, r);
            break;
        case OP_APPEND: /* may be a file shared by all messages: only the message's own */
            if (whole && names_message(op->path))
                remove_path(op->path, pr, m, r);
            break;
        case OP_RENAME: /* a later phase's rename replaces the message's file: it stays */
            if (whole && names_message(op->path2))
                remove_path(op->path2, pr, m, r);
            break;
        default:
            break;
        }
    }
    free(done);
}

void profile_discard(struct profile_runner *pr, struct profile_msg *m)
{
    const struct profile *p = pr->profile;

    m->discarded = 1;
    if (pr->backend != &spool_backend_table || p->no_io)
        return;
    for (unsigned phase = 0; phase < PHASE_COUNT; phase++) {
        for (size_t k = 0; k < p->phase_len[phase]; k++) {
            const struct profile_op *op = &p->phase[phase][k];
            unsigned repeat = (op->flags & OP_PER_RCPT) && m->rcpts ? m->rcpts : 1;

            for (unsigned r = 0; r < repeat; r++) {
                if (names_message(op->path))
                    remove_path(op->path, pr, m, r);
                if (names_message(op->path2))
                    remove_path(op->path2, pr, m, r);
            }
        }
    }
}

/* ------------------------------------------------------ postfix: pf_spool */

static void timed(struct profile_runner *pr, unsigned measure, uint64_t t0)
{
    histogram_record(&pr->latency[measure], clock_now_ns() - t0);
}

static int pf_accept(struct profile_runner *pr, struct profile_msg *m)
{
    struct pf_qfile q;
    struct timeval now;
    char **rcpts = xcalloc(m->rcpts, sizeof(*rcpts));
    uint64_t t0;
    int status;

    body_of(pr, m->size);
    gettimeofday(&now, NULL);
    pf_qfile_init(&q);
    pf_qfile_begin(&q, (long)now.tv_sec, (long)now.tv_usec, "sender@example.org", "localhost",
                   "127.0.0.1", "localhost");
    pf_qfile_content(&q, pr->body, m->size);
    for (unsigned i = 0; i < m->rcpts; i++) {
        rcpts[i] = xmalloc(32);
        snprintf(rcpts[i], 32, "r%u@example.org", i);
    }
    pf_qfile_finish(&q, (const char *const *)rcpts, m->rcpts);
    t0 = clock_now_ns();
    status = pf_spool_enqueue(&pr->pf, &q, m->qid, sizeof(m->qid), &pr->pf_stats);
    if (status != 0)
        fail(pr, "enqueue in", pr->root);
    else
        timed(pr, MEASURE_PF_ENQUEUE, t0);
    for (unsigned i = 0; i < m->rcpts; i++)
        free(rcpts[i]);
    free(rcpts);
    pf_qfile_free(&q);
    return status;
}

/* incoming/ or deferred/ -> active/, read, the defer-log unlink: the qmgr's part. */
static int pf_activate(struct profile_runner *pr, struct profile_msg *m, char **file, size_t *len,
                       struct pf_qfile_view *view)
{
    char err[200];
    uint64_t t0 = clock_now_ns();

    if (pf_spool_activate(&pr->pf, m->qid, m->deferred, &pr->pf_stats) != 0)
        return fail(pr, "activate", m->qid);
    timed(pr, MEASURE_PF_ACTIVATE, t0);
    t0 = clock_now_ns();
    if (pf_spool_read(&pr->pf, m->qid, file, len, &pr->pf_stats) != 0)
        return fail(pr, "read", m->qid);
    if (pf_qfile_read(*file, *len, view, err, sizeof(err)) != 0) {
        snprintf(pr->err, sizeof(pr->err), "queue file %s: %s", m->qid, err);
        free(*file);
        return -1;
    }
    timed(pr, MEASURE_PF_READ, t0);
    t0 = clock_now_ns();
    pf_spool_log_remove(&pr->pf, PF_QUEUE_DEFER, m->qid, &pr->pf_stats);
    timed(pr, MEASURE_PF_LOG, t0);
    return 0;
}

static int pf_deliver(struct profile_runner *pr, struct profile_msg *m)
{
    struct pf_qfile_view view;
    char *file;
    size_t len;
    uint64_t t0;
    int status = 0;

    if (pf_activate(pr, m, &file, &len, &view) != 0)
        return -1;
    for (unsigned i = 0; i < view.rcpt_count && status == 0; i++) {
        t0 = clock_now_ns();
        if (pf_spool_mark_done(&pr->pf, m->qid, view.rcpts[i].offset, &pr->pf_stats) != 0)
            status = fail(pr, "mark done", m->qid);
        timed(pr, MEASURE_PF_MARK, t0);
    }
    t0 = clock_now_ns();
    pf_spool_log_exists(&pr->pf, PF_QUEUE_BOUNCE, m->qid, &pr->pf_stats);
    if (status == 0 && pf_spool_remove(&pr->pf, m->qid, &pr->pf_stats) != 0)
        status = fail(pr, "remove", m->qid);
    timed(pr, MEASURE_PF_REMOVE, t0);
    pf_qfile_view_free(&view);
    free(file);
    return status;
}

static int pf_defer(struct profile_runner *pr, struct profile_msg *m)
{
    struct pf_qfile_view view;
    struct timeval now;
    char *file;
    size_t len;
    uint64_t t0;
    int status = 0;

    if (pf_activate(pr, m, &file, &len, &view) != 0)
        return -1;
    t0 = clock_now_ns();
    if (pf_spool_log_append(&pr->pf, PF_QUEUE_DEFER, m->qid,
                            "recipient=r0@example.org\noffset=0\nstatus=4.0.0\naction=delayed\n"
                            "reason=host said: 450 4.3.0 try again later\n\n",
                            &pr->pf_stats) != 0)
        status = fail(pr, "defer log", m->qid);
    timed(pr, MEASURE_PF_LOG, t0);
    gettimeofday(&now, NULL);
    t0 = clock_now_ns();
    if (status == 0 && pf_spool_defer(&pr->pf, m->qid, (long)now.tv_sec + 300, &pr->pf_stats) != 0)
        status = fail(pr, "defer", m->qid);
    timed(pr, MEASURE_PF_DEFER, t0);
    pf_qfile_view_free(&view);
    free(file);
    return status;
}

static int table_accept(struct profile_runner *pr, struct profile_msg *m)
{
    return run_table(pr, PHASE_ACCEPT, m);
}

static int table_deliver(struct profile_runner *pr, struct profile_msg *m)
{
    return run_table(pr, PHASE_DELIVER, m);
}

static int table_defer(struct profile_runner *pr, struct profile_msg *m)
{
    return run_table(pr, PHASE_DEFER, m);
}

const struct spool_backend spool_backend_postfix = {
    .name = "postfix",
    .setup = pf_setup,
    .runner_init = pf_runner_init,
    .runner_free = pf_runner_free,
    .phase = {pf_accept, pf_deliver, pf_defer},
    .totals = spool_postfix_totals,
    .queues = spool_postfix_queues,
    .lasting = spool_postfix_lasting,
};

const struct spool_backend spool_backend_table = {
    .name = "table",
    .setup = table_setup,
    .phase = {table_accept, table_deliver, table_defer},
    .totals = spool_table_totals,
    .queues = spool_table_queues,
    .lasting = spool_table_lasting,
};

int profile_run(struct profile_runner *pr, enum profile_phase phase, struct profile_msg *m)
{
    int status;

    if (pr->profile->no_io)
        return 0;
    status = pr->backend->phase[phase](pr, m);
    if (status == 0 && phase == PHASE_DEFER)
        m->deferred = 1;
    else if (status == 0 && phase == PHASE_DELIVER)
        m->deferred = 0;
    return status;
}
