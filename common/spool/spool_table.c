/*
 * spool_table - the backend of the profiles with tables (profile.h: every
 * one but postfix and null). A phase is its table's operations, run in
 * order against the spool, each timed and counted; a phase that fails can
 * be undone, and a message's files discarded (spool_runner.h). spool_backend.h has the table of functions.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "clock.h"
#include "fileutil.h"
#include "spool_backend.h"
#include "spool_envelope.h"
#include "spool_runner.h"
#include "xalloc.h"
#include "xgrow.h"

#define WRITE_PIECE 4096

static int setup(const struct profile *p, const char *root, char *err, size_t errlen)
{
    char path[4096];

    for (size_t i = 0; p->dirs[i]; i++) {
        snprintf(path, sizeof(path), "%s/%s", root, p->dirs[i]);
        if (spool_runner_mkdir(path, err, errlen) != 0)
            return -1;
    }
    for (size_t i = 0; p->splits && p->splits[i]; i++) {
        for (int n = 0; n < 23; n++) {
            snprintf(path, sizeof(path), "%s/%s/%d", root, p->splits[i], n);
            if (spool_runner_mkdir(path, err, errlen) != 0)
                return -1;
        }
    }
    for (size_t i = 0; p->buckets && p->buckets[i]; i++) {
        for (int n = 0; n < 256; n++) {
            snprintf(path, sizeof(path), "%s/%s/%02x", root, p->buckets[i], n);
            if (spool_runner_mkdir(path, err, errlen) != 0)
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

static int do_sync(struct spool_runner *pr, int fd, enum profile_op_kind kind)
{
    int data_only = kind == OP_FDATASYNC;

    if (pr->sync == PROFILE_SYNC_NONE)
        return 0;
    if (pr->sync == PROFILE_SYNC_FSYNC)
        data_only = 0;
    else if (pr->sync == PROFILE_SYNC_FDATASYNC)
        data_only = 1;
    spool_runner_count(pr, data_only ? OP_FDATASYNC : OP_FSYNC, 1);
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

/* The operation's path and path2 under the spool, for recipient r ("" where it has none). */
static int op_paths(struct spool_runner *pr, const struct profile_op *op, const struct spool_msg *m,
                    unsigned r, char *path, char *path2, size_t len)
{
    const char *tmpl[2] = {op->path, op->path2};
    char *out[2] = {path, path2}, rel[1024];

    for (int i = 0; i < 2; i++) {
        out[i][0] = 0;
        if (tmpl[i] == NULL)
            continue;
        if (profile_expand(tmpl[i], m->id, pr->worker, r, rel, sizeof(rel)) != 0)
            return spool_runner_fail(pr, "bad path template", tmpl[i]);
        snprintf(out[i], len, "%s/%s", pr->root, rel);
    }
    return 0;
}

/* create, open or append: the file goes into the operation's slot. */
static int open_slot(struct spool_runner *pr, const struct profile_op *op, const char *path)
{
    int fd = op->kind == OP_CREATE
                 ? open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, (mode_t)op->arg)
             : op->kind == OP_OPEN ? open(path, O_RDWR | O_CLOEXEC)
                                   : open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);

    if (fd < 0)
        return spool_runner_fail(pr, profile_op_name(op->kind), path);
    spool_runner_count(pr, op->kind, 1);
    pr->fd[op->slot] = fd;
    return 0;
}

/* The message's bytes (arg 0), or an envelope of arg bytes that names the message. */
static int write_slot(struct spool_runner *pr, const struct profile_op *op,
                      const struct spool_msg *m)
{
    uint64_t writes = 0;
    int status;

    if (op->arg == 0) {
        status = fileutil_write_all(pr->fd[op->slot], m->content ? m->content : pr->body, m->size,
                                    WRITE_PIECE, &writes, NULL);
    } else {
        /* where the MTA writes an envelope: one that names its message (spool_envelope.h) */
        if (pr->envelope_cap < op->arg) {
            pr->envelope_cap = op->arg;
            pr->envelope = xrealloc(pr->envelope, pr->envelope_cap);
        }
        spool_envelope_fill(pr->envelope, op->arg, m->id);
        status =
            fileutil_write_all(pr->fd[op->slot], pr->envelope, op->arg, WRITE_PIECE, &writes, NULL);
    }
    spool_runner_count(pr, OP_WRITE, writes);
    return status == 0 ? 0 : spool_runner_fail(pr, "write", NULL);
}

