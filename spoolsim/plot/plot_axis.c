/*
 * plot_axis - scales and ticks of a plot's axes; see plot_axis.h.
 */
#include "config.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "plot_axis.h"

double plot_axis_scale_map(const struct plot_scale *s, double v)
{
    double a = s->lo, b = s->hi;

    if (!isfinite(v))
        return NAN;
    if (s->kind == PLOT_LOG) {
        if (v <= 0 || a <= 0 || b <= 0)
            return NAN;
        v = log10(v);
        a = log10(a);
        b = log10(b);
    }
    if (b == a)
        return (s->px0 + s->px1) / 2;
    return s->px0 + (v - a) / (b - a) * (s->px1 - s->px0);
}

double plot_axis_nice_number(double x, int round)
{
    double e = floor(log10(x)), f = x / pow(10, e), nice;

    if (round)
        nice = f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10;
    else
        nice = f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10;
    return nice * pow(10, e);
}

/*
 * Decimals a tick label on an axis of this step needs, at most
 * PLOT_MAX_DECIMALS: a step of 0, a subnormal or NaN (from values no result
 * should hold) must give a label that fits, not an int overflow.
 */
static int step_decimals(double step)
{
    double e;

    if (!(step > 0) || !isfinite(step))
        return PLOT_MAX_DECIMALS;
    e = -floor(log10(step) + 1e-9);
    return e <= 0 ? 0 : e >= PLOT_MAX_DECIMALS ? PLOT_MAX_DECIMALS : (int)e;
}

void plot_axis_format_tick(char *buf, size_t len, double v, double step)
{
    const char *suffix = "";
    char *comma;

    if (fabs(v) < step * 1e-9)
        v = 0; /* k * step may round to -1e-17, which must not read "-0" */
    if (v == 0 && step >= 1e3 - 1e-9) {
        snprintf(buf, len, "0"); /* not "0k" */
        return;
    }
    if (step >= 1e5 - 1e-6) {
        v /= 1e6;
        step /= 1e6;
        suffix = "M";
    } else if (step >= 1e3 - 1e-9) {
        v /= 1e3;
        step /= 1e3;
        suffix = "k";
    }
    snprintf(buf, len, "%.*f%s", step_decimals(step), v, suffix);
    /* %f has no thousands separator, but a locale's decimal point may be a comma. */
    if ((comma = strchr(buf, ',')) != NULL)
        *comma = '.';
}

static void add_tick(struct plot_ticks *t, double v, int labelled, double step)
{
    if (t->n == PLOT_MAX_TICKS)
        return;
    t->value[t->n] = v;
    t->labelled[t->n] = labelled;
    t->label[t->n][0] = '\0';
    if (labelled)
        plot_axis_format_tick(t->label[t->n], sizeof(t->label[t->n]), v, step);
    t->n++;
}

void plot_axis_ticks_linear(double lo, double hi, int target, struct plot_ticks *t)
{
    double step, first, last;
    long long k0, k1;

    if (target < 2)
        target = 2;
    /* An interval near a subnormal has no nice step (10^-324 is 0): as at 0. */
    if (!(hi - lo >= PLOT_MIN_SPAN)) {
        int tiny = !(fabs(lo) >= PLOT_MIN_SPAN * 10);
        double pad = tiny ? 1 : fabs(lo) * 0.1;

        hi = (tiny ? 0 : lo) + pad;
        lo = tiny ? 0 : lo - pad;
    }
    step = plot_axis_nice_number(plot_axis_nice_number(hi - lo, 0) / (target - 1), 1);
    while ((hi - lo) / step + 2 > PLOT_MAX_TICKS)
        step = plot_axis_nice_number(step * 2, 0);
    k0 = (long long)floor(lo / step + 1e-9);
    k1 = (long long)ceil(hi / step - 1e-9);
    first = (double)k0 * step;
    last = (double)k1 * step;
    t->n = 0;
    for (long long k = k0; k <= k1; k++)
        add_tick(t, (double)k * step, 1, step);
    t->lo = first;
    t->hi = last;
}

void plot_axis_ticks_log(double lo, double hi, struct plot_ticks *t)
{
    /* Within the normal doubles: 10^-324 is 0, no tick of a log axis. */
    double l0 = floor(log10(lo) + 1e-9), l1 = ceil(log10(hi) - 1e-9);
    int d0 = !(l0 > DBL_MIN_10_EXP) ? DBL_MIN_10_EXP
             : l0 >= DBL_MAX_10_EXP ? DBL_MAX_10_EXP - 1
                                    : (int)l0;
    int d1 = !(l1 < DBL_MAX_10_EXP) ? DBL_MAX_10_EXP
             : l1 <= DBL_MIN_10_EXP ? DBL_MIN_10_EXP + 1
                                    : (int)l1;
    int decades, stride;

    if (d1 <= d0)
        d1 = d0 + 1;
    decades = d1 - d0;
    stride = decades / (PLOT_MAX_TICKS - 1) + 1;
    t->n = 0;
    for (int k = d0; k < d1; k += stride) {
        double p = pow(10, k);

        for (int m = 1; m <= 9; m++) {
            int labelled = m == 1 || (decades <= 3 && (m == 2 || m == 5));

            if (labelled || (decades <= 6 && stride == 1))
                add_tick(t, m * p, labelled, p);
        }
    }
    add_tick(t, pow(10, d1), 1, pow(10, d1));
    t->lo = pow(10, d0);
    t->hi = pow(10, d1);
}

double plot_axis_nines(double pct)
{
    return log10(100 / (100 - pct));
}

double plot_axis_percent_of_nines(double n)
{
    return 100 * (1 - pow(10, -n));
}

void plot_axis_ticks_percentile(double max_nines, struct plot_ticks *t)
{
    int top = (int)ceil(max_nines - 1e-9);

    if (top < 2)
        top = 2;
    if (top > PLOT_MAX_TICKS - 2)
        top = PLOT_MAX_TICKS - 2;
    t->n = 0;
    for (int k = 0; k <= top; k++) {
        int decimals = k > 2 ? k - 2 : 0;

        if (k == 1) {
            t->value[t->n] = plot_axis_nines(50);
            t->labelled[t->n] = 1;
            snprintf(t->label[t->n], sizeof(t->label[t->n]), "50 %%");
            t->n++;
        }
        t->value[t->n] = k;
        t->labelled[t->n] = 1;
        snprintf(t->label[t->n], sizeof(t->label[t->n]), "%.*f %%", decimals,
                 plot_axis_percent_of_nines(k));
        t->n++;
    }
    t->lo = 0;
    t->hi = top;
}
