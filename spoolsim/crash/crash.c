/*
 * crash - `spoolsim crash': what a power cut loses, on a real filesystem.
 *
 * It makes an image of the filesystem type and mount options asked for
 * (or those of --like DIR), serves it through spoolsim-recorder and a loop
 * device with direct I/O (or, with --recorder dm-log-writes, through the
 * kernel's log-writes target over a loop device, its log on another, with
 * a mark in the log every 10 ms stamping the time: dmlog.h), mounts it,
 * and runs `spoolsim relay' on a spool
 * there under smtp-source's load, with smtp-sink as the next hop; both log
 * every message with its CLOCK_MONOTONIC time, the recorder's clock. Then
 * it takes the stack apart and checks crash points in the recorder's log
 * (crash_plan.h: every flush, and random cuts with a random subset of the
 * writes not yet flushed): the crash image, the filesystem's repair, the
 * relay's restart (crash_point.h), and what the cut cost in acknowledged
 * mail (crash_tally.h). One verdict line, and JSON.
 *
 * It works only on images it made, in its own work directory, and it is
 * root's: loop devices, mounts and FUSE. What it set up is taken apart in
 * the reverse order on every way out, SIGINT and SIGTERM included: the
 * load's children, the mount, the loop device, the recorder (by unmounting
 * its FUSE mount; or the log-writes device, then its two loop devices),
 * then the work directory, which is never removed while anything is still
 * mounted in it. A kill -9 leaves no process, mount or loop device: its
 * children are tied to it (platform.h), its mounts in a namespace of its
 * own, its loop devices detach themselves at their unmount; the next run
 * in the same parent directory removes the work directory and whatever
 * else is left (crash_leftover.h).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "blklog.h"
#include "clock.h"
#include "crash.h"
#include "crash_leftover.h"
#include "crash_opts.h"
#include "crash_plan.h"
#include "crash_point.h"
#include "crash_report.h"
#include "crash_sys.h"
#include "crash_tally.h"
#include "dmlog.h"
#include "drive.h"
#include "fileutil.h"
#include "fsinfo.h"
#include "interrupt.h"
#include "json_meta.h"
#include "msg.h"
#include "msglog.h"
#include "optarg.h"
#include "optgroup.h"
#include "pf_spool.h"
#include "platform.h"
#include "profile.h"
#include "progress.h"
#include "progress_out.h"
#include "spoolsim.h"
#include "workload.h"

#define interrupted (interrupt_signal() != 0)

struct crash {
    struct crash_options *o;
    struct drive d;
    char recorder_path[PATH_MAX], sink_path[PATH_MAX], source_path[PATH_MAX];
    char unshare_path[PATH_MAX];
    char base[PATH_MAX], served[PATH_MAX], log[PATH_MAX], fuse_dir[PATH_MAX], mnt[PATH_MAX];
    char loop[64];
    int mounted, fuse_up, fuse_shared;
    /* --recorder dm-log-writes: the log's loop device, the target's name and node */
    char log_loop[64], dm_name[64], dm_dev[PATH_MAX];
    int dm_up, dm_control;
    uint64_t t_built;   /* the stack's time: the records before the first mark have it */
    uint64_t next_show; /* when the load's progress line is next due */
    int mark_errno;     /* a mark the target refused, with the load running */
    struct drive_child recorder, sink, relay, source;
    struct progress_out progress;
    struct crash_checker checker;
};

