/*
 * machine_probe - what this machine is, and what system work costs on it.
 *
 * The identity (CPU model, CPU count, kernel) is how a cost model knows
 * whether it was measured here (cost_model_machine_same()). The costs are the
 * micro-benchmarks of machine_cost.h, about a tenth of a second in all;
 * each figure is the best of several short runs, since other work on the
 * machine can only slow a run, never speed it up. The spawn benchmark runs
 * `self' with --version (its output discarded), so that the exec maps and
 * links a program of about a mail daemon's size.
 */
#ifndef SPOOLSIM_MACHINE_PROBE_H
#define SPOOLSIM_MACHINE_PROBE_H

#include <stddef.h>

#include "cost_model.h"
#include "machine_cost.h"

/* This machine's identity; what cannot be found stays empty or 0. */
void machine_probe_identity(struct cost_machine *mc);

/* 0, or -1 and a message in err. */
int machine_probe_costs(const char *self, struct machine_cost *c, char *err, size_t errlen);

/*
 * Another `rounds' probes folded into c (machine_cost_keep_best()): a
 * figure that a busy moment inflated is replaced by a truer one. c may
 * start empty (all 0). Each round that follows figures already in c first
 * waits MACHINE_PROBE_PAUSE_MS, so that a burst of load (a build, a test
 * starting) that slowed the probe before has a chance to pass instead of
 * slowing this one too. 0, or -1 and a message in err.
 */
#define MACHINE_PROBE_ROUNDS 3 /* what a model records */
#define MACHINE_CHECK_ROUNDS 5 /* the most a check of a model's machine takes */
#define MACHINE_PROBE_PAUSE_MS 300
int machine_probe_costs_more(const char *self, int rounds, struct machine_cost *c, char *err,
                             size_t errlen);

#endif
