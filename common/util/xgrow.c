/*
 * xgrow - room for more in an array that grows by doubling; see xgrow.h.
 */
#include "config.h"

#include <stdint.h>

#include "msg.h"
#include "xalloc.h"
#include "xgrow.h"

void *xgrow(void *v, size_t *cap, size_t need, size_t first, size_t size)
{
    size_t c = *cap ? *cap : first ? first : 1;

    if (need <= *cap)
        return v;
    while (c < need) {
        if (c > SIZE_MAX / 2)
            msg_fatal("out of memory: %zu elements of %zu bytes", need, size);
        c *= 2;
    }
    if (size && c > SIZE_MAX / size)
        msg_fatal("out of memory: %zu elements of %zu bytes", c, size);
    *cap = c;
    return xrealloc(v, c * size);
}