static void usage(FILE *fp, const struct optgroup *g)
{
    fprintf(fp,
            "Usage: spoolsim crash [options]\n"
            "\n"
            "What a power cut loses: the relay's spool on an image of a real filesystem,\n"
            "every block write and flush recorded under load, then N crash points checked\n"
            "(every flush, and random cuts with a random subset of the unflushed writes):\n"
            "the filesystem's repair, the relay's restart, and the acknowledged messages\n"
            "lost. Root only (FUSE or the device-mapper, loop devices, mounts); works on\n"
            "images it makes.\n"
            "\n"
            "Options:\n"
            "  -t, --type TYPE       the filesystem: %s (ext4)\n"
            "  -o, --options OPTS    its mount options, as mount -o takes them\n"
            "  --like DIR            the type and the durability options of DIR's mount\n"
            "  --image-size SIZE     the image (the type's default: 128M for ext*)\n"
            "  -n, --points N        crash points to check (200)\n"
            "  --profile NAME        the relay's spool profile, and the MTA whose restart\n"
            "                        is judged: postfix, sendmail, qmail, exim, exim-4.98,\n"
            "                        opensmtpd or null (postfix)\n"
            "  --sync POLICY         the relay's fsync, fdatasync or none (the profile's)\n"
            "  --model MODEL         the relay's cost model (the profile's MTA's, as the\n"
            "                        relay's; none: the bare relay, a faster load)\n"
            "  --hop-delay TIME      the sink holds each reply to the data so long, so that\n"
            "                        messages wait in the queue (50ms)\n"
            "  --recorder NAME       what records the writes: fuse (spoolsim-recorder, FUSE\n"
            "                        and a loop device with direct I/O) or dm-log-writes\n"
            "                        (the kernel's target, marks timing the 250s) (fuse)\n"
            "  --work-dir DIR        where the images and logs go ($TMPDIR or /tmp)\n",
            crash_opts_fs_names());
    optgroup_help(fp, g, OPTGROUP_WORKLOAD | OPTGROUP_SEED, 21);
    optgroup_help(fp, g,
                  OPTGROUP_DRY_RUN | OPTGROUP_JSON | OPTGROUP_KEEP | OPTGROUP_PROGRESS |
                      OPTGROUP_QUIET | OPTGROUP_HELP,
                  21);
    fprintf(fp, "\n"
                "The dry run checks that this machine can run it too: root, FUSE or the\n"
                "device-mapper, loop devices, the filesystem's tools, room for the images, and\n"
                "the relay's options (its own dry run).\n");
    fprintf(fp, "\n"
                "Exit status: 0 durable, 1 acknowledged mail lost (or a failure), 2 bad input.\n"
                "SIGINT or SIGTERM takes everything apart and removes the images; 130 or 143.\n"
                "After a kill -9 nothing of it runs or stays mounted; the next run in the same\n"
                "work directory's parent removes the images it left.\n");
}

enum {
    OPT_LIKE = 256,
    OPT_IMAGE_SIZE,
    OPT_PROFILE,
    OPT_SYNC,
    OPT_MODEL,
    OPT_HOP_DELAY,
    OPT_WORK_DIR,
    OPT_RECORDER,
};

static void parse_options(struct crash_options *o, int argc, char **argv)
{
    static const struct option long_options[] = {
        {"type", required_argument, NULL, 't'},
        {"options", required_argument, NULL, 'o'},
        {"like", required_argument, NULL, OPT_LIKE},
        {"image-size", required_argument, NULL, OPT_IMAGE_SIZE},
        {"points", required_argument, NULL, 'n'},
        {"profile", required_argument, NULL, OPT_PROFILE},
        {"sync", required_argument, NULL, OPT_SYNC},
        {"model", required_argument, NULL, OPT_MODEL},
        {"hop-delay", required_argument, NULL, OPT_HOP_DELAY},
        {"work-dir", required_argument, NULL, OPT_WORK_DIR},
        {"recorder", required_argument, NULL, OPT_RECORDER},
        {NULL, 0, NULL, 0},
    };
    struct optgroup g;
    const char *type = NULL, *given_opts = NULL;
    const struct optarg_store stored[] = {
        {'t', .text = &type},
        {'o', .text = &given_opts},
        {OPT_LIKE, .text = &o->like, .dir = "--like"},
        {OPT_MODEL, .text = &o->model}, /* the relay judges it: check_relay() */
        {OPT_WORK_DIR, .text = &o->work_parent, .dir = "--work-dir"},
        {0},
    };
    int ch;

    memset(o, 0, sizeof(*o));
    optgroup_init(&g, &o->common,
                  OPTGROUP_NO_OPERANDS | OPTGROUP_WORKLOAD | OPTGROUP_SEED | OPTGROUP_JSON |
                      OPTGROUP_KEEP | OPTGROUP_PROGRESS | OPTGROUP_QUIET | OPTGROUP_HELP |
                      OPTGROUP_DRY_RUN,
                  "t:o:n:", long_options, "spoolsim crash", usage);
    o->common.duration = 3;
    o->common.sessions = 4;
    o->points = 200;
    g.seed_what = "the crash points";
    o->profile = "postfix";
    o->hop_delay = "0.05";
    while ((ch = optgroup_getopt(&g, argc, argv)) != -1) {
        if (optarg_store(stored, ch, optarg))
            continue;
        switch (ch) {
        case OPT_IMAGE_SIZE:
            o->image_size = optarg_size(optarg, "--image-size", 1);
            break;
        case 'n':
            o->points = (unsigned)optarg_count(optarg, "--points", 1, 100000);
            break;
        case OPT_PROFILE:
            o->profile = profile_option(optarg);
            break;
        case OPT_SYNC:
            pf_spool_sync_option(optarg); /* checked here, named to the relay */
            o->sync = optarg;
            break;
        case OPT_HOP_DELAY:
            if (optarg_seconds(optarg, "--hop-delay") > 10)
                msg_usage("--hop-delay %s: more than 10 s would keep the load from the queue",
                          optarg);
            o->hop_delay = optarg;
            break;
        case OPT_RECORDER:
            if (strcmp(optarg, "fuse") != 0 && strcmp(optarg, "dm-log-writes") != 0)
                msg_usage("unknown --recorder \"%s\" (fuse or dm-log-writes)", optarg);
            o->dm = strcmp(optarg, "dm-log-writes") == 0;
            break;
        default:
            msg_panic("option %d not handled", ch);
        }
    }
    optgroup_end(&g);
    if (crash_scan_restart_of(o->profile, &o->restart) != 0)
        msg_usage("--profile %s: the crash test knows no restart of that MTA (postfix, sendmail, "
                  "qmail, exim, exim-4.98, opensmtpd or null)",
                  o->profile);
    if (o->like) {
        struct fsinfo fs;

        if (access(o->like, F_OK) != 0 || fsinfo_lookup(o->like, &fs) != 0)
            msg_usage("--like %s: no mount of it in /proc/self/mountinfo", o->like);
        if (type && strcmp(type, fs.fstype) != 0)
            msg_usage("-t %s and --like %s (%s) disagree", type, o->like, fs.fstype);
        snprintf(o->type, sizeof(o->type), "%s", fs.fstype);
        crash_opts_like(fs.options, o->mount_opts, sizeof(o->mount_opts), o->dropped,
                        sizeof(o->dropped));
    } else {
        snprintf(o->type, sizeof(o->type), "%s", type ? type : "ext4");
    }
    if (given_opts) {
        size_t have = strlen(o->mount_opts);

        if (have + 1 + strlen(given_opts) >= sizeof(o->mount_opts))
            msg_usage("-o %s: too long", given_opts);
        snprintf(o->mount_opts + have, sizeof(o->mount_opts) - have, "%s%s", have ? "," : "",
                 given_opts);
    }
}

