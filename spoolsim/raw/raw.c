/*
 * raw - `spoolsim raw': a spool profile's file operations with no network.
 *
 * W worker threads each accept messages (the profile's operations up to
 * the 250), keep up to --depth of them waiting as a queue would, then
 * deliver the oldest (or defer it first, with --defer percent), until
 * --messages or --duration is reached; what is still queued is then
 * delivered. The spool lives in a private directory inside --spool that is
 * removed afterwards. --ceiling also measures the directory's bare limits
 * at the same concurrency: 4 KiB write + fsync on W files, and a bare
 * create + write + fsync + rename + unlink loop; the profile's rate is
 * reported as a fraction of them.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <getopt.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "exit_status.h"
#include "clock.h"
#include "fileutil.h"
#include "disk_probe.h"
#include "fsinfo.h"
#include "interrupt.h"
#include "json.h"
#include "msg.h"
#include "progress_out.h"
#include "optarg.h"
#include "optgroup.h"
#include "spool_runner.h"
#include "spool_backend.h"
#include "raw_report.h"
#include "spoolsim.h"
#include "workload.h"
#include "xalloc.h"

struct raw_worker {
    struct raw *raw;
    unsigned index;
    pthread_t thread;
    struct spool_runner runner;
    struct prng rng;
    struct spool_msg *queue; /* a ring of depth + 2 */
    size_t head, len, cap;
    uint64_t accepted, delivered, deferred;
    int failed;
    /*
     * What the timeline's sampler may read, under lock: the counters so
     * far, and the accept latencies since its last look (it empties them).
     */
    pthread_mutex_t lock;
    struct timeline_point pub;
    struct histogram pub_latency;
};

struct raw {
    const struct raw_options *opts;
    const struct profile *profile;
    char work[PATH_MAX / 2];
    char spool[PATH_MAX];
    struct size_dist size;
    atomic_ulong claimed; /* --messages: numbers handed out */
    uint64_t deadline_ns;
    struct raw_worker *workers;
    pthread_mutex_t done_lock; /* the sampler waits on done_cond for the workers' end */
    pthread_cond_t done_cond;
    unsigned done;
};

static void usage(FILE *fp, const struct optgroup *g)
{
    fprintf(fp, "Usage: spoolsim raw --spool DIR [options]\n"
                "\n"
                "Runs a spool profile's per-message file operations with no network: W workers\n"
                "accept, queue and deliver messages in a private directory inside DIR (removed\n"
                "afterwards), and report messages/s, per-operation latency, fsyncs/s and\n"
                "metadata operations/s, with the filesystem, its mount options, the profile and\n"
                "the sync policy.\n"
                "\n"
                "Options:\n"
                "  --spool DIR           the directory to measure (required)\n");
    profile_help(fp, "-p, --profile NAME", "",
                 " (postfix; --list says which version each one models)", 21);
    fprintf(fp, "  -w, --workers N       concurrent workers (20)\n");
    optgroup_help(fp, g, OPTGROUP_WORKLOAD | OPTGROUP_SEED, 21);
    fprintf(fp, "  --defer PCT           percent of messages deferred once before delivery (0)\n"
                "  --depth N             messages each worker keeps queued before delivering (0)\n"
                "  --sync POLICY         profile (what the MTA does), fsync, fdatasync or none\n"
                "                        (profile)\n"
                "  --ceiling             also measure the directory's bare limits\n"
                "  --list                list the profiles\n");
    optgroup_help(fp, g, OPTGROUP_OUTPUT, 21);
    fprintf(fp, "\n"
                "SIGINT or SIGTERM stops the workers at once; the private directory is removed\n"
                "and the report so far printed, marked partial; exit status 130 or 143.\n");
}

enum {
    OPT_DIR = 256,
    OPT_DEFER,
    OPT_DEPTH,
    OPT_SYNC,
    OPT_CEILING,
    OPT_LIST,
};

/* --dir, before the one vocabulary (docs/design.md): the directory under test is --spool. */
static const struct optarg_old old_spellings[] = {{"--dir", "--spool"}, {NULL, NULL}};

static void list_profiles(void)
{
    const struct profile *p;

    for (size_t i = 0; (p = profile_at(i)) != NULL; i++)
        printf("%-10s %s; commit: %s\n", p->name, p->summary, p->commit_marker);
}

