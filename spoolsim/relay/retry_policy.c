/*
 * retry_policy - when a deferred message is tried again; see retry_policy.h.
 */
#include "config.h"

#include "clock.h"
#include "retry_policy.h"

uint64_t retry_policy_backoff_ns(const struct retry_policy *p, unsigned attempts)
{
    uint64_t wait = p->min_ns;

    /* doubling stops at the bound, so that no attempt count can overflow it */
    for (unsigned i = 1; i < attempts && wait < p->max_ns; i++)
        wait = wait > p->max_ns / 2 ? p->max_ns : 2 * wait;
    return wait < p->max_ns ? wait : p->max_ns;
}

long retry_policy_due_s(long now_s, uint64_t wait_ns)
{
    return now_s + (long)(wait_ns / CLOCK_NS_PER_SEC);
}

uint64_t retry_policy_wait_until_ns(const struct retry_policy *p, long due_s, long now_s)
{
    uint64_t wait;

    if (due_s <= now_s)
        return 0;
    if ((uint64_t)(due_s - now_s) >= p->max_ns / CLOCK_NS_PER_SEC + 1)
        return p->max_ns;
    wait = (uint64_t)(due_s - now_s) * CLOCK_NS_PER_SEC;
    return wait < p->max_ns ? wait : p->max_ns;
}