/* ------------------------------------------------ what the machine lacks */

static void need_program(const char *name, const char *why)
{
    char path[PATH_MAX];

    if (crash_sys_which(name, path, sizeof(path)) != 0)
        msg_usage("no %s on this machine (%s)", name, why);
}

static int kernel_has(const char *type)
{
    char *text = fileutil_read_all("/proc/filesystems", NULL), *line, *save = NULL;
    int found = 0;

    if (text == NULL)
        return 0;
    for (line = strtok_r(text, "\n", &save); line && !found; line = strtok_r(NULL, "\n", &save)) {
        char *name = strrchr(line, '\t');

        found = strcmp(name ? name + 1 : line, type) == 0;
    }
    free(text);
    return found;
}

/*
 * The relay's dry run with the options crash gives it (profile, sync,
 * model), so that a --model it cannot take is said before an image is
 * made; its spool is the work directory's parent, which exists.
 */
static void check_relay(const struct crash *c, const char *parent)
{
    const struct crash_options *o = c->o;
    char *argv[12];
    int n;

    n = drive_relay_dry_run_args(argv, &c->d, parent);
    argv[n++] = "--profile";
    argv[n++] = (char *)o->profile;
    n = drive_arg_if_set(argv, n, "--sync", o->sync);
    n = drive_arg_if_set(argv, n, "--model", o->model);
    argv[n] = NULL;
    if (drive_dry_run(argv) != 0)
        msg_usage("the relay cannot run with these options (see above); nothing was made");
}

