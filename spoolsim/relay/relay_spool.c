/*
 * relay_spool - which of the relay's spool tables keeps a profile's
 * messages; see relay_spool.h. Pure: the postfix profile is the relay's
 * own queue (relay_spool_postfix.c); every other backend's file work is
 * run by common/spool's runner, the message in memory
 * (relay_spool_runner.c). The backend itself is common/spool's choice
 * (spool_backend_of()), so raw and the relay can never disagree on it.
 */
#include "config.h"

#include "relay_options.h"
#include "relay_spool.h"
#include "spool_backend.h"

const struct relay_spool *relay_spool_of(const struct profile *p)
{
    return spool_backend_of(p) == &spool_postfix ? &relay_spool_postfix : &relay_spool_runner;
}

int relay_spool_bounces(const struct relay_spool *spool, const struct relay_options *opts)
{
    return spool->bounces && !opts->no_bounces;
}
