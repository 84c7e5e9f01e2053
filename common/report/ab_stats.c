/*
 * ab_stats - medians, a bootstrap interval of their ratio, and the
 * verdict of `spoolsim ab'; see ab_stats.h.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ab_stats.h"
#include "workload.h"
#include "xalloc.h"

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;

    return (a > b) - (a < b);
}

/* The median of v[0..n), sorting it in place. */
static double median_in_place(double *v, size_t n)
{
    qsort(v, n, sizeof(*v), cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double ab_stats_median(const double *v, size_t n)
{
    double *copy = xmalloc(n * sizeof(*copy));
    double m;

    memcpy(copy, v, n * sizeof(*copy));
    m = median_in_place(copy, n);
    free(copy);
    return m;
}

/* The p-quantile of sorted v[0..n) by linear interpolation (R's type 7). */
static double quantile_sorted(const double *v, size_t n, double p)
{
    double pos = p * (double)(n - 1);
    size_t i = (size_t)pos;

    if (i + 1 >= n)
        return v[n - 1];
    return v[i] + (pos - (double)i) * (v[i + 1] - v[i]);
}

/* The median of n draws, with replacement, from v[0..n). */
static double resampled_median(const double *v, size_t n, double *scratch, struct prng *p)
{
    for (size_t i = 0; i < n; i++)
        scratch[i] = v[workload_prng_range(p, 0, n - 1)];
    return median_in_place(scratch, n);
}

static int usable(const double *v, size_t n)
{
    if (n < AB_MIN_RUNS)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!isfinite(v[i]) || v[i] <= 0)
            return 0;
    return 1;
}

int ab_stats_compare(const double *a, size_t na, const double *b, size_t nb, uint64_t seed,
                     struct ab_result *out)
{
    double *ratios, *sa, *sb;
    struct prng p;

    if (!usable(a, na) || !usable(b, nb))
        return -1;
    ratios = xmalloc(AB_RESAMPLES * sizeof(*ratios));
    sa = xmalloc(na * sizeof(*sa));
    sb = xmalloc(nb * sizeof(*sb));
    workload_prng_seed(&p, seed);
    for (size_t k = 0; k < AB_RESAMPLES; k++) {
        /* A's draws first, then B's: the order is part of the determinism promise. */
        double ma = resampled_median(a, na, sa, &p);
        double mb = resampled_median(b, nb, sb, &p);

        ratios[k] = mb / ma;
    }
    qsort(ratios, AB_RESAMPLES, sizeof(*ratios), cmp_double);
    out->median_a = ab_stats_median(a, na);
    out->median_b = ab_stats_median(b, nb);
    out->ratio = out->median_b / out->median_a;
    out->ci_low = quantile_sorted(ratios, AB_RESAMPLES, 0.025);
    out->ci_high = quantile_sorted(ratios, AB_RESAMPLES, 0.975);
    out->runs_a = na;
    out->runs_b = nb;
    if (out->ci_low > 1)
        out->outcome = AB_B_FASTER;
    else if (out->ci_high < 1)
        out->outcome = AB_B_SLOWER;
    else
        out->outcome = AB_NO_DIFFERENCE;
    free(sb);
    free(sa);
    free(ratios);
    return 0;
}

int ab_stats_median_interval(const double *v, size_t n, uint64_t seed, double *low, double *high)
{
    double *medians, *scratch;
    struct prng p;

    if (n < AB_MIN_RUNS)
        return -1;
    for (size_t i = 0; i < n; i++)
        if (!isfinite(v[i]))
            return -1;
    medians = xmalloc(AB_RESAMPLES * sizeof(*medians));
    scratch = xmalloc(n * sizeof(*scratch));
    workload_prng_seed(&p, seed);
    for (size_t k = 0; k < AB_RESAMPLES; k++)
        medians[k] = resampled_median(v, n, scratch, &p);
    qsort(medians, AB_RESAMPLES, sizeof(*medians), cmp_double);
    *low = quantile_sorted(medians, AB_RESAMPLES, 0.025);
    *high = quantile_sorted(medians, AB_RESAMPLES, 0.975);
    free(scratch);
    free(medians);
    return 0;
}

/*
 * Decimals for factors above 1: one, unless the lower bound would then
 * print as "1.0" - a difference the interval has shown must not read as
 * none.
 */
static int factor_decimals(double low)
{
    double scale = 10;

    for (int d = 1; d < 3; d++, scale *= 10)
        if ((long long)(low * scale + 0.5) > (long long)scale)
            return d;
    return 3;
}

static void runs_phrase(const struct ab_result *r, char *buf, size_t len)
{
    if (r->runs_a == r->runs_b)
        snprintf(buf, len, "%zu runs each", r->runs_a);
    else
        snprintf(buf, len, "%zu runs of A, %zu of B", r->runs_a, r->runs_b);
}

void ab_stats_verdict(const struct ab_result *r, char *buf, size_t len)
{
    double factor, low, high;
    char runs[64];
    int d;

    runs_phrase(r, runs, sizeof(runs));
    switch (r->outcome) {
    case AB_B_SLOWER:
        /* A/B, and the interval flips with it. */
        factor = 1 / r->ratio;
        low = 1 / r->ci_high;
        high = 1 / r->ci_low;
        break;
    case AB_B_FASTER:
        factor = r->ratio;
        low = r->ci_low;
        high = r->ci_high;
        break;
    default:
        snprintf(buf, len,
                 "no difference detectable at this sample size (B/A = %.2f, 95 %% CI "
                 "%.2f–%.2f, %s)",
                 r->ratio, r->ci_low, r->ci_high, runs);
        return;
    }
    d = factor_decimals(low);
    snprintf(buf, len, "B is %.*f× %s than A (95 %% CI %.*f–%.*f×, %s)", d, factor,
             r->outcome == AB_B_SLOWER ? "slower" : "faster", d, low, d, high, runs);
}

void ab_stats_summarize(const double *v, size_t n, struct ab_summary *out)
{
    double sum = 0, ss = 0;

    memset(out, 0, sizeof(*out));
    out->runs = n;
    out->min = out->max = v[0];
    for (size_t i = 0; i < n; i++) {
        sum += v[i];
        if (v[i] < out->min)
            out->min = v[i];
        if (v[i] > out->max)
            out->max = v[i];
    }
    out->mean = sum / (double)n;
    for (size_t i = 0; i < n; i++)
        ss += (v[i] - out->mean) * (v[i] - out->mean);
    out->sd = n > 1 ? sqrt(ss / (double)(n - 1)) : 0;
    out->median = ab_stats_median(v, n);
}

int ab_stats_warnings(const struct ab_summary *a, const struct ab_summary *b,
                      const struct ab_result *r, char *buf, size_t len)
{
    const struct ab_summary *side[2] = {a, b};
    size_t used = 0;
    int count = 0;

    if (len > 0)
        buf[0] = '\0';
    for (int k = 0; k < 2; k++) {
        if (side[k]->runs >= AB_ADVISED_RUNS)
            continue;
        used += (size_t)snprintf(buf + (used < len ? used : len), used < len ? len - used : 0,
                                 "%s has %zu successful run%s, fewer than %d: take the verdict as "
                                 "a hint and run more (-n)\n",
                                 k ? "B" : "A", side[k]->runs, side[k]->runs == 1 ? "" : "s",
                                 AB_ADVISED_RUNS);
        count++;
    }
    if (r && r->ratio > 0 && (r->ci_high - r->ci_low) / r->ratio > AB_WIDE_INTERVAL) {
        used += (size_t)snprintf(buf + (used < len ? used : len), used < len ? len - used : 0,
                                 "the 95 %% interval is wide (%.3f–%.3f, %.0f %% of the ratio, "
                                 "more than %.0f %%): the runs scatter; run more or quieten the "
                                 "machine\n",
                                 r->ci_low, r->ci_high, 100 * (r->ci_high - r->ci_low) / r->ratio,
                                 100 * AB_WIDE_INTERVAL);
        count++;
    }
    return count;
}
