/*
 * ab_compare - `spoolsim ab --compare MTA': the whole A/B comparison run
 * twice as child processes of this program, with the relay's model of MTA
 * (ARGS --profile MTA) and with the real MTA in the relay's place (ARGS
 * --mta MTA), each printing its own report; then the predicted B/A beside
 * the real one (ab_compare_report.h), and with --json both in one file.
 * The children are given ab's options as the user gave them, then
 * --compare=none and --json of their own, which getopt takes last.
 */
#ifndef SPOOLSIM_AB_COMPARE_H
#define SPOOLSIM_AB_COMPARE_H

#include "ab.h"
#include "json_meta.h"

/* The exit status: 0 when both passes ran (whatever the verdict), 1 if not, the interrupt's. */
int ab_compare_main(const struct ab_options *o, int argc, char **argv, const struct json_run *run);

#endif
