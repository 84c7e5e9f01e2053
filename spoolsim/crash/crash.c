/*
 * crash - `spoolsim crash': what a power cut loses, on a real filesystem.
 *
 * It makes an image of the filesystem type and mount options asked for
 * (or those of --spool DIR), serves it through spoolsim-recorder and a loop
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
 * else is left (crash_leftover.h). *
 * This file is the command: its options, what the machine must have
 * (checked before anything is made), and the order of the steps. The
 * stack of devices and its taking apart are crash_stack.h's; the load and
 * the check of the crash points are crash_run.h's.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "exit_status.h"
#include "crash.h"
#include "crash_leftover.h"
#include "crash_mta.h"
#include "crash_opts.h"
#include "crash_report.h"
#include "crash_run.h"
#include "crash_stack.h"
#include "crash_sys.h"
#include "drive.h"
#include "fileutil.h"
#include "fsinfo.h"
#include "interrupt.h"
#include "json_meta.h"
#include "msg.h"
#include "optarg.h"
#include "optgroup.h"
#include "pf_spool.h"
#include "platform.h"
#include "profile.h"
#include "progress_out.h"
#include "spoolsim.h"

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
            "  -O, --mount-options OPTS\n"
            "                        its mount options, as mount -o takes them\n"
            "  --spool DIR           the spool under test: the type and the durability\n"
            "                        options of DIR's mount\n"
            "  --image-size SIZE     the image (the type's default: 128M for ext*)\n"
            "  --points N            crash points to check (200)\n"
            "  --keep-point N        keep point N's image as rebuilt (before its repair), the\n"
            "                        repair's output and the restart's log in the work\n"
            "                        directory, which is kept (N counts the JSON's cuts from 1)\n",
            crash_opts_fs_names());
    profile_help(fp, "--profile NAME",
                 "the relay's spool profile, and the MTA whose restart is judged: ", " (postfix)",
                 21);
    fprintf(fp, "  --sync POLICY         the relay's fsync, fdatasync or none (the profile's)\n"
                "  --model MODEL         the relay's cost model (the profile's MTA's, as the\n"
                "                        relay's; none: the bare relay, a faster load)\n"
                "  --mta MTA             a real MTA in the relay's place, whose own restart\n"
                "                        judges every cut: postfix (Debian's, run privately;\n"
                "                        its profile; not with --sync or --model)\n"
                "  --hop-delay TIME      the sink holds each reply to the data so long, so that\n"
                "                        messages wait in the queue (50ms)\n"
                "  --recorder NAME       what records the writes: fuse (spoolsim-recorder, FUSE\n"
                "                        and a loop device with direct I/O) or dm-log-writes\n"
                "                        (the kernel's target, marks timing the 250s) (fuse)\n"
                "  --work-dir DIR        where the images and logs go ($TMPDIR or /tmp)\n");
    optgroup_help(fp, g, OPTGROUP_WORKLOAD | OPTGROUP_SEED, 21);
    optgroup_help(fp, g,
                  OPTGROUP_DRY_RUN | OPTGROUP_JSON | OPTGROUP_KEEP | OPTGROUP_PROGRESS |
                      OPTGROUP_QUIET | OPTGROUP_HELP,
                  21);
    fprintf(fp, "\n"
                "The dry run checks that this machine can run it too: root, FUSE or the\n"
                "device-mapper, loop devices, the filesystem's tools, room for the images, and\n"
                "the relay's options (its own dry run).\n");
    fprintf(
        fp,
        "\n"
        "Exit status: 0 durable, 1 acknowledged mail lost, 2 bad input, 3 inconclusive or failed.\n"
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
    OPT_POINTS,
    OPT_KEEP_POINT,
    OPT_MTA,
};

/*
 * The spellings of before the one vocabulary (docs/design.md): -o is an
 * output file and -n a number of runs in the other commands.
 */
static const struct optarg_old old_spellings[] = {
    {"-o", "-O/--mount-options"},
    {"--options", "--mount-options"},
    {"--like", "--spool"},
    {"-n", "--points"},
    {NULL, NULL},
};

