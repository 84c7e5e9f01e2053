/*
 * timeline - per-interval rows of a run; see timeline.h.
 *
 * One table of columns drives the JSON writer, the CSV writer and the
 * reader, so that the three cannot disagree about a name or an order.
 */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fileutil.h"
#include "json.h"
#include "json_read.h"
#include "timeline.h"
#include "xalloc.h"
#include "xgrow.h"

enum column_kind { COL_SECONDS, COL_COUNT, COL_RATE, COL_MS };

struct column {
    const char *name;
    unsigned field; /* 0: always known */
    enum column_kind kind;
    size_t offset; /* of the uint64_t (count, ns) or double (seconds) in the row */
};

#define ROW_AT(f) offsetof(struct timeline_row, f)

/* A rate divides the count in the column before it by interval_s. */
static const struct column columns[] = {
    {"t", 0, COL_SECONDS, ROW_AT(t)},
    {"interval_s", 0, COL_SECONDS, ROW_AT(interval_s)},
    {"messages_in", TIMELINE_IN, COL_COUNT, ROW_AT(messages_in)},
    {"messages_in_per_s", TIMELINE_IN, COL_RATE, ROW_AT(messages_in)},
    {"messages_out", TIMELINE_OUT, COL_COUNT, ROW_AT(messages_out)},
    {"messages_out_per_s", TIMELINE_OUT, COL_RATE, ROW_AT(messages_out)},
    {"failures", TIMELINE_FAILURES, COL_COUNT, ROW_AT(failures)},
    {"latency_count", TIMELINE_LATENCY, COL_COUNT, ROW_AT(latency_count)},
    {"p50_ms", TIMELINE_LATENCY, COL_MS, ROW_AT(p50_ns)},
    {"p99_ms", TIMELINE_LATENCY, COL_MS, ROW_AT(p99_ns)},
    {"fsyncs", TIMELINE_FSYNCS, COL_COUNT, ROW_AT(fsyncs)},
    {"fsyncs_per_s", TIMELINE_FSYNCS, COL_RATE, ROW_AT(fsyncs)},
    {"incoming", TIMELINE_QUEUES, COL_COUNT, ROW_AT(incoming)},
    {"active", TIMELINE_QUEUES, COL_COUNT, ROW_AT(active)},
    {"deferred", TIMELINE_QUEUES, COL_COUNT, ROW_AT(deferred)},
};
#define NCOLUMNS (sizeof(columns) / sizeof(columns[0]))

void timeline_init(struct timeline *tl, unsigned fields)
{
    memset(tl, 0, sizeof(*tl));
    tl->fields = fields;
}

void timeline_free(struct timeline *tl)
{
    free(tl->rows);
    free(tl->before);
    free(tl->buckets);
    /* empty again, as a new one of its fields: ready for use, and a second free is harmless */
    timeline_init(tl, tl->fields);
}

/* h as row r's latency: its count, percentiles and buckets (appended to the pool). */
static void set_row_latency(struct timeline *tl, struct timeline_row *r, const struct histogram *h)
{
    size_t n = histogram_buckets(h, NULL, 0);

    r->latency_count = histogram_count(h);
    r->p50_ns = histogram_percentile(h, 50.0);
    r->p99_ns = histogram_percentile(h, 99.0);
    r->latency_min = histogram_min(h);
    r->latency_max = histogram_max(h);
    r->latency_sum = h->sum;
    tl->buckets = xgrow(tl->buckets, &tl->buckets_cap, tl->nbuckets + n, 256, sizeof(*tl->buckets));
    r->buckets_at = tl->nbuckets;
    r->buckets_n = histogram_buckets(h, tl->buckets + tl->nbuckets, n);
    tl->nbuckets += n;
}

static void add_row_latency(const struct timeline *tl, const struct timeline_row *r,
                            struct histogram *h)
{
    if (r->latency_count > 0)
        histogram_add_buckets(h, tl->buckets + r->buckets_at, r->buckets_n, r->latency_min,
                              r->latency_max, r->latency_sum);
}

