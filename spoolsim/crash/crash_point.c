/*
 * crash_point - one power cut, checked; see crash_point.h.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "crash_mta.h"
#include "crash_point.h"
#include "crash_scan.h"
#include "crash_sys.h"
#include "crash_walk.h"
#include "fileutil.h"
#include "msg.h"
#include "pf_spool.h"
#include "xalloc.h"
#include "xgrow.h"

static int pwrite_all(int fd, const unsigned char *buf, uint64_t len, uint64_t off)
{
    while (len > 0) {
        ssize_t n = pwrite(fd, buf, (size_t)len, (off_t)off);

        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        buf += n;
        len -= (uint64_t)n;
        off += (uint64_t)n;
    }
    return 0;
}

static int apply(const struct crash_checker *c, int fd, size_t i)
{
    const struct blklog_rec *r = &c->log->v[i];

    return r->type != BLKLOG_WRITE ? 0 : pwrite_all(fd, c->log_buf + r->data, r->length, r->offset);
}

int crash_point_checker_open(struct crash_checker *c, const char *base, char *err, size_t errlen)
{
    if (crash_sys_copy_sparse(base, c->cursor, err, errlen) != 0)
        return -1;
    c->cursor_fd = open(c->cursor, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
    if (c->cursor_fd < 0)
        return msg_set_error(err, errlen, "cannot open %s: %s", c->cursor, strerror(errno));
    c->cursor_at = 0;
    return 0;
}

void crash_point_checker_close(struct crash_checker *c)
{
    crash_point_teardown(c);
    if (c->cursor_fd >= 0)
        close(c->cursor_fd);
    c->cursor_fd = -1;
}

void crash_point_teardown(struct crash_checker *c)
{
    if (c->mta)
        crash_mta_stop(c->mta); /* its daemons would keep the image busy */
    if (c->mounted && crash_sys_umount(c->d, c->mnt) == 0)
        c->mounted = 0;
    if (c->loop[0] && !c->mounted && crash_sys_loop_detach(c->d, c->loop) == 0)
        c->loop[0] = '\0';
}

void crash_point_result_free(struct crash_result *r)
{
    msglog_set_free(&r->recovered);
}

/* ------------------------------------------------------------ the image */

static int build_image(struct crash_checker *c, const struct crash_point *p, char *err,
                       size_t errlen)
{
    int fd;

    for (; c->cursor_at < p->barrier; c->cursor_at++)
        if (apply(c, c->cursor_fd, c->cursor_at) != 0)
            return msg_set_error(err, errlen, "cannot write %s: %s", c->cursor, strerror(errno));
    if (crash_sys_copy_sparse(c->cursor, c->image, err, errlen) != 0)
        return -1;
    if ((fd = open(c->image, O_RDWR | O_CLOEXEC | O_NOFOLLOW)) < 0)
        return msg_set_error(err, errlen, "cannot open %s: %s", c->image, strerror(errno));
    for (size_t i = p->barrier; i < p->end; i++) {
        if (crash_plan_has(p, i) && apply(c, fd, i) != 0) {
            close(fd);
            return msg_set_error(err, errlen, "cannot write %s: %s", c->image, strerror(errno));
        }
    }
    return close(fd) == 0
               ? 0
               : msg_set_error(err, errlen, "cannot write %s: %s", c->image, strerror(errno));
}

/* ------------------------------------------------------- --keep-point */

/* WORK/pointN.AS, the path of one of the kept point's files. */
static void kept_path(const struct crash_checker *c, const char *as, char *path)
{
    char name[64];

    snprintf(name, sizeof(name), "point%u.%s", c->keep, as);
    drive_path(c->d, name, path);
}

/* Each WORK/FROM that exists copied to WORK/pointN.AS ({FROM, AS} pairs, NULL-ended); 0, or -1
 * with err. */
static int keep_files(const struct crash_checker *c, const char *const (*pairs)[2], char *err,
                      size_t errlen)
{
    for (; pairs[0][0]; pairs++) {
        char src[PATH_MAX], dst[PATH_MAX];

        drive_path(c->d, pairs[0][0], src);
        kept_path(c, pairs[0][1], dst);
        if (access(src, F_OK) == 0 && crash_sys_copy_sparse(src, dst, err, errlen) != 0)
            return -1;
    }
    return 0;
}

/* WORK/pointN.AS made (0600, as the work directory's other files) for writing; NULL with errno. */
static FILE *open_kept(const struct crash_checker *c, const char *as, char *path)
{
    int fd;
    FILE *fp;

    kept_path(c, as, path);
    if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600)) < 0)
        return NULL;
    if ((fp = fdopen(fd, "w")) == NULL)
        close(fd);
    return fp;
}

/* What the repair said; what the real MTA's restart and its sink said. */
static const char *const repair_files[][2] = {{"repair.out", "repair.out"},
                                              {"repair.err", "repair.err"},
                                              {"repair-look.out", "repair-look.out"},
                                              {"repair-look.err", "repair-look.err"},
                                              {NULL, NULL}};
