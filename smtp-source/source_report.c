/*
 * source_report - smtp-source's statistics and closing summary; see source_report.h.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "clock.h"
#include "json.h"
#include "msg.h"
#include "source_report.h"

static const char *const phase_names[PHASE_COUNT] = {
    "connect", "banner", "helo", "tls", "mail", "rcpt", "data", "dot", "txn",
};

static const char *const failure_names[FAIL_KINDS] = {
    "reply", "connect", "timeout", "disconnect", "protocol", "tls",
};

const char *source_report_phase_name(enum source_phase phase)
{
    return phase_names[phase];
}

const char *source_report_failure_name(enum source_failure kind)
{
    return failure_names[kind];
}

void source_report_init(struct source_stats *st)
{
    memset(st, 0, sizeof(*st));
    for (int i = 0; i < PHASE_COUNT; i++)
        histogram_init(&st->latency[i]);
    timeline_init(&st->timeline, TIMELINE_IN | TIMELINE_OUT | TIMELINE_FAILURES | TIMELINE_LATENCY);
}

void source_report_free(struct source_stats *st)
{
    timeline_free(&st->timeline);
}

void source_report_tick(struct source_stats *st, uint64_t now_ns)
{
    struct timeline_point p = {
        .t = now_ns > st->start_ns ? (double)(now_ns - st->start_ns) / 1e9 : 0,
        .in = st->counts.attempted,
        .out = st->counts.delivered,
        .failures = st->counts.failed,
    };

    timeline_add_cumulative(&st->timeline, &p, &st->latency[PHASE_TXN]);
}

void source_report_merge(struct source_stats *dst, const struct source_stats *src)
{
    if (src->start_ns < dst->start_ns)
        dst->start_ns = src->start_ns;
    if (src->end_ns > dst->end_ns)
        dst->end_ns = src->end_ns;
    if (src->offered_end_ns > dst->offered_end_ns)
        dst->offered_end_ns = src->offered_end_ns;
    source_counts_add(&dst->counts, &src->counts);
    dst->backlog_max += src->backlog_max;
    for (int k = 0; k < FAIL_KINDS; k++)
        dst->failures[k] += src->failures[k];
    for (int e = 0; e < SOURCE_MAX_ERRNO; e++)
        dst->connect_errors[e] += src->connect_errors[e];
    for (int c = 0; c < SOURCE_MAX_CODE; c++)
        for (int p = 0; p < PHASE_COUNT; p++)
            dst->by_code[c][p] += src->by_code[c][p];
    for (int p = 0; p < PHASE_COUNT; p++)
        histogram_merge(&dst->latency[p], &src->latency[p]);
    timeline_merge(&dst->timeline, &src->timeline);
}

void source_report_connect_error(struct source_stats *st, int err)
{
    st->connect_errors[err > 0 && err < SOURCE_MAX_ERRNO ? err : 0]++;
}

/* The reason of connect errors, as strerror() says it; "unknown" for none. */
static const char *connect_reason(int err)
{
    return err == 0 ? "unknown" : strerror(err);
}

/*
 * " (Connection refused)", or for several reasons each with its count, the
 * most frequent first: " (5 Connection refused, 2 No route to host)".
 */
static void print_connect_reasons(FILE *fp, const struct source_stats *st)
{
    uint64_t shown_below = UINT64_MAX; /* counts already printed are >= this */
    int kinds = 0, printed = 0;

    for (int e = 0; e < SOURCE_MAX_ERRNO; e++)
        kinds += st->connect_errors[e] > 0;
    if (kinds == 0)
        return;
    fprintf(fp, " (");
    while (printed < kinds) {
        uint64_t most = 0;

        for (int e = 0; e < SOURCE_MAX_ERRNO; e++)
            if (st->connect_errors[e] < shown_below && st->connect_errors[e] > most)
                most = st->connect_errors[e];
        for (int e = 0; e < SOURCE_MAX_ERRNO; e++) {
            if (st->connect_errors[e] != most)
                continue;
            if (kinds > 1)
                fprintf(fp, "%s%llu %s", printed ? ", " : "", (unsigned long long)most,
                        connect_reason(e));
            else
                fprintf(fp, "%s", connect_reason(e));
            printed++;
        }
        shown_below = most;
    }
    fprintf(fp, ")");
}

double source_report_window_s(const struct source_stats *st)
{
    uint64_t end = st->offered_end_ns > st->end_ns ? st->offered_end_ns : st->end_ns;

    return end > st->start_ns ? (double)(end - st->start_ns) / 1e9 : 0;
}

