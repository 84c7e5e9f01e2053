/*
 * plot_axis - scales and ticks of a plot's axes (no I/O).
 *
 * A scale maps a data interval [lo, hi] onto pixels [px0, px1], linearly
 * or by log10. Ticks come at "nice" values: multiples of 1, 2 or 5 times a
 * power of ten on a linear axis, powers of ten (and their 2 and 5 when the
 * axis spans few decades) on a log one. A latency-percentile axis is
 * linear in "nines", n = log10(1 / (1 - p)): 0 is 0 %, 1 is 90 %, 2 is
 * 99 %, 3 is 99.9 %, as HdrHistogram's plots space it.
 */
#ifndef SPOOLSIM_PLOT_AXIS_H
#define SPOOLSIM_PLOT_AXIS_H

#include <stddef.h>

enum plot_scale_kind { PLOT_LINEAR, PLOT_LOG };

struct plot_scale {
    enum plot_scale_kind kind;
    double lo, hi;   /* the data interval; for PLOT_LOG both > 0 */
    double px0, px1; /* where lo and hi go (px1 < px0 for an upward y axis) */
};

/* The pixel of v, or NAN where v is not finite or, on a log scale, not > 0. */
double plot_axis_scale_map(const struct plot_scale *s, double v);

#define PLOT_MAX_TICKS 64
/* The most decimals of a tick label (a step of 10^-15 or less). */
#define PLOT_MAX_DECIMALS 15
/* The narrowest span a linear axis has ticks on; narrower is widened as a point. */
#define PLOT_MIN_SPAN 1e-290

struct plot_ticks {
    size_t n;
    double value[PLOT_MAX_TICKS];
    int labelled[PLOT_MAX_TICKS]; /* 0: a minor tick, a faint grid line and no label */
    char label[PLOT_MAX_TICKS][24];
    double lo, hi; /* the axis: the data interval widened to the outer ticks */
};

/*
 * x rounded to a nice number, 1, 2, 5 or 10 times a power of ten: the
 * nearest one when round, else the smallest one >= x. x > 0.
 */
double plot_axis_nice_number(double x, int round);

/*
 * About target (>= 2) labelled ticks covering [lo, hi] at a nice step,
 * the axis widened to the first tick <= lo and the last >= hi. An empty
 * interval (lo == hi) is widened around its value first (0 to 1 for 0, or
 * for one narrower than PLOT_MIN_SPAN at a value that small).
 */
void plot_axis_ticks_linear(double lo, double hi, int target, struct plot_ticks *t);

/*
 * Ticks of a log axis covering [lo, hi] (0 < lo <= hi): the axis from the
 * power of ten <= lo to the one >= hi, labelled at each power; within
 * three decades also at 2 and 5 times each, and the other multiples
 * unlabelled when the axis spans up to six.
 */
void plot_axis_ticks_log(double lo, double hi, struct plot_ticks *t);

/* The nines of percentile pct (0 <= pct < 100): log10(100 / (100 - pct)). */
double plot_axis_nines(double pct);
/* The percentile of nines n >= 0: 100 (1 - 10^-n). */
double plot_axis_percent_of_nines(double n);

/*
 * Ticks of a percentile axis in nines from 0 to the first whole number
 * >= max_nines (at least 2): 0 %, 50 %, 90 %, 99 %, 99.9 %, ...
 */
void plot_axis_ticks_percentile(double max_nines, struct plot_ticks *t);

/*
 * v as a tick label on an axis of ticks step apart: as many decimals as the
 * step needs and no more; in thousands, "12k", on a step of 1000 or more,
 * in millions, "2.5M", on one of 100000 or more. '.' is the decimal point.
 */
void plot_axis_format_tick(char *buf, size_t len, double v, double step);

#endif
