/*
 * workload - deterministic random numbers and message-size distributions;
 * see workload.h.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "msg.h"
#include "workload.h"
#include "xalloc.h"

#define TWO_PI 6.283185307179586476925286766559

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

/* splitmix64 spreads even a seed of 0 or 1 over all four state words. */
static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

void workload_prng_seed(struct prng *p, uint64_t seed)
{
    for (int i = 0; i < 4; i++)
        p->s[i] = splitmix64(&seed);
}

uint64_t workload_prng_next(struct prng *p)
{
    uint64_t *s = p->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;

    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

double workload_prng_uniform01(struct prng *p)
{
    return (double)(workload_prng_next(p) >> 11) * 0x1.0p-53;
}

uint64_t workload_prng_range(struct prng *p, uint64_t lo, uint64_t hi)
{
    uint64_t span, threshold, r;

    if (lo > hi)
        msg_panic("workload_prng_range: lo %" PRIu64 " > hi %" PRIu64, lo, hi);
    span = hi - lo;
    if (span == UINT64_MAX)
        return workload_prng_next(p);
    span++;
    /*
     * Reject the 2^64 mod span lowest values so that every residue is
     * equally likely; at most half the draws are rejected, usually none.
     */
    threshold = (0 - span) % span;
    do
        r = workload_prng_next(p);
    while (r < threshold);
    return lo + r % span;
}

double workload_prng_exponential(struct prng *p, double mean)
{
    /* log1p(-u) with u in [0, 1) is finite, so the result is never inf. */
    return -mean * log1p(-workload_prng_uniform01(p));
}

double workload_prng_normal(struct prng *p)
{
    /*
     * Box-Muller without caching the second value: struct prng stays pure
     * state, and every call advances the stream by the same two draws.
     */
    double u1 = 1.0 - workload_prng_uniform01(p); /* (0, 1]: log() stays finite */
    double u2 = workload_prng_uniform01(p);

    return sqrt(-2.0 * log(u1)) * cos(TWO_PI * u2);
}

/*
 * The decimal digits at p, at least one, into *v (its last value that fits
 * when they overflow, with *overflow set): where they end, or NULL with
 * errno EINVAL when p holds no digit.
 */
static const char *parse_digits(const char *p, uint64_t *v, int *overflow)
{
    if (!isdigit((unsigned char)*p)) {
        errno = EINVAL;
        return NULL;
    }
    for (*v = 0; isdigit((unsigned char)*p); p++) {
        unsigned d = (unsigned)(*p - '0');

        if (*v > (UINT64_MAX - d) / 10)
            *overflow = 1;
        else
            *v = *v * 10 + d;
    }
    return p;
}

int workload_parse_size(const char *s, uint64_t *out)
{
    uint64_t v, mult = 1;
    int overflow = 0;
    const char *p = parse_digits(s, &v, &overflow);

    if (p == NULL)
        return -1;
    if (*p == 'k' || *p == 'K') {
        mult = 1024;
        p++;
    } else if (*p == 'm' || *p == 'M') {
        mult = 1024 * 1024;
        p++;
    } else if (*p == 'g' || *p == 'G') {
        mult = 1024 * 1024 * 1024;
        p++;
    }
    if (*p != 0) {
        errno = EINVAL;
        return -1;
    }
    if (overflow || v > UINT64_MAX / mult) {
        errno = ERANGE;
        return -1;
    }
    *out = v * mult;
    return 0;
}

int workload_parse_duration_ns(const char *s, uint64_t *out_ns)
{
    static const struct {
        const char *name;
        uint64_t ns;
    } units[] = {
        {"", CLOCK_NS_PER_SEC},
        {"s", CLOCK_NS_PER_SEC},
        {"ms", CLOCK_NS_PER_MS},
        {"us", CLOCK_NS_PER_US},
        {"ns", 1},
        {"m", 60 * CLOCK_NS_PER_SEC},
        {"h", 3600 * CLOCK_NS_PER_SEC},
        {"d", 86400 * CLOCK_NS_PER_SEC},
    };
    uint64_t whole, num = 0, den = 1, unit = 0, frac_ns;
    int overflow = 0;
    const char *p = parse_digits(s, &whole, &overflow);

    if (p == NULL)
        return -1;
    if (*p == '.') {
        if (!isdigit((unsigned char)*++p)) {
            errno = EINVAL;
            return -1;
        }
        /* 18 digits are far below a nanosecond for any unit up to hours. */
        for (; isdigit((unsigned char)*p); p++) {
            if (den < 1000000000000000000ULL) {
                num = num * 10 + (uint64_t)(*p - '0');
                den *= 10;
            }
        }
    }
    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
        if (strcmp(p, units[i].name) == 0) {
            unit = units[i].ns;
            break;
        }
    }
    if (unit == 0) {
        errno = EINVAL;
        return -1;
    }
    frac_ns = (uint64_t)llround((double)num / (double)den * (double)unit);
    if (overflow || whole > UINT64_MAX / unit || whole * unit > UINT64_MAX - frac_ns) {
        errno = ERANGE;
        return -1;
    }
    *out_ns = whole * unit + frac_ns;
    return 0;
}

