/*
 * model_cache - this machine's cost model file; see model_cache.h.
 */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model_cache.h"

/* Lower-case letters, digits and dots; every other run of bytes one '-'. */
static size_t slug(const char *in, char *out, size_t used, size_t len)
{
    int dash = used > 0;

    for (const unsigned char *p = (const unsigned char *)in; *p && used + 1 < len; p++) {
        if (isalnum(*p) || *p == '.') {
            if (dash && used > 0 && used + 2 < len)
                out[used++] = '-';
            dash = 0;
            out[used++] = (char)tolower(*p);
        } else {
            dash = 1;
        }
    }
    out[used < len ? used : len - 1] = 0;
    return used;
}

void model_cache_key(const struct cost_machine *mc, char *out, size_t len)
{
    char cpus[32];
    size_t used;

    if (len == 0)
        return;
    out[0] = 0;
    used = slug(mc->cpu_model[0] ? mc->cpu_model : "unknown-cpu", out, 0, len);
    snprintf(cpus, sizeof(cpus), "%ldcpus", mc->cpus);
    used = slug(cpus, out, used, len);
    slug(mc->kernel[0] ? mc->kernel : "unknown-kernel", out, used, len);
}

int model_cache_dir(char *out, size_t len)
{
    const char *env;
    int n;

    if ((env = getenv("SPOOLSIM_CACHE_DIR")) != NULL && env[0])
        n = snprintf(out, len, "%s", env);
    else if ((env = getenv("XDG_CACHE_HOME")) != NULL && env[0] == '/')
        n = snprintf(out, len, "%s/spoolsim", env);
    else if ((env = getenv("HOME")) != NULL && env[0] == '/')
        n = snprintf(out, len, "%s/.cache/spoolsim", env);
    else
        return -1;
    return n > 0 && (size_t)n < len ? 0 : -1;
}

int model_cache_path(const char *mta, const struct cost_machine *here, char *out, size_t len)
{
    char dir[4096], key[400];
    int n;

    if (model_cache_dir(dir, sizeof(dir)) != 0)
        return -1;
    model_cache_key(here, key, sizeof(key));
    n = snprintf(out, len, "%s/%s-model-%s.json", dir, mta, key);
    return n > 0 && (size_t)n < len ? 0 : -1;
}
