/*
 * relay_spool - which of the relay's backends keeps a profile's messages;
 * see relay_spool.h. Pure: the relay follows common/spool's choice of backend
 * for the profile, so that raw and the relay can never disagree on it.
 */
#include "config.h"

#include <stddef.h>

#include "relay_spool.h"
#include "spool_backend.h"

static const struct {
    const struct spool_backend *lib;
    const struct relay_spool *relay;
} backends[] = {
    {&spool_backend_postfix, &relay_spool_postfix},
    {&spool_backend_table, &relay_spool_profile},
};

const struct relay_spool *relay_spool_of(const struct profile *p)
{
    const struct spool_backend *lib = spool_backend_of(p);

    for (size_t i = 0; i < sizeof(backends) / sizeof(backends[0]); i++)
        if (backends[i].lib == lib)
            return backends[i].relay;
    return NULL;
}
