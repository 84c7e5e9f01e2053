/*
 * bench_options - `spoolsim bench''s command line: its --help, and its
 * options parsed and checked into struct bench_options (bench_report.h).
 *
 * Every check that needs no run is made here, before anything starts: a
 * bad value, options that exclude each other, the relay's own rules
 * (--relay-threads against --cleanup-threads), --mta's and --compare's
 * (bench_mta.h); each is a usage error (exit 2) naming the option.
 */
#ifndef SPOOLSIM_BENCH_OPTIONS_H
#define SPOOLSIM_BENCH_OPTIONS_H

#include "bench_report.h"

/*
 * Parse argv into o (which is set up here). skip has an element for each
 * of argv's, zeroed by the caller: the elements of the options that are not for --compare's
 * runs, and -n's (--calibrate and its kin, --compare, -n/--runs) are set to 1.
 */
void bench_options_parse(struct bench_options *o, int argc, char **argv, unsigned char *skip);
/* smtp-source's rule for its --threads: no more threads than sessions. */
void bench_options_check_harness_threads(const struct bench_options *o);

#endif