int timeline_row_latency(const struct timeline *tl, size_t i, struct histogram *h)
{
    if (!tl->histograms || i >= tl->n)
        return -1;
    histogram_init(h);
    add_row_latency(tl, &tl->rows[i], h);
    return 0;
}

void timeline_row_add(struct timeline *dst, size_t di, const struct timeline *src, size_t si)
{
    struct timeline_row *d = &dst->rows[di];
    const struct timeline_row *r = &src->rows[si];

    d->messages_in += r->messages_in;
    d->messages_out += r->messages_out;
    d->failures += r->failures;
    d->fsyncs += r->fsyncs;
    d->incoming += r->incoming;
    d->active += r->active;
    d->deferred += r->deferred;
    if (dst->histograms && src->histograms) {
        struct histogram *h = xmalloc(sizeof(*h));

        histogram_init(h);
        add_row_latency(dst, d, h);
        add_row_latency(src, r, h);
        set_row_latency(dst, d, h); /* the old buckets stay in the pool, unused */
        free(h);
    } else {
        d->latency_count += r->latency_count;
    }
}

void timeline_merge(struct timeline *dst, const struct timeline *src)
{
    if (dst->n == 0) /* no row of its own lacks a histogram */
        dst->histograms = src->histograms;
    if (dst->n < src->n) {
        if (dst->cap < src->n) {
            dst->cap = src->n;
            dst->rows = xrealloc(dst->rows, dst->cap * sizeof(*dst->rows));
        }
        for (size_t i = dst->n; i < src->n; i++) {
            memset(&dst->rows[i], 0, sizeof(dst->rows[i]));
            dst->rows[i].t = src->rows[i].t;
            dst->rows[i].interval_s = src->rows[i].interval_s;
        }
        dst->n = src->n;
    }
    for (size_t i = 0; i < src->n; i++) {
        struct timeline_row *d = &dst->rows[i];
        const struct timeline_row *r = &src->rows[i];
        double end = fmax(d->t + d->interval_s, r->t + r->interval_s);

        d->t = fmin(d->t, r->t);
        d->interval_s = end - d->t;
        timeline_row_add(dst, i, src, i);
    }
    dst->fields &= src->fields;
    dst->histograms = dst->histograms && src->histograms;
}

static uint64_t moved(uint64_t now, uint64_t before)
{
    return now > before ? now - before : 0;
}

void timeline_add(struct timeline *tl, const struct timeline_point *p,
                  const struct histogram *latency)
{
    struct timeline_row *r;
    const struct timeline_point *b = &tl->last;

    if (!tl->started) {
        tl->started = 1;
        tl->last = *p;
        return;
    }
    /* The end falling (all but) on a boundary: no row of nothing in no time. */
    if (p->t < b->t + 1e-3 && moved(p->in, b->in) == 0 && moved(p->out, b->out) == 0 &&
        moved(p->failures, b->failures) == 0 && moved(p->fsyncs, b->fsyncs) == 0 &&
        (latency == NULL || histogram_count(latency) == 0))
        return;
    tl->rows = xgrow(tl->rows, &tl->cap, tl->n + 1, 64, sizeof(*tl->rows));
    r = &tl->rows[tl->n++];
    memset(r, 0, sizeof(*r));
    r->t = b->t;
    r->interval_s = p->t > b->t ? p->t - b->t : 0;
    r->messages_in = moved(p->in, b->in);
    r->messages_out = moved(p->out, b->out);
    r->failures = moved(p->failures, b->failures);
    r->fsyncs = moved(p->fsyncs, b->fsyncs);
    if (latency) {
        set_row_latency(tl, r, latency);
        tl->histograms = 1;
    }
    r->incoming = p->incoming;
    r->active = p->active;
    r->deferred = p->deferred;
    tl->last = *p;
    tl->last.t = p->t > b->t ? p->t : b->t;
}

