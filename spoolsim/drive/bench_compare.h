/*
 * bench_compare - `spoolsim bench --compare MTA': the truth beside the
 * prediction, in one command.
 *
 * It runs this bench again, as child processes, --runs times for each
 * side and alternating which goes first: the relay with the MTA's profile
 * and model, and the real MTA in the relay's place (--mta), the same load
 * and spool filesystem for both; it reads each run's JSON report and
 * prints both sides' rates, their ratio and whether they agree
 * (bench_compare_report.h), in text and, with --json, in JSON. Its own
 * work directory (in $TMPDIR) holds the children's reports and logs; each
 * child makes and removes its own in --spool. The options bench_compare
 * must not pass on (--compare, --runs, --calibrate, --recalibrate) are
 * the argv indices parse_options() noted in skip.
 */
#ifndef SPOOLSIM_BENCH_COMPARE_H
#define SPOOLSIM_BENCH_COMPARE_H

#include "bench_report.h"
#include "drive.h"

/*
 * Run the comparison: the exit status, 0 when every run finished (the
 * verdict is in the report, not in the status), 1 when one did not, the
 * interrupt's when a signal stopped it.
 */
/*
 * One child run of this bench, as --compare and -n make them: argv less
 * the elements marked in skip, then -q, --json WORK/NAME.json and extra
 * (NULL-terminated; may be NULL). Its JSON report (malloc'd), or NULL
 * when it wrote none or a signal came; *status is its exit status (-1:
 * not started, or killed).
 */
char *bench_compare_child(struct drive *d, int argc, char **argv, const unsigned char *skip,
                          const char *name, const char *const extra[], int *status);

int bench_compare_main(const struct bench_options *o, struct drive *d, int argc, char **argv,
                       const unsigned char *skip);

#endif