static void parse_options(struct raw_options *o, int argc, char **argv)
{
    static const struct option long_options[] = {
        {"spool", required_argument, NULL, OPT_DIR},
        {"dir", required_argument, NULL, OPT_DIR},
        {"profile", required_argument, NULL, 'p'},
        {"workers", required_argument, NULL, 'w'},
        {"defer", required_argument, NULL, OPT_DEFER},
        {"depth", required_argument, NULL, OPT_DEPTH},
        {"sync", required_argument, NULL, OPT_SYNC},
        {"ceiling", no_argument, NULL, OPT_CEILING},
        {"list", no_argument, NULL, OPT_LIST},
        {NULL, 0, NULL, 0},
    };
    struct optgroup g;
    int ch;

    memset(o, 0, sizeof(*o));
    optgroup_init(&g, &o->common,
                  OPTGROUP_NO_OPERANDS | OPTGROUP_LENGTH | OPTGROUP_SIZE | OPTGROUP_RCPTS |
                      OPTGROUP_SEED | OPTGROUP_OUTPUT,
                  "p:w:", long_options, "spoolsim raw", usage);
    g.old = old_spellings;
    o->profile = "postfix";
    o->workers = 20;
    g.seed_what = "the sizes and deferrals";
    while ((ch = optgroup_getopt(&g, argc, argv)) != -1) {
        switch (ch) {
        case OPT_DIR:
            o->dir = optarg_dir(optarg, "--spool");
            break;
        case 'p':
            o->profile = profile_option(optarg);
            break;
        case 'w':
            o->workers = (unsigned)optarg_count(optarg, "--workers", 1, 1000);
            break;
        case OPT_DEFER:
            o->defer_pct = (unsigned)optarg_count(optarg, "--defer", 0, 100);
            break;
        case OPT_DEPTH:
            o->depth = (unsigned)optarg_count(optarg, "--depth", 0, 1000000);
            break;
        case OPT_SYNC:
            if (profile_sync_parse(optarg, &o->sync) != 0)
                msg_usage("bad --sync \"%s\" (profile, fsync, fdatasync or none)", optarg);
            break;
        case OPT_CEILING:
            o->ceiling = 1;
            break;
        case OPT_LIST:
            list_profiles();
            exit(0);
        default:
            msg_panic("option %d not handled", ch);
        }
    }
    optgroup_end(&g);
    if (o->dir == NULL)
        msg_usage("no directory: --spool DIR is required");
}

/* ------------------------------------------------------------ workers */

static struct spool_msg *queue_push(struct raw_worker *w)
{
    struct spool_msg *m = &w->queue[(w->head + w->len) % w->cap];

    w->len++;
    return m;
}

static struct spool_msg queue_pop(struct raw_worker *w)
{
    struct spool_msg m = w->queue[w->head];

    w->head = (w->head + 1) % w->cap;
    w->len--;
    return m;
}

/* Every sync the worker made: fsync, fdatasync and directory fsync. */
static uint64_t worker_syncs(const struct raw_worker *w)
{
    const struct spool_runner *pr = &w->runner;
    uint64_t ops[OP_KIND_COUNT] = {0};
    struct spool_op_totals t;

    spool_runner_ops(pr, ops);
    pr->backend->totals(ops, &pr->pf_stats, &t);
    return spool_backend_syncs(&t);
}

/* The counters after a phase, and the accept's latency (0: not an accept). */
static void publish(struct raw_worker *w, uint64_t accept_ns)
{
    pthread_mutex_lock(&w->lock);
    w->pub.in = w->accepted;
    w->pub.out = w->delivered;
    w->pub.failures = w->failed ? 1 : 0;
    w->pub.fsyncs = worker_syncs(w);
    if (accept_ns)
        histogram_record(&w->pub_latency, accept_ns);
    pthread_mutex_unlock(&w->lock);
}

static int more_to_accept(struct raw_worker *w)
{
    struct raw *raw = w->raw;

    if (raw->opts->common.messages)
        return atomic_fetch_add(&raw->claimed, 1) < raw->opts->common.messages;
    return clock_now_ns() < raw->deadline_ns;
}

