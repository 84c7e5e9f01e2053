/*
 * clock - monotonic time in nanoseconds; see clock.h.
 */
#include "config.h"

#include <time.h>

#include "clock.h"
#include "msg.h"

uint64_t clock_now_ns(void)
{
    struct timespec ts;

    if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
        msg_panic("clock_gettime(CLOCK_MONOTONIC) failed");
    return (uint64_t)ts.tv_sec * CLOCK_NS_PER_SEC + (uint64_t)ts.tv_nsec;
}

struct timeval clock_timeval(double seconds)
{
    struct timeval tv;
    double us;

    if (!(seconds > 0)) /* NaN too */
        seconds = 0;
    if (seconds > CLOCK_TIMEVAL_MAX_S)
        seconds = CLOCK_TIMEVAL_MAX_S;
    tv.tv_sec = (time_t)seconds;
    us = (seconds - (double)tv.tv_sec) * 1e6 + 0.5;
    tv.tv_usec = (suseconds_t)us;
    if (tv.tv_usec >= 1000000) { /* 0.9999996 s is 1 s, not 0 s and 1000000 us */
        tv.tv_sec++;
        tv.tv_usec -= 1000000;
    }
    return tv;
}

struct timeval clock_timeval_ns(uint64_t ns)
{
    struct timeval tv;
    uint64_t us = ns / CLOCK_NS_PER_US + (ns % CLOCK_NS_PER_US >= CLOCK_NS_PER_US / 2);
    uint64_t max_us = (uint64_t)CLOCK_TIMEVAL_MAX_S * 1000000;

    if (us > max_us)
        us = max_us;
    tv.tv_sec = (time_t)(us / 1000000);
    tv.tv_usec = (suseconds_t)(us % 1000000);
    return tv;
}
