/*
 * exit_status - the exit status of every spoolsim program and command.
 *
 * One meaning per number, the same in every command and in every man
 * page's EXIT STATUS, so that a script can tell a bad answer from a run
 * that gave none:
 *
 *   0  success: the run completed and its answer is good (crash: durable).
 *   1  the measured answer is bad: mail lost or duplicated (exactly once:
 *      NO, crash: LOSES), a failed SLO or check, messages that failed; or
 *      the result could not be written (a --json or -o file, a message
 *      log): the run happened but what it found is not there to read.
 *   2  usage: a bad option, value or argument, caught before any work;
 *      a directory named on the command line that does not exist is one.
 *   3  the run could not complete, or was inconclusive: a program it needs
 *      did not start, a set-up failed, the system refused a resource, a
 *      crash test with nothing acknowledged to check (msg_fatal()).
 *
 * A signal that stops a program gives 128 plus its number instead
 * (interrupt.h). Constants only: no code, no state.
 */
#ifndef SPOOLSIM_EXIT_STATUS_H
#define SPOOLSIM_EXIT_STATUS_H

#define EXIT_STATUS_OK 0
#define EXIT_STATUS_BAD 1
#define EXIT_STATUS_USAGE 2
#define EXIT_STATUS_INCOMPLETE 3

#endif
