/*
 * drive - the child processes of bench and ab, and their work directory; see drive.h.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clock.h"

#include "drive.h"
#include "fileutil.h"
#include "interrupt.h"
#include "msg.h"
#include "progress.h"
#include "programs.h"
#include "spawn_logged.h"

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

void drive_find_self(struct drive *d)
{
    ssize_t n = readlink("/proc/self/exe", d->self, sizeof(d->self) - 1);

    if (n <= 0)
        msg_fatal("cannot find my own program: %s", strerror(errno));
    if ((size_t)n >= sizeof(d->self) - 1)
        msg_fatal("cannot find my own program: its path is too long");
    d->self[n] = 0;
}

void drive_make_work_dir(struct drive *d, const char *parent, const char *what, const char *tag)
{
    if (parent == NULL)
        parent = tmp_dir();
    if (strlen(parent) > DRIVE_SHORT_PATH - 64)
        msg_usage("%s: the path %.60s... is too long", what, parent);
    if (private_dir_make(d->work, sizeof(d->work), parent, tag) != 0)
        msg_fatal("cannot make a directory in %s: %s", parent, strerror(errno));
}

void drive_path(const struct drive *d, const char *name, char *out)
{
    snprintf(out, PATH_MAX, "%s/%s", d->work, name);
}

void drive_remove_work(struct drive *d)
{
    if (d->work[0] && !d->keep) {
        tree_remove(d->work);
        d->work[0] = 0;
    }
}

/* ------------------------------------------------------------ the siblings */

