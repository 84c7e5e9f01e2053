/*
 * spoolsim rerun - a stored result's run made again (see spoolsim-rerun(1)).
 *
 * Every result begins with the command line that made it (json_meta.h,
 * docs/json.md: command_line, as given, before option parsing). rerun
 * reads it and runs it again with this spoolsim, or its smtp-source or
 * smtp-sink, in the current directory (exec: the exit status is the run's
 * own), after checking that it is one of ours and whole. --json FILE puts
 * the new result elsewhere than the stored one, by replacing the value of
 * the stored --json. --dry-run says what would run.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exit_status.h"
#include "fileutil.h"
#include "json_meta.h"
#include "json_read.h"
#include "msg.h"
#include "optarg.h"
#include "optgroup.h"
#include "spoolsim.h"
#include "xalloc.h"

#define RERUN_ARGS_MAX 4096 /* a stored command line longer than any of ours */

struct rerun_options {
    const char *json; /* --json: the new result's path in place of the stored one */
};

static void usage(FILE *fp, const struct optgroup *g)
{
    fprintf(fp, "Usage: spoolsim rerun [options] RESULT.json\n"
                "\n"
                "Runs again the command line a result of spoolsim's holds (command_line):\n"
                "with this spoolsim (or its smtp-source, smtp-sink), in the current\n"
                "directory; its exit status is the run's. Without --json the new result\n"
                "goes where the stored command line says, replacing the old one there.\n"
                "\n"
                "Options:\n");
    optgroup_help_line(fp, "--json FILE",
                       "the new run's result goes to FILE (- = stdout), in place of the path "
                       "its stored --json names",
                       18);
    optgroup_help(fp, g, OPTGROUP_HELP | OPTGROUP_DRY_RUN, 18);
    fprintf(fp, "\n"
                "Exit status: the run's own; 2 for a usage error or a result without a\n"
                "command line of spoolsim's to run; 3 when the program cannot be run.\n");
}

enum { OPT_JSON = 256 };

static const struct option long_options[] = {
    {"json", required_argument, NULL, OPT_JSON},
    {NULL, 0, NULL, 0},
};

static const char *parse_options(int argc, char **argv, struct rerun_options *o,
                                 struct optgroup_values *v)
{
    struct optgroup g;
    int ch;

    memset(o, 0, sizeof(*o));
    optgroup_init(&g, v, OPTGROUP_HELP | OPTGROUP_DRY_RUN, "", long_options, "spoolsim rerun",
                  usage);
    while ((ch = optgroup_getopt(&g, argc, argv)) != -1) {
        switch (ch) {
        case OPT_JSON:
            optarg_output_file(optarg, "--json");
            o->json = optarg;
            break;
        default:
            msg_panic("option %d not handled", ch);
        }
    }
    optgroup_end(&g);
    if (optind >= argc)
        msg_usage("no result to run again (RESULT.json)");
    if (argc - optind > 1)
        msg_usage("one result at a time, got \"%s\" too", argv[optind + 1]);
    return argv[optind];
}

/* The stored command line, argv-like (NULL-terminated, malloc'd); usage error if none. */
static char **read_command_line(const char *text, const char *path, int *argc_out)
{
    long n = json_read_array_length(text, "command_line");
    char item[32], arg[PATH_MAX + 1024];
    char **args;

    if (n <= 0)
        msg_usage("%s: no command line (\"command_line\") to run again", path);
    if (n > RERUN_ARGS_MAX)
        msg_usage("%s: a command line of %ld arguments, more than %d", path, n, RERUN_ARGS_MAX);
    args = xcalloc((size_t)n + 3, sizeof(*args)); /* room for --json FILE */
    for (long i = 0; i < n; i++) {
        snprintf(item, sizeof(item), "command_line.%ld", i);
        if (json_read_string(text, item, arg, sizeof(arg)) != 0)
            msg_usage("%s: command_line item %ld is not a string", path, i);
        if (strlen(arg) + 1 >= sizeof(arg))
            msg_usage("%s: command_line item %ld is too long", path, i);
        args[i] = xstrdup(arg);
    }
    *argc_out = (int)n;
    return args;
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');

    return slash ? slash + 1 : path;
}

/*
 * Which program runs args: "spoolsim", "smtp-source" or "smtp-sink", as
 * the result's own "program" agrees; a usage error for anything else.
 */
static const char *which_program(const char *text, const char *path, char **args, int n)
{
    char program[96], expect[96];
    const char *first = base_name(args[0]);

    if (json_read_string(text, "program", program, sizeof(program)) != 0)
        msg_usage("%s: not a result of spoolsim's (no \"program\")", path);
    if (strcmp(first, "smtp-source") == 0 || strcmp(first, "smtp-sink") == 0) {
        if (strcmp(program, first) != 0)
            msg_usage("%s: a %s result whose command line runs %s", path, program, first);
        return first;
    }
    if (strcmp(first, "spoolsim") != 0 || n < 2)
        msg_usage("%s: a command line of another program (%s): spoolsim reruns its own", path,
                  args[0]);
    snprintf(expect, sizeof(expect), "spoolsim %s", args[1]);
    if (strcmp(program, expect) != 0)
        msg_usage("%s: a %s result whose command line runs %s", path, program, expect);
    if (strcmp(args[1], "rerun") == 0)
        msg_usage("%s: a command line that reruns another", path);
    return "spoolsim";
}

