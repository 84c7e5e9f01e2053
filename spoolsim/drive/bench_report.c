/*
 * bench_report - what `spoolsim bench' found: read from the reports and
 * message logs its three programs left in the work directory, printed
 * as text and JSON; see bench_report.h.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_report.h"
#include "bottleneck.h"
#include "drive.h"
#include "fileutil.h"
#include "json.h"
#include "json_read.h"
#include "msg.h"
#include "report_mark.h"
#include "xalloc.h"

/* The relay's sync policy: as given, or its profile's own. */
const char *bench_report_sync_name(const struct bench_options *o)
{
    if (o->sync)
        return o->sync;
    return strcmp(o->profile, "postfix") == 0 ? "fsync" : "profile";
}

static double number(const char *json, const char *path)
{
    double v = 0;

    if (json == NULL || json_read_number(json, path, &v) != 0)
        return 0;
    return v;
}

/* A number the report may lack: -1 then (the value is never negative). */
static double number_or_unknown(const char *json, const char *path)
{
    double v;

    if (json == NULL || json_read_number(json, path, &v) != 0)
        return -1;
    return v;
}

/* The relay's own CPU: its cpu_s roles added, whatever roles it has; -1 without them. */
static double relay_own_cpu(const char *relay)
{
    char key[64], path[80];
    double sum = -1, v;

    for (size_t i = 0; relay && json_read_key(relay, "cpu_s", i, key, sizeof(key)) == 0; i++) {
        snprintf(path, sizeof(path), "cpu_s.%s", key);
        if (json_read_number(relay, path, &v) == 0)
            sum = (sum < 0 ? 0 : sum) + v;
    }
    return sum;
}

/* smtp-source's failure kinds (docs/json.md), as its report names them. */
static const char *const failure_kinds[BENCH_FAILURE_KINDS] = {
    "reply", "connect", "timeout", "disconnect", "protocol", "tls",
};

/*
 * Each reason of object `key' of smtp-source's report ("Too many open files
 * 5"), ", " between them, appended to out (len bytes, NUL-terminated).
 */
static void append_reasons(const char *source, const char *key, char *out, size_t len)
{
    char name[128], path[200];
    double n;
    size_t used;

    for (size_t i = 0; json_read_key(source, key, i, name, sizeof(name)) == 0; i++) {
        snprintf(path, sizeof(path), "%s.%s", key, name);
        if (json_read_number(source, path, &n) != 0 || n <= 0 || (used = strlen(out)) >= len)
            continue;
        snprintf(out + used, len - used, "%s%s %.0f", i ? ", " : ": ", name, n);
    }
}

/*
 * Why the client's messages failed, from its report, as the text says it:
 * each kind with its count, the connect errors' reasons and the replies'
 * codes after theirs ("connect 5: Too many open files 5; reply 2: 452@data 2").
 */
static void describe_failures(const char *source, struct bench_results *res)
{
    char *out = res->failed_why;
    size_t len = sizeof(res->failed_why), used;

    out[0] = 0;
    for (int i = 0; source && i < BENCH_FAILURE_KINDS; i++) {
        if (res->failures[i] <= 0 || (used = strlen(out)) >= len)
            continue;
        snprintf(out + used, len - used, "%s%s %.0f", used ? "; " : "", failure_kinds[i],
                 res->failures[i]);
        if (strcmp(failure_kinds[i], "connect") == 0)
            append_reasons(source, "connect_errors", out, len);
        else if (strcmp(failure_kinds[i], "reply") == 0)
            append_reasons(source, "failures_by_code", out, len);
    }
}

/* --mta: the version the MTA's script wrote (bench/mta-serve.sh), or "". */
static void read_mta_version(const struct drive *d, struct bench_results *res)
{
    char path[PATH_MAX];
    char *text;

    res->mta_version[0] = 0;
    drive_path(d, "mta/version", path);
    if ((text = fileutil_read_all(path, NULL)) == NULL)
        return;
    text[strcspn(text, "\n")] = 0;
    snprintf(res->mta_version, sizeof(res->mta_version), "%s", text);
    free(text);
}

/*
 * What makes program `who''s message log at NAME unfit to judge delivery
 * on, appended to res->logs_unchecked: it cannot be read, it has lines no
 * program writes (a buffer a full disk refused splices its neighbours), or
 * its program says it lost lines (json: its report, NULL if it left none).
 */
