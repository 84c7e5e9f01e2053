/*
 * bench_report - what `spoolsim bench' found: read from the reports and
 * message logs its three programs left in the work directory, printed
 * as text and JSON; see bench_report.h.
 */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_report.h"
#include "fileutil.h"
#include "json.h"
#include "json_read.h"
#include "report_mark.h"
#include "xalloc.h"

/* The relay's sync policy: as given, or its profile's own. */
const char *bench_sync_name(const struct bench_options *o)
{
    if (o->sync)
        return o->sync;
    return strcmp(o->profile, "postfix") == 0 ? "fsync" : "profile";
}

static void work_path(const char *work, const char *name, char *out)
{
    snprintf(out, PATH_MAX, "%s/%s", work, name);
}

static double number(const char *json, const char *path)
{
    double v = 0;

    if (json == NULL || json_read_number(json, path, &v) != 0)
        return 0;
    return v;
}

void bench_read_reports(const char *work, struct bench_results *res)
{
    static const char *const pct[] = {"p50_ms", "p90_ms", "p99_ms", "p99_9_ms", "max_ms"};
    char path[PATH_MAX], key[64];
    char *relay, *source;
    struct msglog_set sent, received;

    work_path(work, "relay.json", path);
    relay = file_read_all(path, NULL);
    work_path(work, "source.json", path);
    source = file_read_all(path, NULL);
    res->injected = number(source, "delivered");
    res->inject_s = number(source, "elapsed_s");
    res->failed = number(source, "failed");
    for (int i = 0; i < 5; i++) {
        snprintf(key, sizeof(key), "latency.end_to_end.%s", pct[i]);
        res->e2e[i] = number(relay, key);
    }
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
    free(relay);
    free(source);

    msglog_set_init(&sent);
    msglog_set_init(&received);
    work_path(work, "source.log", path);
    msglog_set_load(&sent, path);
    work_path(work, "sink.log", path);
    msglog_set_load(&received, path);
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

int bench_exactly_once(const struct bench_results *res)
{
    return res->drained && res->cmp.lost == 0 && res->cmp.duplicated == 0 &&
           res->cmp.unexpected == 0;
}

static void print_report(const struct bench_options *o, const char *spool,
                         const struct bench_results *res, FILE *fp)
{
    double msgs = res->injected > 0 ? res->injected : 1;
    char where[1200];

    fsinfo_describe(&res->fs, where, sizeof(where));
    fprintf(fp, "spool:      %s\n            %s\n", spool, where);
    if (fsinfo_note(&res->fs))
        fprintf(fp, "note:       %s\n", fsinfo_note(&res->fs));
    fprintf(fp, "relay:      profile %s, sync %s, queue manager %s, next hop %s%s\n", o->profile,
            bench_sync_name(o), o->qmgr, o->discard ? "discard" : "smtp-sink",
            !o->tls      ? ""
            : o->discard ? "; STARTTLS in"
                         : "; STARTTLS in and out");
    fprintf(fp, "load:       %u session%s, %s, size %s, %u recipient%s, %s\n", o->sessions,
            o->sessions == 1 ? "" : "s",
            o->reuse ? "reused connections" : "a new connection per message", o->size, o->rcpts,
            o->rcpts == 1 ? "" : "s", o->rate ? "open loop" : "closed loop");
    fprintf(fp, "injected:   %.0f message%s in %.2f s = %.1f msgs/s (%.0f failed)\n", res->injected,
            res->injected == 1 ? "" : "s", inject_window(res),
            rate(res->injected, inject_window(res)), res->failed);
    if (!o->discard)
        fprintf(fp,
                "delivered:  %.0f message%s in %.2f s = %.1f msgs/s (load start to empty queue; "
                "drain %.2f s)\n",
                res->delivered_sink, res->delivered_sink == 1 ? "" : "s", res->total_s,
                rate(res->delivered_sink, res->total_s), res->drain_s);
    fprintf(fp, "end to end: p50 %.2f ms, p90 %.2f ms, p99 %.2f ms, p99.9 %.2f ms, max %.2f ms\n",
            res->e2e[0], res->e2e[1], res->e2e[2], res->e2e[3], res->e2e[4]);
    fprintf(fp, "fsyncs:     %.0f = %.1f/s, %.2f per message\n", res->fsyncs,
            rate(res->fsyncs, res->total_s), res->fsyncs / msgs);
    fprintf(fp, "per message: %.2f creates, %.2f renames, %.2f unlinks, %.2f fsyncs, %.2f chmods\n",
            res->creates / msgs, res->renames / msgs, res->unlinks / msgs, res->fsyncs / msgs,
            res->chmods / msgs);
    if (o->discard)
        fprintf(fp, "exactly once: not checked (--discard)\n");
    else
        fprintf(fp,
                "exactly once: %s: %zu acknowledged, %zu delivered, %zu lost, %zu duplicated, "
                "%zu unexpected%s\n",
                bench_exactly_once(res) ? "yes" : "NO", res->cmp.acked, res->cmp.delivered,
                res->cmp.lost, res->cmp.duplicated, res->cmp.unexpected,
                res->drained ? "" : " (the queue did not drain in time)");
}

void bench_print_report(const struct bench_options *o, const char *spool,
                        const struct bench_results *res, FILE *fp)
{
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);

    if (mem == NULL) {
        print_report(o, spool, res, fp);
        return;
    }
    print_report(o, spool, res, mem);
    fclose(mem);
    report_print_marked(fp, report_sync_mark(bench_sync_name(o)), text);
    free(text);
}

