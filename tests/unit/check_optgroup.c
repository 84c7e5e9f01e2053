/*
 * check_optgroup - the option groups the spoolsim commands share: each
 * group's parsing, its defaults, its usage errors (exit status 2 and a
 * message naming the option and the problem), and its --help lines.
 *
 * A usage error ends the process, so each one is parsed in a child of
 * its own (run_child()), whose standard error and exit status the test reads.
 */
#include "config.h"

#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check_main.h"
#include "msg.h"
#include "optgroup.h"

#define ALL_GROUPS (OPTGROUP_WORKLOAD | OPTGROUP_SEED | OPTGROUP_OUTPUT)
#define MAX_ARGS 16

enum { OWN_FROB = 300 };

static const struct option own_options[] = {
    {"frob", required_argument, NULL, OWN_FROB},
    {"xray", no_argument, NULL, 'x'},
    {NULL, 0, NULL, 0},
};

static void test_usage(FILE *fp, const struct optgroup *g)
{
    fprintf(fp, "Usage: spoolsim test [options]\n");
    optgroup_help(fp, g, ~0u, 21);
}

/* What parse() saw of the command's own options. */
struct own {
    const char *frob;
    int xray;
};

/* Parses NULL-terminated args (after "test") with the groups, as a command would. */
static void parse_argv(unsigned groups, struct optgroup_values *v, struct own *own,
                       char *const *args)
{
    char *argv[MAX_ARGS + 2] = {"test"};
    struct optgroup g;
    int argc = 1, ch;

    while (*args && argc <= MAX_ARGS)
        argv[argc++] = *args++;
    argv[argc] = NULL;
    memset(own, 0, sizeof(*own));
    optgroup_init(&g, v, groups, "x", own_options, "spoolsim test", test_usage);
    while ((ch = optgroup_getopt(&g, argc, argv)) != -1) {
        if (ch == OWN_FROB)
            own->frob = optarg;
        else if (ch == 'x')
            own->xray = 1;
        else
            ck_abort_msg("option %d returned to the command", ch);
    }
    optgroup_end(&g);
}

#define PARSE(groups, v, own, ...)                                                                 \
    do {                                                                                           \
        char *const args_[] = {__VA_ARGS__, NULL};                                                 \
        parse_argv((groups), (v), (own), args_);                                                   \
    } while (0)

/* A child's exit status (or 128 + its signal) and what it wrote to one stream. */
struct child {
    int status;
    char out[4096];
};

/* Runs parse of args in a child; captures fd (1 or 2). */
static void run_child(unsigned groups, char *const *args, int fd, struct child *c)
{
    int pipefd[2], wstatus;
    size_t len = 0;
    ssize_t n;
    pid_t pid;

    ck_assert_int_eq(pipe(pipefd), 0);
    fflush(NULL);
    pid = fork();
    ck_assert_int_ne(pid, -1);
    if (pid == 0) {
        struct optgroup_values v;
        struct own own;

        signal(SIGABRT, SIG_DFL);
        close(pipefd[0]);
        dup2(pipefd[1], fd);
        parse_argv(groups, &v, &own, args);
        fflush(NULL);
        _exit(0);
    }
    close(pipefd[1]);
    while (len + 1 < sizeof(c->out) &&
           (n = read(pipefd[0], c->out + len, sizeof(c->out) - 1 - len)) > 0)
        len += (size_t)n;
    c->out[len] = 0;
    close(pipefd[0]);
    ck_assert_int_eq(waitpid(pid, &wstatus, 0), pid);
    c->status = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus);
}

/* args give a usage error: exit status 2, the message on standard error. */
static void usage_error(unsigned groups, const char *message, char *const *args)
{
    struct child c;

    run_child(groups, args, STDERR_FILENO, &c);
    ck_assert_msg(c.status == 2, "%s: exit status %d, not 2 (%s)", args[0], c.status, c.out);
    ck_assert_msg(strstr(c.out, message) != NULL, "%s: \"%s\" not in \"%s\"", args[0], message,
                  c.out);
    ck_assert_msg(strstr(c.out, "spoolsim test: usage error: ") == c.out, "not a usage error: %s",
                  c.out);
}

#define USAGE_ERROR(groups, message, ...)                                                          \
    do {                                                                                           \
        char *const args_[] = {__VA_ARGS__, NULL};                                                 \
        usage_error((groups), (message), args_);                                                   \
    } while (0)

