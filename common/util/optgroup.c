/*
 * optgroup - the option groups several commands share; see optgroup.h.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fileutil.h"
#include "msg.h"
#include "optarg.h"
#include "optgroup.h"
#include "progress.h"
#include "workload.h"

/* Values of the group options without a letter: above any command's own (256 up). */
enum {
    CODE_SIZE = 0x1000,
    CODE_JSON,
    CODE_INTERVAL,
    CODE_CSV,
    CODE_KEEP,
    CODE_PROGRESS,
    CODE_NO_PROGRESS,
    CODE_VERSION,
    CODE_SEED,
    CODE_DRY_RUN,
    CODE_WORKLOAD,
    CODE_SCALE,
    CODE_PEAK,
    CODE_REPLAY,
};

struct entry {
    unsigned group;
    struct option opt;
    const char *label; /* --help's left column; NULL: said on another entry's line */
    const char *text;  /* its description; a %s, if any, is the default (default_text()) */
};

/* Every group option, in --help's order. */
static const struct entry entries[] = {
    {OPTGROUP_LENGTH,
     {"duration", required_argument, NULL, 'd'},
     "-d, --duration TIME",
     "how long to offer messages (%s)"},
    {OPTGROUP_LENGTH,
     {"messages", required_argument, NULL, 'm'},
     "-m, --messages N",
     "offer N messages instead, 1 to 1000000000 (not with -d)"},
    {OPTGROUP_SESSIONS,
     {"sessions", required_argument, NULL, 's'},
     "-s, --sessions N",
     "concurrent client sessions, 1 to 10000 (%s)"},
    {OPTGROUP_SIZE,
     {"size", required_argument, NULL, CODE_SIZE},
     "--size DIST",
     "message size (%s): N, uniform:LO:HI or lognormal:MEDIAN:SIGMA[:MAX], at "
     "most " OPTARG_SIZE_MAX_TEXT},
    {OPTGROUP_RCPTS,
     {"rcpts", required_argument, NULL, 'r'},
     "-r, --rcpts N",
     "recipients per message, 1 to 1000 (%s)"},
    {OPTGROUP_SEED, {"seed", required_argument, NULL, CODE_SEED}, "--seed N", "seed of %s"},
    {OPTGROUP_DRY_RUN,
     {"dry-run", no_argument, NULL, CODE_DRY_RUN},
     "--dry-run",
     "make every check a run makes before it starts, say what would run and exit 0, or 2 "
     "naming the problem: nothing is started, written or made"},
    {OPTGROUP_JSON,
     {"json", required_argument, NULL, CODE_JSON},
     "--json FILE",
     "also write the results as JSON (- = stdout)"},
    {OPTGROUP_TIMELINE,
     {"interval", required_argument, NULL, CODE_INTERVAL},
     "--interval TIME",
     "one timeline row every TIME, 10ms to 1h (%s)"},
    {OPTGROUP_TIMELINE,
     {"csv", required_argument, NULL, CODE_CSV},
     "--csv FILE",
     "write the timeline as CSV (- = stdout)"},
    {OPTGROUP_KEEP,
     {"keep", no_argument, NULL, CODE_KEEP},
     "--keep",
     "keep the work directory (spool, logs, reports)"},
    {OPTGROUP_PROGRESS,
     {"progress", no_argument, NULL, CODE_PROGRESS},
     "--progress",
     "a status line every second on standard error%s: in place on a terminal (the default "
     "there, unless -q), else as plain lines \"progress: ...\""},
    {OPTGROUP_PROGRESS,
     {"no-progress", no_argument, NULL, CODE_NO_PROGRESS},
     "--no-progress",
     "no status line, even on a terminal"},
    {OPTGROUP_QUIET,
     {"quiet", no_argument, NULL, 'q'},
     "-q, --quiet",
     "no progress notices, only the results%s"},
    {OPTGROUP_HELP, {"help", no_argument, NULL, 'h'}, "-h, --help, --version", NULL},
    {OPTGROUP_HELP, {"version", no_argument, NULL, CODE_VERSION}, NULL, NULL},
    {OPTGROUP_LOAD_FILE,
     {"workload", required_argument, NULL, CODE_WORKLOAD},
     "--workload FILE",
     "sizes, recipients and the rate from a workload file (spoolsim workload "
     "--from-maillog), passed to smtp-source; not with --size or -r"},
    {OPTGROUP_LOAD_SHAPE,
     {"scale", required_argument, NULL, CODE_SCALE},
     "--scale K",
     "--workload: K times its rate (1)"},
    {OPTGROUP_LOAD_SHAPE,
     {"peak", no_argument, NULL, CODE_PEAK},
     "--peak",
     "--workload: its busiest minute's rate, not its mean"},
    {OPTGROUP_LOAD_SHAPE,
     {"replay", optional_argument, NULL, CODE_REPLAY},
     "--replay[=FACTOR]",
     "--workload: its arrivals minute by minute, FACTOR times faster (1)"},
};

