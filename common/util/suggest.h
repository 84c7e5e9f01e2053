/*
 * suggest - the nearest of some words to a mistyped one: a command, an
 * option. Pure: no I/O, no state.
 *
 * The distance is the optimal string alignment distance (Levenshtein's,
 * with two neighbours swapped counting as one edit, so "bnech" is one from
 * "bench"). A word is suggested only when it is near enough to be meant:
 * at most a third of the typed word's length away (at least 1, at most 3
 * edits); of equally near words, the first.
 */
#ifndef SPOOLSIM_SUGGEST_H
#define SPOOLSIM_SUGGEST_H

#include <stddef.h>

/* The edits from a to b (each at most SUGGEST_WORD_MAX bytes; longer ones are far: SIZE_MAX). */
size_t suggest_distance(const char *a, const char *b);

#define SUGGEST_WORD_MAX 64

/* The nearest of words[0..n) to typed, if one is near enough (above), else NULL. */
const char *suggest_nearest(const char *typed, const char *const words[], size_t n);

#endif
