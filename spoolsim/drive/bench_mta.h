/*
 * bench_mta - `spoolsim bench --mta MTA': a real Postfix or Exim where the
 * relay was, for the truth beside the model's prediction.
 *
 * The MTA is run by bench/mta-serve.sh, found as calibrate's scripts are
 * (companion.c): Debian's package, fetched by scripts/fetch-peer.sh and
 * run as a private, loopback-only instance with its queue at the spool,
 * configured as the calibration configures it, never installed; SIGTERM
 * to the script stops it and whatever of it is left. The options that
 * belong to the relay are usage errors with --mta, said before anything
 * runs.
 */
#ifndef SPOOLSIM_BENCH_MTA_H
#define SPOOLSIM_BENCH_MTA_H

#include "bench_report.h"
#include "drive.h"

/* The MTAs bench can run: "postfix", "exim", then NULL (an optarg_choice() table). */
extern const char *const bench_mta_names[];

/*
 * --mta and --compare against the other options: usage errors (exit 2)
 * for what cannot go together or needs root; the profile becomes the
 * MTA's, whose queue layout the drain watches.
 */
void bench_mta_check_options(struct bench_options *o);

/*
 * What running `mta' needs before anything starts (its fetching aside):
 * bench/mta-serve.sh, found (its path in script, of len bytes), and a
 * parent directory of the work directory that the MTA's unprivileged
 * daemons can pass through, as every directory above it. 0, or -1 with a
 * warning naming what is missing.
 */
int bench_mta_ready(const char *self, const char *mta, const char *parent, char *script,
                    size_t len);

/*
 * Start `mta' as child c ("mta"), its queue at spool, relaying to
 * 127.0.0.1:sink_port: its port, or -1 with a warning that says why.
 * The work directory is opened to the MTA's unprivileged daemons.
 */
int bench_mta_start(const struct drive *d, struct drive_child *c, const char *mta,
                    const char *spool, int sink_port);

#endif
