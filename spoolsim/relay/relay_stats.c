/*
 * relay_stats - what the relay counts, and its summary as text and JSON.
 *
 * Each rate is over its own window, so that idle time before the load and
 * after the drain does not dilute it, and a stage that stopped early (a next
 * hop that fails, clients that are done) does not squeeze another's into its
 * own: see struct windows. Every report names the sync policy and the queue
 * manager's shape: results under different policies must never be compared
 * without seeing it.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "clock.h"
#include "cpu_burn.h"
#include "endpoint.h"
#include "fsinfo.h"
#include "json.h"
#include "relay_loop.h"
#include "relay_private.h"
#include "relay_stats.h"
#include "relay_spool.h"
#include "relay_usage.h"
#include "report_mark.h"
#include "xgrow.h"

void relay_stats_init(struct relay_stats *st)
{
    memset(st, 0, sizeof(*st));
    histogram_init(&st->receive);
    histogram_init(&st->commit);
    histogram_init(&st->queue_wait);
    histogram_init(&st->delivery);
    histogram_init(&st->end_to_end);
    timeline_init(&st->timeline, TIMELINE_IN | TIMELINE_OUT | TIMELINE_FAILURES | TIMELINE_LATENCY |
                                     TIMELINE_QUEUES);
}

void relay_stats_free(struct relay_stats *st)
{
    free(st->samples);
    st->samples = NULL;
    timeline_free(&st->timeline);
}

static uint64_t self_cpu_ns(void)
{
    struct rusage ru;

    if (getrusage(RUSAGE_SELF, &ru) != 0)
        return 0;
    return ((uint64_t)ru.ru_utime.tv_sec + (uint64_t)ru.ru_stime.tv_sec) * 1000000000ULL +
           ((uint64_t)ru.ru_utime.tv_usec + (uint64_t)ru.ru_stime.tv_usec) * 1000ULL;
}

void relay_stats_sample(struct relay *r)
{
    struct relay_stats *st = &r->stats;
    struct relay_sample *s;
    struct relay_queue_depths d;

    st->samples =
        xgrow(st->samples, &st->sample_cap, st->sample_count + 1, 64, sizeof(*st->samples));
    s = &st->samples[st->sample_count++];
    s->t = (double)(clock_now_ns() - r->start_ns) / 1e9;
    st->queue_depths(r, &d);
    s->incoming = d.incoming;
    s->active = d.active;
    s->deferred = d.deferred;
    s->delivering = d.delivering;
    s->received = st->received;
    s->delivered = st->delivered;
    pthread_mutex_lock(&r->stats_lock);
    s->fsyncs = st->spool.fsyncs;
    pthread_mutex_unlock(&r->stats_lock);
    sysusage_sample(&s->sys, &r->kthreads, r->has_disk ? r->disk_id : NULL);
    s->self_cpu_ns = self_cpu_ns();
    s->qmgr_busy_ns = r->qmgr && r->qmgr != r->cleanup ? io_pool_busy_ns(r->qmgr) : 0;
    s->loop_cpu_ns = cpu_burn_thread_ns();
}

/*
 * In: received (acknowledged with 250); out: delivered; failures: refused
 * (451, 452) or bounced; latency: end to end. The fsyncs are the spool's,
 * counted on this thread: another MTA's profile counts its own on the
 * pool's threads, where they cannot be read while it runs.
 */
void relay_stats_tick(struct relay *r)
{
    struct relay_stats *st = &r->stats;
    struct relay_queue_depths d;
    struct timeline_point p;

    st->queue_depths(r, &d);
    pthread_mutex_lock(&r->stats_lock);
    p = (struct timeline_point){
        .t = (double)(clock_now_ns() - r->start_ns) / 1e9,
        .in = st->received,
        .out = st->delivered,
        .failures = st->rejected_storage + st->rejected_other + st->rejected_hops + st->bounced,
        .fsyncs = st->spool.fsyncs,
        .incoming = d.incoming,
        .active = d.active,
        .deferred = d.deferred,
    };
    pthread_mutex_unlock(&r->stats_lock);
    if (r->backend->fsyncs_live)
        st->timeline.fields |= TIMELINE_FSYNCS;
    timeline_add_cumulative(&st->timeline, &p, &st->end_to_end);
}