static void judge_log(const struct drive *d, struct bench_results *res, const char *who,
                      const char *name, const char *json, struct msglog_set *set)
{
    char path[PATH_MAX], why[200] = "";
    size_t used = strlen(res->logs_unchecked);
    int complete = 1;

    drive_path(d, name, path);
    if (msglog_set_load(set, path) != 0)
        snprintf(why, sizeof(why), "%s: %s", name, strerror(errno));
    else if (set->bad_lines)
        snprintf(why, sizeof(why), "%s: %zu unreadable line%s", name, set->bad_lines,
                 set->bad_lines == 1 ? "" : "s");
    else if (json == NULL)
        snprintf(why, sizeof(why), "%s left no report to say its log is whole", who);
    else if (json_read_bool(json, "msg_log_complete", &complete) == 0 && !complete)
        snprintf(why, sizeof(why), "%s lost lines of %s", who, name);
    if (why[0] && used < sizeof(res->logs_unchecked))
        snprintf(res->logs_unchecked + used, sizeof(res->logs_unchecked) - used, "%s%s",
                 used ? "; " : "", why);
}

void bench_report_read(const struct drive *d, struct bench_results *res)
{
    char path[PATH_MAX], key[64];
    char *relay, *source, *sink;
    struct msglog_set sent, received;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);

    drive_path(d, "relay.json", path);
    relay = fileutil_read_all(path, NULL);
    read_mta_version(d, res);
    drive_path(d, "source.json", path);
    source = fileutil_read_all(path, NULL);
    drive_path(d, "sink.json", path);
    sink = fileutil_read_all(path, NULL);
    res->own_relay_s = relay_own_cpu(relay);
    res->own_source_s = number_or_unknown(source, "cpu_s");
    res->own_sink_s = number_or_unknown(sink, "cpu_s");
    res->machine_busy = number_or_unknown(relay, "utilization.machine_busy");
    res->cores = (unsigned)number(relay, "utilization.cores");
    if (res->cores == 0)
        res->cores = cores > 0 ? (unsigned)cores : 1;
    res->injected = number(source, "delivered");
    drive_workload_sha256(source, res->workload_sha256);
    res->disk.messages = res->injected;
    res->inject_s = number(source, "elapsed_s");
    res->failed = number(source, "failed");
    /* A relay that left no report has no latency to give: an empty histogram. */
    histogram_init(&res->e2e);
    timeline_init(&res->timeline, 0);
    if (relay) {
        histogram_read_json(relay, "latency.end_to_end", &res->e2e);
        timeline_read_json(&res->timeline, relay, "timeline");
    }
    for (int i = 0; i < BENCH_FAILURE_KINDS; i++) {
        snprintf(key, sizeof(key), "failures.%s", failure_kinds[i]);
        res->failures[i] = number(source, key);
    }
    describe_failures(source, res);
    res->model[0] = res->model_warning[0] = res->bottleneck[0] = 0;
    if (relay && json_read_string(relay, "model", res->model, sizeof(res->model)) != 0) {
        char mta[64] = "", version[32] = "", origin[256] = "";
        double us = 0;

        json_read_string(relay, "model.mta", mta, sizeof(mta));
        json_read_string(relay, "model.mta_version", version, sizeof(version));
        json_read_string(relay, "model.origin", origin, sizeof(origin));
        json_read_number(relay, "model.mta_us_per_1kib_message", &us);
        if (json_read_string(relay, "model.warning", res->model_warning,
                             sizeof(res->model_warning)) != 0)
            res->model_warning[0] = 0;
        if (mta[0])
            snprintf(res->model, sizeof(res->model), "%s %s (%s), %.0f us per 1 KiB message; %s",
                     mta, version, origin, us,
                     res->model_warning[0] ? "NOT MEASURED ON THIS MACHINE" : "this machine's");
    }
    if (relay)
        json_read_string(relay, "utilization.bottleneck", res->bottleneck, sizeof(res->bottleneck));
    res->refused_storage = number(relay, "refused_storage");
    res->refused_other = number(relay, "refused_other");
    res->deferrals = number(relay, "deferrals");
    res->bounced = number(relay, "bounced");
    if (relay && json_read_number(relay, "profile_ops.create", &res->creates) == 0) {
        /* another MTA's profile: its operations, by kind */
        res->creates += number(relay, "profile_ops.append");
        res->fsyncs = number(relay, "profile_ops.fsync") + number(relay, "profile_ops.fdatasync") +
                      number(relay, "profile_ops.fsync_dir");
        res->renames = number(relay, "profile_ops.rename");
        res->unlinks = number(relay, "profile_ops.unlink");
        res->chmods = number(relay, "profile_ops.fchmod");
    } else {
        res->fsyncs = number(relay, "spool_ops.fsyncs");
        res->creates = number(relay, "spool_ops.creates");
        res->renames = number(relay, "spool_ops.renames");
        res->unlinks = number(relay, "spool_ops.unlinks");
        res->chmods = number(relay, "spool_ops.chmods");
    }
    msglog_set_init(&sent);
    msglog_set_init(&received);
    res->logs_unchecked[0] = 0;
    judge_log(d, res, "smtp-source", "source.log", source, &sent);
    judge_log(d, res, "smtp-sink", "sink.log", sink, &received);
    free(relay);
    free(source);
    free(sink);
    msglog_compare(&sent, &received, &res->cmp);
    res->delivered_sink = (double)received.n;
    msglog_set_free(&sent);
    msglog_set_free(&received);
}

