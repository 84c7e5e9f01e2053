/*
 * mt1999 - the 1999 Mersenne Twister, exactly as PostMark 1.5 uses it.
 *
 * MT19937 with the 1999-10-28 seeding routine (sgenrand: two steps of
 * s = 69069 s + 1 per word), which differs from the 2002 init_genrand of
 * every library MT. The draw and tempering are the standard ones. PostMark's
 * workload is a pure function of this stream, so spoolsim postmark can only
 * match PostMark's counts by drawing exactly the same numbers.
 */
#ifndef SPOOLSIM_MT1999_H
#define SPOOLSIM_MT1999_H

#include <stdint.h>

#define MT1999_N 624

struct mt1999 {
    uint32_t state[MT1999_N];
    int index;
};

void mt1999_seed(struct mt1999 *g, uint32_t seed);
uint32_t mt1999_next(struct mt1999 *g);

/* PostMark's RND(x): next() % x for x > 0; 0, drawing nothing, for x <= 0. */
uint32_t mt1999_rnd(struct mt1999 *g, int64_t x);

#endif
