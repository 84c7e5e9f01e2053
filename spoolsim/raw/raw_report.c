/*
 * raw_report - `spoolsim raw' results as text and JSON; see raw_report.h.
 *
 * Rates are over the whole run, from the first accept to the last
 * delivery, so a message counts once it has been through its whole life.
 * Operation counts per message come from what the workers did, not from
 * the tables, so they show a profile as it ran.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "raw_report.h"
#include "report_mark.h"
#include "spool_backend.h"

void raw_report_init(struct raw_result *res)
{
    memset(res, 0, sizeof(*res));
    for (unsigned i = 0; i < MEASURE_COUNT; i++)
        histogram_init(&res->latency[i]);
    timeline_init(&res->timeline, TIMELINE_IN | TIMELINE_OUT | TIMELINE_FAILURES |
                                      TIMELINE_LATENCY | TIMELINE_FSYNCS);
}

static double per(double n, double d)
{
    return d > 0 ? n / d : 0;
}

/* The counts shown per message, the same way for every backend. */
static void totals(const struct profile *p, const struct raw_result *res, struct spool_op_totals *t)
{
    spool_backend_of(p)->totals(res->ops, &res->pf, t);
}

static const char *sync_text(const struct raw_options *o)
{
    return o->sync == PROFILE_SYNC_AS_PROFILE ? "as the profile (the MTA's own)"
                                              : profile_sync_name(o->sync);
}

static void print_report(const struct raw_options *o, const struct profile *p,
                         const struct raw_result *res, FILE *fp)
{
    struct spool_op_totals t;
    double n = res->delivered ? (double)res->delivered : 1, rate;
    char where[1200];

    totals(p, res, &t);
    rate = per((double)res->delivered, res->elapsed_s);
    fsinfo_describe(&res->fs, where, sizeof(where));
    fprintf(fp, "directory:   %s\n", o->dir);
    fprintf(fp, "filesystem:  %s\n", where);
    if (fsinfo_note(&res->fs))
        fprintf(fp, "note:        %s\n", fsinfo_note(&res->fs));
    fprintf(fp, "profile:     %s (%s); commit: %s\n", p->name, p->summary, p->commit_marker);
    fprintf(fp, "sync:        %s\n", sync_text(o));
    fprintf(fp, "load:        %u worker%s, size %s, %u recipient%s, %u%% deferred, depth %u\n",
            o->workers, o->workers == 1 ? "" : "s", o->common.size, o->common.rcpts,
            o->common.rcpts == 1 ? "" : "s", o->defer_pct, o->depth);
    fprintf(fp, "messages:    %llu delivered in %.2f s = %.1f msgs/s (%llu deferrals)\n",
            (unsigned long long)res->delivered, res->elapsed_s, rate,
            (unsigned long long)res->deferred);
    fprintf(
        fp, "syncs:       %.1f/s (%.2f per message: %.2f fsync, %.2f fdatasync, %.2f directory)\n",
        per((double)spool_backend_syncs(&t), res->elapsed_s), (double)spool_backend_syncs(&t) / n,
        (double)t.fsyncs / n, (double)t.fdatasyncs / n, (double)t.dir_fsyncs / n);
    fprintf(fp, "metadata:    %.1f operations/s (%.2f per message)\n",
            per((double)spool_backend_metadata(&t), res->elapsed_s),
            (double)spool_backend_metadata(&t) / n);
    fprintf(fp,
            "per message: %.2f creates, %.2f writes, %.2f renames, %.2f links, %.2f unlinks, "
            "%.2f probes, %.2f stats, %.2f chmods, %.2f mkdirs, %.2f rmdirs, %.2f utimes, "
            "%.2f locks\n",
            (double)t.creates / n, (double)t.writes / n, (double)t.renames / n, (double)t.links / n,
            (double)t.unlinks / n, (double)t.probes / n, (double)t.stats / n, (double)t.chmods / n,
            (double)t.mkdirs / n, (double)t.rmdirs / n, (double)t.utimes / n, (double)t.locks / n);
    diskstat_print(fp, "disk:        ", "note:        ", &res->disk);
    fprintf(fp, "latency:\n");
    for (unsigned k = 0; k < MEASURE_COUNT; k++)
        if (histogram_count(&res->latency[k]) > 0)
            histogram_print_text(fp, spool_runner_measure_name(k), &res->latency[k]);
    if (res->loop_ceiling > 0) {
        fprintf(fp,
                "ceiling:     4 KiB write+fsync %.1f/s; create+write+fsync+rename+unlink "
                "%.1f/s (%u thread%s)\n",
                res->fsync_ceiling, res->loop_ceiling, o->workers, o->workers == 1 ? "" : "s");
        fprintf(fp,
                "fraction:    the %s profile runs at %.0f%% of the bare spool loop, %.0f%% of "
                "the fsync ceiling\n",
                p->name, 100 * per(rate, res->loop_ceiling), 100 * per(rate, res->fsync_ceiling));
    }
}