static const char *const mta_files[][2] = {{"mta-restart.out", "restart.out"},
                                           {"mta-restart.err", "restart.err"},
                                           {"resink.log", "resink.log"},
                                           {NULL, NULL}};

/* The repair's output of an earlier point is not to be taken for this one's. */
static void forget_repair(const struct crash_checker *c)
{
    char path[PATH_MAX];

    for (size_t i = 0; repair_files[i][0]; i++) {
        drive_path(c->d, repair_files[i][0], path);
        unlink(path);
    }
}

/* --------------------------------------------------------- the repair */

static int mount_image(struct crash_checker *c, const char *opts)
{
    if (crash_sys_loop_attach(c->d, c->image, 0, c->loop, sizeof(c->loop)) != 0)
        return -1;
    if (crash_sys_mount(c->d, c->loop, c->mnt, c->fs->type, opts) != 0) {
        crash_sys_loop_detach(c->d, c->loop);
        c->loop[0] = '\0';
        return -1;
    }
    c->mounted = 1;
    return 0;
}

/*
 * e2fsck's exit status: 0 clean, 1 errors corrected, 2 corrected and a
 * reboot wanted, 4 left uncorrected, 8 and up its own trouble. A journal
 * replayed is 1 as well, and so are the free counts ext4 leaves stale
 * (e2fsprogs 1.47): what it fixed is read from its output instead.
 */
static void repair_e2fsck(struct crash_checker *c, struct crash_result *r)
{
    char *argv[] = {"e2fsck", "-f", "-y", c->image, NULL};
    int rc = crash_sys_cmd(c->d, "repair", argv);
    char path[PATH_MAX];
    char *out;

    drive_path(c->d, "repair.out", path);
    out = fileutil_read_all(path, NULL);
    r->repaired = rc > 0 && (rc & 3) != 0 && (out == NULL || crash_opts_e2fsck_fixes(out) > 0);
    free(out);
    r->repair_failed = rc < 0 || (rc & ~3) != 0;
    if (r->repair_failed)
        crash_sys_cmd_said(c->d, "repair", r->note, sizeof(r->note));
}

static void repair_xfs(struct crash_checker *c, struct crash_result *r)
{
    char *zero_log[] = {"xfs_repair", "-L", c->image, NULL};
    char *look[] = {"xfs_repair", "-n", c->image, NULL};
    char *fix[] = {"xfs_repair", c->image, NULL};
    int rc;

    if (mount_image(c, c->options) == 0) {
        crash_point_teardown(c); /* the log is replayed */
    } else {
        r->repaired = 1;
        if (crash_sys_cmd(c->d, "repair", zero_log) != 0)
            r->repair_failed = 1;
    }
    if ((rc = crash_sys_cmd(c->d, "repair-look", look)) != 0) {
        r->repaired = 1;
        if (rc < 0 || crash_sys_cmd(c->d, "repair", fix) != 0) {
            r->repair_failed = 1;
            crash_sys_cmd_said(c->d, "repair", r->note, sizeof(r->note));
        }
    }
}

static void repair_btrfs(struct crash_checker *c, struct crash_result *r)
{
    char *argv[] = {"btrfs", "check", "--readonly", c->image, NULL};

    if (crash_sys_cmd(c->d, "repair", argv) != 0) {
        r->repair_failed = 1; /* found damage, and --repair is not to be trusted */
        crash_sys_cmd_said(c->d, "repair", r->note, sizeof(r->note));
    }
}

/* -------------------------------------------------------- the restart */

struct found_list {
    struct found_one {
        char id[64];
        int deferred;
    } * v;
    size_t n, cap;
};

static void found(void *ctx, const char *queue, const char *id, long mtime)
{
    struct found_list *l = ctx;

    (void)mtime;
    l->v = xgrow(l->v, &l->cap, l->n + 1, 64, sizeof(*l->v));
    snprintf(l->v[l->n].id, sizeof(l->v[l->n].id), "%s", id);
    l->v[l->n++].deferred = strcmp(queue, PF_QUEUE_DEFERRED) == 0;
}

/* One queue file the relay would deliver: recovered, corrupt, or done already; said to log. */
static void take_file(const struct pf_spool *sp, const struct found_one *f, struct crash_result *r,
                      FILE *log)
{
    struct pf_spool_stats st;
    struct msglog_entry e;
    char *buf = NULL;
    size_t len = 0;
    int k;

    memset(&st, 0, sizeof(st));
    if (pf_spool_file_activate(sp, f->id, f->deferred, &st) < 0 ||
        pf_spool_file_read(sp, f->id, &buf, &len, &st) != 0)
        k = -1;
    else
        k = crash_scan_key(buf, len, f->id, &e);
    if (k < 0)
        r->corrupt++;
    else if (k > 0)
        msglog_set_add(&r->recovered, &e);
    if (log)
        fprintf(log, "%s %s %s%s\n", f->deferred ? PF_QUEUE_DEFERRED : PF_QUEUE_INCOMING, f->id,
                k < 0   ? "corrupt"
                : k > 0 ? "recovered "
                        : "done (every recipient marked)",
                k > 0 ? e.message_id : "");
    free(buf);
}

