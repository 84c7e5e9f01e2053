/*
 * plot_data - what `spoolsim plot' draws, read out of a result's JSON
 * text; see plot_data.h.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ab_stats.h"
#include "histogram.h"
#include "json_meta.h"
#include "json_read.h"
#include "msg.h"
#include "plot_axis.h"
#include "plot_data.h"
#include "xalloc.h"

/* Whether the object text has a member key (of any value). */
static int has_member(const char *text, const char *key)
{
    char name[64];

    for (size_t i = 0; json_read_key(text, NULL, i, name, sizeof(name)) == 0; i++)
        if (strcmp(name, key) == 0)
            return 1;
    return 0;
}

int plot_data_check_schema(const char *text, char *err, size_t errlen)
{
    double v;

    if (json_read_number(text, "schema_version", &v) != 0)
        return msg_set_error(err, errlen,
                             has_member(text, "schema_version")
                                 ? "schema_version is not a number"
                                 : "no schema_version (every result spoolsim writes has one)");
    if (!(v >= 1 && v <= JSON_SCHEMA_VERSION && v == floor(v)))
        return msg_set_error(err, errlen, "schema_version %.6g: not one this program reads (%d)", v,
                             JSON_SCHEMA_VERSION);
    return 0;
}

void plot_data_label(const char *text, const char *path, char *out, size_t len)
{
    const char *base = strrchr(path, '/');
    size_t n;

    if (json_read_string(text, "label", out, len) == 0 && out[0])
        return;
    base = base && base[1] ? base + 1 : path;
    snprintf(out, len, "%s", base);
    n = strlen(out);
    if (n > 5 && strcmp(out + n - 5, ".json") == 0)
        out[n - 5] = '\0';
}

/* Whether v is a figure (not NAN, which is no figure) larger than PLOT_MAX_VALUE in size. */
static int out_of_range(double v)
{
    return fabs(v) > PLOT_MAX_VALUE;
}

/* -1 and the message for figure v of what, out of range. */
static int range_error(char *err, size_t errlen, const char *what, double v)
{
    return msg_set_error(err, errlen, "%s %.6g is out of range (larger than %.0e in size)", what, v,
                         PLOT_MAX_VALUE);
}

/*
 * The first figure of a table (rows of nkeys, NAN where none) out of
 * range, as -1 and a message naming its row (from 1 in what's words) and
 * key; or 0.
 */
static int table_in_range(const double *cells, size_t rows, const char *const *keys, size_t nkeys,
                          const char *what, char *err, size_t errlen)
{
    char name[96];

    for (size_t i = 0; i < rows; i++)
        for (size_t j = 0; j < nkeys; j++)
            if (out_of_range(cells[i * nkeys + j])) {
                snprintf(name, sizeof(name), "%s %zu: %s", what, i + 1, keys[j]);
                return range_error(err, errlen, name, cells[i * nkeys + j]);
            }
    return 0;
}

int plot_data_read_timeline(const char *text, struct plot_timeline *tl, char *err, size_t errlen)
{
    static const char *const keys[] = {
        "t",        "interval_s", "messages_in_per_s", "messages_out_per_s",
        "incoming", "active",     "deferred"};
    enum { NKEYS = sizeof(keys) / sizeof(keys[0]) };
    long rows = json_read_array_length(text, "timeline");
    double *cells, *cols;

    if (rows < 0)
        return msg_set_error(err, errlen, "no timeline");
    if (rows == 0)
        return msg_set_error(err, errlen, "an empty timeline");
    cells = xmalloc((size_t)rows * NKEYS * sizeof(*cells));
    if (json_read_table(text, "timeline", keys, NKEYS, cells, (size_t)rows) != rows) {
        free(cells);
        return msg_set_error(err, errlen, "a timeline that is not an array of objects");
    }
    if (table_in_range(cells, (size_t)rows, keys, NKEYS, "timeline row", err, errlen) != 0) {
        free(cells);
        return -1;
    }
    /* Column by column, so that each series is an array of its own. */
    cols = xmalloc((size_t)rows * NKEYS * sizeof(*cols));
    tl->n = (size_t)rows;
    tl->has_depths = 0;
    for (size_t i = 0; i < tl->n; i++) {
        for (size_t j = 0; j < NKEYS; j++)
            cols[j * tl->n + i] = cells[i * NKEYS + j];
        if (!isfinite(cells[i * NKEYS]) || !isfinite(cells[i * NKEYS + 1])) {
            free(cells);
            free(cols);
            return msg_set_error(err, errlen, "timeline row %zu has no t or interval_s", i);
        }
        for (size_t j = 4; j < NKEYS; j++)
            tl->has_depths |= isfinite(cells[i * NKEYS + j]);
    }
    free(cells);
    tl->t = cols;
    tl->dt = cols + tl->n;
    tl->in_per_s = cols + 2 * tl->n;
    tl->out_per_s = cols + 3 * tl->n;
    tl->incoming = cols + 4 * tl->n;
    tl->active = cols + 5 * tl->n;
    tl->deferred = cols + 6 * tl->n;
    return 0;
}

