/*
 * plot_data - what `spoolsim plot' draws, read out of a result's JSON text
 * (no I/O).
 *
 * A timeline (docs/json.md "Timelines"), the percentile curve of each
 * latency object rebuilt from its buckets, an A/B comparison with an
 * interval for each side's median, and a sweep's steps. Each reader returns 0, or -1 when the
 * text does not hold that kind of data (a message saying why in err).
 */
#ifndef SPOOLSIM_PLOT_DATA_H
#define SPOOLSIM_PLOT_DATA_H

#include <stddef.h>
#include <stdint.h>

struct histogram;

#define PLOT_LABEL_MAX 128

/*
 * The largest size of a figure the readers take (a time, a rate, a depth,
 * a latency, an A/B figure), of either sign: far beyond any run's, and
 * small enough that an axis over such figures keeps its arithmetic
 * finite (no tick of inf or nan). A larger one is an error naming it.
 */
#define PLOT_MAX_VALUE 1e15

/*
 * 0 when the result's schema_version (docs/json.md) is one this reader
 * knows, 1 to JSON_SCHEMA_VERSION; -1 with a message naming the problem
 * when it is missing, not a number, or not such a version (0, negative, a
 * fraction, a later one).
 */
int plot_data_check_schema(const char *text, char *err, size_t errlen);

/*
 * The name a result goes by in a legend: its "label" string if it has
 * one, else the file's base name without ".json".
 */
void plot_data_label(const char *text, const char *path, char *out, size_t len);

/* One result's timeline: row i covers [t[i], t[i] + dt[i]); NAN where the JSON has null. */
struct plot_timeline {
    char label[PLOT_LABEL_MAX];
    size_t n;
    double *t, *dt, *in_per_s, *out_per_s, *incoming, *active, *deferred;
    int has_depths; /* a row has a queue depth */
};

int plot_data_read_timeline(const char *text, struct plot_timeline *tl, char *err, size_t errlen);
void plot_data_timeline_free(struct plot_timeline *tl);

/*
 * A latency percentile curve: n points (nines[i], ms[i]), nines as
 * plot_axis_nines() has them, from 0 (the minimum) to log10(2 count), where the
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
void plot_data_curve_from_histogram(const struct histogram *h, struct plot_curve *c);

/*
 * A curve for every latency object of the text ("latency": {"STAGE":
 * {..., "buckets": {...}}}) with values, appended to *curves (*n of them,
 * grown with realloc): 0, or -1 when there is no latency object with
 * values or one's buckets do not rebuild a histogram.
 */
int plot_data_read_latency(const char *text, const char *label, struct plot_curve **curves,
                           size_t *n, char *err, size_t errlen);
void plot_data_curve_free(struct plot_curve *c);

/*
 * A `spoolsim ab' result; side 0 is A, 1 is B. Its "seed" (1 when missing)
 * must be a whole number from 0 to 2^64 - 1, as ab's --seed is:
 * the intervals are redrawn with it. A seed above 2^53 reads rounded to a
 * double, so its intervals may differ a little from the ones ab drew.
 */
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

int plot_data_read_ab(const char *text, struct plot_ab *ab, char *err, size_t errlen);

/* Whether the text holds an A/B comparison, readable or not: plot_data_read_ab()'s -1 is then an
 * error.
 */
int plot_data_has_ab(const char *text);
void plot_data_ab_free(struct plot_ab *ab);

/*
 * A `spoolsim sweep' result (docs/json.md "spoolsim sweep"): its steps in
 * the order of their offered rate, whatever order they ran in, so that a
 * line through them reads from left to right. Latencies are the client's,
 * from each message's intended send time; NAN where a step has none (a
 * value <= 0: no message answered, nothing a log axis can show).
 */
struct plot_sweep {
    char label[PLOT_LABEL_MAX]; /* what was swept, plot_data_sweep_label()'s */
    size_t n;
    double *offered, *delivered; /* messages/s */
    double *p50, *p99, *tail;    /* ms; tail is p99.9 or, in older results, the maximum */
    int *held;                   /* the step met every criterion */
    unsigned *step;              /* its number in the order run, from 1 */
    char tail_name[8];           /* "p99.9", "max", or "" when the steps have neither */
    double knee, broke;          /* knee_per_s, broke_per_s: NAN when null */
    double slo_ms;               /* slo_s in ms, NAN when missing */
    unsigned broke_step;         /* the step at broke, 0 when none */
    char broke_why[160];         /* its reason_text */
    double peak;                 /* workload_peak_per_s: the log's busiest minute, NAN without */
};

/*
 * The line through a sweep's series v (one of sw's columns): a point per
 * offered rate, at the median of the steps run at that rate that have a
 * value (NAN, a gap, when none has), so that a rate run again (--rates
 * 20,20: a repeatability check) is one point of the line, not a line that
 * doubles back on itself; each step keeps its own mark. x and y hold sw->n;
 * returns the number of points.
 */
size_t plot_data_sweep_line(const struct plot_sweep *sw, const double *v, double *x, double *y);

/*
 * What a sweep result swept, for its legend: its "label" string if it has
 * one; else "target HOST:PORT" for --target, or "relay" and the relay's
 * options ("relay --model none"; "relay, its defaults" without any); and
 * ", sink delay 30 ms" for a --sink-delay.
 */
void plot_data_sweep_label(const char *text, char *out, size_t len);

/*
 * The most steps of a sweep result: SWEEP_MAX_RATES of spoolsim/drive (the
 * most rates of --rates, and of --max-steps), which this layer cannot include.
 */
#define PLOT_MAX_SWEEP_STEPS 64

/*
 * 0, or -1 when there is no "steps" array, it is empty or longer than
 * PLOT_MAX_SWEEP_STEPS, or a step has no offered_per_s above 0.
 */
int plot_data_read_sweep(const char *text, struct plot_sweep *sw, char *err, size_t errlen);
void plot_data_sweep_free(struct plot_sweep *sw);

/*
 * Sweeps whose labels are the same (two runs of one command line) told
 * apart: " (NAME)" added to each of them, names[i] being sweep i's file's
 * name as plot_data_label() gives it.
 */
void plot_data_sweep_distinct_labels(struct plot_sweep *sw, const char *const *names, size_t n);

#endif
