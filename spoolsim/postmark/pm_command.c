/*
 * pm_command - PostMark's command language; see pm_command.h.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileutil.h"
#include "interrupt.h"
#include "pm_command.h"
#include "pm_report.h"
#include "pm_workers.h"
#include "xalloc.h"

typedef int (*pm_handler)(struct pm_session *s, const char *param);

struct pm_command {
    const char *name;
    const char *help;
    pm_handler handler;
};

static int cmd_help(struct pm_session *s, const char *param);

/*
 * A command refused, counted so that the file it came from does not run.
 * From a file it is said as FILE:LINE: WHAT; typed at the prompt, in
 * PostMark's words, "Error: WHAT".
 */
#define PM_PRINTF(f, a) __attribute__((format(printf, f, a)))

static void PM_PRINTF(2, 3) pm_error(struct pm_session *s, const char *fmt, ...)
{
    va_list ap;

    s->errors++;
    if (s->file)
        fprintf(s->err, "%s:%u: ", s->file, s->line);
    else
        fputs("Error: ", s->err);
    va_start(ap, fmt);
    vfprintf(s->err, fmt, ap);
    va_end(ap);
    fputc('\n', s->err);
}

/* ------------------------------------------------------------------- set */

static int set_size(struct pm_session *s, const char *param)
{
    int low = param ? atoi(param) : 0;
    const char *space;
    int high;

    if (low <= 0) {
        pm_error(s, "no file size low or high bounds specified");
        return 0;
    }
    space = strchr(param, ' ');
    high = space ? atoi(space) : 0;
    /* PostMark 1.53 took such a pair as the low bound alone, without a word */
    if (space && high < low) {
        pm_error(s, "the high bound of the file size is below the low one");
        return 0;
    }
    s->cfg.size_low = (uint32_t)low;
    s->cfg.size_high = high > 0 ? (uint32_t)high : (uint32_t)low;
    return 0;
}

/* The "set X N" commands whose value must be positive. */
static int set_positive(struct pm_session *s, const char *param, uint32_t *field, const char *error)
{
    int value = param ? atoi(param) : 0;

    if (value <= 0)
        pm_error(s, "%s", error);
    else
        *field = (uint32_t)value;
    return 0;
}

static int set_number(struct pm_session *s, const char *param)
{
    return set_positive(s, param, &s->cfg.number, "invalid number of files");
}

static int set_seed(struct pm_session *s, const char *param)
{
    return set_positive(s, param, &s->cfg.seed, "invalid seed for random numbers");
}

static int set_transactions(struct pm_session *s, const char *param)
{
    return set_positive(s, param, &s->cfg.transactions, "no transactions specified");
}

static int set_read(struct pm_session *s, const char *param)
{
    return set_positive(s, param, &s->cfg.read_block, "invalid read block size");
}

static int set_write(struct pm_session *s, const char *param)
{
    return set_positive(s, param, &s->cfg.write_block, "invalid write block size");
}

static int set_subdirectories(struct pm_session *s, const char *param)
{
    int value = param ? atoi(param) : -1;

    /* PostMark refuses 0 once changed; 0 and 1 both mean "none", so accept it. */
    if (value < 0 || (param && value == 0 && strspn(param, " 0") != strlen(param)))
        pm_error(s, "invalid number of subdirectories");
    else
        s->cfg.subdirectories = (uint32_t)value;
    return 0;
}

/* A setting of two words: `one' sets *field to 1, `zero' to 0; anything else is `error'. */
static int set_either(struct pm_session *s, const char *param, const char *one, const char *zero,
                      int *field, const char *error)
{
    if (param && strcmp(param, one) == 0)
        *field = 1;
    else if (param && strcmp(param, zero) == 0)
        *field = 0;
    else
        pm_error(s, "%s", error);
    return 0;
}

static int set_buffering(struct pm_session *s, const char *param)
{
    return set_either(s, param, "true", "false", &s->cfg.buffered,
                      "no buffering mode (true/false) specified");
}

