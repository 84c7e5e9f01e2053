/*
 * ab_stats - is B faster or slower than A? The statistics of `spoolsim ab'.
 *
 * Pure computation, no I/O, no shared state. Each side is a handful of
 * throughput figures (higher is better) from repeated runs. The summary
 * of a side is its median, which one disturbed run cannot drag; the
 * comparison is the ratio B/A of the medians with a 95 % confidence
 * interval from a percentile bootstrap: each side resampled with
 * replacement AB_RESAMPLES times, the ratio of medians taken each time,
 * the interval from its 2.5th to its 97.5th percentile (linear
 * interpolation between order statistics). The resampling draws from a
 * struct prng seeded with the caller's seed, A's draws before B's in
 * every resample, so the same figures and seed give the same interval
 * on every platform.
 *
 * The verdict is "B is slower" or "B is faster" only when the interval
 * excludes 1; otherwise no difference can be told at this sample size.
 */
#ifndef SPOOLSIM_AB_STATS_H
#define SPOOLSIM_AB_STATS_H

#include <stddef.h>
#include <stdint.h>

#define AB_RESAMPLES 10000
#define AB_MIN_RUNS 2 /* one run per side has no spread to resample */

enum ab_outcome { AB_NO_DIFFERENCE, AB_B_SLOWER, AB_B_FASTER };

struct ab_result {
    double median_a, median_b;
    double ratio;           /* median_b / median_a */
    double ci_low, ci_high; /* 95 % bootstrap interval of the ratio */
    size_t runs_a, runs_b;
    enum ab_outcome outcome; /* from the interval: does it exclude 1? */
};

/* The median of v[0..n) (the mean of the middle two when n is even); v is not changed. n >= 1. */
double ab_stats_median(const double *v, size_t n);

/*
 * Compare A's and B's figures: 0 and *out filled, or -1 (*out untouched)
 * when a side has fewer than AB_MIN_RUNS figures or a figure is not a
 * positive finite number (a ratio of throughputs needs both > 0).
 */
int ab_stats_compare(const double *a, size_t na, const double *b, size_t nb, uint64_t seed,
                     struct ab_result *out);

/*
 * The 95 % percentile-bootstrap interval of one side's median, as
 * ab_stats_compare() resamples a side (AB_RESAMPLES times, from a prng seeded
 * with seed): 0 and [*low, *high], or -1 (both untouched) when v has fewer
 * than AB_MIN_RUNS figures or one is not finite. For the error bar of a
 * side beside the ratio's interval.
 */
int ab_stats_median_interval(const double *v, size_t n, uint64_t seed, double *low, double *high);

/*
 * The one-line verdict, e.g. "B is 2.4× slower than A (95 % CI 2.2–2.6×,
 * 10 runs each)", "B is 1.3× faster than A (…)" or "no difference
 * detectable at this sample size (B/A = 0.98, 95 % CI 0.91–1.06, 5 runs
 * each)". A slower B is stated as the factor A/B, so that the number is
 * always above 1. UTF-8; truncated to fit len bytes.
 */
void ab_stats_verdict(const struct ab_result *r, char *buf, size_t len);

/* Beside the median: the spread of a side's successful runs. */
struct ab_summary {
    size_t runs;
    double median, mean;
    double sd; /* the sample standard deviation (n - 1); 0 for one run */
    double min, max;
};

/* v[0..n), n >= 1, into *out. */
void ab_stats_summarize(const double *v, size_t n, struct ab_summary *out);

/*
 * When a comparison deserves less trust than its verdict suggests: fewer
 * than AB_ADVISED_RUNS successful runs on a side, or a 95 % interval wider
 * than AB_WIDE_INTERVAL of the ratio ((ci_high - ci_low) / ratio), which
 * says the runs scatter too much for the ratio to be known to better than
 * about +-10 %.
 */
#define AB_ADVISED_RUNS 5
#define AB_WIDE_INTERVAL 0.20

/*
 * The warnings for these sides (r NULL: not compared), each a sentence
 * ending in "\n", into buf (truncated to fit len bytes): how many.
 */
int ab_stats_warnings(const struct ab_summary *a, const struct ab_summary *b,
                      const struct ab_result *r, char *buf, size_t len);

#endif
