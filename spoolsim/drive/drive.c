/*
 * drive - the child processes of bench and ab, and their work directory; see drive.h.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <poll.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clock.h"
#include "drive.h"
#include "fdlimit.h"
#include "fileutil.h"
#include "interrupt.h"
#include "json.h"
#include "json_read.h"
#include "msg.h"
#include "progress.h"
#include "spoolsim.h"
#include "workload_file.h"
#include "xalloc.h"

extern char **environ;
#include "spawn_logged.h"

void drive_find_self(struct drive *d)
{
    companion_self(d->self, sizeof(d->self));
}

/* A private directory PARENT/spoolsim-TAG.XXXXXX in out (DRIVE_SHORT_PATH bytes), or the end. */
static void make_private(char *out, const char *parent, const char *what, const char *tag)
{
    if (strlen(parent) > DRIVE_SHORT_PATH - 64)
        msg_usage("%s: the path %.60s... is too long", what, parent);
    if (fileutil_private_dir(out, DRIVE_SHORT_PATH, parent, tag) != 0)
        msg_fatal("cannot make a directory in %s: %s", parent, strerror(errno));
}

void drive_make_work_dir(struct drive *d, const char *parent, const char *what, const char *tag)
{
    make_private(d->work, parent ? parent : fileutil_tmp_dir(), what, tag);
}

void drive_make_spool_dir(struct drive *d, const char *parent, const char *what, const char *tag,
                          char *spool)
{
    if (parent == NULL) {
        drive_path(d, "spool", spool);
        return;
    }
    make_private(d->spool_dir, parent, what, tag);
    snprintf(spool, PATH_MAX, "%s/spool", d->spool_dir);
}

void drive_raise_fd_limit(unsigned sessions)
{
    uint64_t soft, hard;
    char what[64], msg[400];

    fdlimit_raise(&soft, &hard);
    snprintf(what, sizeof(what), "-s %u (the relay's sockets and queue files)", sessions);
    if (!fdlimit_check(2 * (uint64_t)sessions + FDLIMIT_RESERVE, soft, hard, what, msg,
                       sizeof(msg)))
        msg_warn("%s", msg);
}

int drive_dry_run(char *const argv[])
{
    posix_spawn_file_actions_t fa;
    pid_t pid;
    int rc, status;

    fflush(NULL);
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    rc = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0)
        msg_fatal("cannot run %s: %s", argv[0], strerror(rc));
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            msg_fatal("waitpid: %s", strerror(errno));
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int drive_relay_dry_run_args(char *argv[], const struct drive *d, const char *spool)
{
    argv[0] = (char *)d->self;
    argv[1] = "relay";
    argv[2] = "--dry-run";
    argv[3] = "--spool";
    argv[4] = (char *)spool;
    return DRIVE_RELAY_DRY_RUN_ARGS;
}

void drive_path(const struct drive *d, const char *name, char *out)
{
    snprintf(out, PATH_MAX, "%s/%s", d->work, name);
}

void drive_remove_work(struct drive *d)
{
    if (d->keep)
        return;
    if (d->work[0]) {
        fileutil_tree_remove(d->work);
        d->work[0] = 0;
    }
    if (d->spool_dir[0]) {
        fileutil_tree_remove(d->spool_dir);
        d->spool_dir[0] = 0;
    }
}

/* ------------------------------------------------------------ the children */

int drive_spawn(const struct drive *d, struct drive_child *c, const char *name, char *const argv[])
{
    return drive_spawn_env(d, c, name, argv, environ);
}