void plot_data_timeline_free(struct plot_timeline *tl)
{
    free(tl->t);
    tl->t = NULL;
    tl->n = 0;
}

void plot_data_curve_from_histogram(const struct histogram *h, struct plot_curve *c)
{
    double end = log10(2.0 * (double)histogram_count(h));
    size_t steps = (size_t)ceil(end / PLOT_CURVE_STEP - 1e-9);

    c->count = histogram_count(h);
    c->n = steps + 1;
    c->nines = xmalloc(c->n * sizeof(*c->nines));
    c->ms = xmalloc(c->n * sizeof(*c->ms));
    for (size_t i = 0; i < c->n; i++) {
        /* The last point at end exactly: rank ceil(count - 1/2) = count, the maximum. */
        double x = i == steps ? end : (double)i * PLOT_CURVE_STEP;

        c->nines[i] = x;
        c->ms[i] = (double)histogram_percentile(h, plot_axis_percent_of_nines(x)) / 1e6;
    }
}

void plot_data_curve_free(struct plot_curve *c)
{
    free(c->nines);
    free(c->ms);
    c->nines = c->ms = NULL;
    c->n = 0;
}

int plot_data_read_latency(const char *text, const char *label, struct plot_curve **curves,
                           size_t *n, char *err, size_t errlen)
{
    struct histogram *h = xmalloc(sizeof(*h));
    char stage[64], path[80];
    size_t found = 0;

    for (size_t i = 0; json_read_key(text, "latency", i, stage, sizeof(stage)) == 0; i++) {
        struct plot_curve *c;

        snprintf(path, sizeof(path), "latency.%s", stage);
        if (strchr(stage, '.') || histogram_read_json(text, path, h) != 0) {
            free(h);
            return msg_set_error(err, errlen,
                                 "latency.%s has no buckets a histogram can be "
                                 "rebuilt from",
                                 stage);
        }
        if (histogram_count(h) == 0)
            continue; /* a stage that saw nothing has no curve */
        *curves = xrealloc(*curves, (*n + 1) * sizeof(**curves));
        c = &(*curves)[(*n)++];
        memset(c, 0, sizeof(*c));
        snprintf(c->label, sizeof(c->label), "%s", label);
        snprintf(c->stage, sizeof(c->stage), "%s", stage);
        plot_data_curve_from_histogram(h, c);
        found++;
    }
    free(h);
    if (found == 0)
        return msg_set_error(err, errlen, "no latency with values");
    return 0;
}

/* NAN for a missing or null number. */
static double number_or_nan(const char *text, const char *path)
{
    double v;

    return json_read_number(text, path, &v) == 0 ? v : NAN;
}

/* number_or_nan() into *v: 0, or -1 and a message naming path when it is out of range. */
static int read_figure(const char *text, const char *path, double *v, char *err, size_t errlen)
{
    *v = number_or_nan(text, path);
    return out_of_range(*v) ? range_error(err, errlen, path, *v) : 0;
}

/*
 * The seed ab's bootstrap used (1, ab's default, when there is none): 0,
 * or -1 when it is not one ab's --seed takes. 2^64 itself is a seed near
 * 2^64 - 1 rounded to a double, not one out of range.
 */
