/*
 * mt1999 - the 1999 Mersenne Twister that PostMark 1.5 embeds; see mt1999.h.
 *
 * Written from the published algorithm (Matsumoto & Nishimura, MT19937) and
 * the seeding described in the PostMark spec, section 4. Everything is kept
 * in uint32_t: the upstream code's 64-bit longs never carry more than 32
 * significant bits, so the outputs are the same.
 */
#include "config.h"

#include "mt1999.h"

#define MT1999_M 397
#define MT1999_MATRIX_A 0x9908b0dfU
#define MT1999_UPPER 0x80000000U
#define MT1999_LOWER 0x7fffffffU

/* The 1999 sgenrand: each word takes the top halves of two LCG steps. */
void mt1999_seed(struct mt1999 *g, uint32_t seed)
{
    uint32_t s = seed;

    for (int i = 0; i < MT1999_N; i++) {
        uint32_t w = s & 0xffff0000U;

        s = 69069U * s + 1U;
        w |= (s & 0xffff0000U) >> 16;
        s = 69069U * s + 1U;
        g->state[i] = w;
    }
    g->index = MT1999_N;
}

static uint32_t mt1999_mix(uint32_t hi, uint32_t lo, uint32_t far)
{
    uint32_t y = (hi & MT1999_UPPER) | (lo & MT1999_LOWER);

    return far ^ (y >> 1) ^ ((y & 1U) ? MT1999_MATRIX_A : 0U);
}

static void mt1999_twist(struct mt1999 *g)
{
    uint32_t *mt = g->state;
    int k;

    for (k = 0; k < MT1999_N - MT1999_M; k++)
        mt[k] = mt1999_mix(mt[k], mt[k + 1], mt[k + MT1999_M]);
    for (; k < MT1999_N - 1; k++)
        mt[k] = mt1999_mix(mt[k], mt[k + 1], mt[k + MT1999_M - MT1999_N]);
    mt[MT1999_N - 1] = mt1999_mix(mt[MT1999_N - 1], mt[0], mt[MT1999_M - 1]);
    g->index = 0;
}

uint32_t mt1999_next(struct mt1999 *g)
{
    uint32_t y;

    if (g->index >= MT1999_N)
        mt1999_twist(g);
    y = g->state[g->index++];
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680U;
    y ^= (y << 15) & 0xefc60000U;
    y ^= y >> 18;
    return y;
}

/* No draw at all for x <= 0: PostMark's fixed-size files depend on it. */
uint32_t mt1999_rnd(struct mt1999 *g, int64_t x)
{
    if (x <= 0)
        return 0;
    return (uint32_t)(mt1999_next(g) % (uint64_t)x);
}
