/*
 * maillog_sum - a mail log's events summed into a workload (see maillog_sum.h).
 */
#include "config.h"

#include "maillog_sum.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "xalloc.h"
#include "xgrow.h"

void maillog_sum_init(struct maillog_sum *s)
{
    memset(s, 0, sizeof(*s));
    histogram_init(&s->size);
    histogram_init(&s->rcpts);
    histogram_init(&s->per_conn);
    histogram_init(&s->delay_us);
    s->table = xcalloc((size_t)MAILLOG_SUM_WAYS * MAILLOG_SUM_SETS, sizeof(*s->table));
}

void maillog_sum_free(struct maillog_sum *s)
{
    free(s->minutes);
    free(s->table);
    s->minutes = NULL;
    s->table = NULL;
}

/* FNV-1a: queue IDs are short, and Postfix's are partly a counter. */
static struct maillog_slot *set_of(struct maillog_sum *s, const char *qid)
{
    uint32_t h = 2166136261u;

    for (const unsigned char *p = (const unsigned char *)qid; *p; p++)
        h = (h ^ *p) * 16777619u;
    return &s->table[(size_t)(h & (MAILLOG_SUM_SETS - 1)) * MAILLOG_SUM_WAYS];
}

static struct maillog_slot *lookup(struct maillog_sum *s, const struct maillog_event *ev)
{
    struct maillog_slot *set = set_of(s, ev->qid);

    for (int i = 0; i < MAILLOG_SUM_WAYS; i++)
        if (set[i].age != 0 && set[i].mta == ev->mta && strcmp(set[i].qid, ev->qid) == 0)
            return &set[i];
    return NULL;
}

/* A message leaves the table: what it came to counts. */
static void finish_slot(struct maillog_sum *s, struct maillog_slot *m)
{
    s->msgs_finished++;
    s->msgs_deferred += m->deferred;
    s->msgs_bounced += m->bounced;
    if (m->mta == MAILLOG_EXIM && m->rcpts > 0)
        histogram_record(&s->rcpts, m->rcpts);
    m->age = 0;
}

static struct maillog_slot *insert(struct maillog_sum *s, const struct maillog_event *ev)
{
    struct maillog_slot *set = set_of(s, ev->qid), *m = &set[0];

    for (int i = 0; i < MAILLOG_SUM_WAYS; i++) {
        if (set[i].age == 0) {
            m = &set[i];
            break;
        }
        if (set[i].age < m->age)
            m = &set[i];
    }
    if (m->age != 0) {
        s->evicted++;
        finish_slot(s, m);
    }
    memset(m, 0, sizeof(*m));
    memcpy(m->qid, ev->qid, sizeof(m->qid));
    m->mta = (uint8_t)ev->mta;
    m->age = ++s->clock;
    return m;
}

static void count_minute(struct maillog_sum *s, double t)
{
    int64_t minute = (int64_t)floor(t / 60);

    if (s->n_minutes == 0) {
        s->minute_base = minute;
    } else if (minute < s->minute_base) {
        size_t shift = (size_t)(s->minute_base - minute);

        if (shift + s->n_minutes > MAILLOG_SUM_MINUTES_MAX) {
            s->out_of_range++;
            return;
        }
        s->minutes =
            xgrow(s->minutes, &s->cap_minutes, s->n_minutes + shift, 1024, sizeof(*s->minutes));
        memmove(s->minutes + shift, s->minutes, s->n_minutes * sizeof(*s->minutes));
        memset(s->minutes, 0, shift * sizeof(*s->minutes));
        s->n_minutes += shift;
        s->minute_base = minute;
    }
    if (minute - s->minute_base >= MAILLOG_SUM_MINUTES_MAX) {
        s->out_of_range++;
        return;
    }
    if ((size_t)(minute - s->minute_base) >= s->n_minutes) {
        size_t n = (size_t)(minute - s->minute_base) + 1;

        s->minutes = xgrow(s->minutes, &s->cap_minutes, n, 1024, sizeof(*s->minutes));
        memset(s->minutes + s->n_minutes, 0, (n - s->n_minutes) * sizeof(*s->minutes));
        s->n_minutes = n;
    }
    if (s->minutes[minute - s->minute_base] < UINT32_MAX)
        s->minutes[minute - s->minute_base]++;
}

