/*
 * bench_repeat - the same bench N times after a warm-up; see bench_repeat.h.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ab_stats.h"
#include "bench_compare.h"
#include "bench_repeat.h"
#include "exit_status.h"
#include "fileutil.h"
#include "fsinfo.h"
#include "interrupt.h"
#include "json_meta.h"
#include "json_read.h"
#include "msg.h"
#include "xalloc.h"

#define interrupted (interrupt_signal() != 0)

enum { ONCE_UNKNOWN = -1, ONCE_NO = 0, ONCE_YES = 1 };

struct repeat {
    unsigned asked;    /* N */
    unsigned done;     /* measured runs made (successful or not) */
    double *delivered; /* per measured run; NAN for one that did not finish */
    double *injected;  /* the same */
    int *exactly_once; /* ONCE_* per run */
    double *good;      /* the finished runs' delivered_per_s, for the statistics */
    double *good_in;   /* their injected_per_s */
    size_t ngood;
    unsigned not_once; /* finished runs that did not deliver exactly once */
    unsigned failed;   /* runs that did not finish (the warm-up too) */
    struct ab_summary sum, sum_in;
    double ci_low, ci_high;
    int have_interval;
};

/*
 * One child run: 0 and its figures in *delivered, *injected, *once, or
 * -1 (said why) when it did not finish or a signal came.
 */
static int run_one(const struct bench_options *o, struct drive *d, int argc, char **argv,
                   const unsigned char *skip, unsigned number, double *delivered, double *injected,
                   int *once)
{
    char name[32];
    int status, b;
    char *text;

    if (number == 0)
        snprintf(name, sizeof(name), "warmup");
    else
        snprintf(name, sizeof(name), "run-%u", number);
    if (!o->common.quiet) {
        if (number == 0)
            fprintf(stderr, "spoolsim bench: warm-up run (not counted)...\n");
        else
            fprintf(stderr, "spoolsim bench: run %u of %u...\n", number, o->runs);
    }
    text = bench_compare_child(d, argc, argv, skip, name, NULL, &status);
    if (interrupted) {
        free(text);
        return -1;
    }
    if (text == NULL || json_read_number(text, "delivered_per_s", delivered) != 0 ||
        json_read_number(text, "injected_per_s", injected) != 0) {
        msg_warn("%s did not finish (exit status %d):", number ? name : "the warm-up run", status);
        drive_show_errors(d, name, "bench");
        free(text);
        return -1;
    }
    *once = json_read_bool(text, "exactly_once", &b) == 0 ? (b ? ONCE_YES : ONCE_NO) : ONCE_UNKNOWN;
    free(text);
    if (!o->common.quiet && number == 0)
        fprintf(stderr, "spoolsim bench: warm-up: %.1f msgs/s delivered%s\n", *delivered,
                *once == ONCE_NO ? ", NOT exactly once" : "");
    else if (!o->common.quiet)
        fprintf(stderr, "spoolsim bench: run %u of %u: %.1f msgs/s delivered%s\n", number, o->runs,
                *delivered, *once == ONCE_NO ? ", NOT exactly once" : "");
    return 0;
}

static void summarize(struct repeat *r)
{
    r->have_interval = 0;
    if (r->ngood == 0)
        return;
    ab_stats_summarize(r->good, r->ngood, &r->sum);
    ab_stats_summarize(r->good_in, r->ngood, &r->sum_in);
    r->have_interval = ab_stats_median_interval(r->good, r->ngood, BENCH_REPEAT_SEED, &r->ci_low,
                                                &r->ci_high) == 0;
}

static void print_spread(FILE *fp, const char *label, const struct ab_summary *s)
{
    fprintf(fp, "%-13s median %.1f msgs/s, mean %.1f, sd %.1f (%.1f %%), min %.1f, max %.1f\n",
            label, s->median, s->mean, s->sd, s->mean > 0 ? 100 * s->sd / s->mean : 0, s->min,
            s->max);
}

static void print_report(const struct repeat *r, const char *spool, FILE *fp)
{
    char desc[1200];
    struct fsinfo fs;

    fsinfo_lookup(spool, &fs);
    fsinfo_describe(&fs, desc, sizeof(desc));
    fprintf(fp, "spool:        %s\n              %s\n", spool, desc);
    fprintf(fp, "runs:         %zu of %u finished, after %d warm-up run (not counted)\n", r->ngood,
            r->asked, BENCH_REPEAT_WARMUPS);
    if (r->ngood == 0) {
        fprintf(fp, "delivered:    no run finished: no figure\n");
        return;
    }
    print_spread(fp, "delivered:", &r->sum);
    if (r->have_interval)
        fprintf(fp, "              95 %% CI of the median %.1f-%.1f (bootstrap, %d resamples)\n",
                r->ci_low, r->ci_high, AB_RESAMPLES);
    else
        fprintf(fp, "              one run: no spread to tell (-n 2 or more)\n");
    print_spread(fp, "injected:", &r->sum_in);
    fprintf(fp, "per run:     ");
    for (unsigned i = 0; i < r->done; i++) {
        if (isfinite(r->delivered[i]))
            fprintf(fp, " %.1f", r->delivered[i]);
        else
            fprintf(fp, " failed");
    }
    fprintf(fp, "\n");
    if (r->not_once)
        fprintf(fp, "exactly once: NO in %u of %zu runs\n", r->not_once, r->ngood);
}

