/*
 * companion - where spoolsim finds itself and the programs and scripts it
 * runs; see spoolsim.h. Installed, they are beside spoolsim; in the build
 * tree each is where the build put it, and the build compiles the tree's
 * places in (SPOOLSIM_BUILDDIR, SPOOLSIM_SRCDIR; the programs' own list is
 * the generated programs.h), so that neither the folder layout nor a VPATH
 * build is guessed here; a package keeps smtp-source and smtp-sink out of
 * PATH, in the configured PKGLIBEXECDIR, and so do the scripts it runs
 * (in their source folders: PKGLIBEXECDIR/bench/...), their data in
 * PKGDATADIR. The build tree's places are used
 * only by the build's own spoolsim: an installed or copied one never runs
 * what a build tree left.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fileutil.h"
#include "msg.h"
#include "platform.h"
#include "programs.h"
#include "spoolsim.h"

extern char **environ;

/* The build's programs: their names, their places in the build tree, their installed names. */
struct program {
    const char *name, *build_path, *installed;
};

static const struct program programs[] = {SPOOLSIM_PROGRAMS};

static const struct program *program_find(const char *name)
{
    for (size_t i = 0; i < sizeof(programs) / sizeof(programs[0]); i++)
        if (strcmp(programs[i].name, name) == 0)
            return &programs[i];
    return NULL;
}

/*
 * The argv[0] spoolsim was started with: set once, before any subcommand
 * runs, and read only by companion_self(), as msg_init()'s name is; the
 * subcommands' own argv[0] is their name, not the program.
 */
static const char *self_argv0;

void companion_init(const char *argv0)
{
    self_argv0 = argv0;
}

void companion_self(char *out, size_t len)
{
    if (platform_self_path(out, len) == 0)
        return;
    /* Where the system cannot say: argv[0], as the shell found it (fileutil.h). */
    if (fileutil_program_path(self_argv0, getenv("PATH"), out, len) == 0)
        return;
    msg_fatal("cannot find my own program: the system does not say, and argv[0] (\"%s\") is "
              "not found in PATH",
              self_argv0 ? self_argv0 : "");
}

int companion_in_build_tree(const char *self)
{
    const struct program *me = program_find("spoolsim");
    char built[PATH_MAX], real[PATH_MAX];

    if (me == NULL)
        return 0;
    snprintf(built, sizeof(built), "%s/%s", SPOOLSIM_BUILDDIR, me->build_path);
    return realpath(built, real) != NULL && strcmp(real, self) == 0;
}

/*
 * Whether the program at path is this package's NAME: its --version says
 * "NAME (spoolsim) ...". A same-named program of another package in PATH
 * (Postfix installs an smtp-sink and an smtp-source) is not.
 */
static int is_ours(const char *path, const char *name)
{
    posix_spawn_file_actions_t fa;
    char *argv[] = {(char *)path, "--version", NULL};
    char line[256], want[128];
    size_t used = 0;
    ssize_t got;
    pid_t pid;
    int pipefd[2], status, spawned;

    if (pipe(pipefd) != 0)
        return 0;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, pipefd[1], 1);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addclose(&fa, pipefd[0]);
    spawned = posix_spawn(&pid, path, &fa, NULL, argv, environ) == 0;
    posix_spawn_file_actions_destroy(&fa);
    close(pipefd[1]);
    while (spawned && used < sizeof(line) - 1 &&
           ((got = read(pipefd[0], line + used, sizeof(line) - 1 - used)) > 0 ||
            (got < 0 && errno == EINTR)))
        if (got > 0)
            used += (size_t)got;
    close(pipefd[0]);
    line[used] = 0;
    if (!spawned)
        return 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    snprintf(want, sizeof(want), "%s (spoolsim) ", name); /* as their --version prints it */
    return strncmp(line, want, strlen(want)) == 0;
}

/* DIR/FILE in out if it is an executable file. */
static int try_path(const char *dir, size_t dir_len, const char *file, char *out, size_t len)
{
    int n = snprintf(out, len, "%.*s/%s", (int)dir_len, dir, file);

    return n > 0 && (size_t)n < len && access(out, X_OK) == 0 ? 0 : -1;
}

