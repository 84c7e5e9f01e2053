/*
 * plot_data - what `spoolsim plot' draws, read out of a result's JSON text
 * (no I/O).
 *
 * A timeline (docs/json.md "Timelines"), the percentile curve of each
 * latency object rebuilt from its buckets, and an A/B comparison with an
 * interval for each side's median. Each reader returns 0, or -1 when the
 * text does not hold that kind of data (a message saying why in err).
 */
#ifndef SPOOLSIM_PLOT_DATA_H
#define SPOOLSIM_PLOT_DATA_H

#include <stddef.h>
#include <stdint.h>

struct histogram;

#define PLOT_LABEL_MAX 128

/*
 * The name a result goes by in a legend: its "label" string if it has
 * one, else the file's base name without ".json".
 */
void plot_label(const char *text, const char *path, char *out, size_t len);

/* One result's timeline: row i covers [t[i], t[i] + dt[i]); NAN where the JSON has null. */
struct plot_timeline {
    char label[PLOT_LABEL_MAX];
    size_t n;
    double *t, *dt, *in_per_s, *out_per_s, *incoming, *active, *deferred;
    int has_depths; /* a row has a queue depth */
};

int plot_read_timeline(const char *text, struct plot_timeline *tl, char *err, size_t errlen);
void plot_timeline_free(struct plot_timeline *tl);

/*
 * A latency percentile curve: n points (nines[i], ms[i]), nines as
 * plot_nines() has them, from 0 (the minimum) to log10(2 count), where the
 * rank is count (the maximum), so every point is a percentile of the data.
 */
struct plot_curve {
    char label[PLOT_LABEL_MAX]; /* the result's */
    char stage[64];             /* the latency object's key */
    uint64_t count;
    size_t n;
    double *nines, *ms;
};

#define PLOT_CURVE_STEP 0.02 /* nines between two points: smooth at any width we draw */

/* The curve of h (count > 0) into c (its labels untouched). */
void plot_curve_from_histogram(const struct histogram *h, struct plot_curve *c);

/*
 * A curve for every latency object of the text ("latency": {"STAGE":
 * {..., "buckets": {...}}}) with values, appended to *curves (*n of them,
 * grown with realloc): 0, or -1 when there is no latency object with
 * values or one's buckets do not rebuild a histogram.
 */
int plot_read_latency(const char *text, const char *label, struct plot_curve **curves, size_t *n,
                      char *err, size_t errlen);
void plot_curve_free(struct plot_curve *c);

/* A `spoolsim ab' result; side 0 is A, 1 is B. */
struct plot_ab {
    char label[PLOT_LABEL_MAX];
    char metric[64], unit[32], verdict[256];
    char spool[2][PLOT_LABEL_MAX]; /* each side's directory */
    size_t n[2];                   /* successful runs */
    double *runs[2];               /* their figures, in the order they ran */
    size_t failed[2];              /* runs that failed (null) */
    double median[2];
    double low[2], high[2];        /* 95 % interval of the median, NAN with < 2 runs */
    double ratio, ci_low, ci_high; /* B/A and its interval, NAN when not compared */
};

int plot_read_ab(const char *text, struct plot_ab *ab, char *err, size_t errlen);
void plot_ab_free(struct plot_ab *ab);

#endif
