/*
 * compare_data - stored results side by side; see compare_data.h.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare_data.h"
#include "json_read.h"
#include "msg.h"
#include "xalloc.h"

/* The headline figure of a program that writes one run's result. */
static const struct {
    const char *program, *metric, *unit;
} headlines[] = {
    {"spoolsim bench", "delivered_per_s", "msgs/s"},
    {"spoolsim raw", "delivered_per_s", "msgs/s"},
    {"spoolsim relay", "messages_out_per_s", "msgs/s"},
    {"spoolsim postmark", "transactions_per_s", "transactions/s"},
    {"spoolsim sweep", "knee_per_s", "msgs/s"},
    {"smtp-source", "delivered_per_s", "msgs/s"},
    {"smtp-sink", "messages_per_s", "msgs/s"},
};

void compare_data_init(struct compare *c, uint64_t seed)
{
    memset(c, 0, sizeof(*c));
    c->seed = seed;
}

void compare_data_free(struct compare *c)
{
    for (size_t i = 0; i < c->n; i++)
        free(c->s[i].runs);
    c->n = 0;
}

/* A new series in c, labelled name[:side]; NULL (said in err) when c is full. */
static struct compare_series *series_new(struct compare *c, const char *name, const char *side,
                                         const char *program, const char *metric, const char *unit,
                                         char *err, size_t errlen)
{
    struct compare_series *s;

    if (c->n >= COMPARE_SERIES_MAX) {
        msg_set_error(err, errlen, "%s: more than %d series to compare", name, COMPARE_SERIES_MAX);
        return NULL;
    }
    s = &c->s[c->n];
    memset(s, 0, sizeof(*s));
    snprintf(s->label, sizeof(s->label), "%s%s%s", name, side ? ":" : "", side ? side : "");
    snprintf(s->program, sizeof(s->program), "%s", program);
    snprintf(s->metric, sizeof(s->metric), "%s", metric);
    snprintf(s->unit, sizeof(s->unit), "%s", unit);
    s->runs = xcalloc(COMPARE_RUNS_MAX, sizeof(*s->runs));
    return s;
}

/* A figure compare takes: a positive finite rate (a ratio of rates needs both > 0). */
static int usable(double v)
{
    return isfinite(v) && v > 0;
}

/*
 * The figures of array `path' (items numbers, or objects whose member
 * `key' is one; null for a failed run, skipped) into s: how many, or -1
 * when path is not an array.
 */
static long read_runs(const char *text, const char *path, const char *key, struct compare_series *s)
{
    long n = json_read_array_length(text, path);
    char item[256];
    double v;

    if (n < 0)
        return -1;
    for (long i = 0; i < n && s->n < COMPARE_RUNS_MAX; i++) {
        snprintf(item, sizeof(item), "%s.%ld%s%s", path, i, key ? "." : "", key ? key : "");
        if (json_read_number(text, item, &v) == 0 && usable(v))
            s->runs[s->n++] = v;
    }
    return (long)s->n;
}

/* Keep series s (the last made) when it has a figure, else drop it: 0 or -1 (said). */
static int series_keep(struct compare *c, struct compare_series *s, char *err, size_t errlen)
{
    if (s->n == 0) {
        msg_set_error(err, errlen, "%s: no successful run with a %s to compare", s->label,
                      s->metric);
        free(s->runs);
        s->runs = NULL;
        return -1;
    }
    c->n++;
    return 0;
}

/* ab's sides A and B, each its measured runs. */
static int add_ab(struct compare *c, const char *text, const char *name, char *err, size_t errlen)
{
    char metric[64], unit[32], path[32];
    size_t first = c->n;

    if (json_read_string(text, "metric", metric, sizeof(metric)) != 0)
        return msg_set_error(err, errlen, "%s: an ab result without its metric", name);
    if (json_read_string(text, "unit", unit, sizeof(unit)) != 0)
        snprintf(unit, sizeof(unit), "?");
    for (int k = 0; k < 2; k++) {
        const char *side = k == 0 ? "A" : "B";
        struct compare_series *s =
            series_new(c, name, side, "spoolsim ab", metric, unit, err, errlen);

        snprintf(path, sizeof(path), "sides.%s.runs", side);
        if (s == NULL || read_runs(text, path, NULL, s) < 0 || series_keep(c, s, err, errlen) != 0)
            goto undo;
    }
    return 0;
undo:
    if (err && err[0] == 0)
        msg_set_error(err, errlen, "%s: an ab result without its sides' runs", name);
    while (c->n > first)
        free(c->s[--c->n].runs);
    return -1;
}

/* bench --compare's two sides, the model's runs and the MTA's. */
static int add_bench_compare(struct compare *c, const char *text, const char *name, char *err,
                             size_t errlen)
{
    char mta[48];
    size_t first = c->n;

    if (json_read_string(text, "mta", mta, sizeof(mta)) != 0)
        snprintf(mta, sizeof(mta), "mta");
    for (int k = 0; k < 2; k++) {
        struct compare_series *s = series_new(c, name, k == 0 ? "model" : mta, "spoolsim bench",
                                              "delivered_per_s", "msgs/s", err, errlen);

        if (s == NULL ||
            read_runs(text, k == 0 ? "model_runs" : "mta_runs", "delivered_per_s", s) < 0 ||
            series_keep(c, s, err, errlen) != 0) {
            while (c->n > first)
                free(c->s[--c->n].runs);
            return -1;
        }
    }
    return 0;
}