/* The oldest queued message: deferred once (as --defer says), or delivered. */
static int move_on(struct raw_worker *w, int draining)
{
    struct spool_msg m = queue_pop(w);

    if (!draining && !m.deferred && w->raw->opts->defer_pct &&
        workload_prng_range(&w->rng, 0, 99) < w->raw->opts->defer_pct) {
        if (spool_runner_run(&w->runner, PHASE_DEFER, &m) != 0)
            return -1;
        w->deferred++;
        *queue_push(w) = m;
        return 0;
    }
    if (spool_runner_run(&w->runner, PHASE_DELIVER, &m) != 0)
        return -1;
    w->delivered++;
    publish(w, 0);
    return 0;
}

static void *worker_main(void *arg)
{
    struct raw_worker *w = arg;
    struct raw *raw = w->raw;
    uint64_t seq = 0;

    /* An interrupt stops the workers where they are: the directory goes as a whole. */
    while (!w->failed && !interrupt_signal() && more_to_accept(w)) {
        struct spool_msg *m = queue_push(w);
        uint64_t t0;

        memset(m, 0, sizeof(*m));
        m->id = ((uint64_t)(w->index + 1) << 32) | ++seq;
        m->rcpts = raw->opts->common.rcpts;
        m->size = (size_t)workload_size_sample(&raw->size, &w->rng);
        t0 = clock_now_ns();
        if (spool_runner_run(&w->runner, PHASE_ACCEPT, m) != 0) {
            w->len--;
            w->failed = 1;
            break;
        }
        w->accepted++;
        publish(w, clock_now_ns() - t0);
        while (w->len > raw->opts->depth && !w->failed && !interrupt_signal())
            w->failed = move_on(w, 0) != 0;
    }
    while (w->len > 0 && !w->failed && !interrupt_signal())
        w->failed = move_on(w, 1) != 0;
    publish(w, 0);
    pthread_mutex_lock(&raw->done_lock);
    raw->done++;
    pthread_cond_signal(&raw->done_cond);
    pthread_mutex_unlock(&raw->done_lock);
    return NULL;
}

/* What the sampler keeps between its looks at the workers. */
struct raw_sampler {
    struct histogram pending; /* accepts since the last timeline point */
    struct histogram all;     /* the run's so far, for the status line's p99 */
    struct progress_out progress;
    struct progress_rate rate;
};

/* Every worker's counters at now_ns, and the accepts since the last look. */
static void collect(struct raw *raw, uint64_t t0, uint64_t now_ns, struct raw_sampler *sm,
                    struct timeline_point *p)
{
    memset(p, 0, sizeof(*p));
    p->t = (double)(now_ns - t0) / 1e9;
    for (unsigned i = 0; i < raw->opts->workers; i++) {
        struct raw_worker *w = &raw->workers[i];

        pthread_mutex_lock(&w->lock);
        p->in += w->pub.in;
        p->out += w->pub.out;
        p->failures += w->pub.failures;
        p->fsyncs += w->pub.fsyncs;
        histogram_merge(&sm->pending, &w->pub_latency);
        histogram_merge(&sm->all, &w->pub_latency);
        histogram_init(&w->pub_latency);
        pthread_mutex_unlock(&w->lock);
    }
}

/* In: accepted; out: delivered; p99 of the accept latency; ETA of -m or --duration. */
static void show_progress(struct raw *raw, struct raw_sampler *sm, const struct timeline_point *p)
{
    const struct raw_options *o = raw->opts;
    struct progress_stats ps = {
        .label = "raw",
        .elapsed_s = p->t,
        .has_rates = 1,
        .has_latency = histogram_count(&sm->all) > 0,
        .p99_ns = histogram_percentile(&sm->all, 99),
        .has_failures = 1,
        .failures = p->failures,
    };

    if (o->common.messages) {
        ps.done = p->in;
        ps.total = o->common.messages;
        ps.count_noun = "msgs";
        ps.eta_s = progress_eta_count(p->t, p->in, o->common.messages);
    } else {
        ps.eta_s = progress_eta_time(p->t, o->common.duration);
    }
    progress_rate_update(&sm->rate, p->t, p->in, p->out, &ps.in_per_s, &ps.out_per_s);
    progress_out_stats(&sm->progress, &ps);
}

/*
 * Until the last worker is done: a timeline point every --interval, the
 * status line every second, and the last point when they are all done;
 * when that was, the end of the run.
 */