static double rate(double n, double s)
{
    return s > 0 ? n / s : 0;
}

/*
 * Injection is over the client's window (from its first intended start to
 * the end of what it offered, or its last reply if later), not over the
 * process's life, which holds its start-up and, at a low --rate, may be
 * all but its messages' latency.
 */
static double inject_window(const struct bench_results *res)
{
    return res->inject_s > 0 ? res->inject_s : res->load_s;
}

/*
 * CPU per message from each program's own accounting, or -1: the relay's
 * and the client's over the messages acknowledged, the sink's over those
 * it received.
 */
struct cpu_per_message {
    double relay, source, sink;
};

static double per(double cpu_s, double n)
{
    return cpu_s >= 0 && n > 0 ? cpu_s / n : -1;
}

static void cpu_per_message(const struct bench_results *res, struct cpu_per_message *c)
{
    c->relay = per(res->own_relay_s, res->injected);
    c->source = per(res->own_source_s, res->injected);
    c->sink = per(res->own_sink_s, res->delivered_sink);
}

/* The harness verdict (bottleneck.h): 1 and its line, or 0. */
static int harness_line(const struct bench_options *o, const struct bench_results *res, char *buf,
                        size_t len)
{
    struct cpu_per_message c;
    struct harness_usage h = {
        .cores = res->cores,
        .machine_busy = res->machine_busy,
        .rate = rate(res->injected, inject_window(res)),
        .threads = o->harness_threads,
    };

    cpu_per_message(res, &c);
    h.relay_s = c.relay;
    h.source_s = c.source;
    h.sink_s = c.sink;
    return bottleneck_harness_verdict(&h, buf, len);
}

static void print_us(FILE *fp, const char *name, double s)
{
    if (s >= 0)
        fprintf(fp, "%s %.0f us", name, s * 1e6);
    else
        fprintf(fp, "%s n/a", name);
}

int bench_report_exactly_once(const struct bench_results *res)
{
    return !res->logs_unchecked[0] && res->drained && res->cmp.lost == 0 &&
           res->cmp.duplicated == 0 && res->cmp.unexpected == 0;
}

static const char *const hop_kinds[] = {"loopback", "netem", "emulated"};

/*
 * A side's network as set up, on its line ("hop:", "client:"): what netem
 * was asked for, or what stands in for it (`by': whose delays) and why.
 */
static void print_net(FILE *fp, const char *label, const char *by, const struct netem_spec *h,
                      enum bench_hop_kind kind, const char *why, const char *where)
{
    if (kind == BENCH_HOP_LOOPBACK)
        return;
    if (kind == BENCH_HOP_EMULATED) {
        fprintf(fp,
                "%-11s emulated by %s, not a network: %.2f ms per round trip of the dialogue "
                "(no netem: %s)\n",
                label, by, h->delay_s * 1e3, why);
        return;
    }
    fprintf(fp, "%-11s a network (%s): round trip %.2f ms", label, where, h->delay_s * 1e3);
    if (h->jitter_s > 0)
        fprintf(fp, " +- %.2f ms", h->jitter_s * 1e3);
    if (h->loss_pct > 0)
        fprintf(fp, ", loss %g %% each way", h->loss_pct);
    if (h->rate_bit_s > 0)
        fprintf(fp, ", %g Mbit/s each way", h->rate_bit_s / 1e6);
    fprintf(fp, "; netem, half on each end\n");
}