int drive_spawn_driver(const struct drive *d, struct drive_child *c, const char *name,
                       char *const argv[])
{
    int status = drive_spawn_env(d, c, name, argv, environ);

    c->stop_grace_s = DRIVE_STOP_GRACE_DRIVER_S;
    return status;
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
    c->stop_grace_s = DRIVE_STOP_GRACE_S;
    c->pid = spawn_logged_env(argv, envp, out, err);
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

/*
 * One step of a wait for a child to exit: until it does, until wait_ns
 * has passed, or until a signal to us, whichever is first. Through its
 * pidfd when there is one; otherwise a sleep of at most 10 ms, so that
 * the caller looks at the child again soon. -1 with errno EINTR when a
 * signal cut the step short, so that the caller can pass it on.
 */
static int wait_child_step(int pidfd, uint64_t wait_ns)
{
    struct pollfd pfd = {.fd = pidfd, .events = POLLIN};
    uint64_t us = wait_ns / CLOCK_NS_PER_US;

    if (pidfd >= 0)
        return poll(&pfd, 1, (int)(wait_ns / CLOCK_NS_PER_MS + 1));
    return usleep(us < 10000 ? (useconds_t)us : 10000);
}

/*
 * The wait after a SIGTERM to c. Each signal to us meanwhile passes
 * another on (smtp-source stops at once on the second); a child still
 * there after its grace gets SIGKILL, with a warning, so that a driver
 * never hangs on a child that does not stop.
 */
static int reap_stopped(struct drive_child *c)
{
    int grace_s = c->stop_grace_s > 0 ? c->stop_grace_s : DRIVE_STOP_GRACE_S;
    uint64_t deadline = clock_now_ns() + (uint64_t)grace_s * CLOCK_NS_PER_SEC;
    int pidfd = open_pidfd(c->pid), status = -1;
    struct rusage ru;

    for (;;) {
        pid_t got = wait4(c->pid, &status, WNOHANG, &ru);
        uint64_t now;

        if (got == c->pid) {
            reaped(c, &ru);
            break;
        }
        if (got < 0 && errno != EINTR) {
            c->pid = 0;
            status = -1;
            break;
        }
        if ((now = clock_now_ns()) >= deadline) {
            msg_warn("%s (PID %ld) did not stop within %d s of a SIGTERM: killed", c->name,
                     (long)c->pid, grace_s);
            kill(c->pid, SIGKILL);
            while ((got = wait4(c->pid, &status, 0, &ru)) < 0 && errno == EINTR)
                continue;
            if (got == c->pid) {
                reaped(c, &ru);
            } else {
                c->pid = 0;
                status = -1;
            }
            break;
        }
        if (wait_child_step(pidfd, deadline - now) < 0 && errno == EINTR)
            kill(c->pid, SIGTERM); /* another signal to us: passed on */
    }
    if (pidfd >= 0)
        close(pidfd);
    return status;
}

int drive_reap(struct drive_child *c)
{
    struct rusage ru;
    int status;

    if (c->pid <= 0)
        return 0;
    while (interrupt_signal() == 0) {
        if (wait4(c->pid, &status, 0, &ru) == c->pid) {
            reaped(c, &ru);
            return status;
        }
        if (errno != EINTR) {
            c->pid = 0;
            return -1;
        }
    }
    kill(c->pid, SIGTERM); /* asked to stop, before the wait or during it */
    return reap_stopped(c);
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
        wait_child_step(pidfd, next - now); /* a signal ends it early: look again */
    }
    if (pidfd >= 0)
        close(pidfd);
    return status;
}

