/*
 * names - a name's place in a table of names.
 *
 * An enumeration that options and results spell out (a sync policy, a
 * queue) keeps its names in a table indexed by its values: the index of a
 * name is the value it stands for. names_index() is the one search of such
 * a table; it compares whole names, case and all.
 */
#ifndef SPOOLSIM_NAMES_H
#define SPOOLSIM_NAMES_H

#include <stddef.h>

/* The first i < n with names[i] equal to name (a NULL entry matches nothing), or -1. */
int names_index(const char *const names[], size_t n, const char *name);

#endif
