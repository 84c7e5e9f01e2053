/*
 * drive - the child processes `spoolsim bench' and `spoolsim ab' run, and
 * the private work directory they run them in.
 *
 * The contract:
 *
 * - A driver knows its children by PID only. drive_reap() waits for that
 *   PID, never for "any child", so that nothing else the program started
 *   is reaped by mistake, and drive_stop() signals that PID alone.
 * - Every child runs with no input and with its standard output and error
 *   in NAME.out and NAME.err in the work directory (spawn_logged()), where
 *   drive_show_errors() finds them to say why it failed.
 * - The work directory is PARENT/spoolsim-TAG.XXXXXX, made by mkdtemp (a
 *   new name, only its owner may enter), PARENT $TMPDIR or /tmp unless
 *   given. drive_remove_work() removes it unless the user asked to keep
 *   it; a driver removes it on every way out, an interrupt included.
 * - A spool under test given elsewhere (bench --spool) gets a private
 *   directory of its own there, drive_make_spool_dir(), removed and kept
 *   with the work directory: the spool alone goes on the filesystem under
 *   test, and the harness's logs and reports stay in the work directory,
 *   where the spool filling its filesystem cannot cut them.
 * - SIGINT and SIGTERM (interrupt.h) interrupt a wait; drive_reap() then
 *   passes a SIGTERM on to the child, once for each signal the driver
 *   gets (smtp-source stops at once on the second), so that the child
 *   stops, removes its own files and writes its report before the driver
 *   removes the directory. A child that has not stopped 30 s after the
 *   first (a driver of ours: 300 s, drive_spawn_driver()) is killed
 *   (SIGKILL), with a warning: the driver never hangs.
 * - drive_abandon() stops every child still running and removes the work
 *   directory; drive_give_up() does that and exits: with the interrupt's
 *   status when a signal was the reason, else 1 naming what did not start.
 * - The sibling programs (smtp-sink, smtp-source) are found by
 *   companion_find_program() (spoolsim.h), which calibrate shares.
 *
 * All the state is in struct drive and struct drive_child, the caller's.
 */
#ifndef SPOOLSIM_DRIVE_H
#define SPOOLSIM_DRIVE_H

#include <stddef.h>
#include <sys/types.h>

#include "optgroup.h"

#define DRIVE_SHORT_PATH 2048 /* room to append names to these and stay within PATH_MAX */

/* What a child asked to stop may take to take itself apart (a real MTA its daemons). */
#define DRIVE_STOP_GRACE_S 30
/*
 * ...and a child that is one of our drivers (bench, crash): it first stops
 * its own children, each within DRIVE_STOP_GRACE_S, and unmounts what it
 * mounted. Killed sooner, it would leave them to the kernel, and its work
 * directory behind.
 */
#define DRIVE_STOP_GRACE_DRIVER_S (10 * DRIVE_STOP_GRACE_S)

struct drive_child {
    const char *name; /* for its files, NAME.out and NAME.err */
    pid_t pid;        /* 0 when it is not running */
    double cpu_s;     /* user + system, once reaped */
    int stop_grace_s; /* how long a stop may take before SIGKILL, set by the spawn */
};

struct drive {
    char self[DRIVE_SHORT_PATH];      /* this program, from /proc/self/exe */
    char work[DRIVE_SHORT_PATH];      /* the work directory; "" until made and once removed */
    char spool_dir[DRIVE_SHORT_PATH]; /* drive_make_spool_dir()'s, or "" */
    int keep;                         /* drive_remove_work() leaves them */
};

/* This program's path, for running its own subcommands; fatal if /proc cannot say. */
void drive_find_self(struct drive *d);

/*
 * The work directory in PARENT (NULL: $TMPDIR or /tmp). A PARENT too long
 * is a usage error naming `what', the option or variable it came from; a
 * directory that cannot be made is fatal.
 */
void drive_make_work_dir(struct drive *d, const char *parent, const char *what, const char *tag);

/*
 * Where the spool under test goes, in spool (PATH_MAX bytes): WORK/spool
 * when parent is NULL; else SPOOL_DIR/spool, SPOOL_DIR a private directory
 * made in parent (as the work directory is; `what' names the option). Call
 * after drive_make_work_dir().
 */
void drive_make_spool_dir(struct drive *d, const char *parent, const char *what, const char *tag,
                          char *spool);

/*
 * Raise the descriptor limit to the hard one for the children, who inherit
 * it: each of `sessions' costs the client a socket and the relay a socket
 * and a queue file. smtp-source refuses what cannot fit; the relay's share
 * is an estimate, so a shortfall is a warning.
 */
void drive_raise_fd_limit(unsigned sessions);

/*
 * A child's dry run (argv[0] this program, a command and its --dry-run,
 * optgroup.h): run, its standard output discarded, its errors on ours, as
 * the child words them; waited for. Its exit status, -1 if a signal
 * killed it. Needs no work directory: it runs before one is made.
 */
int drive_dry_run(char *const argv[]);

/*
 * The start of the relay's dry run (self relay --dry-run --spool SPOOL)
 * in argv, for a driver to add the relay options it would pass on: the
 * count of arguments put there, DRIVE_RELAY_DRY_RUN_ARGS. SPOOL is the
 * directory the driver's spool will be made in, which exists.
 */
#define DRIVE_RELAY_DRY_RUN_ARGS 5
int drive_relay_dry_run_args(char *argv[], const struct drive *d, const char *spool);

/* WORK/NAME in out, of PATH_MAX bytes. */
void drive_path(const struct drive *d, const char *name, char *out);