static int parse_size_field(const char *field, const char *what, const char *spec, uint64_t *out,
                            char *err, size_t errlen)
{
    if (workload_parse_size(field, out) == 0)
        return 0;
    if (errno == ERANGE)
        return msg_set_error(err, errlen, "%s \"%s\" in size spec \"%s\" is too large", what, field,
                             spec);
    return msg_set_error(err, errlen,
                         "bad %s \"%s\" in size spec \"%s\" (expected a number of bytes, "
                         "optionally with k, m or g suffix)",
                         what, field, spec);
}

static int parse_sigma(const char *field, const char *spec, double *out, char *err, size_t errlen)
{
    char *end;
    double v;

    /* strtod() would also take "inf", "nan", hex and a sign; a sigma is none of those. */
    if (isdigit((unsigned char)field[0]) || (field[0] == '.' && isdigit((unsigned char)field[1]))) {
        errno = 0;
        v = strtod(field, &end);
        if (*end == 0 && errno == 0 && isfinite(v) && v > 0) {
            *out = v;
            return 0;
        }
    }
    return msg_set_error(err, errlen,
                         "bad SIGMA \"%s\" in size spec \"%s\" (expected a positive number)", field,
                         spec);
}

#define SIZE_DIST_MAX_FIELDS 5

int workload_size_parse(const char *spec, struct size_dist *out, char *err, size_t errlen)
{
    char *copy = xstrdup(spec);
    char *field[SIZE_DIST_MAX_FIELDS];
    int n = 0, rc = -1;
    struct size_dist d = {.kind = SIZE_FIXED, .max = SIZE_DIST_DEFAULT_MAX};

    for (char *p = copy;; p++) {
        field[n++] = p;
        p = strchr(p, ':');
        if (p == NULL)
            break;
        *p = 0;
        if (n == SIZE_DIST_MAX_FIELDS) {
            msg_set_error(err, errlen, "too many fields in size spec \"%s\"", spec);
            goto out;
        }
    }
    if (n == 1 && isdigit((unsigned char)field[0][0])) {
        rc = parse_size_field(field[0], "size", spec, &d.a, err, errlen);
    } else if (strcmp(field[0], "fixed") == 0) {
        if (n != 2)
            msg_set_error(err, errlen, "size spec \"%s\": expected fixed:N", spec);
        else
            rc = parse_size_field(field[1], "size", spec, &d.a, err, errlen);
    } else if (strcmp(field[0], "uniform") == 0) {
        d.kind = SIZE_UNIFORM;
        if (n != 3)
            msg_set_error(err, errlen, "size spec \"%s\": expected uniform:LO:HI", spec);
        else if (parse_size_field(field[1], "LO", spec, &d.a, err, errlen) == 0 &&
                 parse_size_field(field[2], "HI", spec, &d.b, err, errlen) == 0) {
            if (d.a > d.b)
                msg_set_error(err, errlen, "size spec \"%s\": LO %s is greater than HI %s", spec,
                              field[1], field[2]);
            else
                rc = 0;
        }
    } else if (strcmp(field[0], "lognormal") == 0) {
        d.kind = SIZE_LOGNORMAL;
        if (n != 3 && n != 4)
            msg_set_error(err, errlen, "size spec \"%s\": expected lognormal:MEDIAN:SIGMA[:MAX]",
                          spec);
        else if (parse_size_field(field[1], "MEDIAN", spec, &d.a, err, errlen) == 0 &&
                 parse_sigma(field[2], spec, &d.sigma, err, errlen) == 0 &&
                 (n == 3 || parse_size_field(field[3], "MAX", spec, &d.max, err, errlen) == 0)) {
            if (d.a == 0)
                msg_set_error(err, errlen, "size spec \"%s\": MEDIAN must be at least 1", spec);
            else if (d.a > d.max)
                msg_set_error(err, errlen, "size spec \"%s\": MEDIAN %s exceeds MAX %" PRIu64, spec,
                              field[1], d.max);
            else
                rc = 0;
            d.mu = log((double)d.a);
        }
    } else if (n == 1) {
        msg_set_error(err, errlen,
                      "bad size spec \"%s\" (expected N, fixed:N, uniform:LO:HI or "
                      "lognormal:MEDIAN:SIGMA[:MAX])",
                      spec);
    } else {
        msg_set_error(
            err, errlen,
            "unknown size distribution \"%s\" in \"%s\" (expected fixed, uniform or lognormal)",
            field[0], spec);
    }
out:
    if (rc == 0)
        *out = d;
    free(copy);
    return rc;
}

