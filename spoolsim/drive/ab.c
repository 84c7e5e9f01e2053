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
 * Everything that can be found wrong before a run is: the directories
 * (that they are writable directories; the same one twice is warned of),
 * the --json file, a PostMark command file (checked line by line).
 *
 * Exit status: 2 for a usage error, including arguments the child
 * refused; 1 if any run failed (after the rest ran and the report is
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
#include <getopt.h>
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

#include "ab_export.h"
#include "ab_stats.h"
#include "clock.h"
#include "drive.h"
#include "fsinfo.h"
#include "interrupt.h"
#include "json.h"
#include "json_meta.h"
#include "json_read.h"
#include "fileutil.h"
#include "msg.h"
#include "optarg.h"
#include "optgroup.h"
#include "pm_command.h"
#include "progress_out.h"
#include "spoolsim.h"
#include "xalloc.h"

#define MAX_RUNS 1000 /* the bootstrap sorts every resample: keep it quick */

/* What a MODE runs, and what it reads back. */
struct mode {
    const char *name;
    const char *subcommand; /* of this program */
    const char *dir_option; /* how the child is given DIR; NULL: in its command file */
    const char *metric;     /* the top-level number in the child's JSON report */
    const char *unit;
    /*
     * Options ARGS must not hold: ab sets them itself, (--keep) they
     * would leave a run's files, or (--discard) there would be no figure.
     * At most 4, so that a NULL ends the list.
     */
    const char *reserved[5];
};

static const struct mode modes[] = {
    {"raw", "raw", "--dir", "delivered_per_s", "msgs/s", {"--dir", "--json", "--keep"}},
    {"relay",
     "bench",
     "--spool",
     "delivered_per_s",
     "msgs/s",
     {"--spool", "--json", "--keep", "--discard"}},
    {"postmark", "postmark", NULL, "transactions_per_s", "transactions/s", {NULL}},
};

struct ab_options {
    unsigned runs, warmup;
    uint64_t seed;
    struct optgroup_values common; /* --json, -q, --progress */
    const char *export_markdown, *export_csv;
    const char *dir[2];
    int one_dir;          /* DIR: both sides in one directory, told apart by their set-ups */
    const char *setup[2]; /* --setup-a, --setup-b: NULL for none */
    const char *prepare;  /* --prepare: NULL for none */
    const struct mode *mode;
    char **args; /* MODE's arguments: the tail of argv */
    int nargs;
};

struct side {
    const char *name; /* "A" or "B" */
    const char *dir;
    struct fsinfo fs;
    int fs_known;
    dev_t dev;
    ino_t ino;
    double *figures;       /* one per measured run, NAN where the run failed */
    double *good;          /* the figures of the runs that worked, for the statistics */
    struct fsinfo *run_fs; /* what each measured run ran on, after its set-up; zeroed if unknown */
    size_t ngood;
    unsigned done; /* measured runs made, failed or not: fewer after an interrupt */
};

struct ab {
    const struct ab_options *opts;
    struct drive d; /* this program; ab's own temporary files, in $TMPDIR */
    char *commands; /* postmark: the user's command file, filtered */
    struct side side[2];
    unsigned failures;          /* failed runs, warm-ups included */
    struct drive_child child;   /* the run going on */
    const struct json_run *run; /* the command line, for the JSON report */

    /* the status line: which run of how many, and the pace so far for the ETA */
    struct progress_out progress;
    char run_label[64];
    unsigned runs_done, runs_total; /* warm-ups included */
    double runs_spent_s;            /* the time of the runs done */
    uint64_t run_start_ns, start_ns;
    char shown_child[PROGRESS_LINE_MAX]; /* the child's line last shown, and when */
    uint64_t shown_ns;
};

/*
 * SIGINT and SIGTERM set interrupt_signal() (interrupt.h): the wait for a
 * child checks it, and so does every step between runs.
 */
#define interrupted (interrupt_signal() != 0)

static void usage(FILE *fp, const struct optgroup *g)
{
    fputs("Usage: spoolsim ab [options] DIR_A DIR_B -- MODE ARGS...\n"
          "       spoolsim ab [options] --setup-a CMD --setup-b CMD DIR -- MODE ARGS...\n"
          "\n"
          "Compares two spool directories (two filesystems, or two sets of mount\n"
          "options), or one directory with a setting toggled by --setup-a and\n"
          "--setup-b: runs MODE on each side, alternating A B A B after discarded\n"
          "warm-ups, and reports every run, the median of each side, the ratio B/A of\n"
          "the medians with a 95 % bootstrap confidence interval, and a verdict.\n"
          "\n"
          "Modes:\n"
          "  raw ARGS...      spoolsim raw --dir DIR ARGS...        (delivered_per_s)\n"
          "  relay ARGS...    spoolsim bench --spool DIR ARGS...    (delivered_per_s)\n"
          "  postmark FILE    the PostMark commands of FILE up to quit, in a fresh\n"
          "                   directory in DIR; ab gives the run, set location and\n"
          "                   set json commands itself              (transactions_per_s)\n"
          "\n"
          "Options:\n"
          "  -n, --runs N     measured runs per side (5, at least 2)\n"
          "  --warmup N       runs per side discarded first (1)\n"
          "  --seed N         seed of the bootstrap's random numbers (1)\n"
          "  --export-markdown FILE  the two sides as a Markdown table (- = stdout)\n"
          "  --export-csv FILE       the two sides as CSV (- = stdout)\n"
          "  --setup-a CMD    run CMD (/bin/sh -c) before every run of A; it must\n"
          "                   succeed (e.g. mount -o remount,nodirsync DIR)\n"
          "  --setup-b CMD    the same for B; both or neither\n"
          "  --prepare CMD    run CMD before every run of either side, after its set-up\n"
          "                   (e.g. sync; echo 3 > /proc/sys/vm/drop_caches)\n",
          fp);
    optgroup_help(fp, g, OPTGROUP_OUTPUT, 16);
    fputs("\n"
          "Exit status: 0 when every run worked, whichever side is faster; 1 if a run\n"
          "or a set-up failed; 2 for a usage error; 130 or 143 after SIGINT or SIGTERM\n"
          "(the runs so far are reported, marked partial).\n",
          fp);
}

enum {
    OPT_WARMUP = 256,
    OPT_SEED,
    OPT_EXPORT_MARKDOWN,
    OPT_EXPORT_CSV,
    OPT_SETUP_A,
    OPT_SETUP_B,
    OPT_PREPARE,
};

/* Whether arg is option `name', as --name or --name=VALUE. */
static int is_option(const char *arg, const char *name)
{
    size_t len = strlen(name);

    return strncmp(arg, name, len) == 0 && (arg[len] == 0 || arg[len] == '=');
}

/* A command for /bin/sh -c: one of blanks only would run nothing and pass. */
static const char *command_option(const char *arg, const char *what)
{
    if (arg[strspn(arg, " \t\n")] == 0)
        msg_usage("%s: an empty command", what);
    return arg;
}

static void parse_mode(struct ab_options *o, int argc, char **argv, int dashes)
{
    if (dashes + 1 >= argc)
        msg_usage("missing MODE after -- (raw, relay or postmark)");
    for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
        if (strcmp(argv[dashes + 1], modes[i].name) == 0)
            o->mode = &modes[i];
    if (o->mode == NULL)
        msg_usage("unknown MODE \"%s\" (raw, relay or postmark)", argv[dashes + 1]);
    o->args = argv + dashes + 2;
    o->nargs = argc - dashes - 2;
    for (int i = 0; i < o->nargs; i++)
        for (const char *const *r = o->mode->reserved; *r; r++)
            if (is_option(o->args[i], *r))
                msg_usage("%s: %s is not allowed in ARGS (ab sets the directory and report itself, "
                          "cleans up, and needs a figure)",
                          o->mode->name, *r);
    if (o->mode->dir_option == NULL && o->nargs != 1)
        msg_usage("postmark: give exactly one PostMark command file after the MODE");
}

static void parse_options(struct ab_options *o, int argc, char **argv)
{
    static const struct option long_options[] = {
        {"runs", required_argument, NULL, 'n'},
        {"warmup", required_argument, NULL, OPT_WARMUP},
        {"seed", required_argument, NULL, OPT_SEED},
        {"export-markdown", required_argument, NULL, OPT_EXPORT_MARKDOWN},
        {"export-csv", required_argument, NULL, OPT_EXPORT_CSV},
        {"setup-a", required_argument, NULL, OPT_SETUP_A},
        {"setup-b", required_argument, NULL, OPT_SETUP_B},
        {"prepare", required_argument, NULL, OPT_PREPARE},
        {NULL, 0, NULL, 0},
    };
    struct optgroup g;
    int ch, dashes, ndirs;

    memset(o, 0, sizeof(*o));
    optgroup_init(&g, &o->common,
                  OPTGROUP_JSON | OPTGROUP_PROGRESS | OPTGROUP_QUIET | OPTGROUP_HELP,
                  "n:", long_options, "spoolsim ab", usage);
    g.progress_what = "the run, its side, the run's own line and the ETA";
    o->runs = 5;
    o->warmup = 1;
    o->seed = 1;
    /*
     * ab's own arguments end at "--". Find it before getopt does:
     * it would move the directories past it, and MODE's options after it
     * are not ours to parse.
     */
    for (dashes = 1; dashes < argc && strcmp(argv[dashes], "--") != 0; dashes++)
        ;
    while ((ch = optgroup_getopt(&g, dashes, argv)) != -1) {
        switch (ch) {
        case 'n':
            o->runs = (unsigned)optarg_count(optarg, "--runs", 2, MAX_RUNS);
            break;
        case OPT_WARMUP:
            o->warmup = (unsigned)optarg_count(optarg, "--warmup", 0, MAX_RUNS);
            break;
        case OPT_SEED:
            o->seed = optarg_count(optarg, "--seed", 0, UINT64_MAX);
            break;
        case OPT_EXPORT_MARKDOWN:
            optarg_output_file(optarg, "--export-markdown");
            o->export_markdown = optarg;
            break;
        case OPT_EXPORT_CSV:
            optarg_output_file(optarg, "--export-csv");
            o->export_csv = optarg;
            break;
        case OPT_SETUP_A:
            o->setup[0] = command_option(optarg, "--setup-a");
            break;
        case OPT_SETUP_B:
            o->setup[1] = command_option(optarg, "--setup-b");
            break;
        case OPT_PREPARE:
            o->prepare = command_option(optarg, "--prepare");
            break;
        default:
            msg_panic("option %d not handled", ch);
        }
    }
    /* One side set up and the other not would run in whatever state the first left. */
    if (o->setup[0] && !o->setup[1])
        msg_usage("--setup-a without --setup-b: B would run as A's set-up left it (give "
                  "--setup-b true for no set-up of B)");
    if (o->setup[1] && !o->setup[0])
        msg_usage("--setup-b without --setup-a: A would run as B's set-up left it (give "
                  "--setup-a true for no set-up of A)");
    ndirs = dashes - optind;
    if (dashes == argc)
        msg_usage("missing -- before MODE (spoolsim ab [options] DIR_A DIR_B -- MODE ARGS...)");
    if (ndirs > 2)
        msg_usage("unexpected argument \"%s\": two directories, then -- MODE", argv[optind + 2]);
    if (ndirs == 0)
        msg_usage("missing DIR_A and DIR_B before -- (spoolsim ab [options] DIR_A DIR_B -- MODE "
                  "ARGS...)");
    if (ndirs == 1 && !o->setup[0])
        msg_usage("missing DIR_B before --: one directory needs --setup-a and --setup-b (spoolsim "
                  "ab [options] --setup-a CMD --setup-b CMD DIR -- MODE ARGS...)");
    o->one_dir = ndirs == 1;
    o->dir[0] = argv[optind];
    o->dir[1] = argv[optind + ndirs - 1];
    parse_mode(o, argc, argv, dashes);
    optgroup_end(&g);
}

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
    for (unsigned i = 0; i < runs; i++)
        s->figures[i] = NAN;
}

