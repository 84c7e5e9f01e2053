/*
 * xalloc - allocation that never returns NULL; see xalloc.h.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "msg.h"
#include "xalloc.h"

void *xmalloc(size_t size)
{
    void *ptr = malloc(size ? size : 1);

    if (ptr == NULL)
        msg_fatal("out of memory allocating %zu bytes", size);
    return ptr;
}

void *xcalloc(size_t count, size_t size)
{
    void *ptr = calloc(count ? count : 1, size ? size : 1);

    if (ptr == NULL)
        msg_fatal("out of memory allocating %zu x %zu bytes", count, size);
    return ptr;
}

void *xrealloc(void *ptr, size_t size)
{
    void *grown = realloc(ptr, size ? size : 1);

    if (grown == NULL)
        msg_fatal("out of memory growing to %zu bytes", size);
    return grown;
}

char *xstrdup(const char *str)
{
    return xstrndup(str, strlen(str));
}

char *xstrndup(const char *str, size_t len)
{
    char *copy = xmalloc(len + 1);

    memcpy(copy, str, len);
    copy[len] = 0;
    return copy;
}