void timeline_add_cumulative(struct timeline *tl, const struct timeline_point *p,
                             const struct histogram *cumulative)
{
    struct histogram *delta = xmalloc(sizeof(*delta));

    if (tl->before == NULL) {
        tl->before = xmalloc(sizeof(*tl->before));
        histogram_init(tl->before);
    }
    histogram_subtract(delta, cumulative, tl->before);
    timeline_add(tl, p, delta);
    *tl->before = *cumulative;
    free(delta);
}

/* Column c of row r; 0 when it is null (not known, or a percentile of nothing). */
static int column_value(const struct timeline *tl, const struct timeline_row *r, size_t c,
                        double *v, uint64_t *u)
{
    const struct column *col = &columns[c];
    const char *base = (const char *)r + col->offset;
    uint64_t n;

    if (col->field && !(tl->fields & col->field))
        return 0;
    if (col->kind == COL_SECONDS) {
        memcpy(v, base, sizeof(*v));
        return 1;
    }
    memcpy(&n, base, sizeof(n));
    switch (col->kind) {
    case COL_COUNT:
        *u = n;
        return 1;
    case COL_RATE:
        *v = r->interval_s > 0 ? (double)n / r->interval_s : 0;
        return 1;
    case COL_MS:
        if (r->latency_count == 0)
            return 0;
        *v = (double)n / 1e6;
        return 1;
    default:
        return 0;
    }
}

void timeline_write_json(const struct timeline *tl, struct json_writer *w, const char *key)
{
    json_begin_array(w, key);
    for (size_t i = 0; i < tl->n; i++) {
        json_begin_object(w, NULL);
        for (size_t c = 0; c < NCOLUMNS; c++) {
            double v = 0;
            uint64_t u = 0;

            if (!column_value(tl, &tl->rows[i], c, &v, &u))
                json_string(w, columns[c].name, NULL);
            else if (columns[c].kind == COL_COUNT)
                json_uint(w, columns[c].name, u);
            else
                json_double(w, columns[c].name, v);
        }
        json_end_object(w);
    }
    json_end_array(w);
}

size_t timeline_format_csv(const struct timeline *tl, const struct timeline_row *row, char *buf,
                           size_t len)
{
    size_t used = 0;

    for (size_t c = 0; c < NCOLUMNS; c++) {
        char cell[64] = "";
        double v = 0;
        uint64_t u = 0;
        int n;

        if (row == NULL)
            snprintf(cell, sizeof(cell), "%s", columns[c].name);
        else if (!column_value(tl, row, c, &v, &u))
            cell[0] = '\0'; /* null: an empty cell */
        else if (columns[c].kind == COL_COUNT)
            snprintf(cell, sizeof(cell), "%" PRIu64, u);
        else
            json_format_double(cell, sizeof(cell), v);
        n = snprintf(buf + (used < len ? used : len), used < len ? len - used : 0, "%s%s", cell,
                     c + 1 < NCOLUMNS ? "," : "\n");
        used += (size_t)n;
    }
    return used;
}

int timeline_write_csv(const struct timeline *tl, FILE *fp)
{
    char line[1024];

    timeline_format_csv(tl, NULL, line, sizeof(line));
    fputs(line, fp);
    for (size_t i = 0; i < tl->n; i++) {
        timeline_format_csv(tl, &tl->rows[i], line, sizeof(line));
        fputs(line, fp);
    }
    return ferror(fp) ? -1 : 0;
}

int timeline_save_csv(const struct timeline *tl, const char *path)
{
    struct fileutil_output out;
    FILE *fp = fileutil_output_open(&out, path);

    if (fp == NULL)
        return -1;
    timeline_write_csv(tl, fp); /* its failure is the stream's, which the close reports */
    return fileutil_output_close(&out);
}

static uint64_t whole(double v)
{
    return isnan(v) || v < 0 ? 0 : (uint64_t)llround(v);
}