/*
 * In and out as the timeline counts them; the queues as they are now; p99
 * end to end. A daemon runs until stopped: no ETA.
 */
void relay_stats_progress(struct relay *r)
{
    struct relay_stats *st = &r->stats;
    struct relay_queue_depths d;
    struct progress_stats ps;

    st->queue_depths(r, &d);
    ps = (struct progress_stats){
        .label = "relay",
        .elapsed_s = (double)(clock_now_ns() - r->start_ns) / 1e9,
        .eta_s = -1,
        .has_rates = 1,
        .has_queues = 1,
        .incoming = d.incoming,
        .active = d.active,
        .deferred = d.deferred,
        .has_latency = histogram_count(&st->end_to_end) > 0,
        .p99_ns = histogram_percentile(&st->end_to_end, 99),
        .has_failures = 1,
        .failures = st->rejected_storage + st->rejected_other + st->rejected_hops + st->bounced,
    };

    progress_rate_update(&r->progress_r, ps.elapsed_s, st->received, st->delivered, &ps.in_per_s,
                         &ps.out_per_s);
    progress_out_stats(&r->progress, &ps);
}

static double elapsed(const struct relay *r)
{
    uint64_t end = r->stop_ns ? r->stop_ns : clock_now_ns();

    return (double)(end - r->start_ns) / 1e9;
}

/* Recovery or the first arrival, whichever came first: mail to deliver from then on. */
static uint64_t opened(const struct relay_stats *st)
{
    if (st->recovered_ns && (st->first_in_ns == 0 || st->recovered_ns < st->first_in_ns))
        return st->recovered_ns;
    return st->first_in_ns;
}

int relay_stats_busy_span(const struct relay *r, uint64_t *from, uint64_t *to)
{
    const struct relay_stats *st = &r->stats;

    *from = opened(st);
    *to = st->last_in_ns > st->last_out_ns ? st->last_in_ns : st->last_out_ns;
    return *from && *to > *from ? 0 : -1;
}

/*
 * Arrivals from the first to the last; deliveries from the first message in
 * (or recovered) to the last out; the spool's syncs, which both make, over
 * the busy window, from the first in (or recovered) to the last in or out.
 * A window without length (no event yet, or a single one) is the whole run.
 */
struct windows {
    double in, out, busy;
};

static double span(const struct relay *r, uint64_t from, uint64_t to)
{
    return from && to > from ? (double)(to - from) / 1e9 : elapsed(r);
}

static struct windows windows(const struct relay *r)
{
    const struct relay_stats *st = &r->stats;
    uint64_t from, to;

    relay_stats_busy_span(r, &from, &to);
    return (struct windows){
        .in = span(r, st->first_in_ns, st->last_in_ns),
        .out = span(r, opened(st), st->last_out_ns),
        .busy = span(r, from, to),
    };
}

static double per_sec(uint64_t n, double seconds)
{
    return seconds > 0 ? (double)n / seconds : 0;
}

static unsigned max_depth(const struct relay *r, size_t field)
{
    unsigned best = 0;

    for (size_t i = 0; i < r->stats.sample_count; i++) {
        const struct relay_sample *s = &r->stats.samples[i];
        unsigned v = field == 0 ? s->incoming : field == 1 ? s->active : s->deferred;

        if (v > best)
            best = v;
    }
    return best;
}

/* The sync policy as it applies (the spool's words for it). */
static const char *sync_name(const struct relay *r)
{
    return r->backend->sync_name(r->opts);
}

static uint64_t profile_syncs(const uint64_t ops[OP_KIND_COUNT])
{
    return ops[OP_FSYNC] + ops[OP_FDATASYNC] + ops[OP_FSYNC_DIR];
}

static const char *qmgr_name(const struct relay *r)
{
    return relay_options_qmgr_names[r->opts->qmgr];
}

/* The spool's counts now: the loops' jobs add to them under the lock. */
static struct pf_spool_stats spool_counts(const struct relay *r)
{
    struct pf_spool_stats sp;

    /* A report reads the relay, but the lock is taken all the same. */
    pthread_mutex_lock((pthread_mutex_t *)&r->stats_lock);
    sp = r->stats.spool;
    pthread_mutex_unlock((pthread_mutex_t *)&r->stats_lock);
    return sp;
}

