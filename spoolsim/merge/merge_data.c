/*
 * merge_data - several smtp-source results as one; see merge_data.h.
 */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_meta.h"
#include "json_read.h"
#include "merge_data.h"
#include "xalloc.h"

void merge_init(struct merge *m)
{
    memset(m, 0, sizeof(*m));
    timeline_init(&m->timeline, TIMELINE_IN | TIMELINE_OUT | TIMELINE_FAILURES);
}

static void counts_free(struct merge_counts *c)
{
    free(c->key);
    free(c->value);
    memset(c, 0, sizeof(*c));
}

void merge_free(struct merge *m)
{
    for (size_t i = 0; i < m->n; i++)
        timeline_free(&m->inputs[i].timeline);
    free(m->inputs);
    free(m->latency);
    counts_free(&m->failures);
    counts_free(&m->connect_errors);
    counts_free(&m->by_code);
    timeline_free(&m->timeline);
    memset(m, 0, sizeof(*m));
}

static int fail(char *err, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int fail(char *err, size_t len, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(err, len, fmt, ap);
    va_end(ap);
    return -1;
}

/* A count at path: 0, or -1 if it is missing or not a whole number >= 0. */
static int read_count(const char *text, const char *path, uint64_t *out)
{
    double v;

    if (json_read_number(text, path, &v) != 0 || !(v >= 0) || v != floor(v) || v >= 0x1p64)
        return -1;
    *out = (uint64_t)v;
    return 0;
}

static void counts_add(struct merge_counts *c, const char *key, uint64_t v)
{
    for (size_t i = 0; i < c->n; i++) {
        if (strcmp(c->key[i], key) == 0) {
            c->value[i] += v;
            return;
        }
    }
    c->key = xrealloc(c->key, (c->n + 1) * sizeof(*c->key));
    c->value = xrealloc(c->value, (c->n + 1) * sizeof(*c->value));
    snprintf(c->key[c->n], sizeof(c->key[c->n]), "%s", key);
    c->value[c->n++] = v;
}

/* Every member of the object at path into c (which starts empty here): 0, or -1. */
static int read_counts(const char *text, const char *path, struct merge_counts *c)
{
    char key[MERGE_NAME_MAX], member[2 * MERGE_NAME_MAX];
    uint64_t v;

    for (size_t i = 0; json_read_key(text, path, i, key, sizeof(key)) == 0; i++) {
        snprintf(member, sizeof(member), "%s.%s", path, key);
        if (read_count(text, member, &v) != 0)
            return -1;
        counts_add(c, key, v);
    }
    return 0;
}

static void counts_merge(struct merge_counts *dst, const struct merge_counts *src)
{
    for (size_t i = 0; i < src->n; i++)
        counts_add(dst, src->key[i], src->value[i]);
}

/* What one result holds, before it is added. */
struct staged {
    struct merge_input in;
    uint64_t bytes, recipients, connections, tls_sessions;
    double interval_s;
    size_t stages;
    char stage[MERGE_STAGES_MAX][MERGE_NAME_MAX];
    struct histogram latency[MERGE_STAGES_MAX];
    struct merge_counts failures, connect_errors, by_code;
};

static void staged_free(struct staged *s)
{
    timeline_free(&s->in.timeline);
    counts_free(&s->failures);
    counts_free(&s->connect_errors);
    counts_free(&s->by_code);
}

/*
 * The layout of the histogram buckets at path (a stage's "latency.txn.buckets",
 * or "timeline_latency"), said before a reader of them says only "no".
 */
static int check_layout(const char *text, const char *name, const char *at, char *err,
                        size_t errlen)
{
    char path[160], word[32];
    double bits = NAN;

    snprintf(path, sizeof(path), "%s.unit", at);
    if (json_read_string(text, path, word, sizeof(word)) != 0 || strcmp(word, "ns") != 0)
        return fail(err, errlen, "%s: %s: a histogram in another unit (\"%s\"; merged: ns)", name,
                    path, word);
    snprintf(path, sizeof(path), "%s.scheme", at);
    if (json_read_string(text, path, word, sizeof(word)) != 0 || strcmp(word, "log-linear") != 0)
        return fail(err, errlen,
                    "%s: %s: a histogram of another layout (\"%s\"; merged: log-linear)", name,
                    path, word);
    snprintf(path, sizeof(path), "%s.sub_bucket_bits", at);
    if (json_read_number(text, path, &bits) != 0 || bits != HISTOGRAM_SUB_BITS)
        return fail(err, errlen,
                    "%s: %s: a histogram of another layout (sub_bucket_bits %g; merged: %d): its "
                    "buckets cannot be added to these",
                    name, path, bits, HISTOGRAM_SUB_BITS);
    return 0;
}

static int stage_in(const char *text, const char *name, struct staged *s, char *err, size_t errlen)
{
    char word[MERGE_NAME_MAX], path[160];
    double v;

    if (json_read_string(text, "program", word, sizeof(word)) != 0)
        return fail(err, errlen, "%s: not a spoolsim result (no \"program\"; or not whole JSON)",
                    name);
    if (strcmp(word, "smtp-source") != 0)
        return fail(err, errlen,
                    "%s: a result of %s, not of smtp-source: only smtp-source "
                    "results are merged",
                    name, word);
    if (json_read_number(text, "schema_version", &v) != 0 || v > JSON_SCHEMA_VERSION)
        return fail(err, errlen, "%s: schema_version %g, not one this program reads (%d)", name, v,
                    JSON_SCHEMA_VERSION);
    snprintf(s->in.name, sizeof(s->in.name), "%s", name);
    if (json_read_string(text, "id", s->in.id, sizeof(s->in.id)) != 0)
        s->in.id[0] = 0;
    if (json_read_string(text, "target", s->in.target, sizeof(s->in.target)) != 0)
        s->in.target[0] = 0;
    if (json_read_number(text, "start_time", &s->in.start) != 0 ||
        json_read_number(text, "end_time", &s->in.end) != 0 || !(s->in.end >= s->in.start))
        return fail(err, errlen,
                    "%s: no start_time and end_time: a result of an older smtp-source cannot be "
                    "placed on the wall clock",
                    name);
    if (read_count(text, "attempted", &s->in.attempted) ||
        read_count(text, "delivered", &s->in.delivered) ||
        read_count(text, "failed", &s->in.failed) || read_count(text, "bytes", &s->bytes) ||
        read_count(text, "recipients", &s->recipients) ||
        read_count(text, "connections", &s->connections) ||
        read_count(text, "tls_sessions", &s->tls_sessions))
        return fail(err, errlen,
                    "%s: a count (attempted, delivered, failed, bytes, recipients, "
                    "connections, tls_sessions) is missing or not a count",
                    name);
    if (json_read_number(text, "interval_s", &s->interval_s) != 0 || !(s->interval_s > 0))
        return fail(err, errlen, "%s: no interval_s", name);
    for (s->stages = 0; json_read_key(text, "latency", s->stages, word, sizeof(word)) == 0;
         s->stages++) {
        if (s->stages == MERGE_STAGES_MAX)
            return fail(err, errlen, "%s: more than %d latency stages", name, MERGE_STAGES_MAX);
        snprintf(s->stage[s->stages], sizeof(s->stage[0]), "%s", word);
        snprintf(path, sizeof(path), "latency.%s.buckets", word);
        if (check_layout(text, name, path, err, errlen) != 0)
            return -1;
        snprintf(path, sizeof(path), "latency.%s", word);
        if (histogram_read_json(text, path, &s->latency[s->stages]) != 0)
            return fail(err, errlen,
                        "%s: %s.buckets is not a whole histogram (its counts do not add up, or "
                        "a bucket is out of place)",
                        name, path);
    }
    if (s->stages == 0)
        return fail(err, errlen, "%s: no latency histograms", name);
    if (read_counts(text, "failures", &s->failures) != 0 ||
        read_counts(text, "connect_errors", &s->connect_errors) != 0 ||
        read_counts(text, "failures_by_code", &s->by_code) != 0)
        return fail(err, errlen, "%s: failures, connect_errors or failures_by_code unreadable",
                    name);
    if (timeline_read_json(&s->in.timeline, text, "timeline") != 0)
        return fail(err, errlen, "%s: no timeline", name);
    /* Rows' histograms: an older result has none (its rows then merge without percentiles). */
    if (json_read_key(text, "timeline_latency", 0, word, sizeof(word)) != 0)
        return 0;
    if (check_layout(text, name, "timeline_latency", err, errlen) != 0)
        return -1;
    if (timeline_read_latency_json(&s->in.timeline, text, "timeline_latency") != 0)
        return fail(err, errlen,
                    "%s: timeline_latency does not agree with the timeline's rows (a row out of "
                    "range, or counts that do not add up)",
                    name);
    return 0;
}

/* s against what is merged already: 0, or -1. */
static int compatible(const struct merge *m, const struct staged *s, char *err, size_t errlen)
{
    const char *first = m->inputs[0].name;

    if (s->stages != m->stages)
        return fail(err, errlen, "%s: %zu latency stages, %s has %zu", s->in.name, s->stages, first,
                    m->stages);
    for (size_t i = 0; i < s->stages; i++)
        if (strcmp(s->stage[i], m->stage[i]) != 0)
            return fail(err, errlen, "%s: latency stage \"%s\" where %s has \"%s\"", s->in.name,
                        s->stage[i], first, m->stage[i]);
    if (fabs(s->interval_s - m->interval_s) > 1e-9)
        return fail(err, errlen,
                    "%s: interval_s %g, %s has %g: timelines of other intervals cannot be added "
                    "row by row",
                    s->in.name, s->interval_s, first, m->interval_s);
    for (size_t i = 0; i < m->n; i++)
        if (s->in.id[0] && strcmp(s->in.id, m->inputs[i].id) == 0)
            return fail(err, errlen, "%s: id \"%s\" again (in %s): the same result twice?",
                        s->in.name, s->in.id, m->inputs[i].name);
    return 0;
}

int merge_add(struct merge *m, const char *text, const char *name, char *err, size_t errlen)
{
    struct staged *s = xcalloc(1, sizeof(*s));

    timeline_init(&s->in.timeline, 0);
    if (stage_in(text, name, s, err, errlen) != 0 ||
        (m->n > 0 && compatible(m, s, err, errlen) != 0)) {
        staged_free(s);
        free(s);
        return -1;
    }
    if (m->n == 0) {
        m->stages = s->stages;
        memcpy(m->stage, s->stage, sizeof(m->stage));
        m->interval_s = s->interval_s;
        m->latency = xcalloc(m->stages, sizeof(*m->latency));
        for (size_t i = 0; i < m->stages; i++)
            histogram_init(&m->latency[i]);
    }
    for (size_t i = 0; i < m->stages; i++)
        histogram_merge(&m->latency[i], &s->latency[i]);
    m->attempted += s->in.attempted;
    m->delivered += s->in.delivered;
    m->failed += s->in.failed;
    m->bytes += s->bytes;
    m->recipients += s->recipients;
    m->connections += s->connections;
    m->tls_sessions += s->tls_sessions;
    counts_merge(&m->failures, &s->failures);
    counts_merge(&m->connect_errors, &s->connect_errors);
    counts_merge(&m->by_code, &s->by_code);
    m->inputs = xrealloc(m->inputs, (m->n + 1) * sizeof(*m->inputs));
    m->inputs[m->n++] = s->in; /* the timeline's rows move with it */
    counts_free(&s->failures);
    counts_free(&s->connect_errors);
    counts_free(&s->by_code);
    free(s);
    return 0;
}

double merge_window_s(const struct merge *m)
{
    return m->end > m->start ? m->end - m->start : 0;
}

int merge_finish(struct merge *m, char *err, size_t errlen)
{
    double last_start = 0, first_end = 0, span;
    size_t bins, latest = 0, earliest = 0;
    struct timeline_row *rows;

    if (m->n == 0)
        return fail(err, errlen, "no results to merge");
    m->start = m->inputs[0].start;
    m->end = m->inputs[0].end;
    last_start = m->start;
    first_end = m->end;
    for (size_t i = 1; i < m->n; i++) {
        const struct merge_input *in = &m->inputs[i];

        m->start = fmin(m->start, in->start);
        m->end = fmax(m->end, in->end);
        if (in->start > last_start)
            last_start = in->start, latest = i;
        if (in->end < first_end)
            first_end = in->end, earliest = i;
    }
    /* On a line, windows that overlap two by two all overlap: the latest start before the
     * earliest end. */
    if (last_start > first_end)
        return fail(err, errlen,
                    "%s ends (%.3f) %.3f s before %s starts (%.3f): results that do not overlap "
                    "in time are not one load",
                    m->inputs[earliest].name, first_end, last_start - first_end,
                    m->inputs[latest].name, last_start);

    span = merge_window_s(m);
    bins = (size_t)ceil(span / m->interval_s - 1e-9);
    if (bins == 0)
        bins = 1;
    rows = xcalloc(bins, sizeof(*rows));
    for (size_t b = 0; b < bins; b++) {
        rows[b].t = (double)b * m->interval_s;
        rows[b].interval_s = b + 1 < bins ? m->interval_s : span - rows[b].t;
    }
    free(m->timeline.rows);
    m->timeline.rows = rows;
    m->timeline.n = m->timeline.cap = bins;
    /* Per-row percentiles when every row of every input has its histogram to add. */
    m->timeline.histograms = 1;
    for (size_t i = 0; i < m->n; i++)
        m->timeline.histograms &= m->inputs[i].timeline.histograms;
    if (m->timeline.histograms)
        m->timeline.fields |= TIMELINE_LATENCY;
    for (size_t i = 0; i < m->n; i++) {
        const struct merge_input *in = &m->inputs[i];

        for (size_t r = 0; r < in->timeline.n; r++) {
            const struct timeline_row *row = &in->timeline.rows[r];
            double at = (in->start - m->start + row->t) / m->interval_s;
            size_t b = at <= 0 ? 0 : (size_t)llround(at);

            if (b >= bins)
                b = bins - 1;
            timeline_row_add(&m->timeline, b, &in->timeline, r);
        }
    }
    return 0;
}
