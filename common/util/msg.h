/*
 * msg - diagnostics for spoolsim programs.
 *
 * Messages go to stderr as "program: level: text". msg_fatal() exits with
 * status 1 (a runtime failure), msg_usage() with status 2 (the user asked for
 * something that cannot be done: a bad option, a missing argument). The only
 * state is the program name, verbosity and a hook, set once at start-up.
 *
 * Library code does not print: it says what went wrong in the caller's
 * buffer with msg_set_error() and returns -1, and the caller decides
 * whether that is a warning, a usage error or fatal.
 */
#ifndef SPOOLSIM_MSG_H
#define SPOOLSIM_MSG_H

#include <stdarg.h>
#include <stddef.h>

#define MSG_PRINTF(f, a) __attribute__((format(printf, f, a)))

void msg_init(const char *progname);
const char *msg_progname(void);
void msg_set_verbose(int level);
int msg_verbose(void);
/*
 * fn(ctx) before every message is written: a live status line on a
 * terminal (progress_out.h) is erased, so the message starts a line of its own.
 */
void msg_set_hook(void (*fn)(const void *ctx), const void *ctx);

void msg_info(const char *fmt, ...) MSG_PRINTF(1, 2);
void msg_warn(const char *fmt, ...) MSG_PRINTF(1, 2);
_Noreturn void msg_fatal(const char *fmt, ...) MSG_PRINTF(1, 2);
_Noreturn void msg_usage(const char *fmt, ...) MSG_PRINTF(1, 2);
_Noreturn void msg_panic(const char *fmt, ...) MSG_PRINTF(1, 2);

/* The message in err (truncated to errlen; nothing if err is NULL or errlen 0); returns -1. */
int msg_set_error(char *err, size_t errlen, const char *fmt, ...) MSG_PRINTF(3, 4);
int msg_vset_error(char *err, size_t errlen, const char *fmt, va_list ap) MSG_PRINTF(3, 0);

#endif