static void arrival(struct maillog_sum *s, const struct maillog_event *ev)
{
    if (ev->mta == MAILLOG_POSTFIX && lookup(s, ev) != NULL) {
        s->requeued++;
        return;
    }
    insert(s, ev);
    s->messages++;
    s->bytes += ev->size;
    histogram_record(&s->size, ev->size);
    if (ev->mta == MAILLOG_POSTFIX && ev->nrcpt > 0)
        histogram_record(&s->rcpts, ev->nrcpt);
    count_minute(s, ev->time);
}

static void delivery(struct maillog_sum *s, const struct maillog_event *ev)
{
    struct maillog_slot *m = lookup(s, ev);

    switch (ev->status) {
    case MAILLOG_SENT:
        s->sent++;
        if (ev->has_delay) {
            histogram_record(&s->delay_us, (uint64_t)llround(ev->delay * 1e6));
            for (int i = 0; i < 4; i++)
                s->delays_sum[i] += ev->delays[i];
            s->delays_n++;
        }
        break;
    case MAILLOG_DEFERRED:
        s->deferred++;
        break;
    case MAILLOG_BOUNCED:
        s->bounced++;
        break;
    case MAILLOG_EXPIRED:
        s->expired++;
        break;
    }
    if (m == NULL)
        return;
    if (ev->status == MAILLOG_DEFERRED)
        m->deferred = 1;
    if (ev->status == MAILLOG_BOUNCED || ev->status == MAILLOG_EXPIRED)
        m->bounced = 1;
    if (ev->status == MAILLOG_SENT || ev->status == MAILLOG_BOUNCED)
        m->rcpts++;
}

void maillog_sum_skip(struct maillog_sum *s, enum maillog_skip why)
{
    s->lines.read++;
    if (why == MAILLOG_SKIP_TOO_LONG)
        s->lines.too_long++;
    else
        s->lines.binary++;
}

void maillog_sum_add(struct maillog_sum *s, const struct maillog_event *ev)
{
    struct maillog_slot *m;

    s->lines.read++;
    switch (ev->kind) {
    case MAILLOG_OTHER:
        s->lines.other++;
        return;
    case MAILLOG_IGNORED:
        s->lines.ignored++;
        break;
    case MAILLOG_UNPARSED:
        s->lines.unparsed++;
        break;
    default:
        s->lines.used++;
        break;
    }
    if (ev->mta == MAILLOG_POSTFIX)
        s->lines.postfix++;
    else
        s->lines.exim++;
    if (s->lines.used + s->lines.ignored + s->lines.unparsed == 1)
        s->first = s->last = s->latest = ev->time;
    if (ev->time < s->first)
        s->first = ev->time;
    if (ev->time > s->last)
        s->last = ev->time;
    if (ev->time < s->latest - 1)
        s->out_of_order++;
    else if (ev->time > s->latest)
        s->latest = ev->time;
    switch (ev->kind) {
    case MAILLOG_ARRIVAL:
        arrival(s, ev);
        break;
    case MAILLOG_DELIVERY:
        delivery(s, ev);
        break;
    case MAILLOG_CONNECT:
        s->connections++;
        break;
    case MAILLOG_DISCONNECT:
        if (ev->data_ok >= 0) {
            s->disconnects_counted++;
            histogram_record(&s->per_conn, (uint64_t)ev->data_ok);
        } else {
            s->disconnects_uncounted++;
        }
        break;
    case MAILLOG_REMOVED:
        if ((m = lookup(s, ev)) != NULL)
            finish_slot(s, m);
        break;
    default:
        break;
    }
}

void maillog_sum_finish(struct maillog_sum *s)
{
    for (size_t i = 0; i < (size_t)MAILLOG_SUM_WAYS * MAILLOG_SUM_SETS; i++)
        if (s->table[i].age != 0)
            finish_slot(s, &s->table[i]);
}

