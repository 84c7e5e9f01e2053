/*
 * ab_options - the command line of `spoolsim ab'; see ab.h.
 */
#include "config.h"

#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ab.h"
#include "msg.h"
#include "optarg.h"
#include "optgroup.h"

static const struct mode modes[] = {
    {"raw",
     "raw",
     "--spool",
     "delivered_per_s",
     "msgs/s",
     {"--spool", "--dir", "--json", "--keep", "--dry-run"}},
    {"relay",
     "bench",
     "--spool",
     "delivered_per_s",
     "msgs/s",
     {"--spool", "--json", "--keep", "--discard", "--dry-run"}},
    {"postmark", "postmark", NULL, "transactions_per_s", "transactions/s", {NULL}},
};

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
          "  raw ARGS...      spoolsim raw --spool DIR ARGS...      (delivered_per_s)\n"
          "  relay ARGS...    spoolsim bench --spool DIR ARGS...    (delivered_per_s)\n"
          "  postmark FILE    the PostMark commands of FILE up to quit, in a fresh\n"
          "                   directory in DIR; ab gives the run, set location and\n"
          "                   set json commands itself              (transactions_per_s)\n"
          "\n"
          "Options:\n"
          "  -n, --runs N     measured runs per side (5, at least 2)\n"
          "  --warmup-runs N  runs per side discarded first (1)\n"
          "  --export-markdown FILE  the two sides as a Markdown table (- = stdout)\n"
          "  --export-csv FILE       the two sides as CSV (- = stdout)\n"
          "  --setup-a CMD    run CMD (/bin/sh -c) before every run of A; it must\n"
          "                   succeed (e.g. mount -o remount,nodirsync DIR)\n"
          "  --setup-b CMD    the same for B; both or neither\n"
          "  --prepare CMD    run CMD before every run of either side, after its set-up\n"
          "                   (e.g. sync; echo 3 > /proc/sys/vm/drop_caches)\n"
          "  --crash N        MODE relay only: after the runs, spoolsim crash on each\n"
          "                   side, N crash points on an image made like the side's\n"
          "                   filesystem and mount options (--spool DIR, after its\n"
          "                   set-up), under the load of ARGS (its length, sessions,\n"
          "                   sizes, --profile, --sync, --model, --mta); root only\n"
          "  --compare MTA    MODE relay only, as root: the whole comparison twice, with\n"
          "                   the relay's model of MTA (postfix or exim) and with the\n"
          "                   real MTA (bench --mta), then the predicted B/A beside the\n"
          "                   real one and whether they agree within +-10 %\n",
          fp);
    optgroup_help(fp, g, OPTGROUP_SEED | OPTGROUP_OUTPUT, 16);
    fputs("\n"
          "Exit status: 0 when every run worked, whichever side is faster (and\n"
          "whichever loses mail); 1 if the JSON or an export could not be written; 2\n"
          "for a usage error; 3 if a run, a crash test or a set-up failed; 130 or 143\n"
          "after SIGINT or SIGTERM (the runs so far are\n"
          "reported, marked partial).\n",
          fp);
}