static void print_report(const struct bench_options *o, const char *spool,
                         const struct bench_results *res, FILE *fp)
{
    double msgs = res->injected > 0 ? res->injected : 1;
    /* A rate copied from the report alone must still say whose CPU it models. */
    const char *elsewhere = res->model_warning[0] ? "; ANOTHER MACHINE'S MODEL" : "";
    char where[1200], harness[600];
    struct histogram_summary e2e;
    struct cpu_per_message cpu;

    fsinfo_describe(&res->fs, where, sizeof(where));
    fprintf(fp, "spool:      %s\n            %s\n", spool, where);
    if (fsinfo_note(&res->fs))
        fprintf(fp, "note:       %s\n", fsinfo_note(&res->fs));
    if (o->mta)
        fprintf(fp,
                "mta:        a real %s %s (Debian's package, a private instance, never "
                "installed), its queue in the spool; next hop smtp-sink\n",
                o->mta, res->mta_version[0] ? res->mta_version : "(version unknown)");
    else
        fprintf(fp, "relay:      profile %s, sync %s, queue manager %s, next hop %s%s\n",
                o->profile, bench_report_sync_name(o), o->qmgr,
                o->discard ? "discard" : "smtp-sink",
                !o->tls      ? ""
                : o->discard ? "; STARTTLS in"
                             : "; STARTTLS in and out");
    print_net(fp, "hop:", "sink delays", &o->hop, res->hop, res->hop_why, res->hop_where);
    print_net(fp, "client:", "relay reply delays", &o->client, res->client, res->client_why,
              res->client_where);
    if (res->model[0])
        fprintf(fp, "model:      %s\n", res->model);
    if (res->model_warning[0])
        fprintf(fp, "WARNING:    %s\n", res->model_warning);
    fprintf(fp, "load:       %u session%s, %s, size %s, %u recipient%s, %s\n", o->common.sessions,
            o->common.sessions == 1 ? "" : "s",
            o->reuse ? "reused connections" : "a new connection per message", o->common.size,
            o->common.rcpts, o->common.rcpts == 1 ? "" : "s",
            o->rate ? "open loop" : "closed loop");
    fprintf(fp, "injected:   %.0f message%s in %.2f s = %.1f msgs/s (%.0f failed)%s\n",
            res->injected, res->injected == 1 ? "" : "s", inject_window(res),
            rate(res->injected, inject_window(res)), res->failed, elsewhere);
    if (res->failed > 0 && res->failed_why[0]) /* the cause, which the JSON alone had */
        fprintf(fp, "failed:     %.0f (%s)\n", res->failed, res->failed_why);
    if (!o->discard)
        fprintf(fp,
                "delivered:  %.0f message%s in %.2f s = %.1f msgs/s (load start to empty queue; "
                "drain %.2f s)%s\n",
                res->delivered_sink, res->delivered_sink == 1 ? "" : "s", res->total_s,
                rate(res->delivered_sink, res->total_s), res->drain_s, elsewhere);
    histogram_summarize(&res->e2e, &e2e);
    if (o->mta)
        fprintf(fp,
                "end to end: not measured (the relay's report measures it; a real MTA has none)\n");
    else
        fprintf(fp,
                "end to end: p50 %.2f ms, p90 %.2f ms, p99 %.2f ms, p99.9 %.2f ms, max %.2f ms\n",
                (double)e2e.p50 / 1e6, (double)e2e.p90 / 1e6, (double)e2e.p99 / 1e6,
                (double)e2e.p999 / 1e6, (double)e2e.max / 1e6);
    if (!o->mta) { /* a real MTA's operations are not counted */
        fprintf(fp, "fsyncs:     %.0f = %.1f/s, %.2f per message\n", res->fsyncs,
                rate(res->fsyncs, res->total_s), res->fsyncs / msgs);
        fprintf(fp,
                "per message: %.2f creates, %.2f renames, %.2f unlinks, %.2f fsyncs, %.2f chmods\n",
                res->creates / msgs, res->renames / msgs, res->unlinks / msgs, res->fsyncs / msgs,
                res->chmods / msgs);
    }
    diskstat_print(fp, "disk:       ", "note:       ", &res->disk);
    cpu_per_message(res, &cpu);
    fprintf(fp, "CPU:        ");
    print_us(fp, o->mta ? o->mta : "relay", cpu.relay);
    print_us(fp, ", source", cpu.source);
    print_us(fp, ", sink", cpu.sink);
    fprintf(fp,
            " per message (each program's own count; smtp-source and smtp-sink on %u thread%s)\n",
            o->harness_threads, o->harness_threads == 1 ? "" : "s");
    if (res->bottleneck[0])
        fprintf(fp, "bottleneck: %s\n", res->bottleneck);
    if (harness_line(o, res, harness, sizeof(harness)))
        fprintf(fp, "warning:    %s\n", harness);
    if (o->discard)
        fprintf(fp, "exactly once: not checked (--discard)\n");
    else if (res->logs_unchecked[0])
        fprintf(fp, "exactly once: not checked (the message logs could not be written: %s)\n",
                res->logs_unchecked);
    else
        fprintf(fp,
                "exactly once: %s: %zu acknowledged, %zu delivered, %zu lost, %zu duplicated, "
                "%zu unexpected%s\n",
                bench_report_exactly_once(res) ? "yes" : "NO", res->cmp.acked, res->cmp.delivered,
                res->cmp.lost, res->cmp.duplicated, res->cmp.unexpected,
                res->drained ? "" : " (the queue did not drain in time)");
}

