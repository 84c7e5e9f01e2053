/*
 * clock - monotonic time in nanoseconds.
 *
 * Every rate and latency in spoolsim comes from this clock, never from the
 * wall clock, so that a time-of-day step cannot distort a measurement.
 */
#ifndef SPOOLSIM_CLOCK_H
#define SPOOLSIM_CLOCK_H

#include <stdint.h>
#include <sys/time.h>

#define CLOCK_NS_PER_SEC 1000000000ULL
#define CLOCK_NS_PER_MS 1000000ULL
#define CLOCK_NS_PER_US 1000ULL

uint64_t clock_now_ns(void);

/*
 * A duration for libevent's timers and timeouts. Seconds (an option's
 * value, as parsed) are rounded to the nearest microsecond; a negative or
 * NaN one is 0, so that a deadline already past fires at once, and one
 * beyond CLOCK_TIMEVAL_MAX_S is that much (no overflow of time_t).
 */
#define CLOCK_TIMEVAL_MAX_S 2147483647.0
struct timeval clock_timeval(double seconds);
struct timeval clock_timeval_ns(uint64_t ns);

#endif