/*
 * Whether A and B measure the same thing twice: one filesystem, mounted
 * the same way. Bind mounts show one filesystem under two mount points,
 * hence the device number too.
 */
static int same_filesystem(const struct side *a, const struct side *b)
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
static int run_command(struct ab *ab, const struct side *s, unsigned i, int warm, const char *what,
                       const char *cmd, const char *label)
{
    char side[64], phase[64], run[64], dir[PATH_MAX + 64], why[64];
    char *add[] = {side, phase, run, dir};
    char *argv[] = {"/bin/sh", "-c", (char *)cmd, NULL};
    char **env;
    int started, status = -1;

    snprintf(side, sizeof(side), AB_ENV_PREFIX "SIDE=%s", s->name);
    snprintf(phase, sizeof(phase), AB_ENV_PREFIX "PHASE=%s", warm ? "warmup" : "measured");
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
static int set_up(struct ab *ab, int which, unsigned i, int warm, const char *label)
{
    const struct ab_options *o = ab->opts;
    struct side *s = &ab->side[which];
    struct fsinfo fs;

    if (o->setup[which] &&
        run_command(ab, s, i, warm, which ? "--setup-b" : "--setup-a", o->setup[which], label))
        return -1;
    if (o->prepare && run_command(ab, s, i, warm, "--prepare", o->prepare, label))
        return -1;
    memset(&fs, 0, sizeof(fs));
    if (fsinfo_lookup(s->dir, &fs) == 0) {
        s->fs = fs; /* the side's line in the report: as its runs found it, the last one */
        s->fs_known = 1;
    }
    if (!warm)
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
    text = file_read_all(json, NULL);
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

/*
 * One run of MODE on a side: its figure, or NAN if it failed (said on
 * standard error with the child's messages) or was interrupted. Whatever
 * it went through, its files are gone afterwards.
 */
static double run_one(struct ab *ab, const struct side *s, const char *label)
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
        if (private_dir_make(location, sizeof(location), s->dir, "ab") != 0) {
            snprintf(why, sizeof(why), "cannot make a directory in %s: %s", s->dir,
                     strerror(errno));
        } else if (write_commands(ab, cmds, location, json) != 0) {
            snprintf(why, sizeof(why), "cannot write %s: %s", cmds, strerror(errno));
        } else {
            started = drive_spawn(&ab->d, &ab->child, "run", argv) == 0;
        }
    } else {
        started = drive_spawn(&ab->d, &ab->child, "run", argv) == 0;
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
    }
    unlink(json);
    unlink(out);
    unlink(err);
    unlink(cmds);
    tree_remove(location);
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

    snprintf(label, sizeof(label), warm ? "warm-up %s %u" : "%s run %u", s->name, i + 1);
    snprintf(ab->run_label, sizeof(ab->run_label), "%s%s", s->name, warm ? " warm-up" : "");
    progress_out_clear(&ab->progress);
    if (!ab->opts->common.quiet)
        fprintf(stderr, "spoolsim ab: %s/%u on %s...\n", label, total, s->dir);
    if (fflush(stderr) != 0 && errno == EPIPE)
        interrupt_note(SIGPIPE);
    if (interrupted || set_up(ab, which, i, warm, label) != 0)
        return;
    ab->run_start_ns = clock_now_ns();
    figure = run_one(ab, s, label);
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
        if (!isnan(figure))
            s->good[s->ngood++] = figure;
    }
}

