/*
 * companion - where spoolsim finds the programs and scripts it runs.
 *
 * bench runs smtp-sink and smtp-source; calibrate runs
 * bench/calibrate-postfix.sh. Installed, they are in spoolsim's own
 * directory. In the build tree each is where the build put it, and the
 * build compiles those paths in (spoolsim/include.am), so that neither a
 * change of the folder layout nor a VPATH build (whose scripts stay in
 * the source tree) can make a guessed relative path wrong. The build's
 * paths are used only by the build's own spoolsim: an installed one never
 * runs what a build tree left behind.
 */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "spoolsim.h"

static const struct {
    const char *name;
    const char *built;
} built[] = {
    {"smtp-sink", SPOOLSIM_BUILT_SMTP_SINK},
    {"smtp-source", SPOOLSIM_BUILT_SMTP_SOURCE},
    {"calibrate-postfix.sh", SPOOLSIM_BUILT_CALIBRATE},
};

/* Whether `self' is the spoolsim this build made (both as the kernel names them). */
static int is_build_tree(const char *self)
{
    char real[PATH_MAX];

    return realpath(SPOOLSIM_BUILT_SPOOLSIM, real) != NULL && strcmp(real, self) == 0;
}

int spoolsim_companion(const char *self, const char *name, const char *env, char *out, size_t len)
{
    const char *given = getenv(env);
    const char *slash = strrchr(self, '/');

    if (given && *given) {
        snprintf(out, len, "%s", given);
        return 0;
    }
    snprintf(out, len, "%.*s/%s", slash ? (int)(slash - self) : 1, slash ? self : ".", name);
    if (access(out, X_OK) == 0)
        return 0;
    if (!is_build_tree(self))
        return -1;
    for (size_t i = 0; i < sizeof(built) / sizeof(built[0]); i++) {
        if (strcmp(built[i].name, name) == 0) {
            snprintf(out, len, "%s", built[i].built);
            return access(out, X_OK) == 0 ? 0 : -1;
        }
    }
    return -1;
}
