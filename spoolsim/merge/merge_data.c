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
#include "msg.h"
#include "xalloc.h"

void merge_data_init(struct merge *m)
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

void merge_data_free(struct merge *m)
{
    for (size_t i = 0; i < m->n; i++) {
        timeline_free(&m->inputs[i].timeline);
        free(m->inputs[i].identity);
    }
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

/* The len bytes of a JSON value at value as a document of its own, {"v": VALUE} (malloc'd). */
static char *wrap(const char *value, size_t len)
{
    char *doc = xmalloc(len + 8);

    memcpy(doc, "{\"v\": ", 6);
    memcpy(doc + 6, value, len);
    memcpy(doc + 6 + len, "}", 2);
    return doc;
}

/*
 * The top-level members a result is read by, each copied out as a document
 * of its own ({"v": VALUE}, NULL where the result has none): the text is
 * checked once, and each lookup after that costs only its own member, not
 * the whole text again (a long label or a large object anywhere made every
 * lookup as long as the text, and reading it quadratic).
 */
enum {
    K_PROGRAM,
    K_SCHEMA,
    K_ID,
    K_TARGET,
    K_DATE,
    K_COMMAND_LINE,
    K_HOST,
    K_ELAPSED,
    K_START,
    K_END,
    K_ATTEMPTED,
    K_DELIVERED,
    K_FAILED,
    K_BYTES,
    K_RECIPIENTS,
    K_CONNECTIONS,
    K_TLS_SESSIONS,
    K_LATENCY,
    K_INTERVAL,
    K_TIMELINE,
    K_TIMELINE_LATENCY,
    K_FAILURES,
    K_CONNECT_ERRORS,
    K_BY_CODE,
    K_COUNT
};

static const char *const view_keys[K_COUNT] = {
    "program",     "schema_version", "id",
    "target",      "date",           "command_line",
    "host",        "elapsed_s",      "start_time",
    "end_time",    "attempted",      "delivered",
    "failed",      "bytes",          "recipients",
    "connections", "tls_sessions",   "latency",
    "interval_s",  "timeline",       "timeline_latency",
    "failures",    "connect_errors", "failures_by_code",
};

struct view {
    char *doc[K_COUNT];
};

static void view_free(struct view *v)
{
    for (size_t k = 0; k < K_COUNT; k++)
        free(v->doc[k]);
}

/* The K_ of a member the view reads, by its name. */
static size_t view_key(const char *name)
{
    for (size_t k = 0; k < K_COUNT; k++)
        if (strcmp(view_keys[k], name) == 0)
            return k;
    msg_panic("merge: member %s is not read", name);
}

/* 0, or -1 if text is not one whole JSON object. */
static int view_open(struct view *v, const char *text)
{
    struct json_members it;
    char key[32];
    size_t off, len;
    int whole;

    memset(v, 0, sizeof(*v));
    if (json_read_members_begin(&it, text, NULL) != 0)
        return -1;
    while ((whole = json_read_members_next(&it, key, sizeof(key), &off, &len)) >= 0) {
        for (size_t k = 0; whole && k < K_COUNT; k++) {
            if (v->doc[k] == NULL && strcmp(key, view_keys[k]) == 0) { /* the first of a key */
                v->doc[k] = wrap(text + off, len);
                break;
            }
        }
    }
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

static int counts_has(const struct merge_counts *c, const char *key)
{
    for (size_t i = 0; i < c->n; i++)
        if (strcmp(c->key[i], key) == 0)
            return 1;
    return 0;
}

/*
 * Every member of the object in doc (a view's) into c, which starts empty
 * here, in one walk: 0, or -1 (with what in err) for a value that is not
 * a count, a key twice, more than MERGE_COUNTS_MAX keys, or no object.
 */
static int read_counts(const char *doc, struct merge_counts *c, char *err, size_t errlen)
{
    struct json_members it;
    char key[MERGE_NAME_MAX], number[64];
    size_t off, len;
    uint64_t v;

    if (json_read_members_begin(&it, doc, "v") != 0)
        return fail(err, errlen, "not an object");
    while (json_read_members_next(&it, key, sizeof(key), &off, &len) >= 0) {
        if (len >= sizeof(number))
            return fail(err, errlen, "\"%s\" is not a count", key);
        memcpy(number, doc + off, len);
        number[len] = '\0';
        if (read_count(number, NULL, &v) != 0)
            return fail(err, errlen, "\"%s\" is not a count", key);
        /* A key twice would be counted twice (or, cut to MERGE_NAME_MAX, two kinds as one). */
        if (counts_has(c, key))
            return fail(err, errlen, "\"%s\" twice", key);
        if (c->n == MERGE_COUNTS_MAX)
            return fail(err, errlen, "more than %d kinds", MERGE_COUNTS_MAX);
        counts_add(c, key, v);
    }
    return 0;
}

/* How many keys of src dst lacks. */
static size_t counts_new(const struct merge_counts *dst, const struct merge_counts *src)
{
    size_t n = 0;

    for (size_t i = 0; i < src->n; i++)
        n += !counts_has(dst, src->key[i]);
    return n;
}

static void counts_merge(struct merge_counts *dst, const struct merge_counts *src)
{
    for (size_t i = 0; i < src->n; i++)
        counts_add(dst, src->key[i], src->value[i]);
}

/* What one result holds, before it is added. */
struct staged {
    struct merge_input in;
    double interval_s;
    size_t stages;
    char stage[MERGE_STAGES_MAX][MERGE_NAME_MAX];
    struct histogram latency[MERGE_STAGES_MAX];
    struct merge_counts failures, connect_errors, by_code;
};

static void staged_free(struct staged *s)
{
    timeline_free(&s->in.timeline);
    free(s->in.identity);
    counts_free(&s->failures);
    counts_free(&s->connect_errors);
    counts_free(&s->by_code);
}

/*
 * The layout of the histogram buckets at path at in doc (shown as the
 * result's own path, "latency.txn.buckets" or "timeline_latency"), said
 * before a reader of them says only "no".
 */
static int check_layout(const char *doc, const char *at, const char *shown, const char *name,
                        char *err, size_t errlen)
{
    char path[160], word[32];
    double bits = NAN;

    snprintf(path, sizeof(path), "%s.unit", at);
    if (json_read_string(doc, path, word, sizeof(word)) != 0 || strcmp(word, "ns") != 0)
        return fail(err, errlen, "%s: %s.unit: a histogram in another unit (\"%s\"; merged: ns)",
                    name, shown, word);
    snprintf(path, sizeof(path), "%s.scheme", at);
    if (json_read_string(doc, path, word, sizeof(word)) != 0 || strcmp(word, "log-linear") != 0)
        return fail(err, errlen,
                    "%s: %s.scheme: a histogram of another layout (\"%s\"; merged: log-linear)",
                    name, shown, word);
    snprintf(path, sizeof(path), "%s.sub_bucket_bits", at);
    if (json_read_number(doc, path, &bits) != 0 || bits != HISTOGRAM_SUB_BITS)
        return fail(err, errlen,
                    "%s: %s.sub_bucket_bits: a histogram of another layout (sub_bucket_bits %g; "
                    "merged: %d): its buckets cannot be added to these",
                    name, shown, bits, HISTOGRAM_SUB_BITS);
    return 0;
}

/* schema_version: a whole number from 1 to the one this program writes. */
static int check_schema(const struct view *v, const char *name, char *err, size_t errlen)
{
    double version;

    if (json_read_number(v->doc[K_SCHEMA], "v", &version) != 0)
        return fail(err, errlen,
                    "%s: no schema_version (or not a number): not a spoolsim result, or not whole",
                    name);
    if (!(version >= 1 && version <= JSON_SCHEMA_VERSION && version == floor(version)))
        return fail(err, errlen, "%s: schema_version %g, not one this program reads (1 to %d)",
                    name, version, JSON_SCHEMA_VERSION);
    return 0;
}

/*
 * What tells one run from another when it has no --id: where (the host),
 * when (the date, start_time, end_time to the microsecond) and how (the
 * command line, as its JSON). Two results alike in all of these are one run
 * read twice, and merged would count it twice.
 */
static char *identity(const struct view *v, const struct merge_input *in)
{
    char host[256], date[64], *out;
    const char *cmd = v->doc[K_COMMAND_LINE] ? v->doc[K_COMMAND_LINE] : "";
    size_t len = strlen(cmd) + sizeof(host) + sizeof(date) + 128;

    if (json_read_string(v->doc[K_HOST], "v.name", host, sizeof(host)) != 0)
        host[0] = '\0';
    if (json_read_string(v->doc[K_DATE], "v", date, sizeof(date)) != 0)
        date[0] = '\0';
    out = xmalloc(len);
    snprintf(out, len, "%s\n%s\n%.6f\n%.6f\n%s", host, date, in->start, in->end, cmd);
    return out;
}

/*
 * The window on the wall clock against the run's own length and its
 * timeline: a window far longer than either is no run's (and would ask the
 * merged timeline for rows by the billion).
 */
static int check_window(const struct view *v, const char *name, struct staged *s, char *err,
                        size_t errlen)
{
    double elapsed, window = s->in.end - s->in.start;

    if (json_read_number(v->doc[K_ELAPSED], "v", &elapsed) != 0 || !(elapsed >= 0))
        return fail(err, errlen, "%s: no elapsed_s", name);
    if (!(s->in.start >= 0) || fabs(window - elapsed) > MERGE_SLACK_S + 1e-6 * elapsed)
        return fail(err, errlen,
                    "%s: start_time %.6f to end_time %.6f is %.3f s, but elapsed_s is %.3f s: "
                    "not the window of the run",
                    name, s->in.start, s->in.end, window, elapsed);
    if (!(s->interval_s >= MERGE_INTERVAL_MIN_S - 1e-9 &&
          s->interval_s <= MERGE_INTERVAL_MAX_S + 1e-9))
        return fail(err, errlen,
                    "%s: interval_s %g, not one smtp-source writes (--interval %g s to %g s)", name,
                    s->interval_s, MERGE_INTERVAL_MIN_S, MERGE_INTERVAL_MAX_S);
    if (window / s->interval_s > MERGE_ROWS_MAX)
        return fail(err, errlen, "%s: a window of %.3f s is more than %d rows of interval_s %g",
                    name, window, MERGE_ROWS_MAX, s->interval_s);
    return 0;
}

static int stage_latency(const struct view *v, const char *name, struct staged *s, char *err,
                         size_t errlen)
{
    struct json_members it;
    char stage[MERGE_NAME_MAX], shown[MERGE_NAME_MAX + 32];
    size_t off, len;
    int whole;

    if (json_read_members_begin(&it, v->doc[K_LATENCY], "v") != 0)
        return fail(err, errlen, "%s: no latency histograms", name);
    for (s->stages = 0;
         (whole = json_read_members_next(&it, stage, sizeof(stage), &off, &len)) >= 0;
         s->stages++) {
        char *doc;
        int rc;

        if (!whole)
            return fail(err, errlen, "%s: a latency stage's name is too long", name);
        if (s->stages == MERGE_STAGES_MAX)
            return fail(err, errlen, "%s: more than %d latency stages", name, MERGE_STAGES_MAX);
        snprintf(s->stage[s->stages], sizeof(s->stage[0]), "%s", stage);
        snprintf(shown, sizeof(shown), "latency.%s.buckets", stage);
        doc = wrap(v->doc[K_LATENCY] + off, len);
        rc = check_layout(doc, "v.buckets", shown, name, err, errlen);
        if (rc == 0 && histogram_read_json(doc, "v", &s->latency[s->stages]) != 0)
            rc = fail(err, errlen,
                      "%s: %s is not a whole histogram (its counts do not add up, or a bucket "
                      "is out of place)",
                      name, shown);
        free(doc);
        if (rc != 0)
            return -1;
    }
    if (s->stages == 0)
        return fail(err, errlen, "%s: no latency histograms", name);
    return 0;
}

static int stage_in(const struct view *v, const char *name, struct staged *s, char *err,
                    size_t errlen)
{
    static const struct {
        int key;
        const char *name;
    } count_objects[] = {
        {K_FAILURES, "failures"},
        {K_CONNECT_ERRORS, "connect_errors"},
        {K_BY_CODE, "failures_by_code"},
    };
    struct merge_counts *counts[] = {&s->failures, &s->connect_errors, &s->by_code};
    char word[MERGE_NAME_MAX], why[MERGE_NAME_MAX + 64];
    double covered;

    if (json_read_string(v->doc[K_PROGRAM], "v", word, sizeof(word)) != 0)
        return fail(err, errlen, "%s: not a spoolsim result (no \"program\")", name);
    if (strcmp(word, "smtp-source") != 0)
        return fail(err, errlen,
                    "%s: a result of %s, not of smtp-source: only smtp-source "
                    "results are merged",
                    name, word);
    if (check_schema(v, name, err, errlen) != 0)
        return -1;
    snprintf(s->in.name, sizeof(s->in.name), "%s", name);
    if (json_read_string(v->doc[K_ID], "v", s->in.id, sizeof(s->in.id)) != 0)
        s->in.id[0] = 0;
    if (json_read_string(v->doc[K_TARGET], "v", s->in.target, sizeof(s->in.target)) != 0)
        s->in.target[0] = 0;
    if (json_read_number(v->doc[K_START], "v", &s->in.start) != 0 ||
        json_read_number(v->doc[K_END], "v", &s->in.end) != 0 || !(s->in.end >= s->in.start))
        return fail(err, errlen,
                    "%s: no start_time and end_time: a result of an older smtp-source cannot be "
                    "placed on the wall clock",
                    name);
    for (size_t i = 0; i < SOURCE_COUNTS_N; i++)
        if (read_count(v->doc[view_key(source_counts_name(i))], "v",
                       source_counts_at(&s->in.counts, i)) != 0)
            return fail(err, errlen, "%s: %s is missing or not a count", name,
                        source_counts_name(i));
    if (json_read_number(v->doc[K_INTERVAL], "v", &s->interval_s) != 0 || !(s->interval_s > 0))
        return fail(err, errlen, "%s: no interval_s", name);
    if (check_window(v, name, s, err, errlen) != 0 || stage_latency(v, name, s, err, errlen) != 0)
        return -1;
    for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++)
        if (read_counts(v->doc[count_objects[i].key], counts[i], why, sizeof(why)) != 0)
            return fail(err, errlen, "%s: %s: %s", name, count_objects[i].name, why);
    if (timeline_read_json(&s->in.timeline, v->doc[K_TIMELINE], "v") != 0)
        return fail(err, errlen, "%s: no timeline", name);
    /*
     * Its rows must cover the window (the last one may end a little short of
     * it). By where they end, not by their number: a row is as long as its
     * timer let it be, and on a loaded machine a late --interval timer makes
     * fewer, longer rows (smtp-source wrote one row of 0.514 s at 0.5 s).
     */
    covered = s->in.timeline.n > 0 ? s->in.timeline.rows[s->in.timeline.n - 1].t +
                                         s->in.timeline.rows[s->in.timeline.n - 1].interval_s
                                   : 0;
    if (s->in.end - s->in.start > covered + MERGE_SLACK_S)
        return fail(err, errlen,
                    "%s: a window of %.3f s, but a timeline of %zu rows that ends at %.3f s: not "
                    "the window of the run",
                    name, s->in.end - s->in.start, s->in.timeline.n, covered);
    s->in.identity = identity(v, &s->in);
    /* Rows' histograms: an older result has none (its rows then merge without percentiles). */
    if (json_read_key(v->doc[K_TIMELINE_LATENCY], "v", 0, word, sizeof(word)) != 0)
        return 0;
    if (check_layout(v->doc[K_TIMELINE_LATENCY], "v", "timeline_latency", name, err, errlen) != 0)
        return -1;
    if (timeline_read_latency_json(&s->in.timeline, v->doc[K_TIMELINE_LATENCY], "v") != 0)
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
    for (size_t i = 0; i < m->n; i++) {
        const struct merge_input *in = &m->inputs[i];

        if (s->in.id[0] && strcmp(s->in.id, in->id) == 0)
            return fail(err, errlen, "%s: id \"%s\" again (in %s): the same result twice?",
                        s->in.name, s->in.id, in->name);
        if (!s->in.id[0] && !in->id[0] && strcmp(s->in.identity, in->identity) == 0)
            return fail(err, errlen,
                        "%s: the same run as %s (no --id; the same host, date, command line, "
                        "start_time and end_time): the same result twice?",
                        s->in.name, in->name);
    }
    if (m->failures.n + counts_new(&m->failures, &s->failures) > MERGE_COUNTS_MAX ||
        m->connect_errors.n + counts_new(&m->connect_errors, &s->connect_errors) >
            MERGE_COUNTS_MAX ||
        m->by_code.n + counts_new(&m->by_code, &s->by_code) > MERGE_COUNTS_MAX)
        return fail(err, errlen, "%s: with it, more than %d kinds of failure", s->in.name,
                    MERGE_COUNTS_MAX);
    return 0;
}

int merge_data_add(struct merge *m, const char *text, const char *name, char *err, size_t errlen)
{
    struct staged *s;
    struct view v;
    int rc;

    if (view_open(&v, text) != 0)
        return fail(err, errlen, "%s: not a spoolsim result (not one whole JSON object)", name);
    s = xcalloc(1, sizeof(*s));
    timeline_init(&s->in.timeline, 0);
    rc = stage_in(&v, name, s, err, errlen);
    view_free(&v);
    if (rc != 0 || (m->n > 0 && compatible(m, s, err, errlen) != 0)) {
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
    source_counts_add(&m->counts, &s->in.counts);
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

double merge_data_window_s(const struct merge *m)
{
    return m->end > m->start ? m->end - m->start : 0;
}

int merge_data_finish(struct merge *m, char *err, size_t errlen)
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

    span = merge_data_window_s(m);
    /* Each window is bounded (check_window), and they overlap: so is their union, but a union
     * of many is checked too. */
    if (span / m->interval_s > MERGE_ROWS_MAX)
        return fail(err, errlen,
                    "the merged window of %.3f s is more than %d rows of interval_s %g", span,
                    MERGE_ROWS_MAX, m->interval_s);
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
            /* a row's t is the file's: compared before it is converted */
            size_t b = at <= 0 ? 0 : at >= (double)bins - 0.5 ? bins - 1 : (size_t)llround(at);

            timeline_row_add(&m->timeline, b, &in->timeline, r);
        }
    }
    return 0;
}
