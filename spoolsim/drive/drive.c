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
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "drive.h"
#include "fileutil.h"
#include "interrupt.h"
#include "msg.h"
#include "spoolsim.h"

extern char **environ;
#include "spawn_logged.h"

void drive_find_self(struct drive *d)
{
    spoolsim_self(d->self, sizeof(d->self));
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

/* ------------------------------------------------------------ the children */

int drive_spawn(const struct drive *d, struct drive_child *c, const char *name, char *const argv[])
{
    return drive_spawn_env(d, c, name, argv, environ);
}

int drive_spawn_env(const struct drive *d, struct drive_child *c, const char *name,
                    char *const argv[], char *const envp[])
{
    char out[PATH_MAX], err[PATH_MAX], base[64];

    snprintf(base, sizeof(base), "%s.out", name);
    drive_path(d, base, out);
    snprintf(base, sizeof(base), "%s.err", name);
    drive_path(d, base, err);
    c->name = name;
    c->pid = spawn_logged_env(argv, envp, out, err);
    if (c->pid < 0) {
        c->pid = 0;
        return -1;
    }
    return 0;
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
    c->pid = 0;
    c->cpu_s = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
               (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
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
        fprintf(stderr, "  %s: %s%s", label, line, strchr(line, '\n') ? "" : "\n");
    fclose(fp);
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