static uint64_t sample_until_done(struct raw *raw, uint64_t t0, struct timeline *tl)
{
    uint64_t step = (uint64_t)(raw->opts->common.interval * 1e9), next = t0 + step;
    uint64_t next_progress = t0 + CLOCK_NS_PER_SEC;
    struct raw_sampler *sm = xmalloc(sizeof(*sm));
    struct timeline_point start = {0}, p;
    struct timespec until;
    uint64_t now, wake;

    histogram_init(&sm->pending);
    histogram_init(&sm->all);
    progress_out_init(&sm->progress, stderr, raw->opts->common.progress);
    progress_out_hook_messages(&sm->progress);
    progress_rate_init(&sm->rate);
    if (!progress_out_on(&sm->progress))
        next_progress = UINT64_MAX;
    /* The start is nothing done at t0: the workers may be at work already. */
    timeline_add(tl, &start, NULL);
    pthread_mutex_lock(&raw->done_lock);
    while (raw->done < raw->opts->workers) {
        wake = next < next_progress ? next : next_progress;
        /* clock_now_ns() is CLOCK_MONOTONIC, the clock done_cond waits on */
        until.tv_sec = (time_t)(wake / CLOCK_NS_PER_SEC);
        until.tv_nsec = (long)(wake % CLOCK_NS_PER_SEC);
        if (pthread_cond_timedwait(&raw->done_cond, &raw->done_lock, &until) == ETIMEDOUT) {
            pthread_mutex_unlock(&raw->done_lock);
            now = clock_now_ns();
            collect(raw, t0, now, sm, &p);
            if (now >= next) {
                timeline_add(tl, &p, &sm->pending);
                histogram_init(&sm->pending);
                next += step;
            }
            if (now >= next_progress) {
                show_progress(raw, sm, &p);
                next_progress += CLOCK_NS_PER_SEC;
            }
            pthread_mutex_lock(&raw->done_lock);
        }
    }
    pthread_mutex_unlock(&raw->done_lock);
    now = clock_now_ns();
    collect(raw, t0, now, sm, &p);
    timeline_add(tl, &p, &sm->pending);
    progress_out_clear(&sm->progress); /* no partial line before what follows */
    msg_set_hook(NULL, NULL);          /* the line is gone, and sm with it */
    free(sm);
    return now;
}

/* ------------------------------------------------------------ the run */

static void init_done(struct raw *raw)
{
    pthread_condattr_t attr;

    raw->done = 0;
    pthread_mutex_init(&raw->done_lock, NULL);
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&raw->done_cond, &attr);
    pthread_condattr_destroy(&attr);
}

static int run_profile(struct raw *raw, struct raw_result *res)
{
    const struct raw_options *o = raw->opts;
    uint64_t t0, t1;
    int status = 0;

    raw->workers = xcalloc(o->workers, sizeof(*raw->workers));
    atomic_init(&raw->claimed, 0);
    init_done(raw);
    t0 = clock_now_ns();
    raw->deadline_ns = t0 + (uint64_t)(o->common.duration * 1e9);
    for (unsigned i = 0; i < o->workers; i++) {
        struct raw_worker *w = &raw->workers[i];

        w->raw = raw;
        w->index = i;
        w->cap = o->depth + 2;
        w->queue = xcalloc(w->cap, sizeof(*w->queue));
        workload_prng_seed(&w->rng, o->common.seed * 1000003 + i);
        spool_runner_init(&w->runner, raw->profile, raw->spool, o->sync, i);
        pthread_mutex_init(&w->lock, NULL);
        histogram_init(&w->pub_latency);
        if (pthread_create(&w->thread, NULL, worker_main, w) != 0)
            msg_fatal("cannot start a worker thread");
    }
    t1 = sample_until_done(raw, t0, &res->timeline);
    for (unsigned i = 0; i < o->workers; i++)
        pthread_join(raw->workers[i].thread, NULL);
    res->elapsed_s = (double)(t1 - t0) / 1e9;
    for (unsigned i = 0; i < o->workers; i++) {
        struct raw_worker *w = &raw->workers[i];

        res->accepted += w->accepted;
        res->delivered += w->delivered;
        res->deferred += w->deferred;
        for (unsigned k = 0; k < MEASURE_COUNT; k++)
            histogram_merge(&res->latency[k], &w->runner.latency[k]);
        spool_runner_ops(&w->runner, res->ops);
        pf_spool_stats_add(&res->pf, &w->runner.pf_stats);
        if (w->failed && status == 0) {
            snprintf(res->error, sizeof(res->error), "%s", w->runner.err);
            status = -1;
        }
        spool_runner_free(&w->runner);
        pthread_mutex_destroy(&w->lock);
        free(w->queue);
    }
    free(raw->workers);
    pthread_cond_destroy(&raw->done_cond);
    pthread_mutex_destroy(&raw->done_lock);
    return status;
}