void raw_report_print(const struct raw_options *o, const struct profile *p,
                      const struct raw_result *res, FILE *fp)
{
    const char *mark =
        o->sync == PROFILE_SYNC_AS_PROFILE ? "" : report_mark_sync(profile_sync_name(o->sync));
    struct report_mark m;

    print_report(o, p, res, report_mark_begin(&m, fp));
    report_mark_end(&m, mark);
}

int raw_report_write_json(const struct raw_options *o, const struct profile *p,
                          const struct raw_result *res)
{
    struct spool_op_totals t;
    struct json_writer w;
    double n = res->delivered ? (double)res->delivered : 1;

    if (json_meta_begin(&w, o->common.json, o->run) != 0)
        return -1;
    totals(p, res, &t);
    json_meta_write_spool(&w, "spool", o->dir, &res->fs);
    json_string(&w, "profile", p->name);
    json_string(&w, "sync", profile_sync_name(o->sync));
    json_uint(&w, "workers", o->workers);
    json_string(&w, "size", o->common.size);
    json_uint(&w, "rcpts", o->common.rcpts);
    json_uint(&w, "defer_pct", o->defer_pct);
    json_uint(&w, "depth", o->depth);
    json_uint(&w, "seed", o->common.seed);
    json_bool(&w, "ceiling", o->ceiling);
    /* the bound of the run: a count or a time, the other null */
    json_uint_or_null(&w, "messages", o->common.messages != 0, o->common.messages);
    json_double(&w, "duration_s", o->common.messages ? NAN : o->common.duration);
    json_double(&w, "elapsed_s", res->elapsed_s);
    json_uint(&w, "accepted", res->accepted);
    json_uint(&w, "delivered", res->delivered);
    json_uint(&w, "deferrals", res->deferred);
    json_double(&w, "delivered_per_s", per((double)res->delivered, res->elapsed_s));
    json_uint(&w, "syncs", spool_backend_syncs(&t));
    json_double(&w, "syncs_per_s", per((double)spool_backend_syncs(&t), res->elapsed_s));
    json_uint(&w, "metadata_ops", spool_backend_metadata(&t));
    json_double(&w, "metadata_ops_per_s", per((double)spool_backend_metadata(&t), res->elapsed_s));
    json_begin_object(&w, "per_message");
    json_double(&w, "creates", (double)t.creates / n);
    json_double(&w, "writes", (double)t.writes / n);
    json_double(&w, "fsyncs", (double)t.fsyncs / n);
    json_double(&w, "fdatasyncs", (double)t.fdatasyncs / n);
    json_double(&w, "dir_fsyncs", (double)t.dir_fsyncs / n);
    json_double(&w, "renames", (double)t.renames / n);
    json_double(&w, "links", (double)t.links / n);
    json_double(&w, "unlinks", (double)t.unlinks / n);
    json_double(&w, "probes", (double)t.probes / n);
    json_double(&w, "stats", (double)t.stats / n);
    json_double(&w, "chmods", (double)t.chmods / n);
    json_double(&w, "mkdirs", (double)t.mkdirs / n);
    json_double(&w, "rmdirs", (double)t.rmdirs / n);
    json_double(&w, "utimes", (double)t.utimes / n);
    json_double(&w, "locks", (double)t.locks / n);
    json_end_object(&w);
    diskstat_write_json(&w, "disk", &res->disk);
    json_begin_object(&w, "latency");
    for (unsigned k = 0; k < MEASURE_COUNT; k++)
        if (histogram_count(&res->latency[k]) > 0)
            histogram_write_json(&w, spool_runner_measure_name(k), &res->latency[k]);
    json_end_object(&w);
    json_double(&w, "interval_s", o->common.interval);
    timeline_write_json(&res->timeline, &w, "timeline");
    if (res->loop_ceiling > 0) {
        json_double(&w, "fsync_ceiling_per_s", res->fsync_ceiling);
        json_double(&w, "spool_loop_ceiling_per_s", res->loop_ceiling);
        json_double(&w, "fraction_of_spool_loop",
                    per(per((double)res->delivered, res->elapsed_s), res->loop_ceiling));
    }
    if (res->error[0])
        json_string(&w, "error", res->error);
    return json_meta_end(&w);
}