static void print_report(const struct relay *r, FILE *fp)
{
    const struct relay_stats *st = &r->stats;
    uint64_t ops[OP_KIND_COUNT];
    const struct pf_spool_stats spool = spool_counts(r), *sp = &spool;
    const struct windows win = windows(r);
    struct fsinfo fs;
    char where[1200], model[400], verdict[600];
    struct utilization usage;

    fsinfo_lookup(r->spool.dir, &fs);
    fsinfo_describe(&fs, where, sizeof(where));
    fprintf(fp, "spool %s: %s\n", r->spool.dir, where);
    if (fsinfo_note(&fs))
        fprintf(fp, "note: %s\n", fsinfo_note(&fs));
    fprintf(fp, "profile %s, sync %s, queue manager %s, %u cleanup threads, next hop %s\n",
            r->profile->name, sync_name(r), qmgr_name(r), r->opts->cleanup_threads,
            r->opts->next_hop);
    if (r->spool.scan_incoming)
        fprintf(fp,
                "queue manager scans incoming/ as Postfix's qmgr (SPOOLSIM_QMGR_SCAN=0 takes it "
                "away): %llu scans moved %llu files to active/\n",
                (unsigned long long)sp->scans, (unsigned long long)sp->scan_moves);
    else if (r->backend == &relay_spool_postfix)
        fprintf(fp, "queue manager does not scan incoming/ (SPOOLSIM_QMGR_SCAN=0): each "
                    "message is moved to active/ after its commit returned\n");
    relay_model_describe(r->model, model, sizeof(model));
    fprintf(fp, "cost model: %s\n", model);
    if (relay_usage_window(r, &usage) == 0) {
        bottleneck_verdict(&usage, verdict, sizeof(verdict));
        fprintf(fp, "bottleneck: %s\n", verdict);
    } else if (st->sample_count > 0 && !st->samples[0].sys.has_cpu) {
        fprintf(fp, "bottleneck: unknown (this system does not say what its CPUs did)\n");
    }
    if (r->loop_count > 1) {
        fprintf(fp, "event loops: %u; sessions", r->loop_count);
        for (unsigned i = 0; i < r->loop_count; i++)
            fprintf(fp, "%s%llu", i ? ", " : " ", (unsigned long long)r->loops[i].served);
        fprintf(fp, "; deliveries");
        for (unsigned i = 0; i < r->loop_count; i++)
            fprintf(fp, "%s%llu", i ? ", " : " ", (unsigned long long)r->loops[i].deliveries);
        fprintf(fp, "; CPU");
        for (unsigned i = 0; i < r->loop_count; i++)
            fprintf(fp, "%s%.2f s", i ? ", " : " ", (double)r->loops[i].cpu_ns / 1e9);
        fprintf(fp, " (the first has the queue manager)\n");
    }
    fprintf(fp, "relay CPU: %.2f s on the event loop%s, %.2f s on cleanup threads, %.2f s on qmgr",
            (double)r->cpu_loop_ns / 1e9, r->loop_count > 1 ? "s" : "",
            (double)r->cpu_cleanup_ns / 1e9, (double)r->cpu_qmgr_ns / 1e9);
    if (r->model)
        fprintf(fp, ", %.2f s on the model's daemons", (double)r->cpu_daemons_ns / 1e9);
    if (st->received)
        fprintf(fp, " (%.0f us per message received)",
                (double)(r->cpu_loop_ns + r->cpu_cleanup_ns + r->cpu_qmgr_ns + r->cpu_daemons_ns) /
                    1e3 / (double)st->received);
    fprintf(fp, "\n");
    fprintf(
        fp,
        "received %llu (%.1f msgs/s over %.3f s, first in to last in), delivered %llu (%.1f msgs/s "
        "over %.3f s, first in to last out); busy %.3f s (first in to last in or out); "
        "deferrals %llu, bounced %llu, recovered %llu, corrupt %llu\n",
        (unsigned long long)st->received, per_sec(st->received, win.in), win.in,
        (unsigned long long)st->delivered, per_sec(st->delivered, win.out), win.out, win.busy,
        (unsigned long long)st->deferrals, (unsigned long long)st->bounced,
        (unsigned long long)st->recovered, (unsigned long long)st->corrupt);
    if (st->loops)
        fprintf(fp, "mail loops: %llu of the bounced messages (5.4.6), none delivered\n",
                (unsigned long long)st->loops);
    if (!r->backend->bounces)
        fprintf(fp, "bounces: not modelled for %s; %llu bounced messages dropped without notice\n",
                r->profile->name, (unsigned long long)st->bounces_dropped);
    else if (r->opts->no_bounces)
        fprintf(fp, "bounces: %llu messages dropped without notice (--no-bounces)\n",
                (unsigned long long)st->bounces_dropped);
    else if (st->bounced || st->bounces_sent || st->bounces_discarded)
        fprintf(fp,
                "bounces: %llu notifications sent (%llu delivered), %llu undeliverable ones "
                "discarded\n",
                (unsigned long long)st->bounces_sent, (unsigned long long)st->bounces_delivered,
                (unsigned long long)st->bounces_discarded);
    fprintf(fp,
            "client sessions %llu (%llu with TLS, at most %u at once); closed for a timeout %llu, "
            "for errors %llu\n",
            (unsigned long long)st->sessions, (unsigned long long)st->tls_sessions,
            st->max_concurrent, (unsigned long long)st->timeouts,
            (unsigned long long)st->error_closes);
    if (st->session_limit_waits)
        fprintf(
            fp,
            "the session limit (--max-sessions %u) held new clients in the backlog %llu times\n",
            r->opts->max_sessions, (unsigned long long)st->session_limit_waits);
    if (st->rejected_storage || st->rejected_other)
        fprintf(fp, "refused: %llu for lack of storage (452), %llu for other errors (451)\n",
                (unsigned long long)st->rejected_storage, (unsigned long long)st->rejected_other);
    if (st->rejected_hops)
        fprintf(fp, "refused: %llu for too many hops (554 5.4.0, --hopcount-limit %u)\n",
                (unsigned long long)st->rejected_hops, r->opts->hopcount_limit);
    fprintf(fp,
            "spool operations: %llu creates, %llu renames, %llu unlinks, %llu probes, "
            "%llu stats, %llu fsyncs (%.1f/s over the busy window), %llu chmods, %llu utimes, "
            "%llu mkdirs, %llu writes, %llu bytes\n",
            (unsigned long long)sp->creates, (unsigned long long)sp->renames,
            (unsigned long long)sp->unlinks, (unsigned long long)sp->probes,
            (unsigned long long)sp->stat_probes, (unsigned long long)sp->fsyncs,
            per_sec(sp->fsyncs, win.busy), (unsigned long long)sp->chmods,
            (unsigned long long)sp->utimes, (unsigned long long)sp->mkdirs,
            (unsigned long long)sp->writes, (unsigned long long)sp->bytes);
    if (r->backend->profile_ops(r, ops)) {
        fprintf(fp, "%s profile operations:", r->profile->name);
        for (unsigned k = 0; k < OP_KIND_COUNT; k++)
            if (ops[k])
                fprintf(fp, " %s %llu", profile_op_name((enum profile_op_kind)k),
                        (unsigned long long)ops[k]);
        fprintf(fp, "; syncs %.1f/s over the busy window\n", per_sec(profile_syncs(ops), win.busy));
    }
    if (r->opts->hop_kind == RELAY_HOP_SMTP)
        fprintf(fp, "next hop: %llu connections (%llu with TLS), %llu failures\n",
                (unsigned long long)st->hop_connects, (unsigned long long)st->hop_tls,
                (unsigned long long)st->hop_failures);
    fprintf(fp, "peak queue depth: incoming %u, active %u, deferred %u\n", max_depth(r, 0),
            max_depth(r, 1), max_depth(r, 2));
    if (st->flow_waits)
        fprintf(
            fp,
            "flow control: %llu messages waited for the queue manager (--in-flow-delay %.3gs)\n",
            (unsigned long long)st->flow_waits, r->opts->in_flow_delay);
    histogram_print_text(fp, "receive", &st->receive);
    histogram_print_text(fp, "commit", &st->commit);
    histogram_print_text(fp, "queue wait", &st->queue_wait);
    histogram_print_text(fp, "delivery", &st->delivery);
    histogram_print_text(fp, "end to end", &st->end_to_end);
}