/* ------------------------------------------------------------ the report */

static void print_command(const struct ab_options *o, FILE *fp)
{
    const struct mode *m = o->mode;

    if (m->dir_option == NULL) {
        fprintf(fp, "mode: postmark (spoolsim postmark, the commands of %s), figure: %s\n",
                o->args[0], m->metric);
        return;
    }
    fprintf(fp, "mode: %s (spoolsim %s %s DIR", m->name, m->subcommand, m->dir_option);
    for (int i = 0; i < o->nargs; i++)
        fprintf(fp, " %s", o->args[i]);
    fprintf(fp, "), figure: %s\n", m->metric);
}

/* The verdict line, or why there is none. */
static void verdict_text(const struct ab *ab, const struct ab_result *r, int compared, char *buf,
                         size_t len)
{
    const struct side *few = ab->side[0].ngood < AB_MIN_RUNS ? &ab->side[0] : &ab->side[1];

    if (compared)
        ab_verdict(r, buf, len);
    else
        snprintf(buf, len, "cannot compare: %zu successful run%s of %s, at least %d needed",
                 few->ngood, few->ngood == 1 ? "" : "s", few->name, AB_MIN_RUNS);
}

/* Each side's spread; runs 0 for a side without a successful run. */
static void summarize_sides(const struct ab *ab, struct ab_summary sum[2])
{
    for (int k = 0; k < 2; k++) {
        memset(&sum[k], 0, sizeof(sum[k]));
        if (ab->side[k].ngood)
            ab_summarize(ab->side[k].good, ab->side[k].ngood, &sum[k]);
    }
}