int spoolsim_raw(int argc, char **argv)
{
    struct raw_options opts;
    struct raw raw;
    struct raw_result res;
    struct json_run run;
    char err[PATH_MAX + 256];
    int status, out_status, unsaved = 0;
    FILE *text;

    json_meta_run_init(&run, "spoolsim raw", "spoolsim", argc, argv);
    parse_options(&opts, argc, argv);
    opts.run = &run;
    memset(&raw, 0, sizeof(raw));
    raw.opts = &opts;
    raw.profile = profile_find(opts.profile);
    if (workload_size_parse(opts.common.size, &raw.size, err, sizeof(err)) != 0)
        msg_usage("--size: %s", err);
    if (strlen(opts.dir) > sizeof(raw.work) - 32)
        msg_usage("--spool: the path is too long");
    optarg_work_dir(opts.dir, "--spool", 0);
    if (opts.common.dry_run) {
        char load[64];

        if (opts.common.messages)
            snprintf(load, sizeof(load), "%llu messages", (unsigned long long)opts.common.messages);
        else
            snprintf(load, sizeof(load), "%g s", opts.common.duration);
        optgroup_dry_run_done("would run profile %s with %u workers for %s%s in a private "
                              "directory in %s",
                              raw.profile->name, opts.workers, load,
                              opts.ceiling ? ", then the ceilings," : "", opts.dir);
    }
    interrupt_install();
    text = json_meta_text_stream(opts.common.json);
    optgroup_forget_results(&opts.common);
    if (fileutil_private_dir(raw.work, sizeof(raw.work), opts.dir, "raw") != 0)
        msg_fatal("cannot make a directory in %s: %s", opts.dir, strerror(errno));
    snprintf(raw.spool, sizeof(raw.spool), "%s/spool", raw.work);
    if (spool_runner_setup(raw.profile, raw.spool, err, sizeof(err)) != 0) {
        fileutil_tree_remove(raw.work);
        msg_fatal("%s", err);
    }
    raw_report_init(&res);
    fsinfo_lookup(raw.work, &res.fs);
    if (!opts.common.quiet)
        fprintf(stderr, "spoolsim raw: profile %s, %u workers, in %s\n", raw.profile->name,
                opts.workers, raw.work);
    disk_probe_begin(&res.disk, raw.work, &res.fs);
    status = run_profile(&raw, &res);
    disk_probe_end(&res.disk, (double)res.delivered);
    if (status == 0 && opts.ceiling && !interrupt_signal()) {
        if (!opts.common.quiet)
            fprintf(stderr, "spoolsim raw: measuring the ceilings...\n");
        status = raw_ceiling(&opts, raw.work, res.elapsed_s, &res);
    }
    if (!opts.common.keep || interrupt_signal())
        fileutil_tree_remove(raw.work); /* an interrupted run is not worth keeping */
    else if (!opts.common.quiet)
        fprintf(stderr, "spoolsim raw: kept %s\n", raw.work);
    if (interrupt_signal())
        interrupt_print_partial(text);
    raw_report_print(&opts, raw.profile, &res, text);
    /* A partial run's JSON would read as a whole one: none is written. */
    if (opts.common.json && !interrupt_signal() &&
        raw_report_write_json(&opts, raw.profile, &res) != 0) {
        msg_warn("cannot write %s: %s", opts.common.json, strerror(errno));
        unsaved = 1;
    }
    if (opts.common.csv && !interrupt_signal() &&
        timeline_save_csv(&res.timeline, opts.common.csv) != 0) {
        msg_warn("cannot write %s: %s", opts.common.csv, strerror(errno));
        unsaved = 1;
    }
    timeline_free(&res.timeline);
    json_meta_run_free(&run);
    out_status = interrupt_flush_stdout();
    if (interrupt_signal())
        return interrupt_exit_status();
    if (status != 0) {
        msg_warn("stopped: %s", res.error);
        return EXIT_STATUS_INCOMPLETE;
    }
    return out_status == 0 && !unsaved ? EXIT_STATUS_OK : EXIT_STATUS_BAD;
}