int timeline_read_json(struct timeline *tl, const char *text, const char *path)
{
    const char *keys[NCOLUMNS];
    long n = json_read_array_length(text, path);
    double *cells;
    unsigned fields = 0;

    if (n < 0)
        return -1;
    for (size_t c = 0; c < NCOLUMNS; c++)
        keys[c] = columns[c].name;
    cells = xmalloc(((size_t)n + 1) * NCOLUMNS * sizeof(*cells));
    if (json_read_table(text, path, keys, NCOLUMNS, cells, (size_t)n) != n) {
        free(cells);
        return -1;
    }
    for (long i = 0; i < n; i++) {
        if (isnan(cells[i * NCOLUMNS]) || isnan(cells[i * NCOLUMNS + 1])) {
            free(cells);
            return -1;
        }
    }
    /* A field is known when its first column is: latency_count, not a percentile of nothing. */
    for (size_t c = 0; n > 0 && c < NCOLUMNS; c++)
        if (columns[c].field && !isnan(cells[c]))
            fields |= columns[c].field;
    free(tl->rows);
    free(tl->buckets);
    tl->buckets = NULL;
    tl->nbuckets = tl->buckets_cap = 0;
    tl->histograms = 0;
    tl->rows = xcalloc((size_t)n + 1, sizeof(*tl->rows));
    tl->n = tl->cap = (size_t)n;
    tl->fields = fields;
    for (long i = 0; i < n; i++) {
        struct timeline_row *r = &tl->rows[i];

        for (size_t c = 0; c < NCOLUMNS; c++) {
            double v = cells[i * NCOLUMNS + c];
            char *at = (char *)r + columns[c].offset;
            uint64_t u;

            switch (columns[c].kind) {
            case COL_SECONDS:
                memcpy(at, &v, sizeof(v));
                break;
            case COL_COUNT:
                u = whole(v);
                memcpy(at, &u, sizeof(u));
                break;
            case COL_MS:
                u = whole(v * 1e6);
                memcpy(at, &u, sizeof(u));
                break;
            case COL_RATE: /* follows from the count and interval_s */
                break;
            }
        }
    }
    free(cells);
    return 0;
}

void timeline_write_latency_json(const struct timeline *tl, struct json_writer *w, const char *key)
{
    if (!tl->histograms)
        return;
    json_begin_object(w, key);
    histogram_write_layout_json(w);
    json_begin_array(w, "rows");
    for (size_t i = 0; i < tl->n; i++) {
        const struct timeline_row *r = &tl->rows[i];

        if (r->latency_count == 0)
            continue;
        json_begin_inline_array(w, NULL);
        json_uint(w, NULL, i);
        json_uint(w, NULL, r->latency_count);
        json_uint(w, NULL, r->latency_min);
        json_uint(w, NULL, r->latency_max);
        json_uint(w, NULL, (uint64_t)llround(r->latency_sum));
        json_end_array(w);
    }
    json_end_array(w);
    json_begin_array(w, "counts");
    for (size_t i = 0; i < tl->n; i++) {
        const struct timeline_row *r = &tl->rows[i];

        for (size_t b = 0; r->latency_count > 0 && b < r->buckets_n; b++) {
            json_begin_inline_array(w, NULL);
            json_uint(w, NULL, i);
            json_uint(w, NULL, histogram_bucket_lower(tl->buckets[r->buckets_at + b].index));
            json_uint(w, NULL, tl->buckets[r->buckets_at + b].count);
            json_end_array(w);
        }
    }
    json_end_array(w);
    json_end_object(w);
}

