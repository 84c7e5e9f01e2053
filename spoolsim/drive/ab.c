/*
 * ab - `spoolsim ab': is spool directory B faster or slower than A?
 *
 * Runs one workload (MODE raw: `spoolsim raw'; relay: `spoolsim bench';
 * postmark: a PostMark command file) again and again on two directories -
 * two filesystems, or one filesystem under two sets of mount options.
 * After warm-up runs that are discarded, the runs alternate A B A B, so
 * that whatever drifts during a measurement (page cache, writeback,
 * other load) falls on both sides alike. Every run is a child process of
 * its own writing a JSON report to a temporary file; ab reads one figure
 * from it (a throughput: higher is better), then removes what the run
 * left, so that each run starts clean. The report names each side's
 * filesystem and mount options, lists every run, and gives the medians,
 * the ratio B/A with a bootstrap 95 % interval, and a verdict in words
 * (ab_stats.h).
 *
 * A/B on one partition: with --setup-a and --setup-b, a shell command
 * changes the setting before each run of its side (a remount with other
 * options, another I/O scheduler), and both sides may be one directory.
 * ab records the mount options it finds after every set-up, so that a
 * toggle that did nothing shows in the report; a set-up that fails stops
 * the comparison, since the runs after it would measure a setting nobody
 * knows.
 *
 * With --crash N (MODE relay), each side's durability beside its speed:
 * after the runs, `spoolsim crash' on an image made like the side's
 * filesystem, with the side's set-up first (ab_crash.h); asked with
 * --dry-run before the first run whether it can run at all.
 *
 * Everything that can be found wrong before a run is: the directories
 * (that they are writable directories; the same one twice is warned of),
 * the --json file, a PostMark command file (checked line by line).
 *
 * Exit status: 2 for a usage error, including arguments the child
 * refused and a side spoolsim crash cannot take; 3 if any run or crash
 * test failed (a crash test that finds mail lost is a measurement, not a
 * failure) (after the rest ran and the report is
 * printed); 130 or 143 on SIGINT or SIGTERM, which stop the running child
 * (it removes its own files), remove what ab made and print the report of
 * the runs so far, marked partial; 141 when standard output or error is
 * a pipe whose reader went away; 0 otherwise, whichever side is faster: a
 * slower B is a measurement, not a failure.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ab.h"
#include "exit_status.h"
#include "ab_compare.h"
#include "ab_crash.h"
#include "clock.h"
#include "drive.h"
#include "fsinfo.h"
#include "interrupt.h"
#include "json_meta.h"
#include "json_read.h"
#include "fileutil.h"
#include "msg.h"
#include "pm_command.h"
#include "progress_out.h"
#include "spoolsim.h"
#include "xalloc.h"

/*
 * SIGINT and SIGTERM set interrupt_signal() (interrupt.h): the wait for a
 * child checks it, and so does every step between runs.
 */
#define interrupted (interrupt_signal() != 0)

/* ------------------------------------------------------------ set-up */

/* label: how the usage names the directory, DIR_A, DIR_B or (one for both) DIR. */
static void init_side(struct side *s, const char *name, const char *label, const char *dir,
                      unsigned runs)
{
    struct stat st;

    if (stat(dir, &st) != 0)
        msg_usage("%s %s: %s", label, dir, strerror(errno));
    if (!S_ISDIR(st.st_mode))
        msg_usage("%s %s: not a directory", label, dir);
    /* Found now, not after every run of the other side has been made. */
    if (access(dir, W_OK | X_OK) != 0)
        msg_usage("%s %s: cannot write in it: %s", label, dir, strerror(errno));
    if (strlen(dir) > DRIVE_SHORT_PATH - 64)
        msg_usage("%s: the path %.60s... is too long", label, dir);
    s->name = name;
    s->dir = dir;
    s->dev = st.st_dev;
    s->ino = st.st_ino;
    s->fs_known = fsinfo_lookup(dir, &s->fs) == 0;
    s->figures = xmalloc(runs * sizeof(*s->figures));
    s->good = xmalloc(runs * sizeof(*s->good));
    s->run_fs = xcalloc(runs, sizeof(*s->run_fs));
    s->run_disk = xcalloc(runs, sizeof(*s->run_disk));
    for (unsigned i = 0; i < runs; i++)
        s->figures[i] = NAN;
}

