/*
 * machine_cost - what the kinds of work a mail system does cost on this machine.
 *
 * A real MTA's CPU per message is mostly not arithmetic: it is system
 * calls, round trips between its processes, process creation and the page
 * faults of new processes. What those cost varies between machines (CPU
 * vendor, hypervisor, kernel, mitigations) far more than an integer loop's
 * speed does: a cost model measured on one machine is not a rate on
 * another. These micro-benchmarks (about a tenth of a second in all) are
 * recorded in every model that `spoolsim calibrate' makes and measured
 * again where the model is used, so that a relay can say how far this
 * machine is from the model's, in the terms that matter.
 *
 * This module is the figures and their comparison (no I/O);
 * machine_probe.h measures them.
 */
#ifndef SPOOLSIM_MACHINE_COST_H
#define SPOOLSIM_MACHINE_COST_H

#include <stddef.h>

#include "json.h"

struct machine_cost {
    double burn_speed;    /* cpu_burn_speed(): integer work, iterations per microsecond */
    double syscall_ns;    /* one trivial system call */
    double round_trip_us; /* a byte to another process and back, over a unix socket, one CPU */
    double spawn_us;      /* fork, exec of this program, its exit, the wait */
    double fault_ns;      /* one minor fault on fresh anonymous memory */
};

/* The kinds, in a fixed order, for reports and comparisons (names as in JSON). */
#define MACHINE_COST_KINDS 5
extern const char *const machine_cost_names[MACHINE_COST_KINDS];
double machine_cost_get(const struct machine_cost *c, int kind);
void machine_cost_set(struct machine_cost *c, int kind, double value);

/*
 * Fold another measurement of the same machine into `best', keeping each
 * kind's best figure (the fastest burn, the cheapest of the others): other
 * programs on a machine can only slow a run. A kind that `more' lacks (0)
 * leaves `best' as it was; one that `best' lacks is taken from `more'.
 */
void machine_cost_keep_best(struct machine_cost *best, const struct machine_cost *more);

/* The figures as the object `name' of a JSON writer (the model's "machine.costs"). */
void machine_cost_json(const struct machine_cost *c, struct json_writer *w, const char *name);

/*
 * How much dearer each kind of work is here than there (here/there, burn
 * speed inverted so that > 1 is always "slower here"), as one line:
 * "process round trip 2.9x, spawn 1.8x, page fault 1.1x, system call 0.9x,
 * integer work 0.9x", largest first. Kinds missing on either side are left out.
 */
void machine_cost_compare(const struct machine_cost *here, const struct machine_cost *there,
                          char *out, size_t len);

/* The largest here/there ratio of compare(), or 0 when none can be formed. */
double machine_cost_worst_ratio(const struct machine_cost *here, const struct machine_cost *there);

/*
 * Is `here' the machine `there' was measured on, as far as its costs tell:
 * every kind but spawn within a factor of MACHINE_COST_TOLERANCE either
 * way? Spawn is left out because it follows the machine's load more than
 * its kind (2.1 to 4.6 ms within minutes on one machine, docs/fidelity.md).
 * 1, or 0 and the kinds outside in why ("process round trip 2.9x, ..."; why
 * may be NULL when len is 0).
 */
#define MACHINE_COST_TOLERANCE 1.5
int machine_cost_agree(const struct machine_cost *here, const struct machine_cost *there, char *why,
                       size_t len);

#endif
