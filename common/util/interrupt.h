/*
 * interrupt - SIGINT, SIGTERM and a reader gone away, as requests to stop.
 *
 * interrupt_install() makes SIGINT and SIGTERM record their number in the
 * program's one piece of signal state, a volatile sig_atomic_t in
 * interrupt.c, and nothing else: the handler is async-signal-safe, and the
 * work loops look at interrupt_signal() to stop, clean up and report. It
 * installs no SA_RESTART, so that a blocking wait (waitpid, getline,
 * usleep) returns EINTR and its loop can look at once. SIGPIPE is ignored:
 * a closed standard output shows up as EPIPE on a write, and the program
 * calls interrupt_note(SIGPIPE) to stop the same way.
 *
 * A stopped program exits with interrupt_exit_status(): 128 plus the
 * signal number, as a shell reports a process killed by it (130 for
 * SIGINT, 143 for SIGTERM, 141 for SIGPIPE), after it has removed what it
 * made.
 */
#ifndef SPOOLSIM_INTERRUPT_H
#define SPOOLSIM_INTERRUPT_H

#include <pthread.h>
#include <stdio.h>

void interrupt_install(void);

/*
 * pthread_create() for a worker that must never take SIGINT or SIGTERM:
 * they stay the main thread's, whose loop turns them into a stop. Returns
 * pthread_create()'s error number.
 */
int interrupt_thread_create(pthread_t *thread, void *(*run)(void *), void *arg);

/* The signal that asked for a stop, or 0. */
int interrupt_signal(void);

/* Record a stop the program found itself (SIGPIPE for EPIPE on standard output). */
void interrupt_note(int sig);

/* 128 + the signal; 0 when there was none. */
int interrupt_exit_status(void);

/* "SIGINT", "SIGTERM" or "SIGPIPE" (the only ones it records). */
const char *interrupt_name(void);

/*
 * The line that marks a report as partial, for the top of it:
 * "partial: interrupted by SIGINT; the figures cover the work done until then".
 */
void interrupt_print_partial(FILE *fp);

/*
 * After the report is written: whether standard output still takes it.
 * On EPIPE (the reader went away, as with `| head') this notes SIGPIPE
 * and returns -1 without a message; on another error it warns and
 * returns -1; else 0.
 */
int interrupt_flush_stdout(void);

#endif