void maillog_sum_rate(const struct maillog_sum *s, struct maillog_rate *r)
{
    double sum = 0, sq = 0;

    memset(r, 0, sizeof(*r));
    r->minutes = s->n_minutes;
    if (s->n_minutes == 0)
        return;
    for (size_t i = 0; i < s->n_minutes; i++) {
        sum += s->minutes[i];
        if (s->minutes[i] > r->peak) {
            r->peak = s->minutes[i];
            r->peak_time = (double)(s->minute_base + (int64_t)i) * 60;
        }
    }
    r->mean = sum / (double)s->n_minutes;
    for (size_t i = 0; i < s->n_minutes; i++)
        sq += (s->minutes[i] - r->mean) * (s->minutes[i] - r->mean);
    r->peak_to_mean = r->mean > 0 ? r->peak / r->mean : 0;
    r->cv = r->mean > 0 ? sqrt(sq / (double)s->n_minutes) / r->mean : 0;
}

/*
 * The percentiles a load generator draws sizes from: every whole percent,
 * then the tail finer, where the large messages that cost most are rare.
 */
static const double quantile_pcts[] = {
    0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15, 16,   17,   18,    19,  20,
    21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37,   38,   39,    40,  41,
    42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58,   59,   60,    61,  62,
    63, 64, 65, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 76, 77, 78, 79,   80,   81,    82,  83,
    84, 85, 86, 87, 88, 89, 90, 91, 92, 93, 94, 95, 96, 97, 98, 99, 99.5, 99.9, 99.99, 100,
};

/* count, min, median, p90, p99, max and mean of h, in its own unit (bytes, recipients). */
static void write_summary(struct json_writer *w, const struct histogram *h)
{
    json_uint(w, "count", histogram_count(h));
    json_uint(w, "min", histogram_min(h));
    json_uint(w, "median", histogram_percentile(h, 50));
    json_uint(w, "p90", histogram_percentile(h, 90));
    json_uint(w, "p99", histogram_percentile(h, 99));
    json_uint(w, "max", histogram_max(h));
    json_double(w, "mean", histogram_mean(h));
}

/* Small counts exactly, as [value, how many] pairs (above 127 a bucket's lowest value). */
static void write_counts(struct json_writer *w, const struct histogram *h)
{
    struct histogram_bucket b[256];
    size_t n = histogram_buckets(h, b, sizeof(b) / sizeof(b[0]));

    json_begin_array(w, "counts");
    for (size_t i = 0; i < n && i < sizeof(b) / sizeof(b[0]); i++) {
        json_begin_inline_array(w, NULL);
        json_uint(w, NULL, histogram_bucket_lower(b[i].index));
        json_uint(w, NULL, b[i].count);
        json_end_array(w);
    }
    json_end_array(w);
}

static double share(uint64_t part, uint64_t whole)
{
    return whole ? (double)part / whole : 0;
}

