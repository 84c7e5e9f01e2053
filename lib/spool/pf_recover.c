/*
 * pf_recover - put a Postfix-style spool back in order after a crash.
 *
 * What a crash can leave, and what happens to it (docs/spool-profiles.md E.2):
 * a file in active/ was being delivered: it goes back to incoming/ and is
 * delivered again from the start, except for recipients already marked D
 * (a crash between the next hop's 250 and the D can cause a duplicate,
 * never a loss). A temporary name, or a queue file without the owner's
 * execute bit, was never acknowledged: cleanup sets 0700 only after the
 * last record and before the fsync that precedes the 250, so removing it
 * loses nothing. Logs in defer/ and bounce/ outlive their message only
 * when a crash hit between two unlinks; they are removed.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pf_spool.h"

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
                        const struct stat *sb);

/*
 * Call `fn' for every regular file under the directory open as `fd',
 * `depth' directory levels down; links and other odd entries are never
 * followed nor opened, only skipped.
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
        char path[4096];
        struct stat sb;
        int sub;

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
        } else if (S_ISREG(sb.st_mode)) {
            status = fn(w, dirfd(dp), path, de->d_name, &sb);
        }
    }
    closedir(dp);
    return status;
}

static int queue_depth(const struct pf_spool *sp, const char *queue)
{
    return strcmp(queue, "deferred") == 0 || strcmp(queue, "defer") == 0 ? sp->hash_depth : 0;
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

static int requeue_active(struct walk *w, int at, const char *path, const char *name,
                          const struct stat *sb)
{
    char to[4096];
    int to_at;

    (void)sb;
    if (pf_spool_locate(w->sp, "incoming", name, &to_at, to, sizeof(to), NULL) != 0)
        return 0; /* not a queue file: left alone, never delivered */
    if (renameat(at, name, to_at, to) != 0) {
        snprintf(w->err, w->errlen, "cannot move %s back to incoming: %s", path, strerror(errno));
        return -1;
    }
    w->rec->requeued++;
    return 0;
}

static int find_queued(struct walk *w, int at, const char *path, const char *name,
                       const struct stat *sb)
{
    if (!pf_queue_id_ok(name) || !(sb->st_mode & S_IXUSR)) {
        if (unlinkat(at, name, 0) != 0 && errno != ENOENT) {
            snprintf(w->err, w->errlen, "cannot remove %s: %s", path, strerror(errno));
            return -1;
        }
        w->rec->incomplete++;
        return 0;
    }
    if (strcmp(w->queue, "incoming") == 0)
        w->rec->found_incoming++;
    else
        w->rec->found_deferred++;
    w->found(w->ctx, w->queue, name, (long)sb->st_mtime);
    return 0;
}

static int message_exists(const struct pf_spool *sp, const char *id)
{
    static const char *const queues[] = {"incoming", "active", "deferred", "hold"};
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
                             const struct stat *sb)
{
    (void)path;
    (void)sb;
    if (pf_queue_id_ok(name) && message_exists(w->sp, name))
        return 0;
    if (unlinkat(at, name, 0) == 0)
        w->rec->removed_logs++;
    return 0;
}

int pf_spool_recover(const struct pf_spool *sp, pf_spool_found_fn found, void *ctx,
                     struct pf_recovery *rec, char *err, size_t errlen)
{
    struct walk w = {sp, NULL, found, ctx, rec, err, errlen};

    memset(rec, 0, sizeof(*rec));
    if (walk_queue(&w, "active", requeue_active) != 0 ||
        walk_queue(&w, "incoming", find_queued) != 0 ||
        walk_queue(&w, "deferred", find_queued) != 0 ||
        walk_queue(&w, "defer", remove_orphan_log) != 0 ||
        walk_queue(&w, "bounce", remove_orphan_log) != 0)
        return -1;
    return 0;
}