START_TEST(test_defaults)
{
    struct optgroup_values v;
    struct own own;

    PARSE(ALL_GROUPS, &v, &own, "--frob", "yes");
    ck_assert_double_eq(v.duration, 10);
    ck_assert_uint_eq(v.messages, 0);
    ck_assert_uint_eq(v.sessions, 20);
    ck_assert_str_eq(v.size, "1024");
    ck_assert_uint_eq(v.rcpts, 1);
    ck_assert_ptr_null(v.json);
    ck_assert_double_eq(v.interval, 1);
    ck_assert_ptr_null(v.csv);
    ck_assert_int_eq(v.keep, 0);
    ck_assert_int_eq(v.quiet, 0);
    ck_assert_int_eq(v.progress, -1); /* on a terminal only */
    ck_assert_uint_eq(v.seed, 1);
    ck_assert_str_eq(own.frob, "yes");
}
END_TEST

START_TEST(test_workload)
{
    struct optgroup_values v;
    struct own own;

    PARSE(ALL_GROUPS, &v, &own, "-d", "2500ms", "-s", "3", "--size", "uniform:1:10", "-r", "4");
    ck_assert_double_eq_tol(v.duration, 2.5, 1e-9);
    ck_assert_uint_eq(v.sessions, 3);
    ck_assert_str_eq(v.size, "uniform:1:10");
    ck_assert_uint_eq(v.rcpts, 4);
    PARSE(ALL_GROUPS, &v, &own, "--messages=1000000000", "--sessions", "10000", "--rcpts=1000");
    ck_assert_uint_eq(v.messages, 1000000000);
    ck_assert_uint_eq(v.sessions, 10000);
    ck_assert_uint_eq(v.rcpts, 1000);
    ck_assert_double_eq(v.duration, 10); /* -m alone keeps the default, unused */
}
END_TEST

START_TEST(test_output)
{
    struct optgroup_values v;
    struct own own;

    PARSE(ALL_GROUPS, &v, &own, "--json", "-", "--interval", "250ms", "--csv", "-", "--keep");
    ck_assert_str_eq(v.json, "-");
    ck_assert_double_eq_tol(v.interval, 0.25, 1e-9);
    ck_assert_str_eq(v.csv, "-");
    ck_assert_int_eq(v.keep, 1);
    PARSE(ALL_GROUPS, &v, &own, "--interval=10ms");
    ck_assert_double_eq_tol(v.interval, 0.01, 1e-9);
    PARSE(ALL_GROUPS, &v, &own, "--interval", "1h");
    ck_assert_double_eq(v.interval, 3600);
}
END_TEST

/* --seed takes every 64-bit number, 0 included, and nothing else. */
START_TEST(test_seed)
{
    struct optgroup_values v;
    struct own own;
    struct optgroup g;
    char *text = NULL;
    size_t len = 0;
    FILE *fp;

    PARSE(ALL_GROUPS, &v, &own, "--seed", "0");
    ck_assert_uint_eq(v.seed, 0);
    PARSE(ALL_GROUPS, &v, &own, "--seed=18446744073709551615");
    ck_assert_uint_eq(v.seed, UINT64_MAX);
    USAGE_ERROR(ALL_GROUPS, "--seed: \"18446744073709551616\" is not a number from 0 to", "--seed",
                "18446744073709551616");
    USAGE_ERROR(ALL_GROUPS, "--seed: bad number \"-1\"", "--seed", "-1");
    USAGE_ERROR(OPTGROUP_WORKLOAD, "unknown option --seed", "--seed", "1");
    /* --help names what the command draws from it */
    optgroup_init(&g, &v, OPTGROUP_SEED, "", own_options, "spoolsim test", test_usage);
    g.seed_what = "the crash points";
    fp = open_memstream(&text, &len);
    optgroup_help(fp, &g, ~0u, 21);
    fclose(fp);
    ck_assert_str_eq(text, "  --seed N              seed of the crash points, 0 to 2^64 - 1 (1)\n");
    free(text);
}
END_TEST