uint64_t workload_size_sample(const struct size_dist *d, struct prng *p)
{
    double x;
    uint64_t v;

    switch (d->kind) {
    case SIZE_UNIFORM:
        return workload_prng_range(p, d->a, d->b);
    case SIZE_LOGNORMAL:
        x = exp(d->mu + d->sigma * workload_prng_normal(p));
        /* Written so that NaN lands on 1 and inf on max. */
        if (!(x >= 1.0))
            return 1;
        if (x >= (double)d->max)
            return d->max;
        v = (uint64_t)(x + 0.5);
        return v > d->max ? d->max : v;
    case SIZE_FIXED:
    default:
        return d->a;
    }
}

double workload_size_mean(const struct size_dist *d)
{
    switch (d->kind) {
    case SIZE_UNIFORM:
        return (double)d->a + ((double)d->b - (double)d->a) / 2.0;
    case SIZE_LOGNORMAL:
        return fmin(exp(d->mu + d->sigma * d->sigma / 2.0), (double)d->max);
    case SIZE_FIXED:
    default:
        return (double)d->a;
    }
}

/* The shortest %g text that reads back as exactly v, e.g. "1" rather than "1.00000". */
static void format_double(char *buf, size_t len, double v)
{
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, len, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            return;
    }
}

const char *workload_size_describe(const struct size_dist *d, char *buf, size_t len)
{
    char sigma[32];

    switch (d->kind) {
    case SIZE_UNIFORM:
        snprintf(buf, len, "uniform:%" PRIu64 ":%" PRIu64, d->a, d->b);
        break;
    case SIZE_LOGNORMAL:
        format_double(sigma, sizeof(sigma), d->sigma);
        if (d->max == SIZE_DIST_DEFAULT_MAX)
            snprintf(buf, len, "lognormal:%" PRIu64 ":%s", d->a, sigma);
        else
            snprintf(buf, len, "lognormal:%" PRIu64 ":%s:%" PRIu64, d->a, sigma, d->max);
        break;
    case SIZE_FIXED:
    default:
        snprintf(buf, len, "fixed:%" PRIu64, d->a);
        break;
    }
    return buf;
}