/*
 * With set-ups, what says the toggle did nothing, or not every time: lines
 * ending in "\n", appended to buf. Two sides under the same options on
 * one mount are what an ineffective toggle leaves behind; a setting that
 * is no mount option (an I/O scheduler, a tune2fs feature) leaves it too,
 * hence the advice to look another way.
 */
static void setup_warnings(const struct ab *ab, char *buf, size_t len)
{
    const struct side *a = &ab->side[0], *b = &ab->side[1];
    unsigned same = 0, both = 0;
    const char *options = NULL;
    size_t used = strlen(buf);

    if (!ab->opts->setup[0])
        return;
    for (unsigned i = 0; i < a->done && i < b->done; i++) {
        const struct fsinfo *fa = &a->run_fs[i], *fb = &b->run_fs[i];

        if (!fa->options[0] || !fb->options[0])
            continue;
        both++;
        if (strcmp(fa->options, fb->options) == 0 &&
            strcmp(fa->mount_point, fb->mount_point) == 0 && strcmp(fa->source, fb->source) == 0) {
            same++;
            options = fa->options;
        }
    }
    if (same && used < len)
        used +=
            (size_t)snprintf(buf + used, len - used,
                             "A and B ran under the same mount options (%s) in %u of %u runs: "
                             "the set-ups changed nothing the mount options show (if the setting "
                             "is not a mount option, check it another way)\n",
                             options, same, both);
    for (int k = 0; k < 2; k++) {
        const struct side *s = &ab->side[k];

        for (unsigned i = 1; i < s->done; i++)
            if (strcmp(s->run_fs[i].options, s->run_fs[0].options) != 0) {
                if (used < len)
                    used += (size_t)snprintf(buf + used, len - used,
                                             "%s's runs did not all run under the same mount "
                                             "options: its set-up did not always do the same\n",
                                             s->name);
                break;
            }
    }
}

