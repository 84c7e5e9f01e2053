/*
 * model_cache - where the cost model calibrated on this machine is kept.
 *
 * A model is a machine's: one made elsewhere can be off by a factor of 3
 * (docs/fidelity.md). `spoolsim calibrate postfix' writes its model to
 * this machine's file in the cache, and `--model postfix' takes that file
 * before the built-in model whenever its machine is this one. The
 * directory is $SPOOLSIM_CACHE_DIR, else $XDG_CACHE_HOME/spoolsim, else
 * $HOME/.cache/spoolsim; the file is named after the MTA and the machine
 * (CPU model, CPU count, kernel), so that a new kernel or another machine
 * sharing the home directory finds no model that is not its own.
 */
#ifndef SPOOLSIM_MODEL_CACHE_H
#define SPOOLSIM_MODEL_CACHE_H

#include <stddef.h>

#include "cost_model.h"

/* The file name part of a machine: "amd-epyc-2cpus-linux-6.1.0-18-amd64" (pure). */
void model_cache_key(const struct cost_machine *mc, char *out, size_t len);

/* The cache directory from the environment: 0, or -1 when none can be named. */
int model_cache_dir(char *out, size_t len);

/* DIR/MTA-model-KEY.json for this machine: 0, or -1 when there is no directory. */
int model_cache_path(const char *mta, const struct cost_machine *here, char *out, size_t len);

#endif