static int read_seed(const char *text, uint64_t *seed, char *err, size_t errlen)
{
    double v;

    *seed = 1; /* ab's default */
    if (json_read_number(text, "seed", &v) != 0)
        return has_member(text, "seed") ? msg_set_error(err, errlen, "seed is not a number") : 0;
    if (!(v >= 0 && v <= 0x1p64 && v == floor(v)))
        return msg_set_error(err, errlen,
                             "seed %.6g: not a seed spoolsim ab takes (a whole number from 0 to "
                             "2^64 - 1)",
                             v);
    *seed = v < 0x1p64 ? (uint64_t)v : UINT64_MAX;
    return 0;
}

int plot_data_has_ab(const char *text)
{
    return json_read_array_length(text, "sides.A.runs") >= 0 &&
           json_read_array_length(text, "sides.B.runs") >= 0;
}

int plot_data_read_ab(const char *text, struct plot_ab *ab, char *err, size_t errlen)
{
    static const char *const names[2] = {"A", "B"};
    char path[64];
    uint64_t seed;

    if (!plot_data_has_ab(text))
        return msg_set_error(err, errlen, "no A/B comparison (sides.A.runs, sides.B.runs)");
    if (read_seed(text, &seed, err, errlen) != 0)
        return -1;
    if (json_read_string(text, "metric", ab->metric, sizeof(ab->metric)) != 0)
        snprintf(ab->metric, sizeof(ab->metric), "figure");
    if (json_read_string(text, "unit", ab->unit, sizeof(ab->unit)) != 0)
        ab->unit[0] = '\0';
    if (json_read_string(text, "verdict", ab->verdict, sizeof(ab->verdict)) != 0)
        ab->verdict[0] = '\0';
    ab->runs[0] = ab->runs[1] = NULL; /* for plot_data_ab_free() on an error */
    for (int k = 0; k < 2; k++) {
        long runs;

        snprintf(path, sizeof(path), "sides.%s.runs", names[k]);
        runs = json_read_array_length(text, path);
        ab->runs[k] = xmalloc(((size_t)runs + 1) * sizeof(double));
        ab->n[k] = ab->failed[k] = 0;
        for (long i = 0; i < runs; i++) {
            double v;

            snprintf(path, sizeof(path), "sides.%s.runs.%ld", names[k], i);
            if (json_read_number(text, path, &v) != 0)
                ab->failed[k]++;
            else if (out_of_range(v)) {
                range_error(err, errlen, path, v);
                goto bad;
            } else
                ab->runs[k][ab->n[k]++] = v;
        }
        snprintf(path, sizeof(path), "sides.%s.spool.path", names[k]);
        if (json_read_string(text, path, ab->spool[k], sizeof(ab->spool[k])) != 0)
            ab->spool[k][0] = '\0';
        snprintf(path, sizeof(path), "sides.%s.median", names[k]);
        if (read_figure(text, path, &ab->median[k], err, errlen) != 0) /* what ab reported */
            goto bad;
        if (!isfinite(ab->median[k]) && ab->n[k])
            ab->median[k] = ab_stats_median(ab->runs[k], ab->n[k]);
        /* The interval as ab would draw it: its resampling, its seed. */
        if (ab_stats_median_interval(ab->runs[k], ab->n[k], seed, &ab->low[k], &ab->high[k]) != 0)
            ab->low[k] = ab->high[k] = NAN;
    }
    if (read_figure(text, "ratio", &ab->ratio, err, errlen) != 0 ||
        read_figure(text, "ci_low", &ab->ci_low, err, errlen) != 0 ||
        read_figure(text, "ci_high", &ab->ci_high, err, errlen) != 0)
        goto bad;
    if (ab->n[0] + ab->n[1] == 0) {
        plot_data_ab_free(ab);
        return msg_set_error(err, errlen, "an A/B comparison without a successful run");
    }
    return 0;

bad:
    plot_data_ab_free(ab);
    return -1;
}

void plot_data_ab_free(struct plot_ab *ab)
{
    for (int k = 0; k < 2; k++) {
        free(ab->runs[k]);
        ab->runs[k] = NULL;
    }
}