/* Everything that can be known before any work: exit 2 naming what is missing. */
static void preflight(struct crash *c)
{
    struct crash_options *o = c->o;
    const char *parent = o->work_parent ? o->work_parent : fileutil_tmp_dir();
    struct statvfs vfs;

    if (geteuid() != 0)
        msg_usage("needs root: it makes loop devices, %s and filesystem mounts",
                  o->dm ? "device-mapper devices" : "FUSE");
    o->fs = crash_opts_fs_find(o->type);
    if (o->fs == NULL)
        msg_usage("filesystem type \"%s\": spoolsim crash makes %s", o->type,
                  crash_opts_fs_names());
    if (!kernel_has(o->type))
        msg_usage("this kernel has no %s (not in /proc/filesystems)", o->type);
    if (o->dm) {
        if (access("/dev/mapper/control", R_OK | W_OK) != 0)
            msg_usage("--recorder dm-log-writes: this kernel has no device-mapper "
                      "(/dev/mapper/control); --recorder fuse needs none");
        need_program("dmsetup", "the log-writes device");
    } else if (access("/dev/fuse", R_OK | W_OK) != 0) {
        msg_usage("no /dev/fuse: the recorder needs FUSE");
    } else if (crash_sys_which("unshare", c->unshare_path, sizeof(c->unshare_path)) != 0) {
        msg_usage("no unshare on this machine (the recorder's own mount namespace)");
    }
    if (access("/dev/loop-control", F_OK) != 0)
        msg_usage("no loop devices (/dev/loop-control)");
#ifndef HAVE_FUSE3
    if (!o->dm)
        msg_usage("built without libfuse3, so there is no spoolsim-recorder (Debian: libfuse3-dev, "
                  "then configure and make again; or --recorder dm-log-writes)");
#endif
    need_program(o->fs->mkfs, "to make the image");
    need_program(o->fs->repair, "to repair crash images");
    need_program("losetup", "loop devices");
    need_program("mount", "mounts");
    need_program("umount", "mounts");
    if (o->image_size == 0)
        o->image_size = o->fs->default_size;
    if (o->image_size < o->fs->min_size)
        msg_usage("--image-size: %s needs at least %llu MiB", o->type,
                  (unsigned long long)(o->fs->min_size >> 20));
    if (o->image_size > (64ULL << 30))
        msg_usage("--image-size: at most 64 GiB (a crash image is copied at every point)");
    optarg_work_dir(parent, o->work_parent ? "--work-dir" : "TMPDIR", 0);
    if (statvfs(parent, &vfs) != 0)
        msg_usage("--work-dir %s: %s", parent, strerror(errno));
    if ((uint64_t)vfs.f_bavail * vfs.f_frsize < 3 * o->image_size)
        msg_usage("%s has %llu MiB free: the images need 3 x %llu MiB and more for the log", parent,
                  (unsigned long long)((uint64_t)vfs.f_bavail * vfs.f_frsize >> 20),
                  (unsigned long long)(o->image_size >> 20));
    if (!o->dm)
        companion_find_program(c->d.self, "spoolsim-recorder", "SPOOLSIM_RECORDER",
                               c->recorder_path, sizeof(c->recorder_path));
    companion_find_program(c->d.self, "smtp-sink", "SPOOLSIM_SMTP_SINK", c->sink_path,
                           sizeof(c->sink_path));
    companion_find_program(c->d.self, "smtp-source", "SPOOLSIM_SMTP_SOURCE", c->source_path,
                           sizeof(c->source_path));
    check_relay(c, parent);
}

/* ------------------------------------------------------------ the stack */

/* A notice of crash's own, unless -q. */
#define notice(c, ...)                                                                             \
    progress_out_notice(&(c)->progress, (c)->o->common.quiet, "spoolsim crash", __VA_ARGS__)

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

static _Noreturn void finish_now(struct crash *c, int status)
{
    progress_out_clear(&c->progress);
    if (take_down(c) == 0) {
        if (c->o->common.keep)
            fprintf(stderr, "spoolsim crash: kept %s\n", c->d.work);
        drive_remove_work(&c->d);
    } else {
        msg_warn("the work directory %s stays: something is still mounted in it", c->d.work);
    }
    if (interrupted) {
        interrupt_print_partial(stderr);
        exit(interrupt_exit_status());
    }
    exit(status);
}