static int set_bias(struct pm_session *s, const char *param, int *field)
{
    int value = param ? atoi(param) : -2;

    if (param == NULL || value < -1 || value > 10)
        pm_error(s, "no bias specified (0-10 for greater chance,-1 to disable)");
    else
        *field = value;
    return 0;
}

static int set_bias_read(struct pm_session *s, const char *param)
{
    return set_bias(s, param, &s->cfg.bias_read);
}

static int set_bias_create(struct pm_session *s, const char *param)
{
    return set_bias(s, param, &s->cfg.bias_create);
}

static int set_report(struct pm_session *s, const char *param)
{
    return set_either(s, param, "terse", "verbose", &s->cfg.terse,
                      "either 'verbose' or 'terse' required");
}

static void add_location(struct pm_session *s, const char *dir, unsigned weight)
{
    struct pm_config *cfg = &s->cfg;

    cfg->locations = xrealloc(cfg->locations, (cfg->nlocations + 1) * sizeof(*cfg->locations));
    cfg->locations[cfg->nlocations].dir = xstrdup(dir);
    cfg->locations[cfg->nlocations].weight = weight;
    cfg->nlocations++;
}

static void clear_locations(struct pm_config *cfg)
{
    for (unsigned i = 0; i < cfg->nlocations; i++)
        free(cfg->locations[i].dir);
    cfg->nlocations = 0;
}

/* "DIR [W]", "+DIR [W]" or "-DIR". */
static int set_location(struct pm_session *s, const char *param)
{
    char *dir, *space;
    int mode = 0, weight = 1;
    struct stat st;

    if (param == NULL || *param == 0) {
        pm_error(s, "no directory name specified");
        return 0;
    }
    if (*param == '+' || *param == '-')
        mode = *param++;
    dir = xstrdup(param);
    if (mode != '-' && (space = strrchr(dir, ' ')) != NULL) {
        /* The weight is the text after the last space, as in PostMark. */
        weight = atoi(space + 1);
        if (weight <= 0) {
            pm_error(s, "ignoring invalid weight '%s'", space + 1);
            weight = 1;
        }
        *space = 0;
    }
    if (mode == '-') {
        struct pm_config *cfg = &s->cfg;
        unsigned i;

        for (i = 0; i < cfg->nlocations && strcmp(cfg->locations[i].dir, dir) != 0; i++)
            ;
        if (i == cfg->nlocations) {
            pm_error(s, "cannot find location '%s'", dir);
        } else {
            free(cfg->locations[i].dir);
            memmove(cfg->locations + i, cfg->locations + i + 1,
                    (cfg->nlocations - i - 1) * sizeof(*cfg->locations));
            cfg->nlocations--;
        }
    } else if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        pm_error(s, "cannot find location '%s'", dir);
    } else {
        if (mode == 0)
            clear_locations(&s->cfg);
        add_location(s, dir, (unsigned)weight);
    }
    free(dir);
    return 0;
}

static int set_sync(struct pm_session *s, const char *param)
{
    if (param == NULL || pm_fs_sync_parse(param, &s->sync) != 0)
        pm_error(s, "sync must be none, fsync, fdatasync or osync");
    return 0;
}

static int set_on_off(struct pm_session *s, const char *param, int *field, const char *what)
{
    if (param && strcmp(param, "on") == 0)
        *field = 1;
    else if (param && strcmp(param, "off") == 0)
        *field = 0;
    else
        pm_error(s, "%s must be on or off", what);
    return 0;
}

static int set_dirsync(struct pm_session *s, const char *param)
{
    return set_on_off(s, param, &s->dirsync, "dirsync");
}

static int set_timing(struct pm_session *s, const char *param)
{
    if (param && strcmp(param, "precise") == 0)
        s->compat_timing = 0;
    else if (param && strcmp(param, "compat") == 0)
        s->compat_timing = 1;
    else
        pm_error(s, "timing must be precise or compat");
    return 0;
}

static int set_workers(struct pm_session *s, const char *param)
{
    int value = param ? atoi(param) : 0;

    if (value <= 0 || value > PM_WORKERS_MAX)
        pm_error(s, "workers must be from 1 to %d", PM_WORKERS_MAX);
    else
        s->workers = (unsigned)value;
    return 0;
}

