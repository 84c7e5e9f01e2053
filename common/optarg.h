/*
 * optarg - check and convert command-line option values.
 *
 * A value that does not parse, or is out of range, ends the program with
 * msg_usage() (exit status 2) and a message naming the option and value,
 * so callers only ever see good values.
 */
#ifndef SPOOLSIM_OPTARG_H
#define SPOOLSIM_OPTARG_H

#include <stdint.h>

/* A decimal count in [min, max]. */
uint64_t optarg_count(const char *text, const char *what, uint64_t min, uint64_t max);

/* A time such as 2, 0.5, 250ms or 2m, in seconds. */
double optarg_seconds(const char *text, const char *what);

#endif