static int sync_dir(struct spool_runner *pr, const char *path)
{
    int fd;

    if (pr->sync == PROFILE_SYNC_NONE)
        return 0;
    if ((fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
        return spool_runner_fail(pr, "open directory", path);
    spool_runner_count(pr, OP_FSYNC_DIR, 1);
    if (fsync(fd) != 0 && errno != EINVAL) {
        close(fd);
        return spool_runner_fail(pr, "fsync directory", path);
    }
    close(fd);
    return 0;
}

/* A shared lock file is waited for (arg 1), as the MTA's processes wait for each other. */
static int lock_slot(struct spool_runner *pr, const struct profile_op *op)
{
    spool_runner_count(pr, OP_LOCK, 1);
    while (flock(pr->fd[op->slot], op->arg == 1 ? LOCK_EX : LOCK_EX | LOCK_NB) != 0)
        if (errno != EINTR)
            return spool_runner_fail(pr, "flock", NULL);
    return 0;
}

static int close_slot(struct spool_runner *pr, const struct profile_op *op)
{
    int fd = pr->fd[op->slot];

    pr->fd[op->slot] = -1;
    spool_runner_count(pr, OP_CLOSE, 1);
    return close(fd) == 0 ? 0 : spool_runner_fail(pr, "close", NULL);
}

/* With arg 1, a bucket made when first needed, as OpenSMTPD and Postfix make theirs. */
static int rename_into(struct spool_runner *pr, const struct profile_op *op, const char *path,
                       const char *path2)
{
    spool_runner_count(pr, OP_RENAME, 1);
    if (rename(path, path2) == 0)
        return 0;
    if (errno == ENOENT && op->arg == 1 && make_parent(path2) == 0) {
        spool_runner_count(pr, OP_MKDIR, 1);
        if (rename(path, path2) == 0)
            return 0;
    }
    return spool_runner_fail(pr, "rename", path);
}

/* The time of the next retry, 300 s from now, as a deferral sets it. */
static int touch_later(struct spool_runner *pr, const char *path)
{
    struct timeval times[2];

    gettimeofday(&times[0], NULL);
    times[0].tv_sec += 300;
    times[1] = times[0];
    spool_runner_count(pr, OP_UTIME, 1);
    return utimes(path, times) == 0 ? 0 : spool_runner_fail(pr, "utimes", path);
}

/* Count one call of kind, and say whether it did what it should (ok). */
static int counted(struct spool_runner *pr, enum profile_op_kind kind, int ok, const char *what,
                   const char *path)
{
    spool_runner_count(pr, kind, 1);
    return ok ? 0 : spool_runner_fail(pr, what, path);
}

static int run_op(struct spool_runner *pr, const struct profile_op *op, struct spool_msg *m,
                  unsigned r)
{
    char path[4096], path2[4096];
    int fd = pr->fd[op->slot];
    struct stat sb;

    if (op_paths(pr, op, m, r, path, path2, sizeof(path)) != 0)
        return -1;
    switch (op->kind) {
    case OP_CREATE:
    case OP_OPEN:
    case OP_APPEND:
        return open_slot(pr, op, path);
    case OP_WRITE:
        return write_slot(pr, op, m);
    case OP_FSYNC:
    case OP_FDATASYNC:
        return do_sync(pr, fd, op->kind) == 0 ? 0 : spool_runner_fail(pr, "fsync", NULL);
    case OP_FSYNC_DIR:
        return sync_dir(pr, path);
    case OP_LOCK:
        return lock_slot(pr, op);
    case OP_CLOSE:
        return close_slot(pr, op);
    case OP_RENAME:
        return rename_into(pr, op, path, path2);
    case OP_UTIME:
        return touch_later(pr, path);
    /* The others: one call, counted whether it succeeds or not. */
    case OP_PWRITE:
        return counted(pr, op->kind, pwrite(fd, "D", 1, 0) == 1, "pwrite", NULL);
    case OP_FCHMOD:
        return counted(pr, op->kind, fchmod(fd, (mode_t)op->arg) == 0, "fchmod", NULL);
    case OP_FCHOWN:
        return counted(pr, op->kind, fchown(fd, geteuid(), getegid()) == 0, "fchown", NULL);
    case OP_LINK:
        return counted(pr, op->kind, link(path, path2) == 0, "link", path2);
    case OP_UNLINK:
        return counted(pr, op->kind, unlink(path) == 0, "unlink", path);
    case OP_PROBE:
        return counted(pr, op->kind, unlink(path) == 0 || errno == ENOENT, "unlink", path);
    case OP_STAT:
        return counted(pr, op->kind, stat(path, &sb) == 0 || errno == ENOENT, "stat", path);
    case OP_MKDIR:
        return counted(pr, op->kind, mkdir(path, 0700) == 0, "mkdir", path);
    case OP_RMDIR:
        return counted(pr, op->kind, rmdir(path) == 0, "rmdir", path);
    case OP_READDIR:
        return counted(pr, op->kind, read_dir(path) == 0, "read directory", path);
    default:
        return spool_runner_fail(pr, "unknown operation", NULL);
    }
}

static int run_table(struct spool_runner *pr, enum profile_phase phase, struct spool_msg *m)
{
    const struct profile *p = pr->profile;

    pr->failed = 0;
    if (phase == PHASE_ACCEPT && m->content == NULL)
        spool_runner_filler(pr, m->size);
    for (size_t i = 0; i < p->phase_len[phase];) {
        const struct profile_op *ops = p->phase[phase];
        size_t end = profile_group_end(ops, p->phase_len[phase], i);
        unsigned repeat = (ops[i].flags & OP_PER_RCPT) ? m->rcpts : 1;

        for (unsigned r = 0; r < repeat; r++) {
            for (size_t k = i; k < end; k++) {
                uint64_t t0 = clock_now_ns();

                if (run_op(pr, &ops[k], m, r) != 0) {
                    spool_runner_close_slots(pr);
                    pr->failed = 1;
                    pr->failed_phase = phase;
                    pr->failed_op = k;
                    pr->failed_round = r;
                    return -1;
                }
                spool_runner_timed(pr, ops[k].kind, t0);
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
static struct step *steps_done(const struct spool_runner *pr, const struct spool_msg *m, size_t *n)
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
                done = xgrow(done, &cap, *n + 1, cap, sizeof(*done));
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
static void remove_path(const char *tmpl, const struct spool_runner *pr, const struct spool_msg *m,
                        unsigned r)
{
    char rel[1024], path[4096];
    struct stat sb;

    if (tmpl == NULL || profile_expand(tmpl, m->id, pr->worker, r, rel, sizeof(rel)) != 0)
        return;
    snprintf(path, sizeof(path), "%s/%s", pr->root, rel);
    if (lstat(path, &sb) != 0)
        return;
    if (S_ISDIR(sb.st_mode))
        fileutil_tree_remove(path);
    else
        unlink(path);
}

static void undo(struct spool_runner *pr, struct spool_msg *m)
{
    const struct profile_op *ops;
    struct step *done;
    size_t n;
    int whole;

    if (!pr->failed)
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

static void discard(struct spool_runner *pr, struct spool_msg *m)
{
    const struct profile *p = pr->profile;

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

static int phase_accept(struct spool_runner *pr, struct spool_msg *m)
{
    return run_table(pr, PHASE_ACCEPT, m);
}

static int phase_deliver(struct spool_runner *pr, struct spool_msg *m)
{
    return run_table(pr, PHASE_DELIVER, m);
}

static int phase_defer(struct spool_runner *pr, struct spool_msg *m)
{
    return run_table(pr, PHASE_DEFER, m);
}

static void totals(const uint64_t ops[OP_KIND_COUNT], const struct pf_spool_stats *pf,
                   struct spool_op_totals *t)
{
    (void)pf;
    memset(t, 0, sizeof(*t));
    t->creates = ops[OP_CREATE] + ops[OP_APPEND];
    t->writes = ops[OP_WRITE] + ops[OP_PWRITE];
    t->fsyncs = ops[OP_FSYNC];
    t->fdatasyncs = ops[OP_FDATASYNC];
    t->dir_fsyncs = ops[OP_FSYNC_DIR];
    t->renames = ops[OP_RENAME];
    t->links = ops[OP_LINK];
    t->unlinks = ops[OP_UNLINK];
    t->probes = ops[OP_PROBE];
    t->stats = ops[OP_STAT];
    t->chmods = ops[OP_FCHMOD];
    t->utimes = ops[OP_UTIME];
    t->mkdirs = ops[OP_MKDIR];
    t->rmdirs = ops[OP_RMDIR];
    t->locks = ops[OP_LOCK];
}

static const char *const *queues(const struct profile *p)
{
    return p->dirs;
}

static const char *const *lasting(const struct profile *p)
{
    return p->files;
}

const struct spool_backend spool_table = {
    .name = "table",
    .setup = setup,
    .phase = {phase_accept, phase_deliver, phase_defer},
    .undo = undo,
    .discard = discard,
    .totals = totals,
    .queues = queues,
    .lasting = lasting,
};