void plot_data_sweep_label(const char *text, char *out, size_t len)
{
    char target[256], opt[128];
    double delay;
    size_t used;
    long nopts;

    if (json_read_string(text, "label", out, len) == 0 && out[0])
        return;
    if (json_read_string(text, "target", target, sizeof(target)) == 0) {
        used = (size_t)snprintf(out, len, "target %s", target);
    } else {
        used = (size_t)snprintf(out, len, "relay");
        nopts = json_read_array_length(text, "relay_options");
        for (long i = 0; i < nopts && used < len; i++) {
            char path[48];

            snprintf(path, sizeof(path), "relay_options.%ld", i);
            if (json_read_string(text, path, opt, sizeof(opt)) == 0)
                used += (size_t)snprintf(out + used, len - used, " %s", opt);
        }
        if (nopts <= 0 && used < len)
            used += (size_t)snprintf(out + used, len - used, ", its defaults");
    }
    if (used < len && json_read_number(text, "sink_delay_s", &delay) == 0 && delay > 0)
        snprintf(out + used, len - used, ", sink delay %.6g ms", delay * 1e3);
}

/* v, or NAN where a latency is missing or not above 0. */
static double positive_or_nan(double v)
{
    return isfinite(v) && v > 0 ? v : NAN;
}

/*
 * The strings of each step are read from the step's own text, copied out of
 * the result: a path from the top of the result per value would scan it all
 * again for each, quadratic in the steps.
 */
static void read_step_strings(const char *text, const size_t *off, const size_t *len, size_t i,
                              char *buf, char *reason, size_t reason_len, char *why, size_t why_len)
{
    memcpy(buf, text + off[i], len[i]);
    buf[len[i]] = '\0';
    if (json_read_string(buf, "reason", reason, reason_len) != 0)
        reason[0] = '\0';
    if (why != NULL && json_read_string(buf, "reason_text", why, why_len) != 0)
        snprintf(why, why_len, "%s", reason);
}

