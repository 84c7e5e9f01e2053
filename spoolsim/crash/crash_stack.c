/*
 * crash_stack - spoolsim crash's stack of devices: the image, the
 * recorder under it (FUSE or dm-log-writes), the mounts, and their taking
 * apart (crash_stack.h).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "exit_status.h"
#include "clock.h"
#include "crash_stack.h"
#include "crash_sys.h"
#include "dmlog.h"
#include "fileutil.h"
#include "interrupt.h"
#include "msg.h"

/*
 * Remove the log-writes device (the target then logs what no flush had
 * covered, and its end mark) and its node, which no udev removes here.
 */
static int dm_remove(struct crash *c)
{
    char *argv[] = {"dmsetup", "remove", "--noudevsync", c->dm_name, NULL};

    if (c->dm_control >= 0) {
        close(c->dm_control);
        c->dm_control = -1;
    }
    for (int i = 0; i < 50; i++) {
        if (crash_sys_cmd(&c->d, "dmsetup-remove", argv) == 0) {
            if (unlink(c->dm_dev) != 0 && errno != ENOENT)
                msg_warn("cannot remove %s: %s", c->dm_dev, strerror(errno));
            return 0;
        }
        usleep(100000); /* busy for a moment after the unmount */
    }
    return -1;
}

/* Take apart what is up, children first; 0 if nothing is left mounted. */
static int take_down(struct crash *c)
{
    drive_stop(&c->source);
    drive_stop(&c->relay);
    drive_stop(&c->sink);
    crash_point_teardown(&c->checker);
    if (c->mounted && crash_sys_umount(&c->d, c->mnt) == 0)
        c->mounted = 0;
    if (c->dm_up && !c->mounted && dm_remove(c) == 0)
        c->dm_up = 0;
    if (c->loop[0] && !c->mounted && !c->dm_up && crash_sys_loop_detach(&c->d, c->loop) == 0)
        c->loop[0] = '\0';
    if (c->log_loop[0] && !c->dm_up && crash_sys_loop_detach(&c->d, c->log_loop) == 0)
        c->log_loop[0] = '\0';
    if (c->fuse_up && !c->loop[0] && crash_sys_is_mount(c->fuse_dir) == 0) {
        /* a signal to the whole process group (a Ctrl-C, timeout(1)) ends a recorder before it
         * mounted, or after it unmounted: stopped and reaped, it leaves nothing to unmount */
        drive_stop(&c->recorder);
        if (crash_sys_is_mount(c->fuse_dir) == 0)
            c->fuse_up = 0;
    }
    if (c->fuse_up && !c->loop[0] && crash_sys_umount(&c->d, c->fuse_dir) == 0)
        c->fuse_up = 0;
    if (!c->fuse_up)
        drive_reap(&c->recorder); /* it ends when its mount goes */
    if (c->fuse_shared && !c->fuse_up && crash_sys_unshare_dir(c->fuse_dir) == 0)
        c->fuse_shared = 0;
    if (c->mounted || c->loop[0] || c->fuse_up || c->fuse_shared || c->dm_up || c->log_loop[0] ||
        c->checker.mounted || c->checker.loop[0]) {
        msg_warn("could not take everything apart: %s %s %s %s %s %s left as it is",
                 c->mounted ? c->mnt : "", c->dm_up ? c->dm_dev : "", c->loop, c->log_loop,
                 c->fuse_up || c->fuse_shared ? c->fuse_dir : "",
                 c->checker.mounted ? c->checker.mnt : "");
        return -1;
    }
    return 0;
}

_Noreturn void crash_stack_finish(struct crash *c, int status)
{
    progress_out_clear(&c->progress);
    if (take_down(c) == 0) {
        if (c->o->common.keep)
            fprintf(stderr, "spoolsim crash: kept %s\n", c->d.work);
        drive_remove_work(&c->d);
    } else {
        msg_warn("the work directory %s stays: something is still mounted in it", c->d.work);
    }
    if (interrupt_signal()) {
        interrupt_print_partial(stderr);
        exit(interrupt_exit_status());
    }
    exit(status);
}