#define N_ENTRIES (sizeof(entries) / sizeof(entries[0]))

static void add_option(struct optgroup *g, size_t *n, const struct option *o)
{
    for (size_t i = 0; i < *n; i++)
        if (strcmp(g->table[i].name, o->name) == 0)
            msg_panic("option --%s given twice", o->name);
    if (*n + 1 >= OPTGROUP_TABLE_MAX)
        msg_panic("more than %d options", OPTGROUP_TABLE_MAX - 1);
    g->table[(*n)++] = *o;
}

static void add_letter(struct optgroup *g, int letter, int has_arg)
{
    size_t len = strlen(g->shortopts);

    if (strchr(g->shortopts, letter) != NULL)
        msg_panic("option -%c given twice", letter);
    if (len + 3 > OPTGROUP_SHORT_MAX)
        msg_panic("too many option letters");
    g->shortopts[len++] = (char)letter;
    if (has_arg == required_argument)
        g->shortopts[len++] = ':';
    g->shortopts[len] = 0;
}

void optgroup_values_defaults(struct optgroup_values *v)
{
    memset(v, 0, sizeof(*v));
    v->duration = 10;
    v->sessions = 20;
    v->size = "1024";
    v->rcpts = 1;
    v->interval = 1;
    v->seed = 1;
    v->progress = -1;
    v->scale = 1;
}

void optgroup_init(struct optgroup *g, struct optgroup_values *v, unsigned groups,
                   const char *own_short, const struct option *own, const char *name,
                   void (*usage)(FILE *fp, const struct optgroup *g))
{
    size_t n = 0;

    memset(g, 0, sizeof(*g));
    g->name = name;
    g->groups = groups;
    g->usage = usage;
    g->v = v;
    optgroup_values_defaults(v);
    if ((groups & OPTGROUP_PROGRESS) && !(groups & OPTGROUP_QUIET))
        msg_panic("%s: --progress without -q", name);
    for (; own->name != NULL; own++)
        add_option(g, &n, own);
    for (const char *s = own_short; *s; s++)
        if (*s != ':')
            add_letter(g, *s, s[1] == ':' ? required_argument : no_argument);
    for (size_t i = 0; i < N_ENTRIES; i++) {
        if (!(entries[i].group & groups))
            continue;
        add_option(g, &n, &entries[i].opt);
        if (entries[i].opt.val < 256)
            add_letter(g, entries[i].opt.val, entries[i].opt.has_arg);
    }
    memset(&g->table[n], 0, sizeof(g->table[n]));
    optind = 1;
}

int optgroup_getopt(struct optgroup *g, int argc, char *const argv[])
{
    struct optgroup_values *v = g->v;
    struct size_dist dist;
    int ch;

    g->argc = argc;
    g->argv = argv;
    while ((ch = optarg_getopt_old(argc, argv, g->shortopts, g->table, g->old)) != -1) {
        switch (ch) {
        case 'd':
            if (!(g->groups & OPTGROUP_LENGTH))
                return ch;
            v->duration = optarg_seconds_positive(optarg, "--duration", OPTARG_LONG_MAX);
            g->duration_given = 1;
            break;
        case 'm':
            if (!(g->groups & OPTGROUP_LENGTH))
                return ch;
            v->messages = optarg_count(optarg, "--messages", 1, OPTGROUP_MESSAGES_MAX);
            break;
        case 's':
            if (!(g->groups & OPTGROUP_SESSIONS))
                return ch;
            v->sessions = (unsigned)optarg_count(optarg, "--sessions", 1, 10000);
            break;
        case 'r':
            if (!(g->groups & OPTGROUP_RCPTS))
                return ch;
            v->rcpts = (unsigned)optarg_count(optarg, "--rcpts", 1, 1000);
            g->rcpts_given = 1;
            break;
        case 'q':
            if (!(g->groups & OPTGROUP_QUIET))
                return ch;
            v->quiet = 1;
            break;
        case 'h':
            if (!(g->groups & OPTGROUP_HELP))
                return ch;
            g->usage(stdout, g);
            exit(0);
        case CODE_SIZE:
            optarg_size_dist(optarg, "--size", &dist);
            v->size = optarg;
            g->size_given = 1;
            break;
        case CODE_WORKLOAD:
            v->workload = optarg;
            break;
        case CODE_SCALE:
            v->scale = optarg_factor(optarg, "--scale");
            g->shape_given = 1;
            break;
        case CODE_PEAK:
            v->peak = g->shape_given = 1;
            break;
        case CODE_REPLAY:
            v->replay = optarg ? optarg_factor(optarg, "--replay") : 1;
            g->shape_given = 1;
            break;
        case CODE_JSON:
            v->json = optarg_output_file(optarg, "--json");
            break;
        case CODE_INTERVAL:
            v->interval = optarg_interval(optarg, "--interval");
            break;
        case CODE_CSV:
            v->csv = optarg_output_file(optarg, "--csv");
            break;
        case CODE_SEED:
            v->seed = optarg_count(optarg, "--seed", 0, UINT64_MAX);
            break;
        case CODE_DRY_RUN:
            v->dry_run = 1;
            break;
        case CODE_KEEP:
            v->keep = 1;
            break;
        case CODE_PROGRESS:
        case CODE_NO_PROGRESS:
            v->progress = ch == CODE_PROGRESS;
            break;
        case CODE_VERSION:
            printf("%s %s\n", g->name, PACKAGE_VERSION);
            exit(0);
        default:
            return ch;
        }
    }
    if (v->json && v->csv && optarg_same_output(v->json, v->csv))
        msg_usage("--json and --csv name the same file, %s: one would overwrite the other", v->csv);
    return -1;
}