/* The report's and the JSON's warnings, one a line, each ending in "\n". */
static void all_warnings(const struct ab *ab, const struct ab_summary sum[2],
                         const struct ab_result *r, int compared, char *buf, size_t len)
{
    ab_warnings(&sum[0], &sum[1], compared ? r : NULL, buf, len);
    setup_warnings(ab, buf, len);
}

static void print_report(const struct ab *ab, const struct ab_result *r, int compared, FILE *fp)
{
    const struct ab_options *o = ab->opts;
    const char *unit = o->mode->unit;
    char where[1200], verdict[512], warnings[2048];
    struct ab_summary sum[2];

    summarize_sides(ab, sum);
    if (interrupted)
        interrupt_print_partial(fp);
    print_command(o, fp);
    for (int k = 0; k < 2; k++) {
        fsinfo_describe(&ab->side[k].fs, where, sizeof(where));
        fprintf(fp, "%s: %s\n   %s\n", ab->side[k].name, ab->side[k].dir, where);
        if (fsinfo_note(&ab->side[k].fs))
            fprintf(fp, "   note: %s\n", fsinfo_note(&ab->side[k].fs));
        if (o->setup[k])
            fprintf(fp, "   setup: %s\n", o->setup[k]);
    }
    if (o->prepare)
        fprintf(fp, "prepare: %s\n", o->prepare);
    /* With set-ups the sides are told apart by them: setup_warnings() says whether they were. */
    if (!o->setup[0] && same_filesystem(&ab->side[0], &ab->side[1]))
        fprintf(fp,
                "warning: A and B are on the same filesystem (%s on %s) with the same mount "
                "options: this measures it against itself\n",
                ab->side[0].fs.fstype, ab->side[0].fs.mount_point);
    fprintf(fp, "runs: %u per side, alternating A B, after %u warm-up%s per side (discarded)\n",
            o->runs, o->warmup, o->warmup == 1 ? "" : "s");
    for (unsigned i = 0; i < o->runs; i++) {
        for (int k = 0; k < 2; k++) {
            double f = ab->side[k].figures[i];
            const char *options = ab->side[k].run_fs[i].options;
            char seen[600] = "";

            if (o->setup[0])
                snprintf(seen, sizeof(seen), " (mount options: %s)",
                         options[0] ? options : "unknown");
            if (i >= ab->side[k].done)
                fprintf(fp, "%s run %u: not run (interrupted)\n", ab->side[k].name, i + 1);
            else if (isnan(f))
                fprintf(fp, "%s run %u: failed%s\n", ab->side[k].name, i + 1, seen);
            else
                fprintf(fp, "%s run %u: %.1f %s%s\n", ab->side[k].name, i + 1, f, unit, seen);
        }
    }
    for (int k = 0; k < 2; k++) {
        const struct side *s = &ab->side[k];

        if (s->ngood == 0)
            fprintf(fp, "%s median: none (no successful run)\n", s->name);
        else
            fprintf(fp, "%s median: %.1f %s (%zu run%s)\n", s->name, ab_median(s->good, s->ngood),
                    unit, s->ngood, s->ngood == 1 ? "" : "s");
    }
    for (int k = 0; k < 2; k++) {
        const struct ab_summary *s = &sum[k];

        if (s->runs)
            fprintf(fp, "%s spread: mean %.1f ± %.1f %s (σ), min %.1f, max %.1f\n",
                    ab->side[k].name, s->mean, s->sd, unit, s->min, s->max);
    }
    if (compared)
        fprintf(fp,
                "ratio B/A: %.3f (95 %% CI %.3f–%.3f; bootstrap of the medians, %d resamples, "
                "seed %llu)\n",
                r->ratio, r->ci_low, r->ci_high, AB_RESAMPLES, (unsigned long long)o->seed);
    if (ab->failures)
        fprintf(fp, "failed: %u run%s, warm-ups included (see the messages above)\n", ab->failures,
                ab->failures == 1 ? "" : "s");
    all_warnings(ab, sum, r, compared, warnings, sizeof(warnings));
    for (char *line = warnings, *end; (end = strchr(line, '\n')) != NULL; line = end + 1)
        fprintf(fp, "warning: %.*s\n", (int)(end - line), line);
    verdict_text(ab, r, compared, verdict, sizeof(verdict));
    fprintf(fp, "verdict: %s\n", verdict);
}