/* A step failed: say what (and what the program NAME said), take down, exit 3: no verdict. */
_Noreturn void crash_stack_fail(struct crash *c, const char *name, const char *fmt, ...)
{
    char said[256] = "";
    char text[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    if (name)
        crash_sys_cmd_said(&c->d, name, said, sizeof(said));
    if (!interrupt_signal())
        msg_warn("%s%s%s", text, said[0] ? ": " : "", said);
    crash_stack_finish(c, EXIT_STATUS_INCOMPLETE);
}

/* The image unmounted (the trial mount, the recorded image), or the run fails. */
static void unmount_image(struct crash *c, const char *what)
{
    if (crash_sys_umount(&c->d, c->mnt) != 0)
        crash_stack_fail(c, "umount", "cannot unmount the %s", what);
    c->mounted = 0;
}

/* A loop device detached, or the run fails. */
static void detach(struct crash *c, char *loop)
{
    if (crash_sys_loop_detach(&c->d, loop) != 0)
        crash_stack_fail(c, "losetup-d", "cannot detach %s", loop);
    loop[0] = '\0';
}

void crash_stack_make_image(struct crash *c)
{
    struct crash_options *o = c->o;
    char *mkfs[] = {(char *)o->fs->mkfs, o->fs->how == CRASH_REPAIR_E2FSCK ? "-F" : "-f", "-q",
                    c->base, NULL};
    char said[256];
    int fd;

    fd = open(c->base, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0 || ftruncate(fd, (off_t)o->image_size) != 0 || close(fd) != 0)
        crash_stack_fail(c, NULL, "cannot make %s: %s", c->base, strerror(errno));
    if (crash_sys_cmd(&c->d, "mkfs", mkfs) != 0)
        crash_stack_fail(c, "mkfs", "%s did not make the image", o->fs->mkfs);
    /* the options are tried once on the plain image: the kernel is the judge */
    if (crash_sys_loop_attach(&c->d, c->base, 0, c->loop, sizeof(c->loop)) != 0)
        crash_stack_fail(c, "losetup", "no loop device for the image");
    if (crash_sys_mount(&c->d, c->loop, c->mnt, o->type, o->mount_opts) != 0) {
        crash_sys_cmd_said(&c->d, "mount", said, sizeof(said));
        crash_sys_loop_detach(&c->d, c->loop);
        c->loop[0] = '\0';
        take_down(c);
        drive_remove_work(&c->d);
        msg_usage("the kernel will not mount %s with -o %s (%s)", o->type,
                  o->mount_opts[0] ? o->mount_opts : "(none)", said);
    }
    c->mounted = 1;
    unmount_image(c, "trial mount");
    detach(c, c->loop);
}

/*
 * The recorder runs in a mount namespace of its own, its FUSE mount shown
 * here through a shared mount of the directory. Killed with the rest of
 * the run (a kill -9 of it), the last process of our namespace unmounts
 * the image, whose last writes go through the recorder: were that the
 * recorder itself, exiting, it would wait for its own answer for ever.
 */
static void build_stack_fuse(struct crash *c)
{
    char *argv[] = {c->unshare_path, "--mount", "--propagation", "unchanged", c->recorder_path,
                    c->served,       c->log,    c->fuse_dir,     NULL};
    char err[512], image[PATH_MAX + 8];
    struct stat sb;
    int dio;

    if (crash_sys_copy_sparse(c->base, c->served, err, sizeof(err)) != 0)
        crash_stack_fail(c, NULL, "%s", err);
    if (crash_sys_share_dir(c->fuse_dir) != 0)
        crash_stack_fail(c, NULL, "cannot make %s a shared mount for the recorder: %s", c->fuse_dir,
                         strerror(errno));
    c->fuse_shared = 1;
    if (drive_spawn(&c->d, &c->recorder, "recorder", argv) != 0)
        crash_stack_fail(c, NULL, "spoolsim-recorder did not start");
    c->fuse_up = 1;
    snprintf(image, sizeof(image), "%s/image", c->fuse_dir);
    for (int i = 0; i < 500 && stat(image, &sb) != 0; i++) {
        if (interrupt_signal())
            crash_stack_finish(c, 1);
        usleep(10000);
    }
    if (stat(image, &sb) != 0) {
        drive_show_errors(&c->d, "recorder", "recorder");
        crash_stack_fail(c, NULL, "spoolsim-recorder did not serve the image");
    }
    if (crash_sys_loop_attach(&c->d, image, 1, c->loop, sizeof(c->loop)) != 0)
        crash_stack_fail(c, "losetup", "no loop device with direct I/O on the recorder's image");
    if ((dio = crash_sys_loop_dio(c->loop)) != 1)
        crash_stack_fail(
            c, NULL,
            "%s does not do direct I/O on the recorder's image (%s): the log would not "
            "hold every write in order",
            c->loop, dio == 0 ? "the kernel turned it off" : "cannot tell");
    if (crash_sys_mount(&c->d, c->loop, c->mnt, c->o->type, c->o->mount_opts) != 0)
        crash_stack_fail(c, "mount", "cannot mount the recorded image");
    c->mounted = 1;
}

/* Put a mark stamping time t in the log-writes device's log; 0 or -1 with errno. */
int crash_stack_mark(struct crash *c, uint64_t t)
{
    char text[80];

    memcpy(text, "mark ", 5);
    dmlog_mark_name(text + 5, sizeof(text) - 5, t);
    return crash_sys_dm_message(c->dm_control, c->dm_name, text);
}

/*
 * The image behind the kernel's log-writes target: a loop device for a
 * copy of it, one for the log (a sparse file as large as the work
 * directory's room allows, since the target stops logging when it is
 * full), and the device made by dmsetup with no udev to wait for (the lab
 * runs none), its node made by dmsetup too.
 */
static void build_stack_dm(struct crash *c)
{
    struct crash_options *o = c->o;
    char *mknodes[] = {"dmsetup", "mknodes", c->dm_name, NULL};
    char err[512], table[256];
    struct statvfs vfs;
    struct stat sb;
    uint64_t room;
    int fd;

    if (crash_sys_copy_sparse(c->base, c->served, err, sizeof(err)) != 0)
        crash_stack_fail(c, NULL, "%s", err);
    if (crash_sys_loop_attach(&c->d, c->served, 0, c->loop, sizeof(c->loop)) != 0)
        crash_stack_fail(c, "losetup", "no loop device for the image");
    if (statvfs(c->d.work, &vfs) != 0)
        crash_stack_fail(c, NULL, "%s: %s", c->d.work, strerror(errno));
    room = (uint64_t)vfs.f_bavail * vfs.f_frsize;
    room = room > 2 * o->image_size ? room - 2 * o->image_size : 0; /* the crash images' */
    if (room > (64ULL << 30))
        room = 64ULL << 30;
    room &= ~(uint64_t)((1 << 20) - 1);
    if (room < (64ULL << 20))
        crash_stack_fail(c, NULL, "%s has no room for the log (%llu MiB besides the images)",
                         c->d.work, (unsigned long long)(room >> 20));
    fd = open(c->log, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0 || ftruncate(fd, (off_t)room) != 0 || close(fd) != 0)
        crash_stack_fail(c, NULL, "cannot make the log %s: %s", c->log, strerror(errno));
    if (crash_sys_loop_attach(&c->d, c->log, 0, c->log_loop, sizeof(c->log_loop)) != 0)
        crash_stack_fail(c, "losetup", "no loop device for the log");
    snprintf(c->dm_name, sizeof(c->dm_name), "spoolsim-crash-%ld", (long)getpid());
    snprintf(c->dm_dev, sizeof(c->dm_dev), "/dev/mapper/%s", c->dm_name);
    snprintf(table, sizeof(table), "0 %llu log-writes %s %s",
             (unsigned long long)(o->image_size >> 9), c->loop, c->log_loop);
    {
        char *create[] = {"dmsetup", "create", "--noudevsync", c->dm_name, "--table", table, NULL};

        c->t_built = clock_now_ns();
        if (crash_sys_cmd(&c->d, "dmsetup-create", create) != 0)
            crash_stack_fail(
                c, "dmsetup-create",
                "dmsetup could not make the log-writes device (has the kernel dm-log-writes?)");
    }
    c->dm_up = 1;
    /* the target holds both open now: they go with it, whoever removes it */
    if (crash_sys_loop_autoclear(c->loop) != 0 || crash_sys_loop_autoclear(c->log_loop) != 0)
        msg_warn("cannot make the loop devices detach themselves (%s): a kill -9 now would "
                 "leave them attached until the next run",
                 strerror(errno));
    if (crash_sys_cmd(&c->d, "dmsetup-mknodes", mknodes) != 0 || stat(c->dm_dev, &sb) != 0 ||
        !S_ISBLK(sb.st_mode))
        crash_stack_fail(c, "dmsetup-mknodes", "no device node %s", c->dm_dev);
    if ((c->dm_control = crash_sys_dm_open()) < 0 || crash_stack_mark(c, clock_now_ns()) != 0)
        crash_stack_fail(c, NULL, "cannot put a mark in %s's log: %s", c->dm_name, strerror(errno));
    if (crash_sys_mount(&c->d, c->dm_dev, c->mnt, o->type, o->mount_opts) != 0)
        crash_stack_fail(c, "mount", "cannot mount the recorded image");
    c->mounted = 1;
}

void crash_stack_build(struct crash *c)
{
    if (c->o->dm)
        build_stack_dm(c);
    else
        build_stack_fuse(c);
}

/* Stop the recording: the stack taken down in order, the log whole or a failure. */
void crash_stack_stop_recording(struct crash *c)
{
    if (c->o->dm) {
        char *status[] = {"dmsetup", "status", c->dm_name, NULL};
        char path[PATH_MAX], *text;
        int whole;

        if (c->mark_errno != 0)
            crash_stack_fail(c, NULL, "the log-writes target refused a mark: %s",
                             strerror(c->mark_errno));
        /* after the last acknowledgement: the unmount's records are owed everything */
        if (crash_stack_mark(c, c->o->t_stopped) != 0)
            crash_stack_fail(c, NULL, "cannot put a mark in %s's log: %s", c->dm_name,
                             strerror(errno));
        unmount_image(c, "recorded image");
        if (crash_sys_cmd(&c->d, "dmsetup-status", status) != 0)
            crash_stack_fail(c, "dmsetup-status", "dmsetup status %s failed", c->dm_name);
        drive_path(&c->d, "dmsetup-status.out", path);
        text = fileutil_read_all(path, NULL);
        whole = text != NULL && strstr(text, "log-writes") != NULL &&
                strstr(text, "logging_disabled") == NULL;
        free(text);
        if (!whole)
            crash_stack_fail(
                c, NULL,
                "the log-writes target stopped logging (its log device full, or an error): "
                "the log is not whole; give --work-dir more room");
        if (dm_remove(c) != 0)
            crash_stack_fail(c, "dmsetup-remove", "cannot remove %s", c->dm_name);
        c->dm_up = 0;
        detach(c, c->loop);
        detach(c, c->log_loop);
        return;
    }
    /* the rest goes down in order; the unmount's writes are in the log too */
    unmount_image(c, "recorded image");
    detach(c, c->loop);
    if (crash_sys_umount(&c->d, c->fuse_dir) != 0)
        crash_stack_fail(c, "umount", "cannot unmount the recorder");
    c->fuse_up = 0;
    if (drive_exit_status(drive_reap(&c->recorder)) != 0) {
        drive_show_errors(&c->d, "recorder", "recorder");
        crash_stack_fail(c, NULL, "spoolsim-recorder failed: its log is not whole");
    }
}