int compare_data_add(struct compare *c, const char *text, const char *name, char *err,
                     size_t errlen)
{
    char program[64];
    struct compare_series *s;
    double v;

    if (err && errlen)
        err[0] = 0;
    if (json_read_string(text, "program", program, sizeof(program)) != 0)
        return msg_set_error(err, errlen, "%s: not a result of spoolsim's (no \"program\")", name);
    if (strcmp(program, "spoolsim ab") == 0)
        return add_ab(c, text, name, err, errlen);
    if (strcmp(program, "spoolsim bench") == 0 && json_read_array_length(text, "model_runs") >= 0)
        return add_bench_compare(c, text, name, err, errlen);
    for (size_t i = 0; i < sizeof(headlines) / sizeof(headlines[0]); i++) {
        if (strcmp(program, headlines[i].program) != 0)
            continue;
        s = series_new(c, name, NULL, program, headlines[i].metric, headlines[i].unit, err, errlen);
        if (s == NULL)
            return -1;
        /* bench -n: every measured run's figure, the warm-up left out */
        if (strcmp(program, "spoolsim bench") == 0 &&
            read_runs(text, "repeated.runs", NULL, s) >= 0)
            return series_keep(c, s, err, errlen);
        if (json_read_number(text, headlines[i].metric, &v) == 0 && usable(v))
            s->runs[s->n++] = v;
        return series_keep(c, s, err, errlen);
    }
    return msg_set_error(err, errlen, "%s: a %s result has no rate to compare", name, program);
}

void compare_data_judge(struct compare *c)
{
    const struct compare_series *base = c->n ? &c->s[0] : NULL;

    for (size_t i = 0; i < c->n; i++) {
        struct compare_series *s = &c->s[i];

        s->median = ab_stats_median(s->runs, s->n);
        s->have_interval =
            ab_stats_median_interval(s->runs, s->n, c->seed, &s->ci_low, &s->ci_high) == 0;
        s->have_ratio = i > 0 && strcmp(s->metric, base->metric) == 0;
        s->have_ratio_ci = 0;
        memset(&s->vs_base, 0, sizeof(s->vs_base));
        if (!s->have_ratio)
            continue;
        if (ab_stats_compare(base->runs, base->n, s->runs, s->n, c->seed, &s->vs_base) == 0) {
            s->have_ratio_ci = 1;
        } else {
            /* a single run on a side: the ratio, with no spread to resample */
            s->vs_base.median_a = base->median;
            s->vs_base.median_b = s->median;
            s->vs_base.ratio = s->median / base->median;
            s->vs_base.runs_a = base->n;
            s->vs_base.runs_b = s->n;
            s->vs_base.outcome = AB_NO_DIFFERENCE;
        }
    }
}

static const char *outcome_word(const struct compare_series *s)
{
    if (!s->have_ratio_ci)
        return "";
    switch (s->vs_base.outcome) {
    case AB_B_FASTER:
        return "  higher";
    case AB_B_SLOWER:
        return "  lower";
    default:
        return "  no difference";
    }
}

void compare_data_format_row(const struct compare *c, size_t i, char *buf, size_t len)
{
    const struct compare_series *s = &c->s[i];
    char median[64], ratio[96];

    if (s->have_interval)
        snprintf(median, sizeof(median), "%.1f (%.1f-%.1f)", s->median, s->ci_low, s->ci_high);
    else
        snprintf(median, sizeof(median), "%.1f", s->median);
    if (i == 0)
        snprintf(ratio, sizeof(ratio), "baseline");
    else if (!s->have_ratio)
        snprintf(ratio, sizeof(ratio), "- (%s, not %s)", s->metric, c->s[0].metric);
    else if (s->have_ratio_ci)
        snprintf(ratio, sizeof(ratio), "%.3f (%.3f-%.3f)%s", s->vs_base.ratio, s->vs_base.ci_low,
                 s->vs_base.ci_high, outcome_word(s));
    else
        snprintf(ratio, sizeof(ratio), "%.3f", s->vs_base.ratio);
    snprintf(buf, len, "%-30s %4zu  %-28s %s", s->label, s->n, median, ratio);
}

static void write_series(const struct compare_series *s, struct json_writer *w)
{
    json_begin_object(w, NULL);
    json_string(w, "result", s->label);
    json_string(w, "program", s->program);
    json_string(w, "metric", s->metric);
    json_string(w, "unit", s->unit);
    json_begin_array(w, "runs");
    for (size_t k = 0; k < s->n; k++)
        json_double(w, NULL, s->runs[k]);
    json_end_array(w);
    json_double(w, "median", s->median);
    json_double(w, "ci_low", s->have_interval ? s->ci_low : NAN);
    json_double(w, "ci_high", s->have_interval ? s->ci_high : NAN);
    json_double(w, "ratio", s->have_ratio ? s->vs_base.ratio : NAN);
    json_double(w, "ratio_ci_low", s->have_ratio_ci ? s->vs_base.ci_low : NAN);
    json_double(w, "ratio_ci_high", s->have_ratio_ci ? s->vs_base.ci_high : NAN);
    if (s->have_ratio_ci)
        json_string(w, "outcome",
                    s->vs_base.outcome == AB_B_FASTER   ? "higher"
                    : s->vs_base.outcome == AB_B_SLOWER ? "lower"
                                                        : "no_difference");
    else
        json_string(w, "outcome", NULL);
    json_end_object(w);
}

void compare_data_write_json(const struct compare *c, struct json_writer *w)
{
    json_string(w, "baseline", c->n ? c->s[0].label : NULL);
    json_uint(w, "seed", c->seed);
    json_uint(w, "resamples", AB_RESAMPLES);
    json_begin_array(w, "results");
    for (size_t i = 0; i < c->n; i++)
        write_series(&c->s[i], w);
    json_end_array(w);
}