static int set_json(struct pm_session *s, const char *param)
{
    free(s->json_path);
    s->json_path = param && *param && strcmp(param, "off") != 0 ? xstrdup(param) : NULL;
    return 0;
}

/* ------------------------------------------------------- run, show, load */

static FILE *open_output(struct pm_session *s, const char *param)
{
    FILE *fp;

    if (param == NULL)
        return s->out;
    if ((fp = fopen(param, "a")) == NULL) {
        pm_error(s, "Cannot direct output to file '%s'", param);
        return s->out;
    }
    return fp;
}

static int cmd_run(struct pm_session *s, const char *param)
{
    struct pm_result *r = xmalloc(sizeof(*r));
    struct pm_report_settings how = {s->compat_timing, s->sync,     s->dirsync,
                                     s->workers,       s->cfg.seed, s->run};
    struct pm_config total = s->cfg;
    FILE *report;
    int status;

    if (s->check_only) {
        free(r);
        return 0;
    }
    /* Every count of the merged report must fit its 32 bits. */
    if (((uint64_t)s->cfg.number + s->cfg.transactions) * s->workers > UINT32_MAX) {
        pm_error(s, "(number + transactions) x workers must stay below 2^32");
        free(r);
        s->failed_runs++;
        return 0;
    }
    /* an earlier run's result must not be read as this one's if this one ends without */
    if (fileutil_output_forget(s->json_path) != 0) {
        fprintf(s->err, "Error: cannot remove the earlier result '%s': %s\n", s->json_path,
                strerror(errno));
        free(r);
        s->failed_runs++;
        return 0;
    }
    fflush(s->out);
    if (s->workers > 1) {
        /* The report speaks of all workers together. */
        status = pm_workers_run(&s->cfg, s->workers, s->sync, s->dirsync,
                                s->progress ? s->out : NULL, s->status, r);
        total.number *= s->workers;
        total.transactions *= s->workers;
    } else {
        struct pm_fs fs;

        pm_fs_init(&fs, &s->cfg, s->sync, s->dirsync);
        fs.show_progress = s->progress;
        fs.progress_fp = s->out;
        fs.status = s->status;
        status = pm_engine_run(&s->cfg, &pm_fs_ops, &fs, r);
        pm_fs_free(&fs);
    }
    if (s->status)
        progress_out_clear(s->status); /* no partial line before the report */
    if (status != 0) {
        pm_error(s, "the run could not be set up (memory for %u files of up to %u bytes?)",
                 s->cfg.number, s->cfg.size_high);
        s->failed_runs++;
    } else if (!r->complete && !r->interrupted) {
        /* Said on stderr too: progress text may be off (-q) or come from worker 0 only. */
        fprintf(s->err, "Error: out of files: no report. Increase the number of files or "
                        "decrease the number of transactions.\n");
        s->failed_runs++;
    } else {
        if (r->errors) {
            /* PostMark counts them and carries on; a figure from failed operations is none. */
            fprintf(s->err, "Error: %u file operations failed (see above): this run failed\n",
                    r->errors);
            s->failed_runs++;
        }
        report = open_output(s, param);
        if (r->interrupted)
            interrupt_print_partial(report);
        if (s->cfg.terse)
            pm_report_terse(report, &total, r, &how);
        else
            pm_report_verbose(report, &total, r, &how);
        if (!s->cfg.terse && !s->compat_timing)
            pm_report_extras(report, r, &how);
        if (report != s->out && (ferror(report) | fclose(report)) != 0)
            pm_error(s, "write error on '%s'", param);
        /* A partial run's JSON would read as a whole one: none is written. */
        if (s->json_path && !r->interrupted && pm_report_json(s->json_path, &total, r, &how) != 0)
            s->unsaved_runs++; /* measured, but not there to read: exit 1, not 3 */
    }
    free(r);
    return 0;
}