int plot_data_read_sweep(const char *text, struct plot_sweep *sw, char *err, size_t errlen)
{
    static const char *const keys[] = {"offered_per_s", "delivered_per_s", "p50_ms",
                                       "p99_ms",        "p99_9_ms",        "max_ms"};
    enum { NKEYS = sizeof(keys) / sizeof(keys[0]) };
    long rows = json_read_array_length(text, "steps");
    double *cells, *cols, knee, broke, slo_s, peak;
    size_t *order, *off, *len, n, has_p999 = 0, has_max = 0, longest = 0;
    char reason[32], *buf;

    if (rows < 0)
        return msg_set_error(err, errlen, "no sweep (no \"steps\" array)");
    if (rows == 0)
        return msg_set_error(err, errlen, "a sweep with no steps");
    if (rows > PLOT_MAX_SWEEP_STEPS)
        return msg_set_error(err, errlen, "a sweep of %ld steps: no sweep runs more than %d", rows,
                             PLOT_MAX_SWEEP_STEPS);
    n = (size_t)rows;
    cells = xmalloc(n * NKEYS * sizeof(*cells));
    off = xmalloc(2 * n * sizeof(*off));
    len = off + n;
    if (json_read_table(text, "steps", keys, NKEYS, cells, n) != rows ||
        json_read_item_spans(text, "steps", off, len, n) != rows) {
        free(off);
        free(cells);
        return msg_set_error(err, errlen, "sweep steps that are not an array of objects");
    }
    if (table_in_range(cells, n, keys, NKEYS, "sweep step", err, errlen) != 0 ||
        read_figure(text, "knee_per_s", &knee, err, errlen) != 0 ||
        read_figure(text, "broke_per_s", &broke, err, errlen) != 0 ||
        read_figure(text, "slo_s", &slo_s, err, errlen) != 0 ||
        read_figure(text, "workload_peak_per_s", &peak, err, errlen) != 0) {
        free(off);
        free(cells);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        longest = len[i] > longest ? len[i] : longest;
    buf = xmalloc(longest + 1);
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(cells[i * NKEYS]) || cells[i * NKEYS] <= 0) {
            int present;

            memcpy(buf, text + off[i], len[i]);
            buf[len[i]] = '\0';
            present = has_member(buf, "offered_per_s");
            free(buf);
            free(off);
            free(cells);
            if (present)
                return msg_set_error(err, errlen,
                                     "sweep step %zu has an offered_per_s out of range "
                                     "(not a number of messages/s above 0)",
                                     i + 1);
            return msg_set_error(err, errlen, "sweep step %zu has no offered_per_s", i + 1);
        }
        has_p999 += isfinite(cells[i * NKEYS + 4]);
        has_max += isfinite(cells[i * NKEYS + 5]);
    }
    /* The run order by offered rate: an automatic sweep bisects back down. */
    order = xmalloc(n * sizeof(*order));
    for (size_t i = 0; i < n; i++) {
        size_t j = i;

        for (; j > 0 && cells[order[j - 1] * NKEYS] > cells[i * NKEYS]; j--)
            order[j] = order[j - 1];
        order[j] = i;
    }
    memset(sw, 0, sizeof(*sw));
    plot_data_sweep_label(text, sw->label, sizeof(sw->label));
    snprintf(sw->tail_name, sizeof(sw->tail_name), "%s", has_p999 ? "p99.9" : has_max ? "max" : "");
    sw->n = n;
    cols = xmalloc(5 * n * sizeof(*cols));
    sw->offered = cols;
    sw->delivered = cols + n;
    sw->p50 = cols + 2 * n;
    sw->p99 = cols + 3 * n;
    sw->tail = cols + 4 * n;
    sw->held = xmalloc(n * sizeof(*sw->held));
    sw->step = xmalloc(n * sizeof(*sw->step));
    sw->knee = knee;
    sw->broke = broke;
    sw->slo_ms = slo_s * 1e3;
    sw->peak = peak > 0 ? peak : NAN;
    for (size_t k = 0; k < n; k++) {
        const double *row = cells + order[k] * NKEYS;

        sw->offered[k] = row[0];
        sw->delivered[k] = row[1];
        sw->p50[k] = positive_or_nan(row[2]);
        sw->p99[k] = positive_or_nan(row[3]);
        sw->tail[k] = positive_or_nan(has_p999 ? row[4] : row[5]);
        sw->step[k] = (unsigned)order[k] + 1;
        read_step_strings(text, off, len, order[k], buf, reason, sizeof(reason), NULL, 0);
        sw->held[k] = strcmp(reason, "held") == 0;
        if (sw->broke_step == 0 && !sw->held[k] && row[0] == sw->broke) {
            sw->broke_step = sw->step[k];
            read_step_strings(text, off, len, order[k], buf, reason, sizeof(reason), sw->broke_why,
                              sizeof(sw->broke_why));
        }
    }
    free(buf);
    free(order);
    free(off);
    free(cells);
    return 0;
}

void plot_data_sweep_free(struct plot_sweep *sw)
{
    free(sw->offered);
    free(sw->held);
    free(sw->step);
    sw->offered = NULL;
    sw->held = NULL;
    sw->step = NULL;
    sw->n = 0;
}

size_t plot_data_sweep_line(const struct plot_sweep *sw, const double *v, double *x, double *y)
{
    double *vals = xmalloc((sw->n ? sw->n : 1) * sizeof(*vals));
    size_t points = 0;

    /* The steps are in the order of their rate: the repeats of one rate are neighbours. */
    for (size_t i = 0, j; i < sw->n; i = j) {
        size_t nv = 0;

        for (j = i; j < sw->n && sw->offered[j] == sw->offered[i]; j++)
            if (isfinite(v[j]))
                vals[nv++] = v[j];
        x[points] = sw->offered[i];
        y[points++] = nv ? ab_stats_median(vals, nv) : NAN;
    }
    free(vals);
    return points;
}

void plot_data_sweep_distinct_labels(struct plot_sweep *sw, const char *const *names, size_t n)
{
    int *same = xcalloc(n ? n : 1, sizeof(*same));

    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            if (strcmp(sw[i].label, sw[j].label) == 0)
                same[i] = same[j] = 1;
    for (size_t i = 0; i < n; i++) {
        size_t used = strlen(sw[i].label);

        if (same[i] && used < sizeof(sw[i].label))
            snprintf(sw[i].label + used, sizeof(sw[i].label) - used, " (%s)", names[i]);
    }
    free(same);
}