/* --json FILE in place of the stored --json's value; a usage error when it has none. */
static void replace_json(char **args, int n, const char *json, const char *path)
{
    for (int i = 1; i < n; i++) {
        if (strcmp(args[i], "--") == 0)
            break; /* what follows is another command's (sweep's relay, ab's mode) */
        if (strcmp(args[i], "--json") == 0 && i + 1 < n) {
            free(args[i + 1]);
            args[i + 1] = xstrdup(json);
            return;
        }
        if (strncmp(args[i], "--json=", 7) == 0) {
            free(args[i]);
            args[i] = xmalloc(strlen(json) + 8);
            sprintf(args[i], "--json=%s", json);
            return;
        }
    }
    msg_usage("%s: its command line has no --json to replace (its result was written "
              "another way)",
              path);
}

/* The stored --json's value, or NULL. */
static const char *stored_json(char **args, int n)
{
    for (int i = 1; i < n && strcmp(args[i], "--") != 0; i++) {
        if (strcmp(args[i], "--json") == 0 && i + 1 < n)
            return args[i + 1];
        if (strncmp(args[i], "--json=", 7) == 0)
            return args[i] + 7;
    }
    return NULL;
}

/* arg as a shell word: as it is when it needs no quoting, else in single quotes. */
static void shell_word(FILE *fp, const char *arg)
{
    static const char safe[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                               "@%+=:,./_-";

    if (*arg && strspn(arg, safe) == strlen(arg)) {
        fputs(arg, fp);
        return;
    }
    fputc('\'', fp);
    for (; *arg; arg++) {
        if (*arg == '\'')
            fputs("'\\''", fp);
        else
            fputc(*arg, fp);
    }
    fputc('\'', fp);
}

/* The stored host, when it is not this one: the figures may differ for that alone. */
static void warn_other_host(const char *text, const char *path)
{
    struct json_host here;
    char name[256], cpu[256];

    json_meta_host_lookup(&here);
    if (json_read_string(text, "host.name", name, sizeof(name)) != 0)
        return;
    if (json_read_string(text, "host.cpu_model", cpu, sizeof(cpu)) != 0)
        cpu[0] = 0;
    if (strcmp(name, here.name) != 0 || strcmp(cpu, here.cpu_model) != 0)
        msg_warn("%s was measured on %s (%s), this is %s (%s): its figures and the new ones "
                 "may differ for that alone",
                 path, name, cpu[0] ? cpu : "CPU unknown", here.name,
                 here.cpu_model[0] ? here.cpu_model : "CPU unknown");
}

int spoolsim_rerun(int argc, char **argv)
{
    struct rerun_options o;
    struct optgroup_values v;
    const char *path, *program;
    char exe[PATH_MAX], self[PATH_MAX];
    char **args;
    char *text;
    int n;

    path = parse_options(argc, argv, &o, &v);
    text = fileutil_read_all(path, NULL);
    if (text == NULL)
        msg_usage("%s: cannot read: %s", path, strerror(errno));
    args = read_command_line(text, path, &n);
    program = which_program(text, path, args, n);
    if (o.json)
        replace_json(args, n, o.json, path);
    if (v.dry_run) {
        fprintf(stdout, "spoolsim rerun: dry run: would run in %s:\n ",
                getcwd(exe, sizeof(exe)) ? exe : ".");
        for (int i = 0; i < n; i++) {
            fputc(' ', stdout);
            shell_word(stdout, args[i]);
        }
        fputc('\n', stdout);
        for (int i = 0; args[i]; i++) /* with --json's, which replace_json() may add */
            free(args[i]);
        free(args);
        free(text);
        return fflush(stdout) != 0 || ferror(stdout) ? EXIT_STATUS_BAD : EXIT_STATUS_OK;
    }
    warn_other_host(text, path);
    if (!o.json && stored_json(args, n) && optarg_same_output(stored_json(args, n), path))
        msg_info("the new result replaces %s, as its command line says (--json FILE keeps it)",
                 path);
    free(text);
    companion_self(self, sizeof(self));
    if (strcmp(program, "spoolsim") == 0)
        snprintf(exe, sizeof(exe), "%s", self);
    else
        companion_find_program(self, program,
                               strcmp(program, "smtp-sink") == 0 ? "SPOOLSIM_SMTP_SINK"
                                                                 : "SPOOLSIM_SMTP_SOURCE",
                               exe, sizeof(exe));
    free(args[0]);
    args[0] = xstrdup(program); /* as the program itself records it */
    fflush(NULL);
    execv(exe, args);
    msg_fatal("cannot run %s: %s", exe, strerror(errno));
}