/* A table of whole numbers at path.key (width wide): its rows (malloc'd, *n of them) or NULL. */
static double *read_whole_rows(const char *text, const char *path, const char *key, size_t width,
                               long *n)
{
    char at[256];
    long len;
    double *cells;

    snprintf(at, sizeof(at), "%s.%s", path, key);
    if ((len = json_read_array_length(text, at)) < 0)
        return NULL;
    cells = xmalloc(((size_t)len + 1) * width * sizeof(*cells));
    if (json_read_number_rows(text, at, width, cells, (size_t)len) != len) {
        free(cells);
        return NULL;
    }
    for (long i = 0; i < len * (long)width; i++) {
        if (!(cells[i] >= 0) || cells[i] != floor(cells[i]) || cells[i] >= 0x1p64) {
            free(cells);
            return NULL;
        }
    }
    *n = len;
    return cells;
}

/* Check the pool read against the rows: 0, or -1. */
static int check_latency(const struct timeline *tl)
{
    for (size_t i = 0; i < tl->n; i++) {
        const struct timeline_row *r = &tl->rows[i];
        uint64_t total = 0;

        if (r->latency_count > 0 && (r->buckets_n == 0 || r->latency_min == UINT64_MAX))
            return -1; /* a row with a latency and no histogram */
        for (size_t b = 0; b < r->buckets_n; b++) {
            const struct histogram_bucket *k = &tl->buckets[r->buckets_at + b];

            if (b > 0 && k->index <= tl->buckets[r->buckets_at + b - 1].index)
                return -1;
            total += k->count;
        }
        if (total != r->latency_count)
            return -1;
    }
    return 0;
}

int timeline_read_latency_json(struct timeline *tl, const char *text, const char *path)
{
    double *rows = NULL, *counts = NULL;
    long nrows = 0, ncounts = 0, prev = -1;
    int status = -1;

    tl->histograms = 0;
    tl->nbuckets = 0;
    if (histogram_read_layout_json(text, path) != 0)
        return -1;
    if ((rows = read_whole_rows(text, path, "rows", 5, &nrows)) == NULL ||
        (counts = read_whole_rows(text, path, "counts", 3, &ncounts)) == NULL)
        goto out;
    for (size_t i = 0; i < tl->n; i++) {
        tl->rows[i].buckets_n = 0;
        tl->rows[i].latency_min = UINT64_MAX; /* until "rows" names it */
        tl->rows[i].latency_max = 0;
    }
    for (long i = 0; i < nrows; i++) {
        const double *c = rows + 5 * i;
        struct timeline_row *r;

        if (c[0] >= (double)tl->n || (long)c[0] <= prev ||
            (uint64_t)c[1] != tl->rows[(size_t)c[0]].latency_count || c[2] > c[3])
            goto out;
        prev = (long)c[0];
        r = &tl->rows[prev];
        r->latency_min = (uint64_t)c[2];
        r->latency_max = (uint64_t)c[3];
        r->latency_sum = c[4];
    }
    tl->buckets_cap = (size_t)ncounts + 1;
    tl->buckets = xrealloc(tl->buckets, tl->buckets_cap * sizeof(*tl->buckets));
    prev = -1;
    for (long i = 0; i < ncounts; i++) {
        const double *c = counts + 3 * i;
        struct timeline_row *r;
        uint32_t idx;

        if (c[0] >= (double)tl->n || (long)c[0] < prev || c[2] == 0 ||
            histogram_bucket_at((uint64_t)c[1], &idx) != 0)
            goto out;
        r = &tl->rows[(size_t)c[0]];
        if ((long)c[0] != prev)
            r->buckets_at = tl->nbuckets;
        prev = (long)c[0];
        tl->buckets[tl->nbuckets].index = idx;
        tl->buckets[tl->nbuckets].count = (uint64_t)c[2];
        tl->nbuckets++;
        r->buckets_n++;
    }
    if (check_latency(tl) == 0) {
        tl->histograms = 1;
        status = 0;
    }
out:
    if (status != 0) {
        for (size_t i = 0; i < tl->n; i++)
            tl->rows[i].buckets_n = 0;
        tl->nbuckets = 0;
    }
    free(rows);
    free(counts);
    return status;
}