static void write_numbers(struct json_writer *w, const char *key, const double *v, unsigned n)
{
    json_begin_inline_array(w, key);
    for (unsigned i = 0; i < n; i++)
        json_double(w, NULL, v[i]); /* NAN: null, a run that did not finish */
    json_end_array(w);
}

static void write_summary(struct json_writer *w, const char *key, const struct repeat *r,
                          const struct ab_summary *s)
{
    int any = r->ngood > 0;

    json_begin_object(w, key);
    json_double(w, "median", any ? s->median : NAN);
    json_double(w, "mean", any ? s->mean : NAN);
    json_double(w, "stddev", any ? s->sd : NAN);
    json_double(w, "min", any ? s->min : NAN);
    json_double(w, "max", any ? s->max : NAN);
    json_end_object(w);
}

/* 0, or -1 when the JSON could not be written whole (said). */
static int write_json(const struct bench_options *o, const struct repeat *r, const char *spool)
{
    struct json_writer w;
    struct fsinfo fs;

    if (json_meta_begin(&w, o->common.json, o->run) != 0) {
        msg_warn("cannot write %s: %s", o->common.json, strerror(errno));
        return -1;
    }
    fsinfo_lookup(spool, &fs);
    json_meta_write_spool(&w, "spool", spool, &fs);
    json_uint(&w, "runs", r->asked);
    json_uint(&w, "warmup_runs", BENCH_REPEAT_WARMUPS);
    json_begin_object(&w, "repeated");
    json_string(&w, "metric", "delivered_per_s");
    write_numbers(&w, "runs", r->delivered, r->done);
    write_numbers(&w, "injected_runs", r->injected, r->done);
    json_begin_inline_array(&w, "exactly_once");
    for (unsigned i = 0; i < r->done; i++) {
        if (r->exactly_once[i] == ONCE_UNKNOWN)
            json_string(&w, NULL, NULL);
        else
            json_bool(&w, NULL, r->exactly_once[i] == ONCE_YES);
    }
    json_end_array(&w);
    json_uint(&w, "successful_runs", r->ngood);
    json_double(&w, "median", r->ngood ? r->sum.median : NAN);
    json_double(&w, "ci_low", r->have_interval ? r->ci_low : NAN);
    json_double(&w, "ci_high", r->have_interval ? r->ci_high : NAN);
    json_uint(&w, "seed", BENCH_REPEAT_SEED);
    json_uint(&w, "resamples", AB_RESAMPLES);
    write_summary(&w, "summary", r, &r->sum);
    write_summary(&w, "injected_summary", r, &r->sum_in);
    json_end_object(&w);
    if (json_meta_end(&w) != 0) {
        msg_warn("cannot write %s: %s", o->common.json, strerror(errno));
        return -1;
    }
    return 0;
}

int bench_repeat_main(const struct bench_options *o, struct drive *d, int argc, char **argv,
                      const unsigned char *skip)
{
    const char *spool = o->spool_parent ? o->spool_parent : fileutil_tmp_dir();
    struct repeat r;
    double dv, iv;
    int once, status = EXIT_STATUS_OK;

    memset(&r, 0, sizeof(r));
    r.asked = o->runs;
    r.delivered = xcalloc(o->runs, sizeof(double));
    r.injected = xcalloc(o->runs, sizeof(double));
    r.exactly_once = xcalloc(o->runs, sizeof(int));
    r.good = xcalloc(o->runs, sizeof(double));
    r.good_in = xcalloc(o->runs, sizeof(double));
    drive_make_work_dir(d, NULL, "TMPDIR", "repeat");
    if (run_one(o, d, argc, argv, skip, 0, &dv, &iv, &once) != 0 && !interrupted)
        r.failed++; /* the runs go on: the warm-up warms even when it fails */
    for (unsigned i = 0; i < o->runs && !interrupted; i++) {
        r.done++;
        if (run_one(o, d, argc, argv, skip, i + 1, &dv, &iv, &once) != 0) {
            r.delivered[i] = r.injected[i] = NAN;
            r.exactly_once[i] = ONCE_UNKNOWN;
            if (!interrupted)
                r.failed++;
            continue;
        }
        r.delivered[i] = dv;
        r.injected[i] = iv;
        r.exactly_once[i] = once;
        r.good[r.ngood] = dv;
        r.good_in[r.ngood++] = iv;
        if (once == ONCE_NO || (once == ONCE_UNKNOWN && !o->discard))
            r.not_once++;
    }
    summarize(&r);
    if (interrupted)
        interrupt_print_partial(json_meta_text_stream(o->common.json));
    print_report(&r, spool, json_meta_text_stream(o->common.json));
    if (o->common.json && !interrupted && write_json(o, &r, spool) != 0)
        status = EXIT_STATUS_BAD;
    drive_remove_work(d);
    if (r.failed)
        status = EXIT_STATUS_INCOMPLETE;
    else if (r.not_once)
        status = EXIT_STATUS_BAD;
    if (interrupt_flush_stdout() != 0 && status == EXIT_STATUS_OK)
        status = EXIT_STATUS_BAD;
    free(r.delivered);
    free(r.injected);
    free(r.exactly_once);
    free(r.good);
    free(r.good_in);
    if (interrupted)
        return interrupt_exit_status();
    return status;
}