void maillog_sum_write_json(struct json_writer *w, const struct maillog_sum *s)
{
    struct maillog_rate r;
    uint64_t outcomes = s->sent + s->deferred + s->bounced + s->expired;

    maillog_sum_rate(s, &r);
    json_begin_object(w, "lines");
    json_uint(w, "read", s->lines.read);
    json_uint(w, "used", s->lines.used);
    json_uint(w, "postfix", s->lines.postfix);
    json_uint(w, "exim", s->lines.exim);
    json_begin_object(w, "skipped");
    json_uint(w, "other_programs", s->lines.other);
    json_uint(w, "ignored", s->lines.ignored);
    json_uint(w, "unparsed", s->lines.unparsed);
    json_uint(w, "too_long", s->lines.too_long);
    json_uint(w, "binary", s->lines.binary);
    json_end_object(w);
    json_uint(w, "out_of_order", s->out_of_order);
    json_end_object(w);
    json_time(w, "first_time", s->lines.used ? s->first : NAN);
    json_time(w, "last_time", s->lines.used ? s->last : NAN);
    json_uint(w, "messages", s->messages);
    json_uint(w, "requeued", s->requeued);
    json_uint(w, "bytes", s->bytes);
    json_begin_object(w, "size_bytes");
    write_summary(w, &s->size);
    json_begin_array(w, "quantiles");
    for (size_t i = 0; i < sizeof(quantile_pcts) / sizeof(quantile_pcts[0]); i++) {
        json_begin_inline_array(w, NULL);
        json_double(w, NULL, quantile_pcts[i]);
        json_uint(w, NULL, histogram_percentile(&s->size, quantile_pcts[i]));
        json_end_array(w);
    }
    json_end_array(w);
    json_end_object(w);
    json_begin_object(w, "recipients");
    write_summary(w, &s->rcpts);
    write_counts(w, &s->rcpts);
    json_end_object(w);
    json_begin_object(w, "connections");
    json_uint(w, "opened", s->connections);
    json_uint(w, "without_counts", s->disconnects_uncounted);
    json_begin_object(w, "messages_per_connection");
    write_summary(w, &s->per_conn);
    write_counts(w, &s->per_conn);
    json_end_object(w);
    json_end_object(w);
    json_begin_object(w, "arrivals_per_minute");
    json_uint(w, "minutes", r.minutes);
    json_double(w, "mean", r.mean);
    json_uint(w, "peak", r.peak);
    json_time(w, "peak_time", r.minutes ? r.peak_time : NAN);
    json_double(w, "peak_to_mean", r.peak_to_mean);
    json_double(w, "cv", r.cv);
    json_uint(w, "out_of_range", s->out_of_range);
    /* The minutes that had arrivals, for a load to replay the log's own day (sparse: a quiet night
     * costs nothing). */
    json_begin_array(w, "profile");
    for (size_t i = 0; i < s->n_minutes; i++)
        if (s->minutes[i]) {
            json_begin_inline_array(w, NULL);
            json_uint(w, NULL, i);
            json_uint(w, NULL, s->minutes[i]);
            json_end_array(w);
        }
    json_end_array(w);
    json_end_object(w);
    json_begin_object(w, "outcomes");
    json_uint(w, "sent", s->sent);
    json_uint(w, "deferred", s->deferred);
    json_uint(w, "bounced", s->bounced);
    json_uint(w, "expired", s->expired);
    json_double(w, "deferred_share", share(s->deferred, outcomes));
    json_double(w, "bounced_share", share(s->bounced + s->expired, outcomes));
    json_uint(w, "messages_tracked", s->msgs_finished);
    json_uint(w, "messages_deferred", s->msgs_deferred);
    json_uint(w, "messages_bounced", s->msgs_bounced);
    json_double(w, "messages_deferred_share", share(s->msgs_deferred, s->msgs_finished));
    json_double(w, "messages_bounced_share", share(s->msgs_bounced, s->msgs_finished));
    json_uint(w, "queue_ids_evicted", s->evicted);
    json_end_object(w);
    json_begin_object(w, "delivery_delay_s");
    json_uint(w, "count", histogram_count(&s->delay_us));
    json_double(w, "median", histogram_percentile(&s->delay_us, 50) / 1e6);
    json_double(w, "p90", histogram_percentile(&s->delay_us, 90) / 1e6);
    json_double(w, "p99", histogram_percentile(&s->delay_us, 99) / 1e6);
    json_double(w, "max", histogram_max(&s->delay_us) / 1e6);
    json_begin_object(w, "mean_parts");
    json_double(w, "before_qmgr", s->delays_n ? s->delays_sum[0] / s->delays_n : 0);
    json_double(w, "in_qmgr", s->delays_n ? s->delays_sum[1] / s->delays_n : 0);
    json_double(w, "connection_setup", s->delays_n ? s->delays_sum[2] / s->delays_n : 0);
    json_double(w, "transmission", s->delays_n ? s->delays_sum[3] / s->delays_n : 0);
    json_end_object(w);
    json_end_object(w);
}
