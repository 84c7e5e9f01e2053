/*
 * bench_repeat - `spoolsim bench -n N': one run is one sample; N of them,
 * after a warm-up, say how far a figure can be trusted.
 *
 * It runs this bench again as child processes (bench_compare_child()): a
 * warm-up run whose figure is not counted (the first run of a machine
 * pays for cold caches and a filesystem's first allocations), then N
 * measured runs, one after another with the same options and spool
 * filesystem. Each run's JSON report gives its delivered_per_s,
 * injected_per_s and exactly_once; the report is the median of each, the
 * 95 % bootstrap interval of the median (ab_stats_median_interval(), seed
 * BENCH_REPEAT_SEED), the mean, the sample standard deviation, min and
 * max, in text and with --json in JSON (docs/json.md, spoolsim bench:
 * repeated). The options a child must not be given (-n/--runs, the
 * calibration's) are the argv indices bench_options_parse() noted in skip.
 */
#ifndef SPOOLSIM_BENCH_REPEAT_H
#define SPOOLSIM_BENCH_REPEAT_H

#include "bench_report.h"
#include "drive.h"

#define BENCH_REPEAT_WARMUPS 1
#define BENCH_REPEAT_SEED 1 /* the bootstrap's: the same runs give the same interval */

/*
 * The runs and their report: exit status 0 when every run finished and
 * delivered exactly once (or --discard), 1 when a run did not deliver
 * exactly once or the JSON could not be written, 3 when a run did not
 * finish, the interrupt's when a signal stopped it.
 */
int bench_repeat_main(const struct bench_options *o, struct drive *d, int argc, char **argv,
                      const unsigned char *skip);

#endif