enum {
    OPT_WARMUP = 256,
    OPT_EXPORT_MARKDOWN,
    OPT_EXPORT_CSV,
    OPT_SETUP_A,
    OPT_SETUP_B,
    OPT_PREPARE,
    OPT_CRASH,
    OPT_COMPARE,
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

/*
 * The value of option `name' in ARGS (--name VALUE or --name=VALUE, or
 * with `short_name' -x VALUE or -xVALUE), the last one given as getopt
 * would take it; NULL if absent. short_name 0: a long option alone.
 */
static const char *args_option(const struct ab_options *o, const char *name, char short_name)
{
    const char *value = NULL;
    size_t len = strlen(name);

    for (int i = 0; i < o->nargs; i++) {
        const char *a = o->args[i];

        if (short_name && a[0] == '-' && a[1] == short_name) {
            if (a[2] != 0)
                value = a + 2;
            else if (i + 1 < o->nargs)
                value = o->args[++i];
            continue;
        }
        if (strncmp(a, name, len) != 0)
            continue;
        if (a[len] == '=')
            value = a + len + 1;
        else if (a[len] == 0 && i + 1 < o->nargs)
            value = o->args[++i];
    }
    return value;
}

static const char *args_value(const struct ab_options *o, const char *name)
{
    return args_option(o, name, 0);
}

/* MODE relay's options that shape its load and that spoolsim crash takes too, as given. */
static const struct {
    const char *name;
    char short_name;
} crash_carried[] = {
    {"--sessions", 's'}, {"--size", 0},  {"--rcpts", 'r'}, {"--profile", 0},
    {"--sync", 0},       {"--model", 0}, {"--mta", 0},
};

/* Those that shape it and that spoolsim crash has no equivalent for. */
static const char *const crash_not_carried[] = {
    "--workload",    "--scale",           "--peak",         "--replay",          "--reuse",
    "--rate",        "--arrivals",        "--qmgr",         "--cleanup-threads", "--relay-threads",
    "--concurrency", "--harness-threads", "--tls",          "--hop-delay",       "--hop-jitter",
    "--hop-loss",    "--hop-rate",        "--client-delay", "--client-jitter",   NULL,
};

static void crash_load_add(struct ab_crash_load *l, const char *option, const char *value)
{
    if (l->n + 2 >= (int)(sizeof(l->v) / sizeof(l->v[0])))
        msg_panic("--crash: more load options than room for them");
    l->v[l->n++] = option;
    l->v[l->n++] = value;
}

/*
 * --crash: the crash test runs the relay on the load the A/B measured:
 * MODE relay's length, sessions, sizes, recipients, profile, sync policy,
 * model and real MTA, with bench's own defaults where ARGS leave them (a
 * crash test's own are shorter). What it cannot reproduce is named, not
 * dropped in silence.
 */
static void crash_options(struct ab_options *o)
{
    struct ab_crash_load *l = &o->crash_load;
    struct optgroup_values bench_defaults;
    const char *messages = args_option(o, "--messages", 'm');
    const char *duration = args_option(o, "--duration", 'd');

    if (strcmp(o->mode->name, "relay") != 0)
        msg_usage("--crash needs MODE relay: the crash test runs spoolsim relay on each side's "
                  "filesystem (MODE %s runs no relay)",
                  o->mode->name);
    o->crash_profile = args_value(o, "--profile");
    o->crash_sync = args_value(o, "--sync");
    optgroup_values_defaults(&bench_defaults);
    if (messages) {
        crash_load_add(l, "--messages", messages);
    } else {
        snprintf(l->duration, sizeof(l->duration), "%gs", bench_defaults.duration);
        crash_load_add(l, "--duration", duration ? duration : l->duration);
    }
    snprintf(l->sessions, sizeof(l->sessions), "%u", bench_defaults.sessions);
    if (args_option(o, "--sessions", 's') == NULL)
        crash_load_add(l, "--sessions", l->sessions);
    for (size_t i = 0; i < sizeof(crash_carried) / sizeof(crash_carried[0]); i++) {
        const char *value = args_option(o, crash_carried[i].name, crash_carried[i].short_name);

        if (value)
            crash_load_add(l, crash_carried[i].name, value);
    }
    for (const char *const *n = crash_not_carried; *n; n++)
        for (int i = 0; i < o->nargs; i++)
            if (is_option(o->args[i], *n)) {
                size_t used = strlen(l->left_out);

                snprintf(l->left_out + used, sizeof(l->left_out) - used, "%s%s", used ? ", " : "",
                         *n);
                break;
            }
    if (l->left_out[0])
        msg_warn("--crash: the crash tests run the A/B's load without %s (spoolsim crash has "
                 "no equivalent)",
                 l->left_out);
}

/* --compare's MTAs; "none" is the comparison's own runs. */
static const char *const compare_names[] = {"postfix", "exim", "none", NULL};

/*
 * --compare runs ab twice as child processes, the second with ARGS
 * --mta MTA: MODE relay only, each child's report its own (the exports
 * would be the second's alone), and a real MTA needs root.
 */
static void compare_options(struct ab_options *o)
{
    if (strcmp(o->compare, "none") == 0) {
        o->compare = NULL;
        return;
    }
    if (strcmp(o->mode->name, "relay") != 0)
        msg_usage("--compare needs MODE relay: it runs the relay's model and the real %s "
                  "(MODE %s runs neither)",
                  o->compare, o->mode->name);
    if (o->export_markdown || o->export_csv || o->crash)
        msg_usage("--compare runs ab twice: --export-markdown, --export-csv and --crash go "
                  "with one of the two (run it again without --compare)");
    if (args_value(o, "--mta") || args_value(o, "--compare"))
        msg_usage("--compare gives bench --mta itself: not --mta or --compare in ARGS");
    if (geteuid() != 0)
        msg_usage("--compare %s needs root: the real %s runs as it does on a mail host", o->compare,
                  o->compare);
}

/* --warmup, before the one vocabulary (docs/design.md): sweep's --warmup is a time. */
static const struct optarg_old old_spellings[] = {{"--warmup", "--warmup-runs"}, {NULL, NULL}};

void ab_options_parse(struct ab_options *o, int argc, char **argv)
{
    static const struct option long_options[] = {
        {"runs", required_argument, NULL, 'n'},
        {"warmup-runs", required_argument, NULL, OPT_WARMUP},
        {"warmup", required_argument, NULL, OPT_WARMUP},
        {"export-markdown", required_argument, NULL, OPT_EXPORT_MARKDOWN},
        {"export-csv", required_argument, NULL, OPT_EXPORT_CSV},
        {"setup-a", required_argument, NULL, OPT_SETUP_A},
        {"setup-b", required_argument, NULL, OPT_SETUP_B},
        {"prepare", required_argument, NULL, OPT_PREPARE},
        {"crash", required_argument, NULL, OPT_CRASH},
        {"compare", required_argument, NULL, OPT_COMPARE},
        {NULL, 0, NULL, 0},
    };
    struct optgroup g;
    int ch, dashes, ndirs;

    memset(o, 0, sizeof(*o));
    optgroup_init(&g, &o->common,
                  OPTGROUP_SEED | OPTGROUP_JSON | OPTGROUP_PROGRESS | OPTGROUP_QUIET |
                      OPTGROUP_HELP | OPTGROUP_DRY_RUN,
                  "n:", long_options, "spoolsim ab", usage);
    g.old = old_spellings;
    g.progress_what = "the run, its side, the run's own line and the ETA";
    g.seed_what = "the bootstrap's random numbers";
    o->runs = 5;
    o->warmup = 1;
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
            o->warmup = (unsigned)optarg_count(optarg, "--warmup-runs", 0, MAX_RUNS);
            break;
        case OPT_EXPORT_MARKDOWN:
            o->export_markdown = optarg_output_file(optarg, "--export-markdown");
            break;
        case OPT_EXPORT_CSV:
            o->export_csv = optarg_output_file(optarg, "--export-csv");
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
        case OPT_CRASH:
            o->crash = (unsigned)optarg_count(optarg, "--crash", 1, 100000);
            break;
        case OPT_COMPARE:
            /* none: what ab --compare's own runs are given, after the user's options */
            o->compare = compare_names[optarg_choice(optarg, "--compare", compare_names)];
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
    o->dir[0] = optarg_dir(argv[optind], o->one_dir ? "DIR" : "DIR_A");
    o->dir[1] = optarg_dir(argv[optind + ndirs - 1], o->one_dir ? "DIR" : "DIR_B");
    parse_mode(o, argc, argv, dashes);
    if (o->crash)
        crash_options(o);
    if (o->compare)
        compare_options(o);
    o->opts_end = optind; /* getopt has put ab's options before the directories */
    optgroup_end(&g);
}