/* -q turns the status line's default off; --progress and --no-progress decide. */
START_TEST(test_progress)
{
    struct optgroup_values v;
    struct own own;

    PARSE(ALL_GROUPS, &v, &own, "-q");
    ck_assert_int_eq(v.quiet, 1);
    ck_assert_int_eq(v.progress, 0);
    PARSE(ALL_GROUPS, &v, &own, "--quiet", "--progress");
    ck_assert_int_eq(v.quiet, 1);
    ck_assert_int_eq(v.progress, 1);
    PARSE(ALL_GROUPS, &v, &own, "--progress", "--no-progress");
    ck_assert_int_eq(v.progress, 0);
    /* without the progress group, -q is only quiet */
    PARSE(OPTGROUP_QUIET | OPTGROUP_HELP, &v, &own, "-q");
    ck_assert_int_eq(v.quiet, 1);
    ck_assert_int_eq(v.progress, -1);
}
END_TEST

/* The command's own options come back to it, among the groups' and in clusters. */
START_TEST(test_own_options)
{
    struct optgroup_values v;
    struct own own;

    PARSE(ALL_GROUPS, &v, &own, "-qx", "--frob=1", "-m5");
    ck_assert_int_eq(own.xray, 1);
    ck_assert_str_eq(own.frob, "1");
    ck_assert_int_eq(v.quiet, 1);
    ck_assert_uint_eq(v.messages, 5);
}
END_TEST

START_TEST(test_workload_errors)
{
    USAGE_ERROR(ALL_GROUPS, "--duration must be positive", "-d", "0");
    USAGE_ERROR(ALL_GROUPS, "--duration: bad time \"soon\"", "--duration", "soon");
    USAGE_ERROR(ALL_GROUPS, "--messages: \"0\" is not a number from 1 to 1000000000", "-m", "0");
    USAGE_ERROR(ALL_GROUPS, "--messages: \"1000000001\" is not a number from 1 to 1000000000", "-m",
                "1000000001");
    USAGE_ERROR(ALL_GROUPS, "--messages: bad number \"x\"", "--messages", "x");
    USAGE_ERROR(ALL_GROUPS, "--messages and --duration cannot be combined", "-m", "5", "-d", "1");
    USAGE_ERROR(ALL_GROUPS, "--sessions: \"10001\" is not a number from 1 to 10000", "-s", "10001");
    USAGE_ERROR(ALL_GROUPS, "--rcpts: \"0\" is not a number from 1 to 1000", "-r", "0");
    USAGE_ERROR(ALL_GROUPS, "--size: bad size spec \"foo\"", "--size", "foo");
    USAGE_ERROR(ALL_GROUPS, "--size: \"2000m\" allows sizes larger than the maximum, 1024m",
                "--size", "2000m");
}
END_TEST

START_TEST(test_output_errors)
{
    USAGE_ERROR(ALL_GROUPS, "--json /nonexistent/x.json: cannot create", "--json",
                "/nonexistent/x.json");
    USAGE_ERROR(ALL_GROUPS, "--json /: is a directory", "--json", "/");
    USAGE_ERROR(ALL_GROUPS, "--json: an empty file name", "--json", "");
    USAGE_ERROR(ALL_GROUPS, "--csv /: is a directory", "--csv", "/");
    USAGE_ERROR(ALL_GROUPS, "--interval: \"5ms\" is out of range (10ms to 1h)", "--interval",
                "5ms");
    USAGE_ERROR(ALL_GROUPS, "--interval: bad time \"often\"", "--interval", "often");
    USAGE_ERROR(ALL_GROUPS, "option --json requires a value", "--json");
    USAGE_ERROR(ALL_GROUPS, "option -m requires a value", "-m");
    USAGE_ERROR(ALL_GROUPS, "option --keep takes no value", "--keep=yes");
    USAGE_ERROR(ALL_GROUPS, "option --progress takes no value", "--progress=1");
}
END_TEST

/* With OPTGROUP_NO_OPERANDS an argument left is an error; without, the command's. */
START_TEST(test_operands)
{
    struct optgroup_values v;
    struct own own;

    USAGE_ERROR(OPTGROUP_NO_OPERANDS | OPTGROUP_QUIET, "unexpected argument \"extra\"", "-q",
                "extra");
    PARSE(OPTGROUP_QUIET, &v, &own, "-q", "extra");
    ck_assert_int_eq(v.quiet, 1);
    ck_assert_int_eq(optind, 2);
}
END_TEST

