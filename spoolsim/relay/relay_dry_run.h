/*
 * relay_dry_run - what `spoolsim relay --dry-run' checks before anything
 * starts.
 *
 * Beyond the options' syntax (relay_options.c), every check the relay's
 * start makes that needs nothing made: -u's user, the --listen address and
 * the --next-hop host resolved, the certificate and key of --tls, the
 * profile's spool backend, the --model read and parsed within its bounds
 * and fitting the profile (relay_model_check()), the --spool a directory
 * the relay can use or make, the --port-file's directory. The first
 * problem is a usage error (exit 2) naming it; with none, it says what
 * would run and exits 0 (optgroup_dry_run_done()). Nothing is bound,
 * started, written or made; the machine's speed is not measured.
 */
#ifndef SPOOLSIM_RELAY_DRY_RUN_H
#define SPOOLSIM_RELAY_DRY_RUN_H

#include "relay_options.h"

_Noreturn void relay_dry_run(const struct relay_options *opts);

#endif
