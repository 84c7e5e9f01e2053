/*
 * pf_recover - put a Postfix-style spool back in order after a crash.
 *
 * What a crash can leave, and what happens to it (docs/spool-profiles.md E.2):
 * a file in active/ was being delivered: it goes back to incoming/ and is
 * delivered again from the start, except for recipients already marked D
 * (a crash between the next hop's 250 and the D can cause a duplicate,
 * never a loss). Logs in defer/ and bounce/ outlive their message only
 * when a crash hit between two unlinks; they are removed.
 *
 * The owner's execute bit marks a file complete, and it says so only in
 * incoming/: cleanup sets 0700 after the last record and before the fsync
 * that precedes the 250, so an unmarked file there (or one under the
 * relay's temporary name) was never acknowledged, and as the spool's lock
 * keeps any other relay out, nothing can still be writing it: it is
 * removed. Every other queue holds only files that were marked before
 * they got there: one that has lost its mark (a chmod, a restore through
 * a file system without execute bits) was acknowledged, and is marked
 * again and delivered. Nothing that is not a queue file where its name
 * says (another name, a link, a directory, a file outside its hash
 * directory) is removed, moved or followed: it is left, with a warning.
 * pf_recover_verdict() is that rule; the walk below only applies it.
 */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "msg.h"
#include "pf_spool.h"

/* The relay's temporary names in incoming/ (pf_spool_file_create()): USEC.PID or USEC.PID.HEX. */
static int temporary_name(const char *name)
{
    const char *p = name;
    int parts = 0;

    for (;;) {
        const char *start = p;

        while (parts < 2 ? isdigit((unsigned char)*p) : isxdigit((unsigned char)*p))
            p++;
        if (p == start)
            return 0;
        parts++;
        if (*p == 0)
            return parts >= 2;
        if (*p != '.' || parts == 3)
            return 0;
        p++;
    }
}

/*
 * A name of the form the relay gives its queue files (pf_queue.h): 5 hex
 * digits and the inode in hex, or the long form, whose inode part after
 * the last 'z' has no 'z'. pf_queue_id_ok() takes any word ("README"):
 * enough to keep a name inside its queue, not to call a file ours.
 */
static int queue_file_name(const char *name)
{
    static const char base52[] = "0123456789BCDFGHJKLMNPQRSTVWXYZbcdfghjklmnpqrstvwxyz";
    const char *z = strrchr(name, 'z');
    size_t n = strlen(name);

    if (!pf_queue_id_ok(name))
        return 0;
    if (z == NULL)
        return n > 5 && strspn(name, "0123456789ABCDEF") == n;
    return z - name >= 10 && strspn(name, base52) == n && z[1] != 0;
}

static int is_log_queue(const char *queue)
{
    return strcmp(queue, PF_QUEUE_DEFER) == 0 || strcmp(queue, PF_QUEUE_BOUNCE) == 0;
}

enum pf_recover_verdict pf_recover_verdict(const char *queue, const char *name, mode_t mode,
                                           int placed, const char **why)
{
    int id = queue_file_name(name);

    *why = NULL;
    if (S_ISLNK(mode)) {
        *why = "a symbolic link, not followed";
        return PF_RECOVER_SKIP;
    }
    if (!S_ISREG(mode)) {
        *why = "not a regular file";
        return PF_RECOVER_SKIP;
    }
    if (strcmp(queue, PF_QUEUE_INCOMING) == 0 && !(mode & S_IXUSR) && (id || temporary_name(name)))
        return PF_RECOVER_REMOVE; /* never marked complete, so never acknowledged */
    if (!id) {
        *why = "not a queue ID";
        return PF_RECOVER_SKIP;
    }
    if (!placed) {
        *why = "not where its queue ID puts it";
        return PF_RECOVER_SKIP;
    }
    if (is_log_queue(queue) || (mode & 0700) == 0700)
        return PF_RECOVER_KEEP;
    *why = "acknowledged, but without its complete mark (0700)";
    return PF_RECOVER_MARK;
}

