/*
 * clock - monotonic time in nanoseconds.
 *
 * Every rate and latency in spoolsim comes from this clock, never from the
 * wall clock, so that a time-of-day step cannot distort a measurement.
 */
#ifndef SPOOLSIM_CLOCK_H
#define SPOOLSIM_CLOCK_H

#include <stdint.h>

#define CLOCK_NS_PER_SEC 1000000000ULL
#define CLOCK_NS_PER_MS 1000000ULL
#define CLOCK_NS_PER_US 1000ULL

uint64_t clock_now_ns(void);

#endif