static int write_json(const struct ab *ab, const struct ab_result *r, int compared)
{
    const struct ab_options *o = ab->opts;
    FILE *fp = strcmp(o->common.json, "-") == 0 ? stdout : fopen(o->common.json, "w");
    struct json_writer w;
    char verdict[512], warnings[2048];
    struct ab_summary sum[2];
    int status;

    if (fp == NULL)
        return -1;
    summarize_sides(ab, sum);
    json_init(&w, fp);
    json_begin_object(&w, NULL);
    json_meta_write(&w, ab->run);
    json_string(&w, "mode", o->mode->name);
    json_string(&w, "metric", o->mode->metric);
    json_string(&w, "unit", o->mode->unit);
    json_uint(&w, "runs_per_side", o->runs);
    json_uint(&w, "warmup_per_side", o->warmup);
    json_uint(&w, "seed", o->seed);
    json_uint(&w, "resamples", AB_RESAMPLES);
    json_string(&w, "prepare", o->prepare);
    json_bool(&w, "same_filesystem", same_filesystem(&ab->side[0], &ab->side[1]));
    json_begin_object(&w, "sides");
    for (int k = 0; k < 2; k++) {
        const struct side *s = &ab->side[k];

        json_begin_object(&w, s->name);
        json_meta_write_spool(&w, "spool", s->dir, &s->fs);
        json_string(&w, "setup", o->setup[k]);
        json_begin_array(&w, "runs");
        for (unsigned i = 0; i < o->runs; i++)
            json_double(&w, NULL, s->figures[i]); /* a failed run, NAN, is null */
        json_end_array(&w);
        json_begin_array(&w, "run_details");
        for (unsigned i = 0; i < o->runs; i++) {
            json_begin_object(&w, NULL);
            json_double(&w, "figure", s->figures[i]);
            json_string(&w, "setup", o->setup[k]);
            json_string(&w, "prepare", o->prepare);
            json_meta_write_spool(&w, "spool", s->dir, &s->run_fs[i]);
            json_end_object(&w);
        }
        json_end_array(&w);
        json_uint(&w, "successful_runs", s->ngood);
        json_double(&w, "median", s->ngood ? sum[k].median : NAN);
        json_double(&w, "mean", s->ngood ? sum[k].mean : NAN);
        json_double(&w, "stddev", s->ngood ? sum[k].sd : NAN);
        json_double(&w, "min", s->ngood ? sum[k].min : NAN);
        json_double(&w, "max", s->ngood ? sum[k].max : NAN);
        json_end_object(&w);
    }
    json_end_object(&w);
    json_double(&w, "ratio", compared ? r->ratio : NAN);
    json_double(&w, "ci_low", compared ? r->ci_low : NAN);
    json_double(&w, "ci_high", compared ? r->ci_high : NAN);
    json_string(&w, "outcome",
                !compared                   ? "none"
                : r->outcome == AB_B_SLOWER ? "b_slower"
                : r->outcome == AB_B_FASTER ? "b_faster"
                                            : "no_difference");
    verdict_text(ab, r, compared, verdict, sizeof(verdict));
    json_string(&w, "verdict", verdict);
    json_uint(&w, "failed_runs", ab->failures);
    all_warnings(ab, sum, r, compared, warnings, sizeof(warnings));
    json_begin_array(&w, "warnings");
    for (char *line = warnings, *end; (end = strchr(line, '\n')) != NULL; line = end + 1) {
        *end = '\0';
        json_string(&w, NULL, line);
    }
    json_end_array(&w);
    json_end_object(&w);
    status = json_finish(&w);
    status |= fp == stdout ? fflush(fp) : fclose(fp);
    return status;
}

