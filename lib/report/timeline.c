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

#include "json.h"
#include "json_read.h"
#include "timeline.h"
#include "xalloc.h"

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
    tl->rows = NULL;
    tl->before = NULL;
    tl->n = tl->cap = 0;
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
    if (tl->n == tl->cap) {
        tl->cap = tl->cap ? 2 * tl->cap : 64;
        tl->rows = xrealloc(tl->rows, tl->cap * sizeof(*tl->rows));
    }
    r = &tl->rows[tl->n++];
    memset(r, 0, sizeof(*r));
    r->t = b->t;
    r->interval_s = p->t > b->t ? p->t - b->t : 0;
    r->messages_in = moved(p->in, b->in);
    r->messages_out = moved(p->out, b->out);
    r->failures = moved(p->failures, b->failures);
    r->fsyncs = moved(p->fsyncs, b->fsyncs);
    if (latency) {
        r->latency_count = histogram_count(latency);
        r->p50_ns = histogram_percentile(latency, 50.0);
        r->p99_ns = histogram_percentile(latency, 99.0);
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
    FILE *fp = strcmp(path, "-") == 0 ? stdout : fopen(path, "w");
    int status;

    if (fp == NULL)
        return -1;
    status = timeline_write_csv(tl, fp);
    status |= fp == stdout ? fflush(fp) : fclose(fp);
    return status == 0 ? 0 : -1;
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