/* A group a command does not take is no option of it, letter or name. */
START_TEST(test_groups_not_taken)
{
    USAGE_ERROR(OPTGROUP_HELP, "unknown option --json", "--json", "-");
    USAGE_ERROR(OPTGROUP_HELP, "unknown option -q", "-q");
    USAGE_ERROR(OPTGROUP_QUIET | OPTGROUP_HELP, "unknown option --progress", "--progress");
    USAGE_ERROR(OPTGROUP_JSON | OPTGROUP_HELP, "unknown option --interval", "--interval", "1s");
    USAGE_ERROR(OPTGROUP_SESSIONS | OPTGROUP_HELP, "unknown option -d", "-d", "1");
    USAGE_ERROR(OPTGROUP_JSON, "unknown option --help", "--help");
}
END_TEST

/*
 * --dry-run is a flag of its group; a dry run's end says what would run on
 * standard output, after the program's name, and exits 0.
 */
START_TEST(test_dry_run)
{
    struct optgroup_values v;
    struct own own;
    char out[256];
    int pipefd[2], wstatus;
    size_t len = 0;
    ssize_t n;
    pid_t pid;

    PARSE(ALL_GROUPS, &v, &own, "-q");
    ck_assert_int_eq(v.dry_run, 0);
    PARSE(ALL_GROUPS, &v, &own, "--dry-run");
    ck_assert_int_eq(v.dry_run, 1);
    PARSE(OPTGROUP_DRY_RUN, &v, &own, "--dry-run");
    ck_assert_int_eq(v.dry_run, 1);
    USAGE_ERROR(OPTGROUP_HELP, "unknown option --dry-run", "--dry-run");
    ck_assert_int_eq(pipe(pipefd), 0);
    fflush(NULL);
    pid = fork();
    ck_assert_int_ne(pid, -1);
    if (pid == 0) {
        close(pipefd[0]);
        dup2(pipefd[1], STDOUT_FILENO);
        optgroup_dry_run_done("would run %d things in %s", 3, "/tmp");
    }
    close(pipefd[1]);
    while (len + 1 < sizeof(out) && (n = read(pipefd[0], out + len, sizeof(out) - 1 - len)) > 0)
        len += (size_t)n;
    out[len] = 0;
    close(pipefd[0]);
    ck_assert_int_eq(waitpid(pid, &wstatus, 0), pid);
    ck_assert(WIFEXITED(wstatus));
    ck_assert_int_eq(WEXITSTATUS(wstatus), 0);
    ck_assert_str_eq(out, "spoolsim test: dry run: would run 3 things in /tmp\n");
}
END_TEST

START_TEST(test_version_and_help)
{
    struct child c;
    char *const version[] = {"--version", NULL};
    char *const help[] = {"-h", NULL};
    char *const help_long[] = {"--help", NULL};
    char expect[64];

    run_child(ALL_GROUPS, version, STDOUT_FILENO, &c);
    ck_assert_int_eq(c.status, 0);
    snprintf(expect, sizeof(expect), "spoolsim test %s\n", PACKAGE_VERSION);
    ck_assert_str_eq(c.out, expect);
    run_child(ALL_GROUPS, help, STDOUT_FILENO, &c);
    ck_assert_int_eq(c.status, 0);
    ck_assert_ptr_eq(strstr(c.out, "Usage: spoolsim test [options]\n"), c.out);
    ck_assert_ptr_nonnull(strstr(c.out, "  --json FILE           also write the results as JSON"));
    run_child(ALL_GROUPS, help_long, STDOUT_FILENO, &c);
    ck_assert_int_eq(c.status, 0);
    ck_assert_ptr_eq(strstr(c.out, "Usage: spoolsim test [options]\n"), c.out);
}
END_TEST

/* Groups that cannot go together are the program's error, found at start-up. */
START_TEST(test_clash)
{
    struct child c;
    char *const none[] = {NULL};

    run_child(OPTGROUP_PROGRESS, none, STDERR_FILENO, &c); /* --progress needs -q */
    ck_assert_int_eq(c.status, 128 + SIGABRT);
    ck_assert_ptr_nonnull(strstr(c.out, "--progress without -q"));
}
END_TEST