void bench_report_print(const struct bench_options *o, const char *spool,
                        const struct bench_results *res, FILE *fp)
{
    struct report_mark m;

    print_report(o, spool, res, report_mark_begin(&m, fp));
    report_mark_end(&m, report_mark_sync(bench_report_sync_name(o)));
}

/* A count option bench passes on as given (validated), or null: the relay's default. */
static void count_or_null(struct json_writer *w, const char *key, const char *value)
{
    if (value)
        json_uint(w, key, strtoull(value, NULL, 10));
    else
        json_string(w, key, NULL);
}

static void number_or_null(struct json_writer *w, const char *key, double v)
{
    if (v >= 0)
        json_double(w, key, v);
    else
        json_string(w, key, NULL);
}

static void write_parameters(struct json_writer *w, const struct bench_options *o)
{
    /* the bound of the load: a count or a time, the other null */
    json_uint_or_null(w, "messages", o->common.messages != 0, o->common.messages);
    json_double(w, "duration_s", o->common.messages ? NAN : o->common.duration);
    json_uint(w, "sessions", o->common.sessions);
    json_string(w, "size", o->common.size);
    json_uint(w, "rcpts", o->common.rcpts);
    json_bool(w, "reuse", o->reuse);
    json_double(w, "rate", o->rate ? strtod(o->rate, NULL) : NAN); /* null: closed loop */
    json_string(w, "arrivals", o->rate ? o->arrivals : NULL);
    json_uint(w, "seed", o->common.seed);
    json_string(w, "sync", bench_report_sync_name(o));
    json_string(w, "qmgr", o->qmgr);
    json_string(w, "profile", o->profile);
    json_string(w, "model", o->model); /* null: the relay's default */
    json_string(w, "mta", o->mta);     /* null: the relay */
    count_or_null(w, "cleanup_threads", o->cleanup_threads);
    count_or_null(w, "relay_threads", o->relay_threads);
    count_or_null(w, "concurrency", o->concurrency);
    json_uint(w, "harness_threads", o->harness_threads);
    json_bool(w, "discard", o->discard);
    json_bool(w, "tls", o->tls);
    json_double(w, "drain_timeout_s", o->drain_timeout);
}

/*
 * The hop's or the client's network as asked and as made; loss and rate
 * only where they can be asked for (`shaped': the hop).
 */
static void write_net(struct json_writer *w, const char *key, const struct netem_spec *h,
                      int shaped, enum bench_hop_kind kind, const char *why, const char *where)
{
    json_begin_object(w, key);
    json_string(w, "kind", hop_kinds[kind]);
    json_double(w, "delay_s", h->delay_s);
    json_double(w, "jitter_s", h->jitter_s);
    if (shaped) {
        json_double(w, "loss_pct", h->loss_pct);
        json_double(w, "rate_bit_s", h->rate_bit_s > 0 ? h->rate_bit_s : NAN); /* null: unlimited */
    }
    json_string(w, "why", kind == BENCH_HOP_EMULATED ? why : NULL);
    json_string(w, "where", kind == BENCH_HOP_NETEM ? where : NULL);
    json_end_object(w);
}