/* The relay's restart; what it did said to log, when not NULL. */
static void restart_postfix(struct crash_checker *c, struct crash_result *r, FILE *log)
{
    struct pf_spool sp;
    struct pf_recovery rec;
    struct found_list l = {0};
    char dir[PATH_MAX * 2], err[512];

    snprintf(dir, sizeof(dir), "%s/%s", c->mnt, c->spool_rel);
    if (access(dir, F_OK) != 0) {
        if (log)
            fprintf(log, "no spool: it was never made durable\n");
        return; /* the spool was never made durable: nothing to find */
    }
    memset(&sp, 0, sizeof(sp));
    sp.hash_depth = 1;
    if (pf_spool_open(&sp, dir, err, sizeof(err)) != 0 ||
        pf_recover_spool(&sp, found, &l, &rec, err, sizeof(err)) != 0) {
        snprintf(r->note, sizeof(r->note), "the relay could not open its spool: %.200s", err);
        r->refused = 1;
        if (log)
            fprintf(log, "%s\n", r->note);
    } else {
        if (log)
            fprintf(log,
                    "recovery: %u requeued from active, %u incomplete removed from incoming, %u "
                    "marked again, %u skipped, %u logs removed; found %u in incoming, %u in "
                    "deferred\n",
                    rec.requeued, rec.incomplete, rec.marked, rec.skipped, rec.removed_logs,
                    rec.found_incoming, rec.found_deferred);
        for (size_t i = 0; i < l.n; i++)
            take_file(&sp, &l.v[i], r, log);
    }
    pf_spool_close(&sp); /* also after an open that failed half way: its path is kept */
    free(l.v);
}

/* Another MTA's restart: its spool's files, read, then judged as that MTA reads them. */
static void restart_scan(struct crash_checker *c, struct crash_result *r)
{
    struct scan_tree t;
    char dir[PATH_MAX * 2], err[512];
    int rc;

    snprintf(dir, sizeof(dir), "%s/%s", c->mnt, c->spool_rel);
    if ((rc = crash_walk(dir, &t, err, sizeof(err))) < 0) {
        snprintf(r->note, sizeof(r->note), "cannot read the spool: %.200s", err);
        r->unmountable = 1;
        return;
    }
    if (rc == 0)
        crash_scan(c->restart, &t, &r->recovered, &r->corrupt);
    crash_scan_tree_free(&t);
}

int crash_point_check(struct crash_checker *c, const struct crash_point *p, struct crash_result *r,
                      char *err, size_t errlen)
{
    char said[200];

    memset(r, 0, sizeof(*r));
    msglog_set_init(&r->recovered);
    crash_plan_unflushed(c->log, p, &r->kept, &r->unflushed);
    if (build_image(c, p, err, errlen) != 0)
        return -1;
    if (c->keep) {
        char kept[PATH_MAX];

        kept_path(c, "img", kept);
        if (crash_sys_copy_sparse(c->image, kept, err, errlen) != 0)
            return -1;
        forget_repair(c);
    }
    switch (c->fs->how) {
    case CRASH_REPAIR_E2FSCK:
        repair_e2fsck(c, r);
        break;
    case CRASH_REPAIR_XFS:
        repair_xfs(c, r);
        break;
    case CRASH_REPAIR_BTRFS:
        repair_btrfs(c, r);
        break;
    }
    if (c->keep && keep_files(c, repair_files, err, errlen) != 0)
        return -1;
    if (mount_image(c, c->options) != 0) {
        r->unmountable = 1;
        crash_sys_cmd_said(c->d, "mount", said, sizeof(said));
        snprintf(r->note, sizeof(r->note), "cannot mount the repaired image: %s", said);
        return 0;
    }
    if (c->mta) {
        char dir[PATH_MAX * 2];

        snprintf(dir, sizeof(dir), "%s/%s", c->mnt, c->spool_rel);
        if (crash_mta_restart(c->mta, dir, r, err, errlen) != 0 ||
            (c->keep && keep_files(c, mta_files, err, errlen) != 0)) {
            crash_point_teardown(c);
            return -1;
        }
    } else if (crash_scan_by_relay(c->restart)) {
        char path[PATH_MAX];
        FILE *log = NULL;

        if (c->keep && (log = open_kept(c, "restart.log", path)) == NULL) {
            crash_point_teardown(c);
            return msg_set_error(err, errlen, "cannot write %s: %s", path, strerror(errno));
        }
        restart_postfix(c, r, log);
        if (log && fclose(log) != 0) {
            crash_point_teardown(c);
            return msg_set_error(err, errlen, "cannot write %s: %s", path, strerror(errno));
        }
    } else if (crash_scan_on_disk(c->restart)) {
        restart_scan(c, r);
    }
    crash_point_teardown(c);
    if (c->mounted || c->loop[0])
        return msg_set_error(err, errlen, "cannot take the crash image's mount apart (%s)", c->mnt);
    return 0;
}
