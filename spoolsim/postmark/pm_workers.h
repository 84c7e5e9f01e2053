/*
 * pm_workers - run the PostMark workload with several concurrent workers.
 *
 * PostMark is one process doing one thing at a time; a mail spool never
 * is. Each worker runs the whole PostMark algorithm in its own thread,
 * with its own random stream and its own directory w<i> in every location,
 * so that workers never share a file. Worker 0 uses the configured seed,
 * so its operations are exactly PostMark's; worker i > 0 uses a seed
 * derived from it. The results are merged into one: counts and bytes
 * added, phases from the first start to the last end, latencies pooled.
 */
#ifndef SPOOLSIM_PM_WORKERS_H
#define SPOOLSIM_PM_WORKERS_H

#include <stdio.h>

#include "pm_engine.h"
#include "pm_fs.h"

#define PM_WORKERS_MAX 256

uint32_t pm_workers_seed(uint32_t seed, unsigned worker);

/* 0, or -1 when a worker directory or thread could not be made (said on stderr). */
int pm_workers_run(const struct pm_config *cfg, unsigned workers, enum pm_sync sync, int dirsync,
                   FILE *progress_fp, const struct progress_out *status_line,
                   struct pm_result *merged);

#endif
