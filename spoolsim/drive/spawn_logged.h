/*
 * spawn_logged - start a program with no input and its output in files.
 *
 * spoolsim bench and spoolsim ab run their components and the runs they
 * compare as child processes whose standard output and error go to files
 * in a work directory (made 0600, truncated), read once the child is done.
 * Returns the child's pid, or -1 with a warning naming the program.
 */
#ifndef SPOOLSIM_SPAWN_LOGGED_H
#define SPOOLSIM_SPAWN_LOGGED_H

#include <sys/types.h>

pid_t spawn_logged(char *const argv[], const char *out, const char *err);

/* The same with the environment envp instead of this program's. */
pid_t spawn_logged_env(char *const argv[], char *const envp[], const char *out, const char *err);

#endif