int bench_report_write_json(const struct bench_options *o, const char *spool,
                            const struct bench_results *res)
{
    double msgs = res->injected > 0 ? res->injected : 1;
    struct json_writer w;
    struct cpu_per_message cpu;
    char harness[600];

    if (json_meta_begin(&w, o->common.json, o->run) != 0)
        return -1;
    json_meta_write_spool(&w, "spool", spool, &res->fs);
    write_parameters(&w, o);
    drive_workload_json(&w, &o->common, res->workload_sha256);
    write_net(&w, "hop", &o->hop, 1, res->hop, res->hop_why, res->hop_where);
    write_net(&w, "client", &o->client, 0, res->client, res->client_why, res->client_where);
    json_double(&w, "load_s", res->load_s);
    json_double(&w, "injection_s", inject_window(res));
    json_double(&w, "drain_s", res->drain_s);
    json_double(&w, "total_s", res->total_s);
    json_bool(&w, "drained", res->drained);
    json_double(&w, "injected", res->injected);
    json_double(&w, "injected_per_s", rate(res->injected, inject_window(res)));
    json_double(&w, "failed", res->failed);
    json_double(&w, "delivered", res->delivered_sink);
    json_double(&w, "delivered_per_s", rate(res->delivered_sink, res->total_s));
    json_double(&w, "fsyncs", res->fsyncs);
    json_double(&w, "fsyncs_per_s", rate(res->fsyncs, res->total_s));
    json_string(&w, "mta_version", o->mta ? res->mta_version : NULL);
    json_string(&w, "cost_model", res->model[0] ? res->model : "none");
    json_string(&w, "cost_model_warning", res->model_warning[0] ? res->model_warning : NULL);
    json_begin_object(&w, "cpu_s"); /* each program's user + system time (wait4) */
    json_double(&w, "relay", res->cpu_relay_s);
    json_double(&w, "source", res->cpu_source_s);
    json_double(&w, "sink", res->cpu_sink_s);
    json_end_object(&w);
    cpu_per_message(res, &cpu);
    json_begin_object(&w, "cpu_per_message_s"); /* each program's own accounting */
    number_or_null(&w, "relay", cpu.relay);
    number_or_null(&w, "source", cpu.source);
    number_or_null(&w, "sink", cpu.sink);
    json_end_object(&w);
    json_string(&w, "bottleneck", res->bottleneck[0] ? res->bottleneck : NULL);
    json_string(&w, "harness_warning",
                harness_line(o, res, harness, sizeof(harness)) ? harness : NULL);
    json_begin_object(&w, "per_message");
    json_double(&w, "creates", res->creates / msgs);
    json_double(&w, "renames", res->renames / msgs);
    json_double(&w, "unlinks", res->unlinks / msgs);
    json_double(&w, "fsyncs", res->fsyncs / msgs);
    json_double(&w, "chmods", res->chmods / msgs);
    json_end_object(&w);
    diskstat_write_json(&w, "disk", &res->disk);
    json_begin_object(&w, "failures");
    for (int i = 0; i < BENCH_FAILURE_KINDS; i++)
        json_double(&w, failure_kinds[i], res->failures[i]);
    json_end_object(&w);
    json_double(&w, "refused_storage", res->refused_storage);
    json_double(&w, "refused_other", res->refused_other);
    json_double(&w, "deferrals", res->deferrals);
    json_double(&w, "bounced", res->bounced);
    json_begin_object(&w, "latency");
    histogram_write_json(&w, "end_to_end", &res->e2e);
    json_end_object(&w);
    json_double(&w, "interval_s", o->common.interval);
    timeline_write_json(&res->timeline, &w, "timeline");
    if (o->discard) {
        json_string(&w, "exactly_once", NULL); /* nothing arrives anywhere to check */
    } else if (res->logs_unchecked[0]) {
        json_string(&w, "exactly_once", NULL); /* the relay is not judged on damaged logs */
        json_string(&w, "exactly_once_not_checked", res->logs_unchecked);
    } else {
        json_bool(&w, "exactly_once", bench_report_exactly_once(res));
        json_uint(&w, "acknowledged", res->cmp.acked);
        json_uint(&w, "lost", res->cmp.lost);
        json_uint(&w, "duplicated", res->cmp.duplicated);
        json_uint(&w, "unexpected", res->cmp.unexpected);
    }
    return json_meta_end(&w);
}

int bench_report_save(const struct bench_options *o, const char *spool,
                      const struct bench_results *res)
{
    int status = 0;

    if (o->common.json && bench_report_write_json(o, spool, res) != 0) {
        msg_warn("cannot write %s: %s", o->common.json, strerror(errno));
        status = -1;
    }
    if (o->common.csv && timeline_save_csv(&res->timeline, o->common.csv) != 0) {
        msg_warn("cannot write %s: %s", o->common.csv, strerror(errno));
        status = -1;
    }
    return status;
}