struct walk {
    const struct pf_spool *sp;
    const char *queue;
    pf_spool_found_fn found;
    void *ctx;
    struct pf_recovery *rec;
    char *err;
    size_t errlen;
};

/* An entry `name' of the directory open as `at'; `path' names it in messages. */
typedef int (*entry_fn)(struct walk *w, int at, const char *path, const char *name,
                        enum pf_recover_verdict v);

/* Leave an entry alone, and say so: a human may want it (and nothing here knows it). */
static void skip(struct walk *w, const char *path, const char *why)
{
    msg_warn("%s: %s; left alone", path, why);
    w->rec->skipped++;
}

/*
 * Call `fn' with the verdict on every entry under the directory open as
 * `fd', where `depth' directory levels are the queue's hash directories;
 * a directory there is walked (never through a link), anything else is
 * judged, and only lstat'ed for that.
 */
static int walk_dir(struct walk *w, int fd, const char *dir, int depth, entry_fn fn)
{
    int dfd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC); /* fdopendir() takes it */
    DIR *dp = dfd >= 0 ? fdopendir(dfd) : NULL;
    struct dirent *de;
    int status = 0;

    if (dp == NULL) {
        snprintf(w->err, w->errlen, "cannot read %s: %s", dir, strerror(errno));
        if (dfd >= 0)
            close(dfd);
        return -1;
    }
    while (status == 0 && (de = readdir(dp)) != NULL) {
        char path[4096], expected[4096];
        const char *why;
        enum pf_recover_verdict v;
        struct stat sb;
        int sub, placed;

        if (de->d_name[0] == '.' &&
            (de->d_name[1] == 0 || (de->d_name[1] == '.' && de->d_name[2] == 0)))
            continue;
        snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
        if (fstatat(dirfd(dp), de->d_name, &sb, AT_SYMLINK_NOFOLLOW) != 0)
            continue; /* gone meanwhile */
        if (S_ISDIR(sb.st_mode) && depth > 0) {
            sub = openat(dirfd(dp), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (sub < 0)
                continue; /* gone, or no longer a directory */
            status = walk_dir(w, sub, path, depth - 1, fn);
            close(sub);
            continue;
        }
        /* Where its name says, hash directories included, or else not the file of that ID. */
        placed = pf_spool_path(w->sp, w->queue, de->d_name, expected, sizeof(expected)) == 0 &&
                 strcmp(expected, path) == 0;
        v = pf_recover_verdict(w->queue, de->d_name, sb.st_mode, placed, &why);
        if (v == PF_RECOVER_SKIP)
            skip(w, path, why);
        else
            status = fn(w, dirfd(dp), path, de->d_name, v);
    }
    closedir(dp);
    return status;
}

static int queue_depth(const struct pf_spool *sp, const char *queue)
{
    return strcmp(queue, PF_QUEUE_DEFERRED) == 0 || strcmp(queue, PF_QUEUE_DEFER) == 0
               ? sp->hash_depth
               : 0;
}

static int walk_queue(struct walk *w, const char *queue, entry_fn fn)
{
    char dir[4096];
    int fd = pf_spool_queue_fd(w->sp, queue);

    w->queue = queue;
    snprintf(dir, sizeof(dir), "%s/%s", w->sp->dir, queue);
    if (fd < 0) {
        snprintf(w->err, w->errlen, "%s is not open", dir);
        return -1;
    }
    return walk_dir(w, fd, dir, queue_depth(w->sp, queue), fn);
}

/*
 * Give an acknowledged queue file its complete mark back, through a
 * descriptor that cannot be a link's; a file its owner may not open
 * (mode 0000, say) is changed by name, still without following a link.
 * 0, or -1 when the file is to be left as it is.
 */
static int mark_again(struct walk *w, int at, const char *path, const char *name)
{
    int fd = openat(at, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    struct stat sb;
    int status;

    if (fd >= 0) {
        status = fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) ? fchmod(fd, 0700) : -1;
        close(fd);
    } else {
        status = errno == EACCES ? fchmodat(at, name, 0700, AT_SYMLINK_NOFOLLOW) : -1;
    }
    if (status != 0) {
        msg_warn("%s: acknowledged, but without its complete mark (0700), and it cannot be "
                 "given back: %s; left alone",
                 path, strerror(errno));
        w->rec->skipped++;
        return -1;
    }
    msg_warn("%s: acknowledged, but without its complete mark (0700): marked again, to be "
             "delivered",
             path);
    w->rec->marked++;
    return 0;
}

