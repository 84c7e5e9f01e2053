/*
 * xgrow - room for more in an array that grows by doubling.
 *
 * The growing arrays of the project (a log's records, a report's rows, a
 * timeline's buckets) keep a count and a capacity beside their pointer.
 * xgrow() gives the array back with room for at least need elements: the
 * capacity, first when it was 0, doubles until need fits (so that n
 * appends cost O(n)), and *cap says the new one. The contents stay; what
 * is beyond them is not initialised. Out of memory, or a size that does
 * not fit in a size_t, is fatal, as in xalloc.h.
 */
#ifndef SPOOLSIM_XGROW_H
#define SPOOLSIM_XGROW_H

#include <stddef.h>

/* v unmoved when need <= *cap; a first of 0 counts as 1. */
void *xgrow(void *v, size_t *cap, size_t need, size_t first, size_t size);

#endif
