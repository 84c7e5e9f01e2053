/*
 * model_fit - from what a calibration measured to a cost model's stages (no I/O).
 *
 * `spoolsim calibrate' (bench/calibrate-lib.sh) measures, at each of a few
 * loads, the CPU of every process class of a real MTA and of every role of
 * the bare relay, before and after the load, one line per load and system:
 *
 *   SYSTEM SESSIONS BYTES RCPTS MESSAGES CLASS VALUE ... / CLASS VALUE ...
 *
 * the MTA's values in nanoseconds (cgroups), the relay's in clock ticks
 * (its JSON's cpu_s times CLK_TCK). model_fit_parse_line() makes of a line
 * the CPU per message of each class, in microseconds; model_fit_stages()
 * fits, for every class of the MTA that spent CPU, its CPU and the relay's
 * in the same role as
 *
 *   us = base + per_kib * KiB + per_rcpt * (recipients - 1)
 *
 * by least squares over the loads, rounded as the model records them
 * (cost_model.h reads them back). A fit of loads that cannot tell a term
 * (one load, or no load with several recipients) gives that term 0.
 * Which relay roles do a class's work is the calibration's ROLES, a JSON
 * object {"class": ["role", ...]}; a role several classes name is shared
 * among them as the MTA's CPU is.
 */
#ifndef SPOOLSIM_MODEL_FIT_H
#define SPOOLSIM_MODEL_FIT_H

#include <stddef.h>

#include "cost_model.h"

#define MODEL_FIT_MAX_CLASSES 32
#define MODEL_FIT_MAX_ROLES 8
#define MODEL_FIT_NAME 32

/* One class's (or role's) CPU for one message of a load, in microseconds. */
struct model_fit_cpu {
    char name[MODEL_FIT_NAME];
    double us;
};

/* One load on one system: a line of the points. */
struct model_fit_row {
    char system[MODEL_FIT_NAME];
    double kib; /* the message size */
    unsigned rcpts;
    unsigned count; /* classes, in the order of the line's second snapshot */
    struct model_fit_cpu cpu[MODEL_FIT_MAX_CLASSES];
};

/* Per MTA class, the relay roles that do its work. */
struct model_fit_roles {
    unsigned count;
    struct {
        char name[MODEL_FIT_NAME];
        unsigned count;
        char roles[MODEL_FIT_MAX_ROLES][MODEL_FIT_NAME];
    } classes[MODEL_FIT_MAX_CLASSES];
};

struct model_fit_stage {
    char name[MODEL_FIT_NAME];
    struct cost_fit mta, relay;
};

/*
 * A line of the points into row: the values of the system `mta' are
 * nanoseconds, any other system's (the relay's) clock ticks of hz a
 * second. 0, or -1 with the reason in err.
 */
int model_fit_parse_line(const char *line, const char *mta, long hz, struct model_fit_row *row,
                         char *err, size_t errlen);

/* ROLES' JSON text into roles: 0, or -1 with the reason in err. */
int model_fit_parse_roles(const char *json, struct model_fit_roles *roles, char *err,
                          size_t errlen);

/* The CPU of `name' in a row, 0 where it has none. */
double model_fit_cpu_of(const struct model_fit_row *row, const char *name);

/*
 * The least-squares fit of n samples (KiB, recipients, us), unrounded;
 * all 0 for none.
 */
struct cost_fit model_fit_line(const double (*samples)[3], size_t n);

/*
 * 0 when every MTA load spent at least the CPU per message of the bare
 * relay's same load (the k-th relay row is the k-th MTA row's load); else
 * -1 with that load in err. An MTA never costs less than the bare relay
 * doing the same spool work: a load that did is a measurement that missed
 * the MTA's processes, which a fit would turn into a model without them.
 */
int model_fit_check_loads(const struct model_fit_row *mta, size_t mta_rows,
                          const struct model_fit_row *relay, size_t relay_rows, char *err,
                          size_t errlen);

/*
 * The stages: every class of the MTA's rows whose CPU per message averages
 * 1 us or more, by name, its fit and the relay's (the k-th relay row is the
 * k-th MTA row's load). The number of stages (at most max), or -1 with the
 * reason in err.
 */
int model_fit_stages(const struct model_fit_row *mta, size_t mta_rows,
                     const struct model_fit_row *relay, size_t relay_rows,
                     const struct model_fit_roles *roles, struct model_fit_stage *out, size_t max,
                     char *err, size_t errlen);

#endif