static int cmd_show(struct pm_session *s, const char *param)
{
    FILE *fp;
    const struct pm_config *c = &s->cfg;
    char a[64], b[64], cwd[4096];

    if (s->check_only)
        return 0;
    fp = open_output(s, param);
    fprintf(fp, "Current configuration is:\n");
    fprintf(fp, "The base number of files is %u\n", c->number);
    fprintf(fp, "Transactions: %u\n", c->transactions);
    if (c->size_low == c->size_high)
        fprintf(fp, "Files are %s in size\n", pm_report_scale(a, sizeof(a), c->size_low));
    else
        fprintf(fp, "Files range between %s and %s in size\n",
                pm_report_scale(a, sizeof(a), c->size_low),
                pm_report_scale(b, sizeof(b), c->size_high));
    if (c->nlocations == 0)
        fprintf(fp, "Working directory: %s\n", getcwd(cwd, sizeof(cwd)) ? cwd : "?");
    else
        fprintf(fp, "Working director%s: \n", c->nlocations == 1 ? "y" : "ies");
    /* PostMark sends these lines to stdout whatever FILE says; they belong with the rest. */
    for (unsigned i = 0; i < c->nlocations; i++)
        fprintf(fp, "\t%s (weight=%u)\n", c->locations[i].dir, c->locations[i].weight);
    if (c->subdirectories > 0)
        fprintf(fp, "%u subdirector%s will be used\n", c->subdirectories,
                c->subdirectories == 1 ? "y" : "ies");
    fprintf(fp, "Block sizes are: read=%s, write=%s\n",
            pm_report_scale(a, sizeof(a), c->read_block),
            pm_report_scale(b, sizeof(b), c->write_block));
    fprintf(fp, "Biases are: read/append=%d, create/delete=%d\n", c->bias_read, c->bias_create);
    fprintf(fp, "%s Unix buffered file I/O\n", c->buffered ? "Using" : "Not using");
    fprintf(fp, "Random number generator seed is %u\n", c->seed);
    fprintf(fp, "Report format is %s.\n", c->terse ? "terse" : "verbose");
    fprintf(fp, "Sync before close: %s; directory sync: %s\n", pm_fs_sync_name(s->sync),
            s->dirsync ? "on" : "off");
    fprintf(fp, "Timing: %s\n", s->compat_timing ? "compat" : "precise");
    fprintf(fp, "Workers: %u\n", s->workers);
    if (fp != s->out && (ferror(fp) | fclose(fp)) != 0)
        pm_error(s, "write error on '%s'", param);
    return 0;
}

static int cmd_load(struct pm_session *s, const char *param)
{
    FILE *fp;

    if (param == NULL || *param == 0) {
        pm_error(s, "no configuration file specified");
        return 0;
    }
    if (s->load_depth >= 16 || (fp = fopen(param, "r")) == NULL) {
        pm_error(s, "cannot read configuration file '%s'", param);
        return 0;
    }
    if (!s->check_only)
        fprintf(s->out, "Reading configuration from file '%s'\n", param);
    s->load_depth++;
    pm_command_file(s, fp, param); /* quit inside ends only that file */
    s->load_depth--;
    fclose(fp);
    return 0;
}

static int cmd_quit(struct pm_session *s, const char *param)
{
    (void)s;
    (void)param;
    return 1;
}

/* PostMark's table, in its order (prefix matching and help depend on it), then ours. */
static const struct pm_command commands[] = {
    {"set size", "Sets low and high bounds of files", set_size},
    {"set number", "Sets number of simultaneous files", set_number},
    {"set seed", "Sets seed for random number generator", set_seed},
    {"set transactions", "Sets number of transactions", set_transactions},
    {"set location", "Sets location of working files", set_location},
    {"set subdirectories", "Sets number of subdirectories", set_subdirectories},
    {"set read", "Sets read block size", set_read},
    {"set write", "Sets write block size", set_write},
    {"set buffering", "Sets usage of buffered I/O", set_buffering},
    {"set bias read", "Sets the chance of choosing read over append", set_bias_read},
    {"set bias create", "Sets the chance of choosing create over delete", set_bias_create},
    {"set report", "Choose verbose or terse report format", set_report},
    {"run", "Runs one iteration of benchmark", cmd_run},
    {"load", "Read configuration file", cmd_load},
    {"show", "Displays current configuration", cmd_show},
    {"help", "Prints out available commands", cmd_help},
    {"quit", "Exit program", cmd_quit},
    {"set sync", "Sync files before close: none, fsync, fdatasync or osync (spoolsim)", set_sync},
    {"set dirsync", "Sync the directory after create and delete: on or off (spoolsim)",
     set_dirsync},
    {"set timing", "Report precise (monotonic clock) or compat (PostMark's) timing (spoolsim)",
     set_timing},
    {"set json", "Also write each run's report as JSON to FILE, or off (spoolsim)", set_json},
    {"set workers", "Run N concurrent workers, each with its own stream (spoolsim)", set_workers},
};

