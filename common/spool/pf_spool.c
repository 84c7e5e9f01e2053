/*
 * pf_spool - the directory tree of a Postfix-style queue on disk; see pf_spool.h.
 *
 * Opening the spool checks it before anything is changed: the spool and
 * queue directories, the recorded layout, the hash directories, each one a
 * real directory of the relay's user that no one else can write. Then the
 * pid file's lock, the drop to that user, and the names of queue files
 * (pf_spool_locate(), pf_spool_path()), which the message files
 * (pf_spool_file.c) are reached by.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileutil.h"
#include "msg.h"
#include "names.h"
#include "pf_spool.h"
#include "pf_spool_impl.h"
#include "xalloc.h"

static const char *const queues[PF_SPOOL_QUEUES] = {
    PF_QUEUE_INCOMING, PF_QUEUE_ACTIVE, PF_QUEUE_DEFERRED, PF_QUEUE_DEFER,
    PF_QUEUE_BOUNCE,   PF_QUEUE_TRACE,  PF_QUEUE_HOLD,     PF_QUEUE_MAILDROP,
    PF_QUEUE_CORRUPT,  PF_QUEUE_FLUSH,  PF_QUEUE_SAVED};

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
    to->scans += from->scans;
    to->scan_moves += from->scan_moves;
    to->locks += from->locks;
}

const char *pf_spool_sync_name(enum pf_sync sync)
{
    return sync_names[sync];
}

int pf_spool_sync_parse(const char *name, enum pf_sync *sync)
{
    int i = names_index(sync_names, sizeof(sync_names) / sizeof(sync_names[0]), name);

    if (i < 0)
        return -1;
    *sync = (enum pf_sync)i;
    return 0;
}

enum pf_sync pf_spool_sync_option(const char *name)
{
    enum pf_sync sync;

    if (pf_spool_sync_parse(name, &sync) != 0)
        msg_usage("bad --sync \"%s\" (fsync, fdatasync or none)", name);
    return sync;
}

static uid_t owner_uid(const struct pf_spool *sp)
{
    return sp->owner_set ? sp->owner_uid : geteuid();
}

/* "nobody (uid 65534)" for messages at start-up. */
static void describe_user(uid_t uid, char *out, size_t len)
{
    struct passwd pw, *found = NULL;
    char buf[4096];

    if (getpwuid_r(uid, &pw, buf, sizeof(buf), &found) == 0 && found != NULL)
        snprintf(out, len, "%s (uid %ld)", pw.pw_name, (long)uid);
    else
        snprintf(out, len, "uid %ld", (long)uid);
}

/* Why the directory open as `fd' (at `path') may not hold a queue; 0 if it may. */
static int check_dir(const struct pf_spool *sp, int fd, const char *path, char *err, size_t errlen)
{
    char have[128], want[128];
    struct stat st;

    if (fstat(fd, &st) != 0) {
        snprintf(err, errlen, "cannot stat %s: %s", path, strerror(errno));
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "%s is not a directory", path);
        return -1;
    }
    if (st.st_uid != owner_uid(sp)) {
        describe_user(st.st_uid, have, sizeof(have));
        describe_user(owner_uid(sp), want, sizeof(want));
        snprintf(err, errlen, "%s is owned by %s, not by %s, whom the relay runs as", path, have,
                 want);
        return -1;
    }
    if (st.st_mode & (S_IWGRP | S_IWOTH)) {
        snprintf(err, errlen,
                 "%s is writable by its group or by others (mode %04o): anyone who can write "
                 "there can make the relay overwrite or remove files",
                 path, (unsigned)(st.st_mode & 07777));
        return -1;
    }
    if ((st.st_mode & S_IRWXU) != S_IRWXU) {
        snprintf(err, errlen, "%s is mode %04o: its owner needs read, write and search permission",
                 path, (unsigned)(st.st_mode & 07777));
        return -1;
    }
    return 0;
}