/*
 * Whether A and B measure the same thing twice: one filesystem, mounted
 * the same way. Bind mounts show one filesystem under two mount points,
 * hence the device number too.
 */
int ab_same_filesystem(const struct side *a, const struct side *b)
{
    if (!a->fs_known || !b->fs_known || strcmp(a->fs.options, b->fs.options) != 0)
        return 0;
    return strcmp(a->fs.mount_point, b->fs.mount_point) == 0 || a->dev == b->dev;
}

static void check_commands(const char *path, char *text, size_t len)
{
    FILE *in = fmemopen(text, len ? len : 1, "r");
    unsigned errors;

    if (in == NULL)
        msg_fatal("out of memory");
    errors = pm_command_check(in, path, stderr);
    fclose(in);
    if (errors)
        msg_usage("%s: %u error%s in the PostMark commands: no run was made", path, errors,
                  errors == 1 ? "" : "s");
}

/* A line PostMark would take (it matches by prefix) for a command ab gives itself. */
static int ab_owns(const char *line)
{
    static const char *const prefixes[] = {"run", "set location", "set json"};

    for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
        if (strncmp(line, prefixes[i], strlen(prefixes[i])) == 0)
            return 1;
    return 0;
}

/*
 * The user's PostMark commands up to quit, those ab gives itself blanked,
 * one per line; checked as PostMark would read them, so that a mistake is
 * found, said as FILE:LINE, before any run (exit status 2).
 */
static char *read_commands(const char *path)
{
    FILE *fp = fopen(path, "r"), *mem;
    char *line = NULL, *text = NULL;
    size_t cap = 0, len = 0;
    ssize_t n;

    if (fp == NULL)
        msg_usage("cannot read the PostMark command file %s: %s", path, strerror(errno));
    if ((mem = open_memstream(&text, &len)) == NULL)
        msg_fatal("out of memory");
    while ((n = getline(&line, &cap, fp)) >= 0) {
        if (n > 0 && line[n - 1] == '\n')
            line[--n] = 0;
        if (n > 0 && line[n - 1] == '\r')
            line[--n] = 0;
        if (strncmp(line, "quit", 4) == 0 || strcmp(line, "exit") == 0)
            break; /* "exit" is PostMark's other word for it; it reads no further */
        if (ab_owns(line)) {
            fputc('\n', mem); /* blank, so that line numbers stay the user's */
            continue;
        }
        if (strncmp(line, "load", 4) == 0)
            msg_warn("%s: \"%s\": the commands in a loaded file are not filtered; a run there "
                     "would not be measured",
                     path, line);
        fprintf(mem, "%s\n", line);
    }
    free(line);
    fclose(fp);
    if (fclose(mem) != 0)
        msg_fatal("out of memory");
    check_commands(path, text, len);
    return text;
}

/* ------------------------------------------------------------ a run's set-up */

#define AB_ENV_PREFIX "SPOOLSIM_AB_"

/* What a set-up comes before: SPOOLSIM_AB_PHASE tells the command. */
enum phase { PHASE_MEASURED, PHASE_WARMUP, PHASE_CRASH };
static const char *const phase_names[] = {"measured", "warmup", "crash"};

/*
 * This program's environment without any SPOOLSIM_AB_ variable (an outer
 * ab's would mislead), then the n of add; free() it alone, the strings
 * are not copied.
 */
static char **env_with(char *const add[], size_t n)
{
    extern char **environ;
    size_t count = 0, k = 0;
    char **env;

    while (environ[count])
        count++;
    env = xmalloc((count + n + 1) * sizeof(*env));
    for (size_t i = 0; i < count; i++)
        if (strncmp(environ[i], AB_ENV_PREFIX, strlen(AB_ENV_PREFIX)) != 0)
            env[k++] = environ[i];
    for (size_t i = 0; i < n; i++)
        env[k++] = add[i];
    env[k] = NULL;
    return env;
}