/* optgroup_init() of these groups and the command's own options panics (SIGABRT). */
static void init_aborts(const char *what, unsigned groups, const char *own_short,
                        const struct option *own)
{
    struct optgroup_values v;
    struct optgroup g;
    pid_t pid;
    int wstatus;

    fflush(NULL);
    if ((pid = fork()) == 0) {
        signal(SIGABRT, SIG_DFL);
        if (freopen("/dev/null", "w", stderr) == NULL)
            _exit(3);
        optgroup_init(&g, &v, groups, own_short, own, "spoolsim test", test_usage);
        _exit(0);
    }
    ck_assert_msg(waitpid(pid, &wstatus, 0) == pid, "%s: no child", what);
    ck_assert_msg(WIFSIGNALED(wstatus) && WTERMSIG(wstatus) == SIGABRT, "%s: no SIGABRT", what);
}

/* So is a name or a letter that the command and a group both claim. */
START_TEST(test_clash_name)
{
    static const struct option mine[] = {{"json", required_argument, NULL, 300},
                                         {NULL, 0, NULL, 0}};

    init_aborts("--json claimed twice", OPTGROUP_JSON, "", mine);
    init_aborts("-q claimed twice", OPTGROUP_QUIET, "q", own_options);
}
END_TEST

START_TEST(test_help_lines)
{
    static const struct option none[] = {{NULL, 0, NULL, 0}};
    struct optgroup_values v;
    struct optgroup g;
    char *text = NULL, *line;
    size_t len = 0;
    FILE *fp;

    optgroup_init(&g, &v, OPTGROUP_SESSIONS | OPTGROUP_SIZE | OPTGROUP_QUIET | OPTGROUP_HELP, "",
                  none, "spoolsim test", test_usage);
    v.sessions = 50;
    fp = open_memstream(&text, &len);
    optgroup_help(fp, &g, ~0u, 21);
    fclose(fp);
    ck_assert_ptr_nonnull(strstr(text, "  -s, --sessions N      concurrent client sessions, 1 to "
                                       "10000 (50)\n"));
    ck_assert_ptr_nonnull(strstr(text, "  --size DIST           message size (1024): N,"));
    /* no progress group: -q says nothing of a status line */
    ck_assert_ptr_nonnull(
        strstr(text, "  -q, --quiet           no progress notices, only the results\n"));
    ck_assert_ptr_null(strstr(text, "--json"));
    ck_assert_ptr_null(strstr(text, "--progress"));
    ck_assert_ptr_nonnull(strstr(text, "  -h, --help, --version\n"));
    ck_assert(strstr(text, "--sessions") < strstr(text, "--quiet"));
    /* every line within 79 columns; a continuation starts at the text's column */
    for (line = text; *line; line = strchr(line, '\n') + 1) {
        size_t n = strcspn(line, "\n");

        ck_assert_msg(n <= 79, "line longer than 79: %.*s", (int)n, line);
        if (line[2] != '-')
            ck_assert_msg(strspn(line, " ") == 24, "continuation not at column 24: %.*s", (int)n,
                          line);
    }
    free(text);
    /* only the groups asked for, of those taken */
    fp = open_memstream(&text, &len);
    optgroup_help(fp, &g, OPTGROUP_HELP, 21);
    fclose(fp);
    ck_assert_str_eq(text, "  -h, --help, --version\n");
    free(text);
}
END_TEST

START_TEST(test_help_progress)
{
    static const struct option none[] = {{NULL, 0, NULL, 0}};
    struct optgroup_values v;
    struct optgroup g;
    char *text = NULL;
    size_t len = 0;
    FILE *fp;

    optgroup_init(&g, &v, OPTGROUP_PROGRESS | OPTGROUP_QUIET, "", none, "spoolsim test",
                  test_usage);
    g.progress_what = "the run and its ETA";
    fp = open_memstream(&text, &len);
    optgroup_help(fp, &g, ~0u, 15);
    fclose(fp);
    ck_assert_ptr_nonnull(strstr(text, "  --progress      a status line every second on standard "
                                       "error, the run and its\n"));
    ck_assert_ptr_nonnull(strstr(text, "(nor a status line,"));
    free(text);
}
END_TEST

int main(void)
{
    const TTest *const tests[] = {test_defaults,
                                  test_workload,
                                  test_output,
                                  test_progress,
                                  test_own_options,
                                  test_workload_errors,
                                  test_output_errors,
                                  test_operands,
                                  test_groups_not_taken,
                                  test_version_and_help,
                                  test_clash,
                                  test_clash_name,
                                  test_help_lines,
                                  test_help_progress,
                                  test_seed,
                                  test_dry_run,
                                  NULL};

    msg_init("spoolsim test");
    return check_run_tests("optgroup", tests);
}