int bench_write_json(const struct bench_options *o, const char *spool,
                     const struct bench_results *res)
{
    FILE *fp = strcmp(o->json, "-") == 0 ? stdout : fopen(o->json, "w");
    struct json_writer w;
    int status;

    if (fp == NULL)
        return -1;
    json_init(&w, fp);
    json_begin_object(&w, NULL);
    json_string(&w, "tool", "spoolsim bench");
    json_string(&w, "version", PACKAGE_VERSION);
    json_string(&w, "spool", spool);
    json_begin_object(&w, "filesystem");
    json_string(&w, "type", res->fs.fstype[0] ? res->fs.fstype : NULL);
    json_string(&w, "mount_point", res->fs.mount_point[0] ? res->fs.mount_point : NULL);
    json_string(&w, "options", res->fs.options[0] ? res->fs.options : NULL);
    json_end_object(&w);
    json_string(&w, "sync", bench_sync_name(o));
    json_string(&w, "qmgr", o->qmgr);
    json_string(&w, "profile", o->profile);
    json_bool(&w, "tls", o->tls);
    json_uint(&w, "sessions", o->sessions);
    json_string(&w, "size", o->size);
    json_double(&w, "load_s", res->load_s);
    json_double(&w, "drain_s", res->drain_s);
    json_double(&w, "total_s", res->total_s);
    json_double(&w, "injected", res->injected);
    json_double(&w, "injected_per_s", rate(res->injected, inject_window(res)));
    json_double(&w, "delivered", res->delivered_sink);
    json_double(&w, "delivered_per_s", rate(res->delivered_sink, res->total_s));
    json_double(&w, "fsyncs_per_s", rate(res->fsyncs, res->total_s));
    json_begin_object(&w, "end_to_end_ms");
    json_double(&w, "p50", res->e2e[0]);
    json_double(&w, "p90", res->e2e[1]);
    json_double(&w, "p99", res->e2e[2]);
    json_double(&w, "p99_9", res->e2e[3]);
    json_double(&w, "max", res->e2e[4]);
    json_end_object(&w);
    if (o->discard) {
        json_string(&w, "exactly_once", NULL); /* nothing arrives anywhere to check */
    } else {
        json_bool(&w, "exactly_once", bench_exactly_once(res));
        json_uint(&w, "acknowledged", res->cmp.acked);
        json_uint(&w, "lost", res->cmp.lost);
        json_uint(&w, "duplicated", res->cmp.duplicated);
        json_uint(&w, "unexpected", res->cmp.unexpected);
    }
    json_end_object(&w);
    status = json_finish(&w);
    status |= fp == stdout ? fflush(fp) : fclose(fp);
    return status;
}