int drive_build_top(const struct drive *d, char *out, size_t len)
{
    const struct program *me = program_find("spoolsim");
    size_t self_len = strlen(d->self), tail;

    if (me == NULL)
        return -1;
    tail = strlen(me->build_path);
    /* At the build's place for it: TOP/spoolsim/spoolsim, the slash before included. */
    if (self_len <= tail + 1 || d->self[self_len - tail - 1] != '/' ||
        strcmp(d->self + self_len - tail, me->build_path) != 0)
        return -1;
    if (self_len - tail - 1 >= len)
        return -1;
    memcpy(out, d->self, self_len - tail - 1);
    out[self_len - tail - 1] = 0;
    return 0;
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

static int search_path(const struct program *p, char *out, size_t len)
{
    const char *path = getenv("PATH"), *dir, *end;

    for (dir = path; dir && *dir; dir = *end ? end + 1 : end) {
        size_t dir_len;

        end = strchr(dir, ':');
        if (end == NULL)
            end = dir + strlen(dir);
        dir_len = (size_t)(end - dir);
        if (dir_len == 0) /* an empty entry is the current directory: not where a tool is */
            continue;
        if (try_path(dir, dir_len, p->installed, out, len) == 0 && is_ours(out, p->name))
            return 0;
        if (strcmp(p->installed, p->name) != 0 && try_path(dir, dir_len, p->name, out, len) == 0 &&
            is_ours(out, p->name))
            return 0;
    }
    return -1;
}

void drive_find_program(const struct drive *d, const char *name, const char *env, char *out,
                        size_t len)
{
    const struct program *p = program_find(name);
    const char *given = getenv(env), *slash = strrchr(d->self, '/');
    size_t dir_len = slash ? (size_t)(slash - d->self) : 0;
    char top[DRIVE_SHORT_PATH];

    if (given && *given) {
        snprintf(out, len, "%s", given);
        return;
    }
    if (p == NULL)
        msg_panic("%s is not one of the build's programs", name);
    /* Installed together: under the configured name (--program-prefix), or its own. */
    if (slash && try_path(d->self, dir_len, p->installed, out, len) == 0)
        return;
    if (slash && strcmp(p->installed, name) != 0 && try_path(d->self, dir_len, name, out, len) == 0)
        return;
    if (drive_build_top(d, top, sizeof(top)) == 0 &&
        try_path(top, strlen(top), p->build_path, out, len) == 0)
        return;
    if (search_path(p, out, len) == 0)
        return;
    msg_fatal("cannot find %s next to %s, in its build tree or in PATH (set %s to its path)",
              p->installed, d->self, env);
}

/* ------------------------------------------------------------ the children */

int drive_spawn(const struct drive *d, struct drive_child *c, const char *name, char *const argv[])
{
    char out[PATH_MAX], err[PATH_MAX], base[64];

    snprintf(base, sizeof(base), "%s.out", name);
    drive_path(d, base, out);
    snprintf(base, sizeof(base), "%s.err", name);
    drive_path(d, base, err);
    c->name = name;
    c->pid = spawn_logged(argv, out, err);
    if (c->pid < 0) {
        c->pid = 0;
        return -1;
    }
    return 0;
}

/* The child has been waited for: its CPU time, and no PID to wait for any more. */
static void reaped(struct drive_child *c, const struct rusage *ru)
{
    c->pid = 0;
    c->cpu_s = (double)ru->ru_utime.tv_sec + (double)ru->ru_utime.tv_usec / 1e6 +
               (double)ru->ru_stime.tv_sec + (double)ru->ru_stime.tv_usec / 1e6;
}

int drive_reap(struct drive_child *c)
{
    struct rusage ru;
    int status;

    if (c->pid <= 0)
        return 0;
    if (interrupt_signal() != 0)
        kill(c->pid, SIGTERM); /* asked to stop before the wait began */
    while (wait4(c->pid, &status, 0, &ru) < 0) {
        if (errno != EINTR) {
            c->pid = 0;
            return -1;
        }
        if (interrupt_signal() != 0)
            kill(c->pid, SIGTERM);
    }
    reaped(c, &ru);
    return status;
}

/*
 * A pidfd becomes readable the moment the child exits, so the wait ends
 * then and not at the next poll: the driver times the child's end (bench's
 * load phase). Without one (an old kernel), a short sleep between looks.
 */
static int open_pidfd(pid_t pid)
{
#ifdef SYS_pidfd_open
    return (int)syscall(SYS_pidfd_open, pid, 0);
#else
    (void)pid;
    return -1;
#endif
}

int drive_reap_every(struct drive_child *c, double every_s, void (*tick)(void *ctx), void *ctx)
{
    uint64_t every = (uint64_t)(every_s * 1e9), next = clock_now_ns() + every;
    int pidfd, status = 0;

    if (c->pid <= 0)
        return 0;
    pidfd = open_pidfd(c->pid);
    while (c->pid > 0) {
        struct rusage ru;
        pid_t got;
        uint64_t now;

        if (interrupt_signal() != 0) {
            status = drive_reap(c); /* passes the stop on, and waits */
            break;
        }
        if ((got = wait4(c->pid, &status, WNOHANG, &ru)) == c->pid) {
            reaped(c, &ru);
            break;
        }
        if (got < 0 && errno != EINTR) {
            c->pid = 0;
            status = -1;
            break;
        }
        if ((now = clock_now_ns()) >= next) {
            tick(ctx);
            next = now - next < every ? next + every : now + every; /* no burst after a stall */
            continue;
        }
        if (pidfd >= 0) {
            struct pollfd pfd = {.fd = pidfd, .events = POLLIN};
            uint64_t ms = (next - now) / CLOCK_NS_PER_MS + 1;

            poll(&pfd, 1, (int)ms); /* a signal ends it early: EINTR, then look again */
        } else {
            uint64_t us = (next - now) / CLOCK_NS_PER_US;

            usleep(us < 10000 ? (useconds_t)us : 10000);
        }
    }
    if (pidfd >= 0)
        close(pidfd);
    return status;
}

int drive_stop(struct drive_child *c)
{
    if (c->pid > 0)
        kill(c->pid, SIGTERM);
    return drive_reap(c);
}

int drive_exit_status(int wait_status)
{
    if (wait_status == -1 || !WIFEXITED(wait_status))
        return -1;
    return WEXITSTATUS(wait_status);
}

void drive_show_errors(const struct drive *d, const char *name, const char *label)
{
    char path[PATH_MAX], base[64], line[512];
    FILE *fp;

    snprintf(base, sizeof(base), "%s.err", name);
    drive_path(d, base, path);
    if ((fp = fopen(path, "r")) == NULL)
        return;
    while (fgets(line, sizeof(line), fp))
        if (strncmp(line, PROGRESS_PREFIX, strlen(PROGRESS_PREFIX)) != 0) /* no errors */
            fprintf(stderr, "  %s: %s%s", label, line, strchr(line, '\n') ? "" : "\n");
    fclose(fp);
}

int drive_last_progress(const struct drive *d, const char *name, char *out, size_t len)
{
    char path[PATH_MAX], base[64], tail[4096];
    struct stat sb;
    ssize_t got;
    int fd, status = -1;

    if (len)
        out[0] = 0;
    snprintf(base, sizeof(base), "%s.err", name);
    drive_path(d, base, path);
    if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
        return -1;
    /* the end is enough: a line is far shorter, and the file grows all run */
    if (fstat(fd, &sb) == 0 &&
        (got = pread(fd, tail, sizeof(tail),
                     sb.st_size > (off_t)sizeof(tail) ? sb.st_size - (off_t)sizeof(tail) : 0)) > 0)
        status = progress_last(tail, (size_t)got, out, len);
    close(fd);
    return status;
}

void drive_abandon(struct drive *d, struct drive_child *const children[], size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (children[i])
            drive_stop(children[i]);
    drive_remove_work(d);
}

_Noreturn void drive_give_up(struct drive *d, struct drive_child *const children[], size_t n,
                             const char *what)
{
    drive_abandon(d, children, n);
    if (interrupt_signal() != 0) {
        msg_warn("interrupted by %s before the run began", interrupt_name());
        exit(interrupt_exit_status());
    }
    msg_fatal("%s did not start", what);
}
