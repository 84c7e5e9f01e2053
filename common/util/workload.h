/*
 * workload - deterministic random numbers and message-size distributions.
 *
 * Pure computation, no I/O. The same seed gives the same stream on every
 * platform (xoshiro256** seeded by splitmix64; no libc rand), so a load run
 * can be repeated exactly. A struct prng is small and public so that each
 * session or thread can own one; nothing here is shared or locked.
 *
 * Size specs: "N" or "fixed:N", "uniform:LO:HI" (inclusive), and
 * "lognormal:MEDIAN:SIGMA[:MAX]" whose samples are clamped to [1, MAX] with
 * MAX defaulting to 64 MiB. Sizes take a k/K (1024), m/M (1048576) or g/G (1073741824) suffix.
 * Parsers return 0, or -1 with a one-line message in err naming the bad part.
 */
#ifndef SPOOLSIM_WORKLOAD_H
#define SPOOLSIM_WORKLOAD_H

#include <stddef.h>
#include <stdint.h>

#define SIZE_DIST_DEFAULT_MAX (64ULL * 1024 * 1024)

struct prng {
    uint64_t s[4];
};

void workload_prng_seed(struct prng *p, uint64_t seed);
uint64_t workload_prng_next(struct prng *p);
/* In [0, 1) with 53 random bits. */
double workload_prng_uniform01(struct prng *p);
/* In [lo, hi] inclusive, without modulo bias; lo > hi is a caller bug (panic). */
uint64_t workload_prng_range(struct prng *p, uint64_t lo, uint64_t hi);
/* Exponential with the given mean, e.g. Poisson inter-arrival times; >= 0. */
double workload_prng_exponential(struct prng *p, double mean);
/* Standard normal (Box-Muller); always consumes exactly two draws. */
double workload_prng_normal(struct prng *p);

enum size_dist_kind { SIZE_FIXED, SIZE_UNIFORM, SIZE_LOGNORMAL };

struct size_dist {
    enum size_dist_kind kind;
    uint64_t a, b;    /* fixed: a; uniform: [a, b]; lognormal: a is MEDIAN */
    double mu, sigma; /* lognormal: mu = ln(MEDIAN) */
    uint64_t max;     /* lognormal clamp; unused otherwise */
};

int workload_size_parse(const char *spec, struct size_dist *out, char *err, size_t errlen);
uint64_t workload_size_sample(const struct size_dist *d, struct prng *p);
/* Analytic mean; for lognormal exp(mu + sigma^2/2), only capped at MAX. */
double workload_size_mean(const struct size_dist *d);
/* A spec that workload_size_parse() reads back to the same distribution. */
const char *workload_size_describe(const struct size_dist *d, char *buf, size_t len);

/*
 * Digits with an optional k/K/m/M/g/G suffix. On failure returns -1 with errno
 * EINVAL (syntax) or ERANGE (does not fit in 64 bits).
 */
int workload_parse_size(const char *s, uint64_t *out);
/*
 * A decimal number with an optional fraction and unit ns, us, ms, s, m, h;
 * no unit means seconds ("10", "1.5s", "250ms", "2m"). Rounded to the
 * nearest nanosecond. Returns -1 with errno EINVAL or ERANGE.
 */
int workload_parse_duration_ns(const char *s, uint64_t *out_ns);

#endif
