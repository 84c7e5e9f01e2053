/*
 * msg - diagnostics for spoolsim programs.
 *
 * Messages go to stderr as "program: level: text". msg_fatal() exits with
 * status 1 (a runtime failure), msg_usage() with status 2 (the user asked for
 * something that cannot be done: a bad option, a missing argument). The only
 * state is the program name and verbosity, set once at start-up.
 */
#ifndef SPOOLSIM_MSG_H
#define SPOOLSIM_MSG_H

#include <stdarg.h>

#define MSG_PRINTF(f, a) __attribute__((format(printf, f, a)))

void msg_init(const char *progname);
const char *msg_progname(void);
void msg_set_verbose(int level);
int msg_verbose(void);

void msg_info(const char *fmt, ...) MSG_PRINTF(1, 2);
void msg_warn(const char *fmt, ...) MSG_PRINTF(1, 2);
_Noreturn void msg_fatal(const char *fmt, ...) MSG_PRINTF(1, 2);
_Noreturn void msg_usage(const char *fmt, ...) MSG_PRINTF(1, 2);
_Noreturn void msg_panic(const char *fmt, ...) MSG_PRINTF(1, 2);

#endif