static void parse_options(struct crash_options *o, int argc, char **argv)
{
    static const struct option long_options[] = {
        {"type", required_argument, NULL, 't'},
        {"mount-options", required_argument, NULL, 'O'},
        {"options", required_argument, NULL, 'O'},
        {"spool", required_argument, NULL, OPT_LIKE},
        {"like", required_argument, NULL, OPT_LIKE},
        {"image-size", required_argument, NULL, OPT_IMAGE_SIZE},
        {"points", required_argument, NULL, OPT_POINTS},
        {"keep-point", required_argument, NULL, OPT_KEEP_POINT},
        {"profile", required_argument, NULL, OPT_PROFILE},
        {"sync", required_argument, NULL, OPT_SYNC},
        {"model", required_argument, NULL, OPT_MODEL},
        {"hop-delay", required_argument, NULL, OPT_HOP_DELAY},
        {"work-dir", required_argument, NULL, OPT_WORK_DIR},
        {"recorder", required_argument, NULL, OPT_RECORDER},
        {"mta", required_argument, NULL, OPT_MTA},
        {NULL, 0, NULL, 0},
    };
    struct optgroup g;
    const char *type = NULL, *given_opts = NULL;
    const struct optarg_store stored[] = {
        {'t', .text = &type},
        {'O', .text = &given_opts},
        {'o', .text = &given_opts},
        {OPT_LIKE, .text = &o->like, .dir = "--spool"},
        {OPT_MODEL, .text = &o->model}, /* the relay judges it: check_relay() */
        {OPT_MTA, .text = &o->mta},     /* crash_mta_check_options() judges it */
        {OPT_WORK_DIR, .text = &o->work_parent, .dir = "--work-dir"},
        {0},
    };
    int ch;

    memset(o, 0, sizeof(*o));
    optgroup_init(&g, &o->common,
                  OPTGROUP_NO_OPERANDS | OPTGROUP_WORKLOAD | OPTGROUP_SEED | OPTGROUP_JSON |
                      OPTGROUP_KEEP | OPTGROUP_PROGRESS | OPTGROUP_QUIET | OPTGROUP_HELP |
                      OPTGROUP_DRY_RUN,
                  "t:O:o:n:", long_options, "spoolsim crash", usage);
    g.old = old_spellings;
    o->common.duration = 3;
    o->common.sessions = 4;
    o->points = 200;
    g.seed_what = "the crash points";
    o->profile = NULL; /* postfix, or --mta's own: crash_mta_check_options() */
    o->hop_delay = "0.05";
    while ((ch = optgroup_getopt(&g, argc, argv)) != -1) {
        if (optarg_store(stored, ch, optarg))
            continue;
        switch (ch) {
        case OPT_IMAGE_SIZE:
            o->image_size = optarg_size(optarg, "--image-size", 1);
            break;
        case 'n':
        case OPT_POINTS:
            o->points = (unsigned)optarg_count(optarg, "--points", 1, 100000);
            break;
        case OPT_KEEP_POINT:
            o->keep_point = (unsigned)optarg_count(optarg, "--keep-point", 1, 100000);
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
    if (o->keep_point > o->points)
        msg_usage("--keep-point %u: there are only %u crash points (--points)", o->keep_point,
                  o->points);
    crash_mta_check_options(o);
    if (crash_scan_restart_of(o->profile, &o->restart) != 0)
        msg_usage("--profile %s: the crash test knows no restart of that MTA", o->profile);
    if (o->like) {
        struct fsinfo fs;

        if (access(o->like, F_OK) != 0 || fsinfo_lookup(o->like, &fs) != 0)
            msg_usage("--spool %s: no mount of it in /proc/self/mountinfo", o->like);
        if (type && strcmp(type, fs.fstype) != 0)
            msg_usage("-t %s and --spool %s (%s) disagree", type, o->like, fs.fstype);
        snprintf(o->type, sizeof(o->type), "%s", fs.fstype);
        crash_opts_like(fs.options, o->mount_opts, sizeof(o->mount_opts), o->dropped,
                        sizeof(o->dropped));
    } else {
        snprintf(o->type, sizeof(o->type), "%s", type ? type : "ext4");
    }
    if (given_opts) {
        size_t have = strlen(o->mount_opts);

        if (have + 1 + strlen(given_opts) >= sizeof(o->mount_opts))
            msg_usage("--mount-options %s: too long", given_opts);
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
    if (o->mta)
        crash_mta_ready(&c->mta, &c->d, o->mta, parent, c->sink_path);
    else
        check_relay(c, parent);
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
    if (opts.keep_point)
        opts.common.keep = 1; /* the point's files are in the work directory */
    c.d.keep = opts.common.keep;
    drive_find_self(&c.d);
    preflight(&c);
    /* what spoolsim ab --crash asks before its first run, so that a side it cannot crash-test
     * is said before the hours of speed runs, not after */
    if (opts.common.dry_run)
        optgroup_dry_run_done(
            "would check %u crash points of %s -o %s (a %llu MiB image, recorded "
            "by %s) under %s %s spool, in a directory in %s",
            opts.points, opts.type, opts.mount_opts[0] ? opts.mount_opts : "defaults",
            (unsigned long long)(opts.image_size >> 20), opts.dm ? "dm-log-writes" : "FUSE",
            opts.mta ? "a real" : "the relay's", opts.profile,
            opts.work_parent ? opts.work_parent : fileutil_tmp_dir());
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
        crash_stack_fail(&c, NULL, "cannot mark %s as this run's: %s", c.d.work, strerror(errno));
    drive_path(&c.d, "base.img", c.base);
    drive_path(&c.d, "served.img", c.served);
    drive_path(&c.d, "blocks.log", c.log);
    drive_path(&c.d, "fuse", c.fuse_dir);
    drive_path(&c.d, "mnt", c.mnt);
    if (mkdir(c.fuse_dir, 0700) != 0 || mkdir(c.mnt, 0700) != 0)
        crash_stack_fail(&c, NULL, "cannot make directories in %s: %s", c.d.work, strerror(errno));
    crash_stack_notice(&c, "work directory %s", c.d.work);
    crash_stack_make_image(&c);
    if (interrupt_signal())
        crash_stack_finish(&c, EXIT_STATUS_INCOMPLETE);
    crash_stack_build(&c);
    crash_run_load(&c);
    memset(&rep, 0, sizeof(rep));
    crash_run_check(&c, &rep);
    if (interrupt_signal()) {
        crash_report_free(&rep);
        json_meta_run_free(&run);
        crash_stack_finish(&c, EXIT_STATUS_INCOMPLETE);
    }
    crash_report_print(&rep, json_meta_text_stream(opts.common.json));
    status = crash_report_exit_status(&rep);
    if (opts.common.json && crash_report_json(&rep, opts.common.json) != 0) {
        msg_warn("cannot write %s: %s", opts.common.json, strerror(errno));
        status = EXIT_STATUS_BAD;
    }
    crash_report_free(&rep);
    json_meta_run_free(&run);
    if (interrupt_flush_stdout() != 0)
        status = EXIT_STATUS_BAD;
    crash_stack_finish(&c, status);
}
