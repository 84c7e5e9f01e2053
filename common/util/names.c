/*
 * names - a name's place in a table of names; see names.h.
 */
#include "config.h"

#include <string.h>

#include "names.h"

int names_index(const char *const names[], size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (names[i] && strcmp(names[i], name) == 0)
            return (int)i;
    return -1;
}