/*
 * Run cmd, the set-up of side s or --prepare (what: the option), before
 * its run i, through /bin/sh -c with SPOOLSIM_AB_SIDE, _PHASE, _RUN and
 * _DIR in its environment. 0 when it exited 0, -1 when interrupted. A
 * command that fails ends the comparison (exit status 1): the runs after
 * it would measure a setting nobody knows, and a report would read as if
 * they did not.
 */
static int run_command(struct ab *ab, const struct side *s, unsigned i, enum phase phase,
                       const char *what, const char *cmd, const char *label)
{
    char side[64], phase_var[64], run[64], dir[PATH_MAX + 64], why[64];
    char *add[] = {side, phase_var, run, dir};
    char *argv[] = {"/bin/sh", "-c", (char *)cmd, NULL};
    char **env;
    int started, status = -1;

    snprintf(side, sizeof(side), AB_ENV_PREFIX "SIDE=%s", s->name);
    snprintf(phase_var, sizeof(phase_var), AB_ENV_PREFIX "PHASE=%s", phase_names[phase]);
    snprintf(run, sizeof(run), AB_ENV_PREFIX "RUN=%u", i + 1);
    snprintf(dir, sizeof(dir), AB_ENV_PREFIX "DIR=%s", s->dir);
    env = env_with(add, sizeof(add) / sizeof(add[0]));
    started = drive_spawn_env(&ab->d, &ab->child, "setup", argv, env) == 0;
    free(env);
    if (started)
        status = drive_reap(&ab->child);
    if (interrupted)
        return -1;
    if (started && status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return 0;
    if (!started)
        snprintf(why, sizeof(why), "it did not start");
    else if (status == -1)
        snprintf(why, sizeof(why), "lost track of it");
    else if (WIFSIGNALED(status))
        snprintf(why, sizeof(why), "killed by signal %d", WTERMSIG(status));
    else
        snprintf(why, sizeof(why), "exit status %d", WEXITSTATUS(status));
    drive_show_errors(&ab->d, "setup", "setup");
    drive_remove_work(&ab->d);
    msg_fatal("%s: %s `%s' failed: %s; the comparison stops (no report)", label, what, cmd, why);
}

/*
 * Before a run of side `which': its set-up, then --prepare, then what the
 * directory is on now, which the run is recorded with. -1 if interrupted.
 */
static int set_up(struct ab *ab, int which, unsigned i, enum phase phase, const char *label)
{
    const struct ab_options *o = ab->opts;
    struct side *s = &ab->side[which];
    struct fsinfo fs;

    if (o->setup[which] &&
        run_command(ab, s, i, phase, which ? "--setup-b" : "--setup-a", o->setup[which], label))
        return -1;
    if (o->prepare && run_command(ab, s, i, phase, "--prepare", o->prepare, label))
        return -1;
    memset(&fs, 0, sizeof(fs));
    if (fsinfo_lookup(s->dir, &fs) == 0) {
        s->fs = fs; /* the side's line in the report: as its runs found it, the last one */
        s->fs_known = 1;
    }
    if (phase == PHASE_MEASURED)
        s->run_fs[i] = fs;
    return 0;
}

/* ------------------------------------------------------------ one run */

/*
 * The PostMark commands of one run: the user's, in a fresh directory in
 * DIR, with the JSON report where ab reads it. The weight " 1" is
 * explicit because PostMark takes whatever follows the last space for a
 * weight, which would cut a DIR with a space in it; "./" keeps a
 * relative DIR beginning with + or - from reading as PostMark's add or
 * remove.
 */
static int write_commands(const struct ab *ab, const char *path, const char *location,
                          const char *json)
{
    FILE *fp = fopen(path, "w");
    const char *dot = location[0] == '+' || location[0] == '-' ? "./" : "";

    if (fp == NULL)
        return -1;
    fprintf(fp, "set location %s%s 1\n%sset json %s\nrun\nquit\n", dot, location, ab->commands,
            json);
    return fclose(fp);
}

/* Why a run did not give a figure, from its wait status and report. */
static int judge(const struct ab *ab, int status, const char *json, double *figure, char *why,
                 size_t len)
{
    const char *metric = ab->opts->mode->metric;
    char *text;
    int found;

    if (status == -1) {
        snprintf(why, len, "lost track of it");
        return -1;
    }
    if (WIFSIGNALED(status)) {
        snprintf(why, len, "killed by signal %d", WTERMSIG(status));
        return -1;
    }
    if (WEXITSTATUS(status) != 0) {
        snprintf(why, len, "exit status %d", WEXITSTATUS(status));
        return -1;
    }
    text = fileutil_read_all(json, NULL);
    found = text && json_read_number(text, metric, figure) == 0;
    free(text);
    if (!found) {
        snprintf(why, len, "no \"%s\" in its JSON report", metric);
        return -1;
    }
    if (!isfinite(*figure) || *figure <= 0) {
        /* Nothing done is no throughput to compare with. */
        snprintf(why, len, "\"%s\" is %g", metric, *figure);
        return -1;
    }
    return 0;
}

/*
 * "ab RUN/TOTAL LABEL", the time and the comparison's ETA (the runs left
 * at the mean pace of those done), then the running child's own line.
 */
static void show_progress(void *arg)
{
    struct ab *ab = arg;
    char label[96], text[PROGRESS_LINE_MAX], child[PROGRESS_LINE_MAX];
    uint64_t now = clock_now_ns();
    struct progress_stats ps = {
        .label = label,
        .elapsed_s = (double)(now - ab->start_ns) / 1e9,
        .eta_s = progress_eta_runs(ab->runs_done, ab->runs_total, ab->runs_spent_s,
                                   (double)(now - ab->run_start_ns) / 1e9),
    };
    /* looked at four times a second: the child's new line is passed on soon after it comes */
    if (drive_last_progress(&ab->d, "run", child, sizeof(child)) != 0)
        child[0] = 0;
    if (strcmp(child, ab->shown_child) == 0 && now - ab->shown_ns < CLOCK_NS_PER_SEC)
        return;
    snprintf(ab->shown_child, sizeof(ab->shown_child), "%s", child);
    ab->shown_ns = now;
    snprintf(label, sizeof(label), "ab %u/%u %s", ab->runs_done + 1, ab->runs_total, ab->run_label);
    progress_format(&ps, text, sizeof(text));
    progress_append(text, sizeof(text), child);
    progress_out_show(&ab->progress, text);
}

/* The device's counts a run's JSON report holds (raw's and bench's), or none (postmark's). */
static void read_disk(struct ab *ab, const char *json, struct diskstat *disk)
{
    char *text = fileutil_read_all(json, NULL);

    if (text == NULL || diskstat_read_json(text, "disk", disk) != 0)
        memset(disk, 0, sizeof(*disk)); /* DISKSTAT_NOT_MEASURED */
    /* bench's runs name the workload they drew from (drive_workload_json) */
    if (text && ab->workload[0] == 0 &&
        json_read_string(text, "workload.file", ab->workload, sizeof(ab->workload)) == 0)
        json_read_string(text, "workload.sha256", ab->workload_sha256, sizeof(ab->workload_sha256));
    free(text);
}

/*
 * One run of MODE on a side: its figure, or NAN if it failed (said on
 * standard error with the child's messages) or was interrupted. Whatever
 * it went through, its files are gone afterwards.
 */
static double run_one(struct ab *ab, const struct side *s, const char *label, struct diskstat *disk)
{
    const struct ab_options *o = ab->opts;
    const struct mode *m = o->mode;
    char json[PATH_MAX], out[PATH_MAX], err[PATH_MAX], cmds[PATH_MAX], location[PATH_MAX];
    /* self, MODE, DIR option and DIR, ARGS, --json FILE, -q, --progress, NULL */
    char **argv = xmalloc(((size_t)o->nargs + 9) * sizeof(*argv));
    char why[PATH_MAX + 256];
    double figure = NAN;
    int n = 0, status = -1, started = 0;

    drive_path(&ab->d, "run.json", json);
    drive_path(&ab->d, "run.out", out); /* drive_spawn()'s for a child called "run" */
    drive_path(&ab->d, "run.err", err);
    drive_path(&ab->d, "run.pm", cmds);
    location[0] = 0;
    argv[n++] = ab->d.self;
    argv[n++] = (char *)m->subcommand;
    if (m->dir_option) {
        argv[n++] = (char *)m->dir_option;
        argv[n++] = (char *)s->dir;
        for (int i = 0; i < o->nargs; i++)
            argv[n++] = o->args[i];
        argv[n++] = "--json";
        argv[n++] = json;
        argv[n++] = "-q";
    } else {
        argv[n++] = "-q";
        argv[n++] = cmds;
    }
    if (progress_out_on(&ab->progress))
        argv[n++] = "--progress"; /* its status lines, in run.err, for ab's */
    argv[n] = NULL;
    snprintf(why, sizeof(why), "it did not start");
    if (m->dir_option == NULL) {
        if (fileutil_private_dir(location, sizeof(location), s->dir, "ab") != 0) {
            snprintf(why, sizeof(why), "cannot make a directory in %s: %s", s->dir,
                     strerror(errno));
        } else if (write_commands(ab, cmds, location, json) != 0) {
            snprintf(why, sizeof(why), "cannot write %s: %s", cmds, strerror(errno));
        } else {
            started = drive_spawn_driver(&ab->d, &ab->child, "run", argv) == 0;
        }
    } else {
        started = drive_spawn_driver(&ab->d, &ab->child, "run", argv) == 0;
    }
    if (started && progress_out_on(&ab->progress))
        status = drive_reap_every(&ab->child, 0.25, show_progress, ab);
    else if (started)
        status = drive_reap(&ab->child);
    if (interrupted) {
        figure = NAN;
    } else if (!started || judge(ab, status, json, &figure, why, sizeof(why)) != 0) {
        figure = NAN;
        ab->failures++;
        msg_warn("%s: %s failed: %s", label, m->name, why);
        drive_show_errors(&ab->d, "run", m->subcommand);
    } else {
        read_disk(ab, json, disk);
    }
    unlink(json);
    unlink(out);
    unlink(err);
    unlink(cmds);
    fileutil_tree_remove(location);
    free(argv);
    if (started && !interrupted && status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 2) {
        /* A usage error: the ARGS are wrong, and would be wrong for every run. */
        drive_remove_work(&ab->d);
        msg_usage("`spoolsim %s' refused its arguments (exit status 2, see above)", m->subcommand);
    }
    return figure;
}

/* Run a side once, as warm-up or as measured run i; keep the figure of the latter. */
static void measure(struct ab *ab, int which, unsigned i, int warm)
{
    struct side *s = &ab->side[which];
    unsigned total = warm ? ab->opts->warmup : ab->opts->runs;
    char label[64];
    double figure;
    struct diskstat disk;

    memset(&disk, 0, sizeof(disk));
    snprintf(label, sizeof(label), warm ? "warm-up %s %u" : "%s run %u", s->name, i + 1);
    snprintf(ab->run_label, sizeof(ab->run_label), "%s%s", s->name, warm ? " warm-up" : "");
    progress_out_clear(&ab->progress);
    if (!ab->opts->common.quiet)
        fprintf(stderr, "spoolsim ab: %s/%u on %s...\n", label, total, s->dir);
    if (fflush(stderr) != 0 && errno == EPIPE)
        interrupt_note(SIGPIPE);
    if (interrupted || set_up(ab, which, i, warm ? PHASE_WARMUP : PHASE_MEASURED, label) != 0)
        return;
    ab->run_start_ns = clock_now_ns();
    figure = run_one(ab, s, label, &disk);
    ab->runs_done++;
    ab->runs_spent_s += (double)(clock_now_ns() - ab->run_start_ns) / 1e9;
    progress_out_clear(&ab->progress);
    if (interrupted)
        return;
    if (!ab->opts->common.quiet && !isnan(figure))
        fprintf(stderr, "spoolsim ab: %s/%u: %.1f %s%s\n", label, total, figure,
                ab->opts->mode->unit, warm ? " (discarded)" : "");
    if (fflush(stderr) != 0 && errno == EPIPE)
        interrupt_note(SIGPIPE); /* `2>&1 | head': nobody is reading */
    if (!warm) {
        s->done = i + 1;
        s->figures[i] = figure;
        s->run_disk[i] = disk;
        if (!isnan(figure)) {
            s->good[s->ngood++] = figure;
            diskstat_add(&s->disk, &disk);
        }
    }
}

/* ------------------------------------------------------------ --crash */

/*
 * Before any run: spoolsim crash --dry-run on each side (after its set-up,
 * which decides the mount options the crash test copies), so that a side
 * it cannot take (tmpfs, no FUSE, not root) is a usage error now and not
 * after the speed runs.
 */
static void crash_preflight(struct ab *ab)
{
    struct ab_crash_argv a;
    char label[64];
    int status;

    for (int k = 0; k < 2 && !interrupted; k++) {
        struct side *s = &ab->side[k];

        snprintf(label, sizeof(label), "%s crash test", s->name);
        if (set_up(ab, k, 0, PHASE_CRASH, label) != 0)
            return;
        ab_crash_argv(ab, s, 1, NULL, 0, &a);
        if (drive_spawn_driver(&ab->d, &ab->child, "crash", a.v) != 0) {
            drive_remove_work(&ab->d);
            msg_fatal("--crash: spoolsim crash did not start");
        }
        status = drive_reap(&ab->child);
        if (interrupted)
            return;
        if (status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0)
            continue;
        drive_show_errors(&ab->d, "crash", "crash");
        drive_remove_work(&ab->d);
        if (status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 2)
            msg_usage("--crash: side %s (%s) cannot be crash-tested here (see above); no run was "
                      "made",
                      s->name, s->dir);
        msg_fatal("--crash: spoolsim crash --dry-run failed on side %s; no run was made", s->name);
    }
}

/* After the speed runs: side `which''s crash test, its verdict kept in the side. */
static void crash_test(struct ab *ab, int which)
{
    struct side *s = &ab->side[which];
    struct ab_crash_argv a;
    char json[PATH_MAX], label[64];
    int status = -1, started;

    snprintf(label, sizeof(label), "%s crash test", s->name);
    snprintf(ab->run_label, sizeof(ab->run_label), "%s crash", s->name);
    progress_out_clear(&ab->progress);
    if (!ab->opts->common.quiet)
        fprintf(stderr, "spoolsim ab: %s, %u crash points on an image like %s...\n", label,
                ab->opts->crash, s->dir);
    if (set_up(ab, which, 0, PHASE_CRASH, label) != 0)
        return;
    drive_path(&ab->d, "crash.json", json);
    unlink(json);
    ab_crash_argv(ab, s, 0, json, progress_out_on(&ab->progress), &a);
    ab->run_start_ns = clock_now_ns();
    started = drive_spawn_driver(&ab->d, &ab->child, "run", a.v) == 0;
    if (started && progress_out_on(&ab->progress))
        status = drive_reap_every(&ab->child, 0.25, show_progress, ab);
    else if (started)
        status = drive_reap(&ab->child);
    ab->runs_done++;
    progress_out_clear(&ab->progress);
    if (interrupted) {
        unlink(json);
        return;
    }
    if (ab_crash_read(&s->crash, started ? status : -1, json) != 0) {
        ab->crash_failures++;
        msg_warn("%s failed: %s", label, s->crash.why);
        drive_show_errors(&ab->d, "run", "crash");
    } else if (!ab->opts->common.quiet) {
        fprintf(stderr, "spoolsim ab: %s: %s\n", label, s->crash.verdict);
    }
    unlink(json);
}

/* ------------------------------------------------------------ --dry-run */

/*
 * Everything but the runs: ab's options and directories are checked by
 * now; MODE's ARGS are the child's to judge, by its own dry run on each
 * side's directory, and so is --crash's crash test. The set-up and
 * prepare commands are not run: they change the machine.
 */
/* MODE's own dry run with ARGS on side s's directory: its exit status. */
static int mode_dry_run(const struct ab *ab, const struct side *s)
{
    const struct ab_options *o = ab->opts;
    char **argv = xcalloc((size_t)o->nargs + 8, sizeof(*argv));
    int n = 0, status;

    argv[n++] = (char *)ab->d.self;
    argv[n++] = (char *)o->mode->subcommand;
    argv[n++] = "--dry-run";
    argv[n++] = (char *)o->mode->dir_option;
    argv[n++] = (char *)s->dir;
    for (int i = 0; i < o->nargs; i++)
        argv[n++] = o->args[i];
    argv[n] = NULL;
    status = drive_dry_run(argv);
    free(argv);
    return status;
}

static _Noreturn void dry_run(struct ab *ab)
{
    const struct ab_options *o = ab->opts;
    char crash[1200] = "", load[1024];

    for (int k = 0; k < 2; k++) {
        const struct side *s = &ab->side[k];
        struct ab_crash_argv a;

        if (k == 1 && ab->side[0].dev == s->dev && ab->side[0].ino == s->ino && !o->crash)
            break; /* one directory: once */
        if (o->mode->dir_option && mode_dry_run(ab, s) != 0)
            msg_usage("%s: spoolsim %s refuses ARGS on side %s (see above)", o->mode->name,
                      o->mode->subcommand, s->name);
        if (o->crash) {
            ab_crash_argv(ab, s, 1, NULL, 0, &a);
            if (drive_dry_run(a.v) != 0)
                msg_usage("--crash: side %s (%s) cannot be crash-tested here (see above)", s->name,
                          s->dir);
        }
    }
    if (o->crash) {
        ab_crash_load_text(&o->crash_load, load, sizeof(load));
        snprintf(crash, sizeof(crash), ", then crash-test each side at %u points under %s",
                 o->crash, load);
    }
    optgroup_dry_run_done("would run %s %u warm-up and %u measured times on each of %s and %s, "
                          "alternating%s%s",
                          o->mode->name, o->warmup, o->runs, ab->side[0].dir, ab->side[1].dir,
                          crash,
                          o->setup[0] ? " (the set-up commands are not run by a dry run)" : "");
}

/* ------------------------------------------------------------ the command */

/* Before any run: what would make the comparison say nothing. */
static void warn_same(const struct ab *ab)
{
    const struct side *a = &ab->side[0], *b = &ab->side[1];

    if (ab->opts->setup[0])
        return; /* the set-ups are to make the difference; setup_warnings() says if they did not */
    if (a->dev == b->dev && a->ino == b->ino)
        msg_warn("DIR_A and DIR_B are the same directory (%s): this measures it against itself",
                 a->dir);
    else if (ab_same_filesystem(a, b))
        msg_warn("A and B are on the same filesystem (%s on %s) with the same mount options: "
                 "this measures it against itself",
                 a->fs.fstype, a->fs.mount_point);
}

int spoolsim_ab(int argc, char **argv)
{
    struct ab_options opts;
    struct ab ab;
    struct ab_result result;
    struct json_run run;
    int compared, status = 0;

    json_meta_run_init(&run, "spoolsim ab", "spoolsim", argc, argv);
    ab_options_parse(&opts, argc, argv);
    if (opts.compare) {
        interrupt_install();
        status = ab_compare_main(&opts, argc, argv, &run);
        json_meta_run_free(&run);
        return status;
    }
    memset(&ab, 0, sizeof(ab));
    memset(&result, 0, sizeof(result));
    ab.opts = &opts;
    ab.run = &run;
    init_side(&ab.side[0], "A", opts.one_dir ? "DIR" : "DIR_A", opts.dir[0], opts.runs);
    init_side(&ab.side[1], "B", opts.one_dir ? "DIR" : "DIR_B", opts.dir[1], opts.runs);
    if (opts.mode->dir_option == NULL)
        ab.commands = read_commands(opts.args[0]);
    drive_find_self(&ab.d);
    warn_same(&ab);
    if (opts.common.dry_run)
        dry_run(&ab);
    interrupt_install();

    progress_out_init(&ab.progress, stderr, opts.common.progress);
    progress_out_hook_messages(&ab.progress);
    optgroup_forget_results(&opts.common);
    if (fileutil_output_forget(opts.export_markdown) != 0 ||
        fileutil_output_forget(opts.export_csv) != 0)
        msg_fatal("cannot remove the earlier export: %s", strerror(errno));
    ab.runs_total = 2 * (opts.warmup + opts.runs) + (opts.crash ? 2 : 0);
    ab.start_ns = clock_now_ns();
    drive_make_work_dir(&ab.d, NULL, "TMPDIR", "ab");
    if (!opts.common.quiet)
        fprintf(stderr, "spoolsim ab: %s, %u warm-up%s and %u runs per side, alternating A B\n",
                opts.mode->name, opts.warmup, opts.warmup == 1 ? "" : "s", opts.runs);
    if (opts.crash)
        crash_preflight(&ab);
    for (unsigned i = 0; i < opts.warmup && !interrupted; i++) {
        measure(&ab, 0, i, 1);
        if (!interrupted)
            measure(&ab, 1, i, 1);
    }
    for (unsigned i = 0; i < opts.runs && !interrupted; i++) {
        measure(&ab, 0, i, 0);
        if (!interrupted)
            measure(&ab, 1, i, 0);
    }
    for (int k = 0; k < 2 && opts.crash && !interrupted; k++)
        crash_test(&ab, k);
    drive_remove_work(&ab.d);

    compared = ab_stats_compare(ab.side[0].good, ab.side[0].ngood, ab.side[1].good,
                                ab.side[1].ngood, opts.common.seed, &result) == 0;
    if (interrupt_signal() != SIGPIPE)
        ab_report_print(&ab, &result, compared, json_meta_text_stream(opts.common.json));
    /* A partial comparison's JSON would read as a whole one: none is written. */
    if (opts.common.json && !interrupted && ab_report_write_json(&ab, &result, compared) != 0) {
        msg_warn("cannot write %s: %s", opts.common.json, strerror(errno));
        status = EXIT_STATUS_BAD;
    }
    if (opts.export_markdown && !interrupted &&
        ab_report_write_export(&ab, &result, compared, opts.export_markdown, 1) != 0) {
        msg_warn("cannot write %s: %s", opts.export_markdown, strerror(errno));
        status = EXIT_STATUS_BAD;
    }
    if (opts.export_csv && !interrupted &&
        ab_report_write_export(&ab, &result, compared, opts.export_csv, 0) != 0) {
        msg_warn("cannot write %s: %s", opts.export_csv, strerror(errno));
        status = EXIT_STATUS_BAD;
    }
    if (interrupt_flush_stdout() != 0)
        status = EXIT_STATUS_BAD;
    for (int k = 0; k < 2; k++) {
        free(ab.side[k].figures);
        free(ab.side[k].good);
        free(ab.side[k].run_fs);
        free(ab.side[k].run_disk);
    }
    free(ab.commands);
    json_meta_run_free(&run);
    if (interrupted)
        return interrupt_exit_status();
    if (ab.failures || ab.crash_failures)
        return EXIT_STATUS_INCOMPLETE; /* a run or a crash test gave no figure */
    return status;
}