void source_report_text(FILE *fp, const struct source_stats *st, const struct source_options *opts)
{
    double secs = source_report_window_s(st);
    char dist[128], on[32] = "";

    fprintf(fp, "smtp-source: %llu message%s delivered, %llu failed, of %llu attempted in %.3f s\n",
            (unsigned long long)st->counts.delivered, st->counts.delivered == 1 ? "" : "s",
            (unsigned long long)st->counts.failed, (unsigned long long)st->counts.attempted, secs);
    if (secs > 0)
        fprintf(fp, "smtp-source: %.1f msgs/s, %.3f MB/s, %.1f recipients/s\n",
                (double)st->counts.delivered / secs, (double)st->counts.bytes / secs / 1e6,
                (double)st->counts.recipients / secs);
    if (opts->threads > 1)
        snprintf(on, sizeof(on), " on %u threads", opts->threads);
    fprintf(fp, "smtp-source: %u session%s%s, %s, %llu connection%s%s%s%s, size %s", opts->sessions,
            opts->sessions == 1 ? "" : "s", on,
            opts->reuse ? "connections reused (-d)" : "new connection per message",
            (unsigned long long)st->counts.connections, st->counts.connections == 1 ? "" : "s",
            opts->tls ? ", STARTTLS" : "", opts->pipelining ? ", pipelining" : "",
            opts->skip_quit_reply ? ", QUIT reply skipped" : "",
            opts->message_file ? "from -F file"
            : opts->workload   ? "and recipients from --workload"
                               : workload_size_describe(&opts->size, dist, sizeof(dist)));
    if (opts->rate > 0)
        fprintf(fp, ", open loop %.1f/s %s (max backlog %llu)", opts->rate,
                opts->arrivals == ARRIVAL_POISSON ? "poisson" : "fixed",
                (unsigned long long)st->backlog_max);
    fprintf(fp, "\nlatency:\n");
    for (int i = 0; i < PHASE_COUNT; i++)
        if (histogram_count(&st->latency[i]) > 0)
            histogram_print_text(fp, phase_names[i], &st->latency[i]);
    if (st->counts.failed == 0)
        return;
    fprintf(fp, "failures:");
    for (int k = 0; k < FAIL_KINDS; k++)
        if (k != FAIL_REPLY && st->failures[k]) {
            fprintf(fp, " %s=%llu", failure_names[k], (unsigned long long)st->failures[k]);
            if (k == FAIL_CONNECT)
                print_connect_reasons(fp, st);
        }
    for (int code = 0; code < SOURCE_MAX_CODE; code++)
        for (int p = 0; p < PHASE_COUNT; p++)
            if (st->by_code[code][p])
                fprintf(fp, " %d@%s=%llu", code, phase_names[p],
                        (unsigned long long)st->by_code[code][p]);
    fprintf(fp, "\n");
}

int source_report_json(const char *path, const struct source_stats *st,
                       const struct source_options *opts, const struct json_run *run)
{
    struct json_writer w;
    double secs = source_report_window_s(st);
    char dist[128];

    if (json_meta_begin(&w, path, run) != 0) {
        msg_warn("cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    json_string(&w, "id", opts->id);
    if (opts->tool.msg_log)
        json_bool(&w, "msg_log_complete", !st->msg_log_lost);
    json_string(&w, "target", opts->target);
    json_uint(&w, "sessions", opts->sessions);
    json_uint(&w, "threads", opts->threads);
    json_bool(&w, "reuse_connections", opts->reuse);
    json_bool(&w, "tls", opts->tls);
    json_bool(&w, "pipelining", opts->pipelining);
    json_bool(&w, "skip_quit_reply", opts->skip_quit_reply);
    json_uint_or_null(&w, "recipients_per_message", !opts->workload, opts->rcpts);
    json_string(&w, "size",
                opts->message_file ? "file"
                : opts->workload   ? "workload"
                                   : workload_size_describe(&opts->size, dist, sizeof(dist)));
    if (opts->workload) { /* what drew the load, and which version of it */
        json_begin_object(&w, "workload");
        json_string(&w, "file", opts->workload_path);
        json_string(&w, "sha256", opts->workload_sha256);
        json_double(&w, "scale", opts->scale);
        json_bool(&w, "peak", opts->peak);
        json_double(&w, "replay", opts->replay > 0 ? opts->replay : NAN);
        json_end_object(&w);
    }
    json_double(&w, "rate", opts->rate);
    json_string(&w, "arrivals",
                opts->rate == 0                     ? "closed"
                : opts->arrivals == ARRIVAL_POISSON ? "poisson"
                                                    : "fixed");
    /* the bound of the run: a count or a time, the other null */
    json_uint_or_null(&w, "messages", !(opts->duration > 0), opts->messages);
    json_double(&w, "duration_s", opts->duration > 0 ? opts->duration : NAN);
    json_double(&w, "elapsed_s", secs);
    /* its own cost, so that a driver that is not its parent can tell what a message takes */
    json_double(&w, "cpu_s", clock_process_cpu_s());
    /* on the wall clock, so that the results of several hosts line up (spoolsim merge) */
    json_time(&w, "start_time", st->start_wall_s);
    json_time(&w, "end_time", st->start_wall_s + secs);
    source_counts_write_json(&w, &st->counts, secs);
    json_uint(&w, "backlog_max", st->backlog_max);
    json_begin_object(&w, "latency");
    for (int i = 0; i < PHASE_COUNT; i++)
        histogram_write_json(&w, phase_names[i], &st->latency[i]);
    json_end_object(&w);
    json_double(&w, "interval_s", opts->interval);
    timeline_write_json(&st->timeline, &w, "timeline");
    timeline_write_latency_json(&st->timeline, &w, "timeline_latency");
    json_begin_object(&w, "failures");
    for (int k = 0; k < FAIL_KINDS; k++)
        json_uint(&w, failure_names[k], st->failures[k]);
    json_end_object(&w);
    json_begin_object(&w, "connect_errors");
    for (int e = 0; e < SOURCE_MAX_ERRNO; e++)
        if (st->connect_errors[e])
            json_uint(&w, connect_reason(e), st->connect_errors[e]);
    json_end_object(&w);
    json_begin_object(&w, "failures_by_code");
    for (int code = 0; code < SOURCE_MAX_CODE; code++) {
        for (int p = 0; p < PHASE_COUNT; p++) {
            char key[32];

            if (st->by_code[code][p] == 0)
                continue;
            snprintf(key, sizeof(key), "%d@%s", code, phase_names[p]);
            json_uint(&w, key, st->by_code[code][p]);
        }
    }
    json_end_object(&w);
    if (json_meta_end(&w) != 0) {
        msg_warn("cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}
