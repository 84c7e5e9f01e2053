/*
 * bench_check - what `spoolsim bench' checks before anything starts, and
 * its --dry-run.
 *
 * Before the sink, the relay, a calibration or --compare's first run:
 * the --spool parent (a directory this user may write in), the relay's
 * own dry run with the options bench would give it (so that a --model it
 * cannot take is a usage error, exit 2, not the relay's failure once the
 * sink runs), and for --mta or --compare what a real MTA needs of this
 * machine (bench_mta_ready(): exit 1, the machine's fault, in a run; 2 in
 * a dry run, which exits 0 or 2). A dry run then says what would run.
 */
#ifndef SPOOLSIM_BENCH_CHECK_H
#define SPOOLSIM_BENCH_CHECK_H

#include "bench_report.h"
#include "drive.h"

/* The relay options bench passes on (--sync, --profile ...) at argv[n]: the new count. */
#define BENCH_CHECK_RELAY_ARGS 17
int bench_check_relay_args(const struct bench_options *o, char *argv[], int n);

/* Every check above (d: this program, no work directory yet): where the work directory goes. */
const char *bench_check_before(const struct bench_options *o, const struct drive *d);

/* --dry-run, after bench_check_before(): what would run, on standard output; exit 0. */
_Noreturn void bench_check_dry_run(const struct bench_options *o, const char *parent);

#endif