/* Open the directory `name' under `at' without following a link; what is there if it is none. */
static int open_dir(int at, const char *name, const char *path, char *err, size_t errlen)
{
    int fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    int saved;

    if (fd >= 0)
        return fd;
    saved = errno;
    if ((saved == ELOOP || saved == ENOTDIR) && fstatat(at, name, &st, AT_SYMLINK_NOFOLLOW) == 0)
        snprintf(err, errlen, "%s is %s", path,
                 S_ISLNK(st.st_mode) ? "a symbolic link, not a directory" : "not a directory");
    else
        snprintf(err, errlen, "cannot open %s: %s", path, strerror(saved));
    errno = saved;
    return -1;
}

/* The directory `name' under `at', made (0700, the owner's) if missing, opened and checked. */
static int make_dir(const struct pf_spool *sp, int at, const char *name, const char *path,
                    char *err, size_t errlen)
{
    int made = mkdirat(at, name, 0700) == 0;
    int fd;

    if (!made && errno != EEXIST) {
        snprintf(err, errlen, "cannot create %s: %s", path, strerror(errno));
        return -1;
    }
    if ((fd = open_dir(at, name, path, err, errlen)) < 0)
        return -1;
    if (made && sp->owner_set && fchown(fd, sp->owner_uid, sp->owner_gid) != 0) {
        snprintf(err, errlen, "cannot give %s to %s: %s", path, sp->owner_name, strerror(errno));
        close(fd);
        return -1;
    }
    if (check_dir(sp, fd, path, err, errlen) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

int pf_spool_queue_index(const char *queue)
{
    return names_index(queues, PF_SPOOL_QUEUES, queue);
}

int pf_spool_in_queue(const struct pf_spool *sp, int qi, const char *rel, int *at, char *name,
                      size_t len, size_t *rel_off)
{
    int n;

    if (sp->opened) {
        *at = sp->queue_fd[qi];
        n = snprintf(name, len, "%s", rel);
        if (rel_off)
            *rel_off = 0;
    } else {
        *at = AT_FDCWD;
        n = snprintf(name, len, "%s/%s/%s", sp->dir, queues[qi], rel);
        if (rel_off)
            *rel_off = strlen(sp->dir) + strlen(queues[qi]) + 2;
    }
    if (n < 0 || (size_t)n >= len) {
        errno = ENAMETOOLONG;
        return -1;
    }
    return 0;
}

static int hashed(const char *queue)
{
    return strcmp(queue, PF_QUEUE_DEFERRED) == 0 || strcmp(queue, PF_QUEUE_DEFER) == 0;
}

int pf_spool_locate(const struct pf_spool *sp, const char *queue, const char *id, int *at,
                    char *name, size_t len, size_t *rel_off)
{
    char rel[PF_QUEUE_ID_MAX + 16], hash[16] = "";
    int qi = pf_spool_queue_index(queue);

    /* Validate before any name is built: an ID never walks out of its queue. */
    if (qi < 0 || !pf_queue_id_ok(id) ||
        (hashed(queue) && sp->hash_depth > 0 &&
         pf_queue_hash(id, sp->hash_depth, hash, sizeof(hash)) != 0)) {
        errno = EINVAL;
        return -1;
    }
    snprintf(rel, sizeof(rel), "%s%s%s", hash, hash[0] ? "/" : "", id);
    return pf_spool_in_queue(sp, qi, rel, at, name, len, rel_off);
}

int pf_spool_queue_fd(const struct pf_spool *sp, const char *queue)
{
    int qi = pf_spool_queue_index(queue);

    return sp->opened && qi >= 0 ? sp->queue_fd[qi] : -1;
}

static void close_fds(struct pf_spool *sp)
{
    if (sp->dir_fd >= 0)
        close(sp->dir_fd);
    sp->dir_fd = -1;
    for (int i = 0; i < PF_SPOOL_QUEUES; i++) {
        if (sp->queue_fd[i] >= 0)
            close(sp->queue_fd[i]);
        sp->queue_fd[i] = -1;
    }
    sp->opened = 0;
}

int pf_spool_set_user(struct pf_spool *sp, const char *user, char *err, size_t errlen)
{
    struct passwd pw, *found = NULL;
    char buf[4096];

    if (getpwnam_r(user, &pw, buf, sizeof(buf), &found) != 0 || found == NULL) {
        snprintf(err, errlen, "unknown user \"%s\"", user);
        return -1;
    }
    /* Postfix refuses a privileged mail_owner: a queue owned by root protects nothing. */
    if (pw.pw_uid == 0 || pw.pw_gid == 0) {
        snprintf(err, errlen, "user %s has a privileged %s ID (0)", user,
                 pw.pw_uid == 0 ? "user" : "group");
        return -1;
    }
    if (geteuid() != 0 && pw.pw_uid != geteuid()) {
        snprintf(err, errlen, "only root can run as another user (this is uid %ld)",
                 (long)geteuid());
        return -1;
    }
    sp->owner_set = 1;
    sp->owner_uid = pw.pw_uid;
    sp->owner_gid = pw.pw_gid;
    snprintf(sp->owner_name, sizeof(sp->owner_name), "%s", user);
    return 0;
}

/* The directory `fd' names, read from its start through a descriptor of its own; NULL, errno. */
static DIR *read_dir_at(int fd)
{
    int dfd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC), saved;
    DIR *dp;

    if (dfd < 0)
        return NULL;
    if ((dp = fdopendir(dfd)) == NULL) {
        saved = errno;
        close(dfd);
        errno = saved;
    }
    return dp;
}

/* The level of the first queue file under the directory `fd', or -1 if there is none. */
static int file_depth(int fd, int level)
{
    DIR *dp = read_dir_at(fd);
    struct dirent *de;
    int depth = -1;

    if (dp == NULL)
        return -1;
    while (depth < 0 && (de = readdir(dp)) != NULL) {
        struct stat st;
        int sub;

        if (fstatat(dirfd(dp), de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
            continue;
        if (S_ISREG(st.st_mode) && pf_queue_id_ok(de->d_name)) {
            depth = level;
        } else if (S_ISDIR(st.st_mode) && de->d_name[0] != '.' && level < PF_QUEUE_HASH_DEPTH_MAX &&
                   (sub = openat(dirfd(dp), de->d_name,
                                 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) >= 0) {
            depth = file_depth(sub, level + 1);
            close(sub);
        }
    }
    closedir(dp);
    return depth;
}

/* Every hash directory under `fd' (at `path'), `levels' deep, must pass check_dir(). */
static int check_hash_dirs(const struct pf_spool *sp, int fd, const char *path, int levels,
                           char *err, size_t errlen)
{
    int status = 0;
    struct dirent *de;
    DIR *dp;

    if (levels == 0)
        return 0;
    if ((dp = read_dir_at(fd)) == NULL) {
        snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
        return -1;
    }
    while (status == 0 && (de = readdir(dp)) != NULL) {
        char sub_path[4096];
        struct stat st;
        int sub;

        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0 ||
            fstatat(dirfd(dp), de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
            continue;
        snprintf(sub_path, sizeof(sub_path), "%s/%s", path, de->d_name);
        if (S_ISLNK(st.st_mode)) {
            snprintf(err, errlen, "%s is a symbolic link where a hash directory belongs", sub_path);
            status = -1;
        } else if (S_ISDIR(st.st_mode)) {
            if ((sub = open_dir(dirfd(dp), de->d_name, sub_path, err, errlen)) < 0)
                status = -1;
            else {
                status = check_dir(sp, sub, sub_path, err, errlen);
                if (status == 0)
                    status = check_hash_dirs(sp, sub, sub_path, levels - 1, err, errlen);
                close(sub);
            }
        }
        /* a file where a hash directory belongs is left to recovery, which skips it */
    }
    closedir(dp);
    return status;
}

/* Record the layout: a new file, synced, renamed into place, the directory synced. */
static int write_layout(const struct pf_spool *sp, const char *path, char *err, size_t errlen)
{
    static const char temp[] = PF_QUEUE_LAYOUT_FILE ".tmp";
    struct pf_spool_stats ignored = {0}; /* once per spool: no message's work */
    char text[256];
    int fd;

    if (pf_queue_layout_format(sp->hash_depth, text, sizeof(text)) != 0) {
        snprintf(err, errlen, "cannot format the layout for %s", path);
        return -1;
    }
    if (unlinkat(sp->dir_fd, temp, 0) != 0 && errno != ENOENT)
        goto fail;
    if ((fd = openat(sp->dir_fd, temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                     0600)) < 0)
        goto fail;
    if (fileutil_write_all(fd, text, strlen(text), WRITE_PIECE, &ignored.writes, &ignored.bytes) !=
            0 ||
        fsync(fd) != 0 || (sp->owner_set && fchown(fd, sp->owner_uid, sp->owner_gid) != 0)) {
        int saved = errno;

        close(fd);
        unlinkat(sp->dir_fd, temp, 0);
        errno = saved;
        goto fail;
    }
    if (close(fd) != 0 || renameat(sp->dir_fd, temp, sp->dir_fd, PF_QUEUE_LAYOUT_FILE) != 0) {
        int saved = errno;

        unlinkat(sp->dir_fd, temp, 0);
        errno = saved;
        goto fail;
    }
    if (fsync(sp->dir_fd) != 0)
        goto fail;
    return 0;

fail:
    snprintf(err, errlen, "cannot record the layout in %s: %s", path, strerror(errno));
    return -1;
}

/*
 * The hash depth is the spool's, not the run's: recorded at the first
 * start, and a run with another refused, for it would not find the
 * deferred mail (and would take its defer logs for stale ones).
 */
static int check_layout(const struct pf_spool *sp, char *err, size_t errlen)
{
    static const char *const hashed_queues[] = {PF_QUEUE_DEFERRED, PF_QUEUE_DEFER};
    char path[4096], text[PF_QUEUE_LAYOUT_MAX], why[200];
    struct stat st;
    ssize_t n;
    int fd, depth;

    snprintf(path, sizeof(path), "%s/%s", sp->dir, PF_QUEUE_LAYOUT_FILE);
    fd = openat(sp->dir_fd, PF_QUEUE_LAYOUT_FILE, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0 && errno != ENOENT) {
        snprintf(err, errlen, "%s: %s", path,
                 errno == ELOOP ? "a symbolic link, not the layout file" : strerror(errno));
        return -1;
    }
    if (fd >= 0) {
        if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size >= PF_QUEUE_LAYOUT_MAX) {
            snprintf(err, errlen, "%s is not a layout file (not a small regular file)", path);
            close(fd);
            return -1;
        }
        n = read(fd, text, sizeof(text));
        close(fd);
        if (n < 0) {
            snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
            return -1;
        }
        if (pf_queue_layout_parse(text, (size_t)n, &depth, why, sizeof(why)) != 0) {
            snprintf(err, errlen, "%s: %s", path, why);
            return -1;
        }
        if (depth != sp->hash_depth) {
            snprintf(err, errlen,
                     "%s: the spool was made with --hash-depth %d, and this run asks for "
                     "--hash-depth %d: it would not find the deferred mail",
                     path, depth, sp->hash_depth);
            return -1;
        }
        return 0;
    }
    /* No layout file: a new spool, or an older relay's, whose deferred mail shows its depth. */
    for (size_t i = 0; i < 2; i++) {
        depth = file_depth(sp->queue_fd[pf_spool_queue_index(hashed_queues[i])], 0);
        if (depth >= 0 && depth != sp->hash_depth) {
            snprintf(err, errlen,
                     "%s/%s holds mail hashed %d level%s deep, and there is no %s to say "
                     "otherwise: run with --hash-depth %d (it will then be recorded)",
                     sp->dir, hashed_queues[i], depth, depth == 1 ? "" : "s", PF_QUEUE_LAYOUT_FILE,
                     depth);
            return -1;
        }
    }
    return write_layout(sp, path, err, errlen);
}

int pf_spool_open(struct pf_spool *sp, const char *dir, char *err, size_t errlen)
{
    char path[4096];
    size_t n;

    sp->dir = xstrdup(dir);
    /* "spool/" would follow a link named spool: O_NOFOLLOW judges the name without the slash */
    for (n = strlen(sp->dir); n > 1 && sp->dir[n - 1] == '/'; n--)
        sp->dir[n - 1] = 0;
    sp->opened = 0;
    sp->dir_fd = -1;
    for (int i = 0; i < PF_SPOOL_QUEUES; i++)
        sp->queue_fd[i] = -1;
    if ((sp->dir_fd = make_dir(sp, AT_FDCWD, sp->dir, sp->dir, err, errlen)) < 0)
        goto fail;
    for (int i = 0; i < PF_SPOOL_QUEUES; i++) {
        snprintf(path, sizeof(path), "%s/%s", sp->dir, queues[i]);
        if ((sp->queue_fd[i] = make_dir(sp, sp->dir_fd, queues[i], path, err, errlen)) < 0)
            goto fail;
    }
    if (check_layout(sp, err, errlen) != 0)
        goto fail;
    for (int i = 0; i < PF_SPOOL_QUEUES; i++) {
        snprintf(path, sizeof(path), "%s/%s", sp->dir, queues[i]);
        if (hashed(queues[i]) &&
            check_hash_dirs(sp, sp->queue_fd[i], path, sp->hash_depth, err, errlen) != 0)
            goto fail;
    }
    sp->pid = (long)getpid();
    sp->opened = 1;
    return 0;

fail:
    close_fds(sp);
    return -1;
}

void pf_spool_close(struct pf_spool *sp)
{
    if (sp->opened)
        close_fds(sp);
    free(sp->dir);
    sp->dir = NULL;
}

int pf_spool_lock(const struct pf_spool *sp, char *err, size_t errlen)
{
    char path[4096], pid[32], have[128], want[128];
    int dir_fd, pid_dir, fd, made = 1;
    struct stat st;

    snprintf(path, sizeof(path), "%s/pid", sp->dir);
    if ((dir_fd = open_dir(AT_FDCWD, sp->dir, sp->dir, err, errlen)) < 0)
        return -1;
    if (check_dir(sp, dir_fd, sp->dir, err, errlen) != 0 ||
        (pid_dir = make_dir(sp, dir_fd, "pid", path, err, errlen)) < 0) {
        close(dir_fd);
        return -1;
    }
    close(dir_fd);
    snprintf(path, sizeof(path), "%s/pid/relay.pid", sp->dir);
    /* O_EXCL first, as Postfix's safe_open: a new file is ours; an old one is looked at. */
    fd = openat(pid_dir, "relay.pid", O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0 && errno == EEXIST) {
        made = 0;
        fd = openat(pid_dir, "relay.pid", O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    }
    close(pid_dir);
    if (fd < 0) {
        snprintf(err, errlen, "%s: %s", path,
                 errno == ELOOP ? "a symbolic link, not the relay's pid file" : strerror(errno));
        return -1;
    }
    if (made && sp->owner_set && fchown(fd, sp->owner_uid, sp->owner_gid) != 0) {
        snprintf(err, errlen, "cannot give %s to %s: %s", path, sp->owner_name, strerror(errno));
        goto fail;
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "%s is not a regular file", path);
        goto fail;
    }
    /* A hard link to another file would have us overwrite that file. */
    if (st.st_nlink != 1) {
        snprintf(err, errlen, "%s has %ld hard links, not one", path, (long)st.st_nlink);
        goto fail;
    }
    if (st.st_uid != owner_uid(sp)) {
        describe_user(st.st_uid, have, sizeof(have));
        describe_user(owner_uid(sp), want, sizeof(want));
        snprintf(err, errlen, "%s is owned by %s, not by %s, whom the relay runs as", path, have,
                 want);
        goto fail;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        ssize_t n = read(fd, pid, sizeof(pid) - 1);

        pid[n > 0 ? n : 0] = 0;
        pid[strcspn(pid, "\n")] = 0;
        snprintf(err, errlen, "spool %s is in use by another relay (pid %s)", sp->dir,
                 pid[0] ? pid : "unknown");
        goto fail;
    }
    snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
    /* the lock is what keeps a second relay out; the number only informs */
    if (ftruncate(fd, 0) != 0 || pwrite(fd, pid, strlen(pid), 0) < 0)
        msg_warn("cannot write %s: %s", path, strerror(errno));
    return fd; /* held until exit */

fail:
    close(fd);
    return -1;
}

int pf_spool_drop_privileges(const struct pf_spool *sp, char *err, size_t errlen)
{
    uid_t ruid, euid, suid;
    gid_t rgid, egid, sgid, groups[2];
    gid_t gid = sp->owner_gid;
    int was_root = geteuid() == 0, n;

    if (!sp->owner_set)
        return 0;
    /* Groups first, while we may still change them; then the user, for good. */
    if (was_root && setgroups(1, &gid) != 0) {
        snprintf(err, errlen, "setgroups(1, [%ld]): %s", (long)gid, strerror(errno));
        return -1;
    }
    if (was_root && setgid(gid) != 0) {
        snprintf(err, errlen, "setgid(%ld): %s", (long)gid, strerror(errno));
        return -1;
    }
    if (was_root && setuid(sp->owner_uid) != 0) {
        snprintf(err, errlen, "setuid(%ld): %s", (long)sp->owner_uid, strerror(errno));
        return -1;
    }
    /* Checked, not trusted: every ID is the user's, and root cannot be had back. */
    if (getresuid(&ruid, &euid, &suid) != 0 || getresgid(&rgid, &egid, &sgid) != 0 ||
        ruid != sp->owner_uid || euid != sp->owner_uid || suid != sp->owner_uid ||
        (was_root && (rgid != gid || egid != gid || sgid != gid))) {
        snprintf(err, errlen, "still not %s after setuid(%ld) and setgid(%ld)", sp->owner_name,
                 (long)sp->owner_uid, (long)gid);
        return -1;
    }
    if (was_root && ((n = getgroups(2, groups)) != 1 || groups[0] != gid)) {
        snprintf(err, errlen, "still in other groups than %ld after setgroups", (long)gid);
        return -1;
    }
    if (setuid(0) == 0 || seteuid(0) == 0) {
        snprintf(err, errlen, "could become root again after becoming %s", sp->owner_name);
        return -1;
    }
    return 0;
}

int pf_spool_path(const struct pf_spool *sp, const char *queue, const char *id, char *out,
                  size_t len)
{
    char hash[16] = "";
    int n;

    if (pf_spool_queue_index(queue) < 0 || !pf_queue_id_ok(id))
        return -1;
    if (hashed(queue) && sp->hash_depth > 0 &&
        pf_queue_hash(id, sp->hash_depth, hash, sizeof(hash)) != 0)
        return -1;
    n = snprintf(out, len, "%s/%s/%s%s%s", sp->dir, queue, hash, hash[0] ? "/" : "", id);
    return n < 0 || (size_t)n >= len ? -1 : 0;
}

int pf_spool_scan_incoming(const struct pf_spool *sp, unsigned room, struct pf_spool_stats *st)
{
    int in = pf_spool_queue_fd(sp, PF_QUEUE_INCOMING), act = pf_spool_queue_fd(sp, PF_QUEUE_ACTIVE);
    int moved = 0;
    struct dirent *de;
    struct stat sb;
    DIR *d;

    if (in < 0 || act < 0 || (d = read_dir_at(in)) == NULL)
        return -1;
    st->scans++;
    while ((unsigned)moved < room && (de = readdir(d)) != NULL) {
        if (!pf_queue_id_ok(de->d_name))
            continue;
        st->stat_probes++;
        if (fstatat(in, de->d_name, &sb, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(sb.st_mode) ||
            (sb.st_mode & 0700) != 0700)
            continue;
        if (renameat(in, de->d_name, act, de->d_name) == 0) {
            st->renames++;
            st->scan_moves++;
            moved++;
        }
    }
    closedir(d);
    return moved;
}
