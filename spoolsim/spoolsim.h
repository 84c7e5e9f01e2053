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
int spoolsim_ab(int argc, char **argv);
int spoolsim_raw(int argc, char **argv);
int spoolsim_calibrate(int argc, char **argv);

/*
 * The path of the program or script `name' ("smtp-sink", "smtp-source",
 * "calibrate-postfix.sh") that spoolsim `self' (as /proc/self/exe names it)
 * runs, into out: the environment variable env if it is set and not empty;
 * else name in self's directory, where they are installed together; else,
 * when self is the build tree's spoolsim, the one the build tree has.
 * 0, or -1 when none of the last two is executable (out: the last tried).
 */
int spoolsim_companion(const char *self, const char *name, const char *env, char *out, size_t len);

#endif
