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