static _Noreturn void fail(struct crash *c, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* A step failed: say what (and what the program NAME said), take down, exit 1. */
static _Noreturn void fail(struct crash *c, const char *name, const char *fmt, ...)
{
    char said[256] = "";
    char text[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    if (name)
        crash_sys_cmd_said(&c->d, name, said, sizeof(said));
    if (!interrupted)
        msg_warn("%s%s%s", text, said[0] ? ": " : "", said);
    finish_now(c, 1);
}

/* The image unmounted (the trial mount, the recorded image), or the run fails. */
static void unmount_image(struct crash *c, const char *what)
{
    if (crash_sys_umount(&c->d, c->mnt) != 0)
        fail(c, "umount", "cannot unmount the %s", what);
    c->mounted = 0;
}

/* A loop device detached, or the run fails. */
static void detach(struct crash *c, char *loop)
{
    if (crash_sys_loop_detach(&c->d, loop) != 0)
        fail(c, "losetup-d", "cannot detach %s", loop);
    loop[0] = '\0';
}

static void make_image(struct crash *c)
{
    struct crash_options *o = c->o;
    char *mkfs[] = {(char *)o->fs->mkfs, o->fs->how == CRASH_REPAIR_E2FSCK ? "-F" : "-f", "-q",
                    c->base, NULL};
    char said[256];
    int fd;

    fd = open(c->base, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0 || ftruncate(fd, (off_t)o->image_size) != 0 || close(fd) != 0)
        fail(c, NULL, "cannot make %s: %s", c->base, strerror(errno));
    if (crash_sys_cmd(&c->d, "mkfs", mkfs) != 0)
        fail(c, "mkfs", "%s did not make the image", o->fs->mkfs);
    /* the options are tried once on the plain image: the kernel is the judge */
    if (crash_sys_loop_attach(&c->d, c->base, 0, c->loop, sizeof(c->loop)) != 0)
        fail(c, "losetup", "no loop device for the image");
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
        fail(c, NULL, "%s", err);
    if (crash_sys_share_dir(c->fuse_dir) != 0)
        fail(c, NULL, "cannot make %s a shared mount for the recorder: %s", c->fuse_dir,
             strerror(errno));
    c->fuse_shared = 1;
    if (drive_spawn(&c->d, &c->recorder, "recorder", argv) != 0)
        fail(c, NULL, "spoolsim-recorder did not start");
    c->fuse_up = 1;
    snprintf(image, sizeof(image), "%s/image", c->fuse_dir);
    for (int i = 0; i < 500 && stat(image, &sb) != 0; i++) {
        if (interrupted)
            finish_now(c, 1);
        usleep(10000);
    }
    if (stat(image, &sb) != 0) {
        drive_show_errors(&c->d, "recorder", "recorder");
        fail(c, NULL, "spoolsim-recorder did not serve the image");
    }
    if (crash_sys_loop_attach(&c->d, image, 1, c->loop, sizeof(c->loop)) != 0)
        fail(c, "losetup", "no loop device with direct I/O on the recorder's image");
    if ((dio = crash_sys_loop_dio(c->loop)) != 1)
        fail(c, NULL,
             "%s does not do direct I/O on the recorder's image (%s): the log would not "
             "hold every write in order",
             c->loop, dio == 0 ? "the kernel turned it off" : "cannot tell");
    if (crash_sys_mount(&c->d, c->loop, c->mnt, c->o->type, c->o->mount_opts) != 0)
        fail(c, "mount", "cannot mount the recorded image");
    c->mounted = 1;
}

/* Put a mark stamping time t in the log-writes device's log; 0 or -1 with errno. */
static int dm_mark(struct crash *c, uint64_t t)
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
        fail(c, NULL, "%s", err);
    if (crash_sys_loop_attach(&c->d, c->served, 0, c->loop, sizeof(c->loop)) != 0)
        fail(c, "losetup", "no loop device for the image");
    if (statvfs(c->d.work, &vfs) != 0)
        fail(c, NULL, "%s: %s", c->d.work, strerror(errno));
    room = (uint64_t)vfs.f_bavail * vfs.f_frsize;
    room = room > 2 * o->image_size ? room - 2 * o->image_size : 0; /* the crash images' */
    if (room > (64ULL << 30))
        room = 64ULL << 30;
    room &= ~(uint64_t)((1 << 20) - 1);
    if (room < (64ULL << 20))
        fail(c, NULL, "%s has no room for the log (%llu MiB besides the images)", c->d.work,
             (unsigned long long)(room >> 20));
    fd = open(c->log, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0 || ftruncate(fd, (off_t)room) != 0 || close(fd) != 0)
        fail(c, NULL, "cannot make the log %s: %s", c->log, strerror(errno));
    if (crash_sys_loop_attach(&c->d, c->log, 0, c->log_loop, sizeof(c->log_loop)) != 0)
        fail(c, "losetup", "no loop device for the log");
    snprintf(c->dm_name, sizeof(c->dm_name), "spoolsim-crash-%ld", (long)getpid());
    snprintf(c->dm_dev, sizeof(c->dm_dev), "/dev/mapper/%s", c->dm_name);
    snprintf(table, sizeof(table), "0 %llu log-writes %s %s",
             (unsigned long long)(o->image_size >> 9), c->loop, c->log_loop);
    {
        char *create[] = {"dmsetup", "create", "--noudevsync", c->dm_name, "--table", table, NULL};

        c->t_built = clock_now_ns();
        if (crash_sys_cmd(&c->d, "dmsetup-create", create) != 0)
            fail(c, "dmsetup-create",
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
        fail(c, "dmsetup-mknodes", "no device node %s", c->dm_dev);
    if ((c->dm_control = crash_sys_dm_open()) < 0 || dm_mark(c, clock_now_ns()) != 0)
        fail(c, NULL, "cannot put a mark in %s's log: %s", c->dm_name, strerror(errno));
    if (crash_sys_mount(&c->d, c->dm_dev, c->mnt, o->type, o->mount_opts) != 0)
        fail(c, "mount", "cannot mount the recorded image");
    c->mounted = 1;
}

static void build_stack(struct crash *c)
{
    if (c->o->dm)
        build_stack_dm(c);
    else
        build_stack_fuse(c);
}

/* ------------------------------------------------------------- the load */

static void show_load(void *arg)
{
    struct crash *c = arg;
    struct progress_stats ps = {.label = "crash load", .eta_s = -1};
    char text[PROGRESS_LINE_MAX];

    ps.elapsed_s = (double)(clock_now_ns() - c->o->t_load) / 1e9;
    if (!c->o->common.messages)
        ps.eta_s = progress_eta_time(ps.elapsed_s, c->o->common.duration);
    progress_format(&ps, text, sizeof(text));
    progress_out_show(&c->progress, text);
}

/*
 * With dm-log-writes, every 10 ms: a mark stamping the time, so that a
 * 250 read before it is owed at every cut after it (dmlog.h); the
 * progress line once a second.
 */
static void load_tick(void *arg)
{
    struct crash *c = arg;
    uint64_t now = clock_now_ns();

    if (c->mark_errno == 0 && dm_mark(c, now) != 0)
        c->mark_errno = errno;
    if (progress_out_on(&c->progress) && now >= c->next_show) {
        show_load(c);
        c->next_show = now + 1000000000ULL;
    }
}

/* Stop the recording: the stack taken down in order, the log whole or a failure. */
static void stop_recording(struct crash *c)
{
    if (c->o->dm) {
        char *status[] = {"dmsetup", "status", c->dm_name, NULL};
        char path[PATH_MAX], *text;
        int whole;

        if (c->mark_errno != 0)
            fail(c, NULL, "the log-writes target refused a mark: %s", strerror(c->mark_errno));
        /* after the last acknowledgement: the unmount's records are owed everything */
        if (dm_mark(c, c->o->t_stopped) != 0)
            fail(c, NULL, "cannot put a mark in %s's log: %s", c->dm_name, strerror(errno));
        unmount_image(c, "recorded image");
        if (crash_sys_cmd(&c->d, "dmsetup-status", status) != 0)
            fail(c, "dmsetup-status", "dmsetup status %s failed", c->dm_name);
        drive_path(&c->d, "dmsetup-status.out", path);
        text = fileutil_read_all(path, NULL);
        whole = text != NULL && strstr(text, "log-writes") != NULL &&
                strstr(text, "logging_disabled") == NULL;
        free(text);
        if (!whole)
            fail(c, NULL,
                 "the log-writes target stopped logging (its log device full, or an error): "
                 "the log is not whole; give --work-dir more room");
        if (dm_remove(c) != 0)
            fail(c, "dmsetup-remove", "cannot remove %s", c->dm_name);
        c->dm_up = 0;
        detach(c, c->loop);
        detach(c, c->log_loop);
        return;
    }
    /* the rest goes down in order; the unmount's writes are in the log too */
    unmount_image(c, "recorded image");
    detach(c, c->loop);
    if (crash_sys_umount(&c->d, c->fuse_dir) != 0)
        fail(c, "umount", "cannot unmount the recorder");
    c->fuse_up = 0;
    if (drive_exit_status(drive_reap(&c->recorder)) != 0) {
        drive_show_errors(&c->d, "recorder", "recorder");
        fail(c, NULL, "spoolsim-recorder failed: its log is not whole");
    }
}

static void run_load(struct crash *c)
{
    struct crash_options *o = c->o;
    char spool[PATH_MAX + 8], portfile[PATH_MAX], json[PATH_MAX], hop[64], log[PATH_MAX];
    char target[64];
    struct drive_load_text load;
    char *argv[48];
    int n, sink_port, relay_port;

    sink_port = drive_start_sink(&c->d, &c->sink, c->sink_path, "sink", "127.0.0.1:0", 0,
                                 strcmp(o->hop_delay, "0") ? o->hop_delay : NULL);
    if (sink_port < 0)
        fail(c, NULL, "smtp-sink did not start");
    snprintf(spool, sizeof(spool), "%s/spool", c->mnt);
    drive_path(&c->d, "relay.port", portfile);
    drive_path(&c->d, "relay.json", json);
    snprintf(hop, sizeof(hop), "127.0.0.1:%d", sink_port);
    n = drive_relay_args(argv, &c->d, portfile, spool, hop, json);
    argv[n++] = "--profile";
    argv[n++] = (char *)o->profile;
    n = drive_arg_if_set(argv, n, "--sync", o->sync);
    n = drive_arg_if_set(argv, n, "--model", o->model);
    argv[n] = NULL;
    if (drive_spawn(&c->d, &c->relay, "relay", argv) != 0 ||
        (relay_port = drive_wait_port(&c->d, &c->relay, "relay.port")) < 0) {
        drive_show_errors(&c->d, "relay", "relay");
        fail(c, NULL, "spoolsim relay did not start");
    }
    snprintf(target, sizeof(target), "127.0.0.1:%d", relay_port);
    drive_path(&c->d, "source.log", log);
    n = 0;
    argv[n++] = c->source_path;
    n += drive_source_load_args(argv + n, &o->common, &load);
    argv[n++] = "--ignore-failures";
    argv[n++] = "--msg-log";
    argv[n++] = log;
    argv[n++] = target;
    argv[n] = NULL;
    notice(c, "load: %s, %s %s, on %s -o %s", o->profile, o->common.messages ? "-m" : "for",
           load.amount, o->type, o->mount_opts[0] ? o->mount_opts : "(none)");
    o->t_load = clock_now_ns();
    if (drive_spawn(&c->d, &c->source, "source", argv) != 0)
        fail(c, NULL, "smtp-source did not start");
    if (o->dm)
        drive_reap_every(&c->source, 0.01, load_tick, c);
    else if (progress_out_on(&c->progress))
        drive_reap_every(&c->source, 1.0, show_load, c);
    else
        drive_reap(&c->source);
    o->load_s = (double)(clock_now_ns() - o->t_load) / 1e9;
    progress_out_clear(&c->progress);
    if (interrupted)
        finish_now(c, 1);
    if (drive_exit_status(drive_stop(&c->relay)) != 0) {
        drive_show_errors(&c->d, "relay", "relay");
        fail(c, NULL, "spoolsim relay failed");
    }
    drive_stop(&c->sink);
    o->t_stopped = clock_now_ns(); /* nothing is acknowledged or delivered after it */
    stop_recording(c);
}

/* ------------------------------------------------------------ the check */

static void load_msglog(struct crash *c, const char *name, struct msglog_set *s)
{
    char path[PATH_MAX];

    drive_path(&c->d, name, path);
    msglog_set_init(s);
    if (msglog_set_load(s, path) != 0)
        fail(c, NULL, "cannot read %s: %s", path, strerror(errno));
    for (size_t i = 0; i < s->n; i++)
        if (s->v[i].mono_ns == 0)
            fail(c, NULL,
                 "%s has a message with no mono_ns= time: a smtp-sink or smtp-source "
                 "older than this spoolsim?",
                 path);
}

static void show_check(const struct crash *c, size_t done, size_t total, uint64_t t0)
{
    struct progress_stats ps = {
        .label = "crash check", .done = done, .total = total, .count_noun = "points"};
    char text[PROGRESS_LINE_MAX];

    ps.elapsed_s = (double)(clock_now_ns() - t0) / 1e9;
    ps.eta_s = progress_eta_count(ps.elapsed_s, done, total);
    progress_format(&ps, text, sizeof(text));
    progress_out_show(&c->progress, text);
}

static void check_points(struct crash *c, struct crash_report *rep)
{
    struct crash_options *o = c->o;
    struct msglog_set acked, sunk;
    struct blklog log;
    struct crash_plan plan;
    struct stat sb;
    unsigned char *buf;
    char err[512];
    uint64_t t0 = clock_now_ns();
    int fd;

    if ((fd = open(c->log, O_RDONLY | O_CLOEXEC)) < 0 || fstat(fd, &sb) != 0)
        fail(c, NULL, "cannot read the log %s: %s", c->log, strerror(errno));
    buf = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (buf == MAP_FAILED)
        fail(c, NULL, "cannot map the log %s: %s", c->log, strerror(errno));
    blklog_init(&log);
    if (o->dm) {
        struct dmlog_info info;

        if (dmlog_parse(buf, (size_t)sb.st_size, o->image_size, c->t_built, &log, &info, err,
                        sizeof(err)) != 0)
            fail(c, NULL, "the log %s: %s", c->log, err);
        if (log.truncated || !info.ended)
            fail(c, NULL, "the log %s does not end with the target's end mark: not whole", c->log);
        notice(c, "dm-log-writes: %llu entries, %zu marks, %zu discards left out",
               (unsigned long long)info.entries, info.marks, info.discards);
    } else if (blklog_parse(buf, (size_t)sb.st_size, &log, err, sizeof(err)) != 0) {
        fail(c, NULL, "the log %s: %s", c->log, err);
    }
    load_msglog(c, "source.log", &acked);
    load_msglog(c, "sink.log", &sunk);
    crash_plan_make(&log, o->points, o->common.seed, o->t_stopped, &plan);
    crash_report_begin(rep, o, &log, &plan, acked.n);
    notice(c, "recorded %zu writes and %zu flushes; checking %zu crash points", log.writes,
           log.flushes, plan.n);

    c->checker.d = &c->d;
    c->checker.fs = o->fs;
    c->checker.options = o->mount_opts;
    c->checker.restart = o->restart;
    c->checker.spool_rel = "spool";
    c->checker.log = &log;
    c->checker.log_buf = buf;
    drive_path(&c->d, "cursor.img", c->checker.cursor);
    drive_path(&c->d, "crash.img", c->checker.image);
    drive_path(&c->d, "crash-mnt", c->checker.mnt);
    if (mkdir(c->checker.mnt, 0700) != 0 ||
        crash_point_checker_open(&c->checker, c->base, err, sizeof(err)) != 0)
        fail(c, NULL, "%s", err[0] ? err : strerror(errno));
    for (size_t i = 0; i < plan.n && !interrupted; i++) {
        struct crash_result r;
        struct crash_tally t;

        if (progress_out_on(&c->progress))
            show_check(c, i, plan.n, t0);
        if (crash_point_check(&c->checker, &plan.v[i], &r, err, sizeof(err)) != 0) {
            crash_point_result_free(&r);
            fail(c, NULL, "crash point %zu: %s", i + 1, err);
        }
        crash_tally_point(&acked, &sunk, &r.recovered, plan.v[i].t_ns, &t);
        crash_report_add(rep, &plan.v[i], &r, &t, o->t_load);
        crash_point_result_free(&r);
    }
    progress_out_clear(&c->progress);
    rep->check_s = (double)(clock_now_ns() - t0) / 1e9;
    crash_point_checker_close(&c->checker);
    crash_plan_free(&plan);
    blklog_free(&log);
    msglog_set_free(&acked);
    msglog_set_free(&sunk);
    munmap(buf, (size_t)sb.st_size);
}

int spoolsim_crash(int argc, char **argv)
{
    struct crash_options opts;
    struct crash c;
    struct crash_report rep;
    struct json_run run;
    int status;

    json_meta_run_init(&run, "spoolsim crash", "spoolsim", argc, argv);
    parse_options(&opts, argc, argv);
    opts.run = &run;
    memset(&c, 0, sizeof(c));
    c.o = &opts;
    c.checker.cursor_fd = -1;
    c.dm_control = -1;
    c.d.keep = opts.common.keep;
    drive_find_self(&c.d);
    preflight(&c);
    /* what spoolsim ab --crash asks before its first run, so that a side it cannot crash-test
     * is said before the hours of speed runs, not after */
    if (opts.common.dry_run)
        optgroup_dry_run_done(
            "would check %u crash points of %s -o %s (a %llu MiB image, recorded "
            "by %s) under the relay's %s spool, in a directory in %s",
            opts.points, opts.type, opts.mount_opts[0] ? opts.mount_opts : "defaults",
            (unsigned long long)(opts.image_size >> 20), opts.dm ? "dm-log-writes" : "FUSE",
            opts.profile, opts.work_parent ? opts.work_parent : fileutil_tmp_dir());
    crash_leftover_clean(opts.work_parent);
    if (platform_private_mounts() != 0)
        msg_warn("no mount namespace of its own (%s): a namespace made meanwhile by another "
                 "program could keep an image busy",
                 strerror(errno));
    if (platform_tie_children() != 0)
        msg_warn("cannot tie its children to it (%s): a kill -9 of it would leave them running",
                 strerror(errno));
    interrupt_install();
    progress_out_init(&c.progress, stderr, opts.common.progress);
    progress_out_hook_messages(&c.progress);
    optgroup_forget_results(&opts.common);

    drive_make_work_dir(&c.d, opts.work_parent, "--work-dir", "crash");
    if (crash_leftover_mark(&c.d) < 0)
        fail(&c, NULL, "cannot mark %s as this run's: %s", c.d.work, strerror(errno));
    drive_path(&c.d, "base.img", c.base);
    drive_path(&c.d, "served.img", c.served);
    drive_path(&c.d, "blocks.log", c.log);
    drive_path(&c.d, "fuse", c.fuse_dir);
    drive_path(&c.d, "mnt", c.mnt);
    if (mkdir(c.fuse_dir, 0700) != 0 || mkdir(c.mnt, 0700) != 0)
        fail(&c, NULL, "cannot make directories in %s: %s", c.d.work, strerror(errno));
    notice(&c, "work directory %s", c.d.work);
    make_image(&c);
    if (interrupted)
        finish_now(&c, 1);
    build_stack(&c);
    run_load(&c);
    memset(&rep, 0, sizeof(rep));
    check_points(&c, &rep);
    if (interrupted) {
        crash_report_free(&rep);
        json_meta_run_free(&run);
        finish_now(&c, 1);
    }
    crash_report_print(&rep, json_meta_text_stream(opts.common.json));
    status = crash_report_durable(&rep) ? 0 : 1;
    if (opts.common.json && crash_report_json(&rep, opts.common.json) != 0) {
        msg_warn("cannot write %s: %s", opts.common.json, strerror(errno));
        status = 1;
    }
    crash_report_free(&rep);
    json_meta_run_free(&run);
    if (interrupt_flush_stdout() != 0)
        status = 1;
    finish_now(&c, status);
}
