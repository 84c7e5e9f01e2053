/*
 * calibrate_fit - the files around a calibration's fit: what the scripts
 * measured in, the cost model out (model_fit.h does the arithmetic).
 *
 * The calibration scripts (bench/calibrate-lib.sh) run these through
 * `spoolsim calibrate' so that a calibration needs nothing but spoolsim
 * and a shell:
 *
 *   spoolsim calibrate --fit POINTS OUT MTA VERSION ROLES METHOD SPEED
 *                            MACHINE [SYSCALLS]
 *       fits the points (model_fit.h's lines) and writes the model to OUT
 *       ("-": standard output), whole or not at all; MACHINE is what
 *       `spoolsim calibrate --machine' printed before the run, SPEED what
 *       `--speed' printed, SYSCALLS (data/postfix-syscalls.json; skipped
 *       when empty or absent) the system calls of each class.
 *   spoolsim calibrate --relay-cpu RELAY.json
 *       the bare relay's CPU by role from its --json report, in clock
 *       ticks, as "ROLE TICKS" on one line: a snapshot of the points.
 *
 * Both exit 0, 1 when a file cannot be read or written or holds nothing
 * to fit, 2 on a usage error.
 */
#ifndef SPOOLSIM_CALIBRATE_FIT_H
#define SPOOLSIM_CALIBRATE_FIT_H

#include "cost_model.h"
#include "json.h"

/* argv[0] is "--fit", the arguments after it as above. */
int calibrate_fit_run(int argc, char **argv);

/* argv[0] is "--relay-cpu". */
int calibrate_fit_relay_cpu(int argc, char **argv);

/* The machine a model records, as the object `key' ("machine"; NULL at top level). */
void calibrate_fit_machine_json(const struct cost_machine *mc, struct json_writer *w,
                                const char *key);

#endif