void optgroup_end(struct optgroup *g)
{
    struct optgroup_values *v = g->v;

    if ((g->groups & OPTGROUP_NO_OPERANDS) && optind < g->argc)
        msg_usage("unexpected argument \"%s\"", g->argv[optind]);
    if (g->duration_given && v->messages)
        msg_usage("--messages and --duration cannot be combined (a count or a time, not both)");
    if (g->groups & OPTGROUP_PROGRESS)
        v->progress = progress_want(v->progress, v->quiet);
    if (v->workload && g->size_given)
        msg_usage("--workload draws the sizes: not with --size");
    if (v->workload && g->rcpts_given)
        msg_usage("--workload draws the recipients: not with -r");
    if (!v->workload && g->shape_given)
        msg_usage(
            "--scale, --peak and --replay shape a --workload's arrivals: give --workload FILE");
    if (v->peak && v->replay > 0)
        msg_usage("--peak and --replay cannot be combined (the busiest minute, or every minute)");
}

void optgroup_dry_run_done(const char *fmt, ...)
{
    va_list ap;

    printf("%s: dry run: ", msg_progname());
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    putchar('\n');
    exit(fflush(stdout) != 0 || ferror(stdout) ? 1 : 0);
}

/* What stands for the %s of an entry's text, in buf: its default, or a variant. */
static void default_text(const struct optgroup *g, const struct entry *e, char *buf, size_t len)
{
    const struct optgroup_values *v = g->v;

    *buf = 0;
    switch (e->opt.val) {
    case 'd':
        snprintf(buf, len, "%gs", v->duration);
        break;
    case 's':
        snprintf(buf, len, "%u", v->sessions);
        break;
    case 'r':
        snprintf(buf, len, "%u", v->rcpts);
        break;
    case CODE_SIZE:
        snprintf(buf, len, "%s", v->size);
        break;
    case CODE_INTERVAL:
        snprintf(buf, len, "%gs", v->interval);
        break;
    case CODE_SEED:
        snprintf(buf, len, "%s, 0 to 2^64 - 1 (%llu)", g->seed_what ? g->seed_what : "the run",
                 (unsigned long long)v->seed);
        break;
    case CODE_PROGRESS:
        if (g->progress_what)
            snprintf(buf, len, ", %s", g->progress_what);
        break;
    case 'q':
        if (g->groups & OPTGROUP_PROGRESS)
            snprintf(buf, len, " (nor a status line, unless --progress)");
        break;
    }
}

void optgroup_help_line(FILE *fp, const char *label, const char *text, int width)
{
    const int right = 79, left = 2 + width + 1;
    int col;

    col = fprintf(fp, "  %s", label);
    if (text == NULL || *text == 0) {
        fputc('\n', fp);
        return;
    }
    if (col >= left) {
        fputc('\n', fp);
        col = 0;
    }
    fprintf(fp, "%*s", left - col, "");
    col = left;
    while (*text) {
        size_t word = strcspn(text, " ");

        if (col > left && col + 1 + (int)word > right) {
            fprintf(fp, "\n%*s", left, "");
            col = left;
        } else if (col > left) {
            fputc(' ', fp);
            col++;
        }
        fprintf(fp, "%.*s", (int)word, text);
        col += (int)word;
        text += word;
        text += strspn(text, " ");
    }
    fputc('\n', fp);
}

void optgroup_help(FILE *fp, const struct optgroup *g, unsigned which, int width)
{
    char text[512], dflt[256];

    for (size_t i = 0; i < N_ENTRIES; i++) {
        const struct entry *e = &entries[i];

        if (!(e->group & which & g->groups) || e->label == NULL)
            continue;
        default_text(g, e, dflt, sizeof(dflt));
        snprintf(text, sizeof(text), e->text ? e->text : "", dflt);
        optgroup_help_line(fp, e->label, text, width);
    }
}

void optgroup_forget_results(const struct optgroup_values *v)
{
    const char *paths[] = {v->json, v->csv};

    for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
        if (fileutil_output_forget(paths[i]) != 0)
            msg_fatal("cannot remove the earlier result %s: %s", paths[i], strerror(errno));
}
