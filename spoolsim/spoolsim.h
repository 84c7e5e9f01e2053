/*
 * spoolsim - the subcommands of the spoolsim program.
 *
 * Each takes the arguments after its own name (argv[0] is the subcommand)
 * and returns the exit status.
 */
#ifndef SPOOLSIM_SPOOLSIM_H
#define SPOOLSIM_SPOOLSIM_H

#include <stddef.h>

int spoolsim_postmark(int argc, char **argv);
int spoolsim_relay(int argc, char **argv);
int spoolsim_bench(int argc, char **argv);
int spoolsim_sweep(int argc, char **argv);
int spoolsim_ab(int argc, char **argv);
int spoolsim_raw(int argc, char **argv);
int spoolsim_calibrate(int argc, char **argv);
/*
 * The environment of a script that runs a real MTA (calibrate's, bench
 * --mta's): this spoolsim, its smtp-source and smtp-sink, the data, and
 * where an installed spoolsim unpacks the MTA (calibrate.c).
 */
void calibrate_script_env(const char *self);
int spoolsim_plot(int argc, char **argv);
int spoolsim_merge(int argc, char **argv);
int spoolsim_compare(int argc, char **argv);
int spoolsim_rerun(int argc, char **argv);
int spoolsim_workload(int argc, char **argv);
int spoolsim_crash(int argc, char **argv);

/*
 * companion.c: where spoolsim finds itself and the programs and scripts it
 * runs, as man/spoolsim-bench.1 says ("Finding smtp-sink and smtp-source").
 *
 * companion_init(): the argv[0] of main(), before any subcommand runs.
 *
 * companion_self(): this program's path in out (len bytes): as the system
 * says (platform_self_path(), /proc/self/exe on Linux), else from
 * argv[0] and PATH (fileutil_program_path()); fatal if neither finds it
 * or the path does not fit.
 *
 * companion_find_program(): the path of the build's program `name'
 * ("smtp-sink", "smtp-source") into out: the environment variable env if
 * it is set and not empty; else next to `self', where they are installed
 * together, under its installed name (--program-prefix) or its own; else,
 * when self is the build tree's own spoolsim, where the build put it (from
 * the build's list of programs, generated into programs.h); else in the
 * configured PKGLIBEXECDIR, outside PATH, where --enable-private-tools
 * installs them; else the first of that name in PATH whose --version says
 * it is spoolsim's (Postfix installs an smtp-sink and an smtp-source of
 * its own). Fatal, naming env, if there is none.
 *
 * companion_run_program(): spoolsim source and spoolsim sink: runs the
 * program found as above with the arguments after argv[0] (exec, so the
 * exit status is the program's own), and msg_progname() ("spoolsim
 * source") as its argv[0], the name its messages give; returns only by a
 * fatal error.
 *
 * companion_find_script(): the same for a script of the source tree
 * ("calibrate-postfix.sh", in bench/): env; next to self; for the build
 * tree's spoolsim, the build's source tree (a VPATH build has no bench/
 * beside its binaries); else where the build installs it, in the same
 * folder under PKGLIBEXECDIR (PKGLIBEXECDIR/bench/calibrate-postfix.sh).
 * 0, or -1 when none is executable.
 *
 * companion_in_build_tree(): whether self is the spoolsim this build made
 * (both as the kernel names them), not an installed or copied one.
 *
 * companion_data_dir(): where the files of data/ are: the source tree's
 * data/ for the build tree's spoolsim, else the configured PKGDATADIR.
 */
void companion_init(const char *argv0);
void companion_self(char *out, size_t len);
void companion_find_program(const char *self, const char *name, const char *env, char *out,
                            size_t len);
int companion_run_program(const char *name, const char *env, int argc, char **argv);
int companion_find_script(const char *self, const char *name, const char *env, char *out,
                          size_t len);
int companion_in_build_tree(const char *self);
void companion_data_dir(const char *self, char *out, size_t len);

#endif
