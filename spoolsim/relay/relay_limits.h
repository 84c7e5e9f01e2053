/*
 * relay_limits - the bounds and defaults of the relay's options that other
 * commands pass on to it: bench checks them with the relay's own numbers
 * before it starts anything, and says the relay's defaults in its --help.
 * Constants only (and the one list of --qmgr's names), so that a command
 * may include it without the relay's other headers.
 */
#ifndef SPOOLSIM_RELAY_LIMITS_H
#define SPOOLSIM_RELAY_LIMITS_H

#define RELAY_CLEANUP_THREADS_DEFAULT 20
#define RELAY_CLEANUP_THREADS_MAX 1000
#define RELAY_THREADS_MAX 64
#define RELAY_CONCURRENCY_DEFAULT 20 /* Postfix's default_destination_concurrency_limit */
#define RELAY_CONCURRENCY_MAX 10000

/* --qmgr's names (relay_options.c), in enum relay_qmgr_shape's order; NULL ends them. */
extern const char *const relay_options_qmgr_names[];

#endif