/* --export-markdown or --export-csv: 0, or -1 with errno. */
static int write_export(const struct ab *ab, const struct ab_result *r, int compared,
                        const char *path, int markdown)
{
    struct ab_export e = {.unit = ab->opts->mode->unit, .result = compared ? r : NULL};
    FILE *fp;
    char *text;
    int status;

    for (int k = 0; k < 2; k++)
        e.dir[k] = ab->side[k].dir;
    summarize_sides(ab, e.side);
    text = markdown ? ab_export_markdown(&e) : ab_export_csv(&e);
    fp = strcmp(path, "-") == 0 ? stdout : fopen(path, "w");
    if (fp == NULL) {
        free(text);
        return -1;
    }
    fputs(text, fp);
    free(text);
    status = ferror(fp) ? -1 : 0;
    status |= fp == stdout ? fflush(fp) : fclose(fp);
    return status == 0 ? 0 : -1;
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
    else if (same_filesystem(a, b))
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

    json_run_init(&run, "spoolsim ab", "spoolsim", argc, argv);
    parse_options(&opts, argc, argv);
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
    interrupt_install();

    progress_out_init(&ab.progress, stderr, opts.common.progress);
    progress_out_hook_messages(&ab.progress);
    ab.runs_total = 2 * (opts.warmup + opts.runs);
    ab.start_ns = clock_now_ns();
    drive_make_work_dir(&ab.d, NULL, "TMPDIR", "ab");
    if (!opts.common.quiet)
        fprintf(stderr, "spoolsim ab: %s, %u warm-up%s and %u runs per side, alternating A B\n",
                opts.mode->name, opts.warmup, opts.warmup == 1 ? "" : "s", opts.runs);
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
    drive_remove_work(&ab.d);

    compared = ab_compare(ab.side[0].good, ab.side[0].ngood, ab.side[1].good, ab.side[1].ngood,
                          opts.seed, &result) == 0;
    if (interrupt_signal() != SIGPIPE)
        print_report(&ab, &result, compared, stdout);
    /* A partial comparison's JSON would read as a whole one: none is written. */
    if (opts.common.json && !interrupted && write_json(&ab, &result, compared) != 0) {
        msg_warn("cannot write %s: %s", opts.common.json, strerror(errno));
        status = 1;
    }
    if (opts.export_markdown && !interrupted &&
        write_export(&ab, &result, compared, opts.export_markdown, 1) != 0) {
        msg_warn("cannot write %s: %s", opts.export_markdown, strerror(errno));
        status = 1;
    }
    if (opts.export_csv && !interrupted &&
        write_export(&ab, &result, compared, opts.export_csv, 0) != 0) {
        msg_warn("cannot write %s: %s", opts.export_csv, strerror(errno));
        status = 1;
    }
    if (interrupt_flush_stdout() != 0)
        status = 1;
    for (int k = 0; k < 2; k++) {
        free(ab.side[k].figures);
        free(ab.side[k].good);
        free(ab.side[k].run_fs);
    }
    free(ab.commands);
    json_run_free(&run);
    if (interrupted)
        return interrupt_exit_status();
    return ab.failures ? 1 : status;
}
