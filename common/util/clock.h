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
 * The wall clock (CLOCK_REALTIME) as Unix seconds. Only for saying when a
 * run happened and for starting several hosts together (--start-at), never
 * for a measurement: hosts agree on the wall clock (NTP), not on their
 * monotonic clocks.
 */
double clock_wall_s(void);

/*
 * This process's CPU so far, user + system, all its threads (getrusage
 * RUSAGE_SELF), in seconds: what a program reports as its own cost, so
 * that a driver need not be its parent to know it.
 */
double clock_process_cpu_s(void);

/*
 * An instant as text into Unix seconds: RFC 3339 with a zone
 * ("2026-12-01T12:00:00Z", "2026-12-01T13:00:00.25+01:00"; a space or a
 * lower-case t for the T, z for Z) or "@" and Unix seconds ("@1764590400.5").
 * 0, or -1 with *out untouched for anything else (a field out of range, no
 * zone: a local time would mean different instants on different hosts).
 * Pure.
 */
int clock_parse_instant(const char *text, double *out);

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
