/*
 * xalloc - allocation that never returns NULL.
 *
 * Out of memory is fatal (exit 1 with a message); callers need no checks.
 */
#ifndef SPOOLSIM_XALLOC_H
#define SPOOLSIM_XALLOC_H

#include <stddef.h>

void *xmalloc(size_t size);
void *xcalloc(size_t count, size_t size);
void *xrealloc(void *ptr, size_t size);
char *xstrdup(const char *str);
char *xstrndup(const char *str, size_t len);

#endif