/* Remove the work directory and the spool's, unless they are kept. */
void drive_remove_work(struct drive *d);

/* Start argv as child c, called NAME; 0, or -1 with a warning naming the program. */
int drive_spawn(const struct drive *d, struct drive_child *c, const char *name, char *const argv[]);

/* drive_spawn() for a child that is itself a driver: DRIVE_STOP_GRACE_DRIVER_S to stop. */
int drive_spawn_driver(const struct drive *d, struct drive_child *c, const char *name,
                       char *const argv[]);

/* drive_spawn() with the environment envp instead of this program's. */
int drive_spawn_env(const struct drive *d, struct drive_child *c, const char *name,
                    char *const argv[], char *const envp[]);

/* Wait for the child: its wait status, 0 if none was running, -1 if it cannot be had. */
int drive_reap(struct drive_child *c);

/*
 * As drive_reap(), calling tick(ctx) every every_s seconds while the child
 * runs (a status line), and ending the moment the child does.
 */
int drive_reap_every(struct drive_child *c, double every_s, void (*tick)(void *ctx), void *ctx);

/*
 * SIGTERM to the child, if running, and the wait: a child that has not
 * stopped within its grace is killed (SIGKILL), with a warning naming it.
 */
int drive_stop(struct drive_child *c);

/* A wait status as an exit status: -1 for a child killed by a signal or lost. */
int drive_exit_status(int wait_status);

/*
 * The child's standard error, each line as "  LABEL: line" on ours; but
 * not its status lines (--progress), which say nothing of what went wrong.
 */
void drive_show_errors(const struct drive *d, const char *name, const char *label);

/*
 * The child's last status line (progress.h) in its standard error, given
 * --progress, without the prefix, in out (len bytes): 0, or -1 if none yet.
 */
int drive_last_progress(const struct drive *d, const char *name, char *out, size_t len);

/*
 * The port a child wrote to WORK/FILE (--port-file) once it listens: the
 * port, or -1 if the child died first, DRIVE_START_SECONDS passed, or a
 * signal came. The wait is long because a child that is alive is still
 * starting: the relay measures the machine's system work before it
 * listens when its model comes from elsewhere (7.6 s seen at a load of 28,
 * where 5 s was the limit once).
 */
#define DRIVE_START_SECONDS 60
int drive_wait_port(const struct drive *d, struct drive_child *c, const char *file);

/*
 * Start smtp-sink (sink_path) as child c called NAME, listening on listen
 * ("127.0.0.1:0" for a free port), logging each message to WORK/NAME.log
 * (--msg-log), STARTTLS offered if tls, each DATA reply delayed by
 * data_delay seconds unless NULL (-w): its port, or -1 (see drive_wait_port()).
 */
int drive_start_sink(const struct drive *d, struct drive_child *c, const char *sink_path,
                     const char *name, const char *listen, int tls, const char *data_delay);

/*
 * The start of a `spoolsim relay' command line a driver runs (self relay
 * --listen 127.0.0.1:0 --port-file ... --spool ... --next-hop ... --json
 * ..., and retries a short run can wait for: 100ms to 1s) into argv: the
 * count of arguments put there, at most DRIVE_RELAY_ARGS.
 */
#define DRIVE_RELAY_ARGS 16
int drive_relay_args(char *argv[], const struct drive *d, const char *portfile, const char *spool,
                     const char *next_hop, const char *json);

/* OPTION VALUE put at argv[n] if value is not NULL: the new count of arguments. */
int drive_arg_if_set(char *argv[], int n, const char *option, const char *value);

/*
 * The load of an smtp-source command line from the shared workload
 * options (optgroup.h): -s N -r N --size DIST (with --workload: the file,
 * --scale, --peak, --replay=F instead of -r and --size), then -m N or
 * --duration Ns, into argv; their numbers are written in t, which must
 * outlive argv. The count of arguments put there, DRIVE_LOAD_ARGS at most.
 */
#define DRIVE_LOAD_ARGS 10
struct drive_load_text {
    char sessions[16], rcpts[16], amount[32];
    char scale[32], replay[48]; /* --workload's */
};
int drive_source_load_args(char *argv[], const struct optgroup_values *v,
                           struct drive_load_text *t);

/*
 * --workload's file read and checked as smtp-source will read it (a usage
 * error, exit status 2, naming the file and the problem): before anything
 * starts, so that a bad file is the driver's refusal, not a child's
 * failure. With wf, the workload is left there (workload_file_free() it).
 */
struct workload_file;
void drive_workload_check(const char *path, struct workload_file *wf);

/*
 * "workload": the file, its SHA-256 as smtp-source's report gave it (read
 * into sha256 by drive_workload_sha256(); "" when it gave none: null),
 * --scale, --peak and --replay; the key null without --workload. One
 * digest, smtp-source's: this layer links no hash.
 */
#define DRIVE_SHA256_HEX 65
void drive_workload_sha256(const char *source_json, char sha256[DRIVE_SHA256_HEX]);
struct json_writer;
void drive_workload_json(struct json_writer *w, const struct optgroup_values *v,
                         const char *sha256);

/* Stop the n children (NULL entries skipped), then remove the work directory. */
void drive_abandon(struct drive *d, struct drive_child *const children[], size_t n);

/*
 * A child did not start: drive_abandon(), then exit with the interrupt's
 * status if a signal came ("interrupted by SIGINT before the run began"),
 * else status 1: "WHAT did not start".
 */
_Noreturn void drive_give_up(struct drive *d, struct drive_child *const children[], size_t n,
                             const char *what);

#endif