int drive_stop(struct drive_child *c)
{
    if (c->pid <= 0)
        return 0;
    kill(c->pid, SIGTERM);
    return reap_stopped(c);
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

int drive_wait_port(const struct drive *d, struct drive_child *c, const char *file)
{
    char path[PATH_MAX];

    drive_path(d, file, path);
    for (int i = 0; i < DRIVE_START_SECONDS * 40 && interrupt_signal() == 0; i++) {
        FILE *fp = fopen(path, "r");
        int port = 0, status;

        if (fp) {
            if (fscanf(fp, "%d", &port) != 1)
                port = 0;
            fclose(fp);
            if (port > 0)
                return port;
        }
        if (waitpid(c->pid, &status, WNOHANG) == c->pid) {
            c->pid = 0;
            return -1;
        }
        usleep(25000);
    }
    return -1;
}

int drive_start_sink(const struct drive *d, struct drive_child *c, const char *sink_path,
                     const char *name, const char *listen, int tls, const char *data_delay)
{
    char log[PATH_MAX], portfile[PATH_MAX], base[64], port_base[64];
    char *argv[12];
    int n = 0;

    snprintf(base, sizeof(base), "%s.log", name);
    drive_path(d, base, log);
    snprintf(port_base, sizeof(port_base), "%s.port", name);
    drive_path(d, port_base, portfile);
    argv[n++] = (char *)sink_path;
    argv[n++] = "--no-summary";
    argv[n++] = "--port-file";
    argv[n++] = portfile;
    argv[n++] = "--msg-log";
    argv[n++] = log;
    if (tls)
        argv[n++] = "--tls";
    if (data_delay) {
        argv[n++] = "-w";
        argv[n++] = (char *)data_delay;
    }
    argv[n++] = (char *)listen;
    argv[n++] = "1000";
    argv[n] = NULL;
    if (drive_spawn(d, c, name, argv) != 0)
        return -1;
    return drive_wait_port(d, c, port_base);
}

int drive_relay_args(char *argv[], const struct drive *d, const char *portfile, const char *spool,
                     const char *next_hop, const char *json)
{
    int n = 0;

    argv[n++] = (char *)d->self;
    argv[n++] = "relay";
    argv[n++] = "--listen";
    argv[n++] = "127.0.0.1:0";
    argv[n++] = "--port-file";
    argv[n++] = (char *)portfile;
    argv[n++] = "--spool";
    argv[n++] = (char *)spool;
    argv[n++] = "--next-hop";
    argv[n++] = (char *)next_hop;
    argv[n++] = "--json";
    argv[n++] = (char *)json;
    argv[n++] = "--min-backoff";
    argv[n++] = "100ms";
    argv[n++] = "--max-backoff";
    argv[n++] = "1s";
    return n;
}

int drive_arg_if_set(char *argv[], int n, const char *option, const char *value)
{
    if (value) {
        argv[n++] = (char *)option;
        argv[n++] = (char *)value;
    }
    return n;
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

int drive_source_load_args(char *argv[], const struct optgroup_values *v, struct drive_load_text *t)
{
    int n = 0;

    snprintf(t->sessions, sizeof(t->sessions), "%u", v->sessions);
    snprintf(t->rcpts, sizeof(t->rcpts), "%u", v->rcpts);
    argv[n++] = "-s";
    argv[n++] = t->sessions;
    if (v->workload) { /* it draws the sizes and recipients */
        snprintf(t->scale, sizeof(t->scale), "%.17g", v->scale);
        argv[n++] = "--workload";
        argv[n++] = (char *)v->workload;
        argv[n++] = "--scale";
        argv[n++] = t->scale;
        if (v->peak)
            argv[n++] = "--peak";
        if (v->replay > 0) {
            snprintf(t->replay, sizeof(t->replay), "--replay=%.17g", v->replay);
            argv[n++] = t->replay;
        }
    } else {
        argv[n++] = "-r";
        argv[n++] = t->rcpts;
        argv[n++] = "--size";
        argv[n++] = (char *)v->size;
    }
    if (v->messages) {
        snprintf(t->amount, sizeof(t->amount), "%llu", (unsigned long long)v->messages);
        argv[n++] = "-m";
    } else {
        snprintf(t->amount, sizeof(t->amount), "%.3fs", v->duration);
        argv[n++] = "--duration";
    }
    argv[n++] = t->amount;
    return n;
}

void drive_workload_check(const char *path, struct workload_file *wf)
{
    struct workload_file *mine = wf ? wf : xmalloc(sizeof(*mine));
    char err[256];
    char *text = fileutil_read_all(path, NULL);

    if (!text)
        msg_usage("--workload %s: cannot read: %s", path, strerror(errno));
    if (workload_file_parse(text, mine, err, sizeof(err)) != 0)
        msg_usage("--workload %s: %s", path, err);
    free(text);
    if (!wf) {
        workload_file_free(mine);
        free(mine);
    }
}

void drive_workload_sha256(const char *source_json, char sha256[DRIVE_SHA256_HEX])
{
    if (!source_json ||
        json_read_string(source_json, "workload.sha256", sha256, DRIVE_SHA256_HEX) != 0)
        sha256[0] = 0;
}

void drive_workload_json(struct json_writer *w, const struct optgroup_values *v, const char *sha256)
{
    if (!v->workload) {
        json_string(w, "workload", NULL);
        return;
    }
    json_begin_object(w, "workload");
    json_string(w, "file", v->workload);
    json_string(w, "sha256", sha256 && sha256[0] ? sha256 : NULL);
    json_double(w, "scale", v->scale);
    json_bool(w, "peak", v->peak);
    json_double(w, "replay", v->replay > 0 ? v->replay : NAN);
    json_end_object(w);
}