/* Where the relay listens and where its mail goes, once it can take mail. */
void relay_stats_print_start(const struct relay *r, int listen_fd, FILE *fp)
{
    char where[300];

    endpoint_local_describe(listen_fd, where, sizeof(where));
    fprintf(fp, "spoolsim relay: listening on %s, ", where);
    if (r->opts->hop_kind == RELAY_HOP_SMTP)
        fprintf(fp, "relaying to %s", r->hop_desc);
    else if (r->opts->hop_kind == RELAY_HOP_MAILDIR)
        fprintf(fp, "delivering to the Maildir %s", r->opts->hop_arg);
    else
        fprintf(fp, "discarding every message");
    fprintf(fp, "; spool %s, profile %s\n", r->opts->spool, r->profile->name);
    fflush(fp);
}

void relay_stats_print(const struct relay *r, FILE *fp)
{
    struct report_mark m;

    print_report(r, report_mark_begin(&m, fp));
    report_mark_end(&m, report_mark_sync(sync_name(r)));
}

static void write_ops(struct json_writer *w, const char *key, const struct pf_spool_stats *sp)
{
    json_begin_object(w, key);
    json_uint(w, "creates", sp->creates);
    json_uint(w, "renames", sp->renames);
    json_uint(w, "unlinks", sp->unlinks);
    json_uint(w, "probes", sp->probes);
    json_uint(w, "stat_probes", sp->stat_probes);
    json_uint(w, "locks", sp->locks);
    json_uint(w, "scans", sp->scans);
    json_uint(w, "scan_moves", sp->scan_moves);
    json_uint(w, "fsyncs", sp->fsyncs);
    json_uint(w, "chmods", sp->chmods);
    json_uint(w, "utimes", sp->utimes);
    json_uint(w, "mkdirs", sp->mkdirs);
    json_uint(w, "writes", sp->writes);
    json_uint(w, "bytes", sp->bytes);
    json_end_object(w);
}