/* What search_dir() looks for, and where it puts what it found. */
struct search {
    const struct program *p;
    char *out;
    size_t len;
};

static int search_dir(const char *dir, size_t dir_len, void *ctx)
{
    const struct search *s = ctx;
    const struct program *p = s->p;

    if (try_path(dir, dir_len, p->installed, s->out, s->len) == 0 && is_ours(s->out, p->name))
        return 0;
    if (strcmp(p->installed, p->name) != 0 &&
        try_path(dir, dir_len, p->name, s->out, s->len) == 0 && is_ours(s->out, p->name))
        return 0;
    return -1;
}

static int search_path(const struct program *p, char *out, size_t len)
{
    struct search s = {p, out, len};

    return fileutil_path_each(getenv("PATH"), search_dir, &s);
}

void companion_find_program(const char *self, const char *name, const char *env, char *out,
                            size_t len)
{
    const struct program *p = program_find(name);
    const char *given = getenv(env), *slash = strrchr(self, '/');
    size_t dir_len = slash ? (size_t)(slash - self) : 0;

    if (given && *given) {
        snprintf(out, len, "%s", given);
        return;
    }
    if (p == NULL)
        msg_panic("%s is not one of the build's programs", name);
    /* Installed together: under the configured name (--program-prefix), or its own. */
    if (slash && try_path(self, dir_len, p->installed, out, len) == 0)
        return;
    if (slash && strcmp(p->installed, name) != 0 && try_path(self, dir_len, name, out, len) == 0)
        return;
    if (companion_in_build_tree(self) &&
        try_path(SPOOLSIM_BUILDDIR, strlen(SPOOLSIM_BUILDDIR), p->build_path, out, len) == 0)
        return;
    /* Kept out of PATH (--enable-private-tools), where the build installs them. */
    if (try_path(SPOOLSIM_PKGLIBEXECDIR, strlen(SPOOLSIM_PKGLIBEXECDIR), name, out, len) == 0)
        return;
    if (search_path(p, out, len) == 0)
        return;
    msg_fatal("cannot find %s next to %s, in its build tree, in %s or in PATH (set %s to its "
              "path)",
              p->installed, self, SPOOLSIM_PKGLIBEXECDIR, env);
}

int companion_run_program(const char *name, const char *env, int argc, char **argv)
{
    char self[PATH_MAX], path[PATH_MAX];
    char **args = calloc((size_t)argc + 1, sizeof(*args));

    if (args == NULL)
        msg_fatal("out of memory");
    companion_self(self, sizeof(self));
    companion_find_program(self, name, env, path, sizeof(path));
    /*
     * Its argv[0] is the command the user typed ("spoolsim source"): the
     * program names itself by it in its messages and "Try ... --help",
     * and the package keeps smtp-source out of PATH.
     */
    args[0] = (char *)msg_progname();
    for (int i = 1; i < argc; i++)
        args[i] = argv[i];
    execv(path, args);
    msg_fatal("cannot run %s: %s", path, strerror(errno));
}

int companion_find_script(const char *self, const char *name, const char *env, char *out,
                          size_t len)
{
    const char *given = getenv(env), *slash = strrchr(self, '/');

    if (given && *given) {
        snprintf(out, len, "%s", given);
        return access(out, X_OK);
    }
    if (slash && try_path(self, (size_t)(slash - self), name, out, len) == 0)
        return 0;
    /* installed in the folder it has in the source tree, outside PATH */
    snprintf(out, len, "%s/bench/%s",
             companion_in_build_tree(self) ? SPOOLSIM_SRCDIR : SPOOLSIM_PKGLIBEXECDIR, name);
    return access(out, X_OK);
}

void companion_data_dir(const char *self, char *out, size_t len)
{
    if (companion_in_build_tree(self))
        snprintf(out, len, "%s/data", SPOOLSIM_SRCDIR);
    else
        snprintf(out, len, "%s", SPOOLSIM_PKGDATADIR);
}