static int requeue_active(struct walk *w, int at, const char *path, const char *name,
                          enum pf_recover_verdict v)
{
    char to[4096];
    int to_at;

    if (v == PF_RECOVER_MARK && mark_again(w, at, path, name) != 0)
        return 0;
    if (pf_spool_locate(w->sp, PF_QUEUE_INCOMING, name, &to_at, to, sizeof(to), NULL) != 0)
        return 0; /* the verdict took a queue ID: cannot happen */
    /* Never over a file of that name in incoming/: both are kept, the second for a human. */
    if (faccessat(to_at, to, F_OK, AT_SYMLINK_NOFOLLOW) == 0) {
        skip(w, path, "a file of that queue ID is in incoming/ too");
        return 0;
    }
    if (renameat(at, name, to_at, to) != 0) {
        snprintf(w->err, w->errlen, "cannot move %s back to incoming: %s", path, strerror(errno));
        return -1;
    }
    w->rec->requeued++;
    return 0;
}

static int find_queued(struct walk *w, int at, const char *path, const char *name,
                       enum pf_recover_verdict v)
{
    struct stat sb;

    if (v == PF_RECOVER_REMOVE) {
        if (unlinkat(at, name, 0) != 0 && errno != ENOENT) {
            snprintf(w->err, w->errlen, "cannot remove %s: %s", path, strerror(errno));
            return -1;
        }
        w->rec->incomplete++;
        return 0;
    }
    if (v == PF_RECOVER_MARK && mark_again(w, at, path, name) != 0)
        return 0;
    if (fstatat(at, name, &sb, AT_SYMLINK_NOFOLLOW) != 0)
        return 0; /* gone meanwhile */
    if (strcmp(w->queue, PF_QUEUE_INCOMING) == 0)
        w->rec->found_incoming++;
    else
        w->rec->found_deferred++;
    w->found(w->ctx, w->queue, name, (long)sb.st_mtime);
    return 0;
}

static int message_exists(const struct pf_spool *sp, const char *id)
{
    static const char *const queues[] = {PF_QUEUE_INCOMING, PF_QUEUE_ACTIVE, PF_QUEUE_DEFERRED,
                                         PF_QUEUE_HOLD};
    char path[4096];
    struct stat sb;
    int at;

    for (size_t i = 0; i < sizeof(queues) / sizeof(queues[0]); i++)
        if (pf_spool_locate(sp, queues[i], id, &at, path, sizeof(path), NULL) == 0 &&
            fstatat(at, path, &sb, AT_SYMLINK_NOFOLLOW) == 0)
            return 1;
    return 0;
}

static int remove_orphan_log(struct walk *w, int at, const char *path, const char *name,
                             enum pf_recover_verdict v)
{
    (void)path;
    (void)v;
    if (message_exists(w->sp, name))
        return 0;
    if (unlinkat(at, name, 0) == 0)
        w->rec->removed_logs++;
    return 0;
}

int pf_recover_spool(const struct pf_spool *sp, pf_spool_found_fn found, void *ctx,
                     struct pf_recovery *rec, char *err, size_t errlen)
{
    struct walk w = {sp, NULL, found, ctx, rec, err, errlen};

    memset(rec, 0, sizeof(*rec));
    if (walk_queue(&w, PF_QUEUE_ACTIVE, requeue_active) != 0 ||
        walk_queue(&w, PF_QUEUE_INCOMING, find_queued) != 0 ||
        walk_queue(&w, PF_QUEUE_DEFERRED, find_queued) != 0 ||
        walk_queue(&w, PF_QUEUE_DEFER, remove_orphan_log) != 0 ||
        walk_queue(&w, PF_QUEUE_BOUNCE, remove_orphan_log) != 0)
        return -1;
    return 0;
}