#define N_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static int cmd_help(struct pm_session *s, const char *param)
{
    int matched = s->check_only;

    for (int pass = 0; pass < 2 && !matched; pass++) {
        for (size_t i = 0; i < N_COMMANDS; i++) {
            if (pass == 0 &&
                (param == NULL || strncmp(commands[i].name, param, strlen(param)) != 0))
                continue;
            fprintf(s->out, "%s - %s\n", commands[i].name, commands[i].help);
            matched = 1;
        }
    }
    return 0;
}

int pm_command_line(struct pm_session *s, const char *line)
{
    if (line[0] == '!') {
        const char *shell = getenv("SHELL");

        if (s->check_only)
            return 0;
        fflush(s->out);
        if (system(line[1] ? line + 1 : shell ? shell : "/bin/sh") == -1)
            pm_error(s, "cannot run a shell: %s", strerror(errno));
        return 0;
    }
    if (strcmp(line, "?") == 0)
        line = "help";
    else if (strcmp(line, "exit") == 0)
        line = "quit";
    for (size_t i = 0; i < N_COMMANDS; i++) {
        size_t len = strlen(commands[i].name);

        if (strncmp(line, commands[i].name, len) != 0)
            continue;
        /* The parameter starts one byte after the name, whatever that byte is. */
        return commands[i].handler(s, line[len] ? line + len + 1 : NULL);
    }
    if (s->file == NULL) {
        fprintf(s->out, "Eh?\n"); /* PostMark's answer at the prompt */
        s->errors++;
    } else {
        pm_error(s, "unknown command '%s'", line);
    }
    return 0;
}

int pm_command_stream(struct pm_session *s, FILE *in, const char *prompt)
{
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    int quit = 0;

    for (;;) {
        if (interrupt_signal())
            break;
        if (prompt) {
            fputs(prompt, s->out);
            fflush(s->out);
        }
        if ((len = getline(&line, &cap, in)) < 0)
            break;
        s->line++;
        /* Strip LF and CR LF; a last line without either keeps its last byte. */
        if (len > 0 && line[len - 1] == '\n')
            line[--len] = 0;
        if (len > 0 && line[len - 1] == '\r')
            line[--len] = 0;
        if (line[strspn(line, " \t")] == 0 || line[strspn(line, " \t")] == '#')
            continue;
        if (pm_command_line(s, line)) {
            quit = 1;
            break;
        }
    }
    if (prompt && !quit)
        fputc('\n', s->out);
    free(line);
    return quit;
}

int pm_command_file(struct pm_session *s, FILE *in, const char *name)
{
    const char *file = s->file;
    unsigned line = s->line;
    int quit;

    s->file = name;
    s->line = 0;
    quit = pm_command_stream(s, in, NULL);
    s->file = file;
    s->line = line;
    return quit;
}

unsigned pm_command_check(FILE *in, const char *name, FILE *err)
{
    struct pm_session check;
    unsigned errors;

    pm_command_session_init(&check, err, err);
    check.check_only = 1;
    pm_command_file(&check, in, name);
    errors = check.errors;
    pm_command_session_free(&check);
    return errors;
}

void pm_command_session_init(struct pm_session *s, FILE *out, FILE *err)
{
    memset(s, 0, sizeof(*s));
    pm_engine_config_defaults(&s->cfg);
    s->out = out;
    s->err = err;
    s->progress = 1;
    s->workers = 1;
}

void pm_command_session_free(struct pm_session *s)
{
    pm_engine_config_free(&s->cfg);
    free(s->json_path);
}