int relay_stats_write_json(const struct relay *r, const char *path)
{
    const struct relay_stats *st = &r->stats;
    const struct pf_spool_stats spool = spool_counts(r);
    uint64_t ops[OP_KIND_COUNT];
    const struct windows win = windows(r);
    struct json_writer w;
    struct fsinfo fs;

    if (json_meta_begin(&w, path, r->run) != 0)
        return -1;
    fsinfo_lookup(r->spool.dir, &fs);
    json_meta_write_spool(&w, "spool", r->spool.dir, &fs);
    json_string(&w, "profile", r->profile->name);
    json_string(&w, "sync", sync_name(r));
    json_string(&w, "qmgr", qmgr_name(r));
    json_bool(&w, "incoming_scan", r->spool.scan_incoming); /* SPOOLSIM_QMGR_SCAN */
    json_uint(&w, "cleanup_threads", r->opts->cleanup_threads);
    json_uint(&w, "threads", r->loop_count);
    json_double(&w, "reply_delay_s", r->opts->reply_delay);
    relay_model_json(r->model, &w);
    relay_usage_json(r, &w);
    json_begin_object(&w, "cpu_s"); /* by role: the event loop, the cleanup and qmgr threads */
    json_double(&w, "loop", (double)r->cpu_loop_ns / 1e9);
    json_double(&w, "cleanup", (double)r->cpu_cleanup_ns / 1e9);
    json_double(&w, "qmgr", (double)r->cpu_qmgr_ns / 1e9);
    if (r->model) /* the model's single-process daemons that no message waits for */
        json_double(&w, "daemons", (double)r->cpu_daemons_ns / 1e9);
    json_end_object(&w);
    json_begin_array(&w, "loops"); /* loop 0 first: it has the queue manager and the next hop */
    for (unsigned i = 0; i < r->loop_count; i++) {
        json_begin_object(&w, NULL);
        json_uint(&w, "sessions", r->loops[i].served);
        json_uint(&w, "deliveries", r->loops[i].deliveries);
        json_double(&w, "cpu_s", (double)r->loops[i].cpu_ns / 1e9);
        json_end_object(&w);
    }
    json_end_array(&w);
    json_string(&w, "next_hop", r->opts->next_hop);
    json_double(&w, "elapsed_s", elapsed(r));
    json_double(&w, "busy_s", win.busy);
    json_double(&w, "in_window_s", win.in);
    json_double(&w, "out_window_s", win.out);
    json_uint(&w, "messages_in", st->received);
    json_uint(&w, "messages_out", st->delivered);
    json_double(&w, "messages_in_per_s", per_sec(st->received, win.in));
    json_double(&w, "messages_out_per_s", per_sec(st->delivered, win.out));
    json_uint(&w, "recipients_delivered", st->rcpts_sent);
    json_uint(&w, "deferrals", st->deferrals);
    json_uint(&w, "bounced", st->bounced);
    json_uint(&w, "mail_loops", st->loops);
    json_uint(&w, "expired", st->expired);
    json_bool(&w, "bounces_modelled", relay_spool_bounces(r->backend, r->opts));
    json_uint(&w, "bounces_sent", st->bounces_sent);
    json_uint(&w, "bounces_delivered", st->bounces_delivered);
    json_uint(&w, "bounces_discarded", st->bounces_discarded);
    json_uint(&w, "bounces_dropped", st->bounces_dropped);
    json_uint(&w, "recovered", st->recovered);
    json_uint(&w, "corrupt", st->corrupt);
    json_uint(&w, "refused_storage", st->rejected_storage);
    json_uint(&w, "refused_other", st->rejected_other);
    json_uint(&w, "refused_hops", st->rejected_hops);
    json_uint(&w, "sessions", st->sessions);
    json_uint(&w, "tls_sessions", st->tls_sessions);
    json_uint(&w, "session_timeouts", st->timeouts);
    json_uint(&w, "session_error_closes", st->error_closes);
    json_uint(&w, "session_limit_waits", st->session_limit_waits);
    json_uint(&w, "max_concurrent_sessions", st->max_concurrent);
    json_uint(&w, "fsyncs", spool.fsyncs);
    json_double(&w, "fsyncs_per_s", per_sec(spool.fsyncs, win.busy));
    write_ops(&w, "spool_ops", &spool);
    if (r->backend->profile_ops(r, ops)) {
        json_begin_object(&w, "profile_ops");
        for (unsigned k = 0; k < OP_KIND_COUNT; k++)
            json_uint(&w, profile_op_name((enum profile_op_kind)k), ops[k]);
        json_end_object(&w);
        json_uint(&w, "profile_syncs", profile_syncs(ops));
        json_double(&w, "profile_syncs_per_s", per_sec(profile_syncs(ops), win.busy));
    }
    if (r->opts->hop_kind == RELAY_HOP_MAILDIR)
        write_ops(&w, "maildir_ops", &st->maildir);
    json_uint(&w, "hop_connections", st->hop_connects);
    json_uint(&w, "hop_failures", st->hop_failures);
    json_uint(&w, "hop_tls_sessions", st->hop_tls);
    json_double(&w, "in_flow_delay_s", r->opts->in_flow_delay);
    json_uint(&w, "flow_waits", st->flow_waits);
    json_begin_object(&w, "latency");
    histogram_write_json(&w, "receive", &st->receive);
    histogram_write_json(&w, "commit", &st->commit);
    histogram_write_json(&w, "queue_wait", &st->queue_wait);
    histogram_write_json(&w, "delivery", &st->delivery);
    histogram_write_json(&w, "end_to_end", &st->end_to_end);
    json_end_object(&w);
    json_begin_array(&w, "queue_depth");
    for (size_t i = 0; i < st->sample_count; i++) {
        const struct relay_sample *s = &st->samples[i];

        json_begin_object(&w, NULL);
        json_double(&w, "t", s->t);
        json_uint(&w, "incoming", s->incoming);
        json_uint(&w, "active", s->active);
        json_uint(&w, "deferred", s->deferred);
        json_uint(&w, "delivering", s->delivering);
        json_uint(&w, "received", s->received);
        json_uint(&w, "delivered", s->delivered);
        json_uint(&w, "fsyncs", s->fsyncs);
        json_end_object(&w);
    }
    json_end_array(&w);
    json_double(&w, "interval_s", r->opts->stats_interval);
    timeline_write_json(&st->timeline, &w, "timeline");
    return json_meta_end(&w);
}
