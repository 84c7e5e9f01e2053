/*
 * bench_compare_report - the model against the real MTA; see bench_compare_report.h.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "bench_compare_report.h"

int bench_compare_report_add(struct bench_compare_side *side, double delivered, double injected)
{
    if (side->runs >= BENCH_COMPARE_RUNS_MAX)
        return -1;
    side->delivered[side->runs] = delivered;
    side->injected[side->runs] = injected;
    side->disk[side->runs] = (struct bench_compare_disk){NAN, NAN, NAN};
    side->runs++;
    return 0;
}

void bench_compare_report_add_disk(struct bench_compare_side *side,
                                   const struct bench_compare_disk *disk)
{
    if (side->runs > 0)
        side->disk[side->runs - 1] = *disk;
}

/* The median of one count over the runs that have it; NAN if none has. */
static double disk_median(const struct bench_compare_side *s, size_t field)
{
    double v[BENCH_COMPARE_RUNS_MAX];
    size_t n = 0;

    for (size_t i = 0; i < s->runs; i++) {
        const double *f = &s->disk[i].bytes_written;

        if (isfinite(f[field]))
            v[n++] = f[field];
    }
    return n ? ab_stats_median(v, n) : NAN;
}

static struct bench_compare_disk disk_medians(const struct bench_compare_side *s)
{
    return (struct bench_compare_disk){disk_median(s, 0), disk_median(s, 1), disk_median(s, 2)};
}

int bench_compare_report_summarize(struct bench_compare *c)
{
    c->ratio = 0;
    c->agree = 0;
    c->have_interval = 0;
    if (c->model.runs == 0 || c->real.runs == 0)
        return -1;
    c->median_model = ab_stats_median(c->model.delivered, c->model.runs);
    c->median_real = ab_stats_median(c->real.delivered, c->real.runs);
    c->injected_model = ab_stats_median(c->model.injected, c->model.runs);
    c->injected_real = ab_stats_median(c->real.injected, c->real.runs);
    c->disk_model = disk_medians(&c->model);
    c->disk_real = disk_medians(&c->real);
    if (c->median_real > 0)
        c->ratio = c->median_model / c->median_real;
    /* 850 against 1000 is 15 % off, whatever the last bit of 0.85 says */
    c->agree = c->ratio > 0 && fabs(c->ratio - 1) <= BENCH_COMPARE_TOLERANCE + 1e-12;
    /* A = the real MTA, B = the model: B/A is the ratio above */
    c->have_interval = ab_stats_compare(c->real.delivered, c->real.runs, c->model.delivered,
                                        c->model.runs, BENCH_COMPARE_SEED, &c->interval) == 0;
    return 0;
}

/* Does the ratio's interval hold ratios inside the tolerance and outside it? */
static int crosses_edge(const struct bench_compare *c)
{
    double lo = c->interval.ci_low, hi = c->interval.ci_high;
    int inside = lo >= 1 - BENCH_COMPARE_TOLERANCE && hi <= 1 + BENCH_COMPARE_TOLERANCE;
    int outside = hi < 1 - BENCH_COMPARE_TOLERANCE || lo > 1 + BENCH_COMPARE_TOLERANCE;

    return !inside && !outside;
}

void bench_compare_report_verdict(const struct bench_compare *c, char *buf, size_t len)
{
    double off = fabs(c->ratio - 1) * 100;
    const char *way = c->ratio >= 1 ? "faster" : "slower";
    size_t used;

    if (c->ratio <= 0) {
        snprintf(buf, len, "no verdict: a side delivered nothing");
        return;
    }
    used = (size_t)snprintf(buf, len,
                            "%s: the model is %.0f %% %s than the real %s (model/%s %.2f; "
                            "tolerance +-%.0f %%)",
                            c->agree ? "agree" : "DISAGREE", off, way, c->mta, c->mta, c->ratio,
                            BENCH_COMPARE_TOLERANCE * 100);
    /* the verdict is only as firm as the ratio: an interval across an edge leaves it open */
    if (c->have_interval && used < len && crosses_edge(c))
        snprintf(buf + used, len - used,
                 "; not settled: the 95 %% interval %.2f-%.2f reaches across the tolerance's "
                 "edge, more runs (--runs) or messages (-m) would tell",
                 c->interval.ci_low, c->interval.ci_high);
}

static void print_disk(FILE *fp, const struct bench_compare_disk *d)
{
    if (!isfinite(d->bytes_written)) {
        fprintf(fp, "not counted");
        return;
    }
    fprintf(fp, "%.1f KiB written, %.2f write I/Os, ", d->bytes_written / 1024, d->write_ios);
    if (isfinite(d->flushes))
        fprintf(fp, "%.2f flushes", d->flushes);
    else
        fprintf(fp, "flushes not counted");
}

void bench_compare_report_print(const struct bench_compare *c, const char *spool_desc, FILE *fp)
{
    size_t runs = c->model.runs > c->real.runs ? c->model.runs : c->real.runs;
    char verdict[500];

    fprintf(fp,
            "compare:    spoolsim relay --model %s against a real %s %s, %zu run%s each, "
            "alternating\n",
            c->mta, c->mta, c->mta_version[0] ? c->mta_version : "(version unknown)", runs,
            runs == 1 ? "" : "s");
    if (spool_desc)
        fprintf(fp, "spool:      %s\n", spool_desc);
    if (c->model_desc[0])
        fprintf(fp, "model:      %s\n", c->model_desc);
    if (c->model_warning[0])
        fprintf(fp, "WARNING:    %s\n", c->model_warning);
    for (size_t i = 0; i < runs; i++) {
        fprintf(fp, "run %-3zu     ", i + 1);
        if (i < c->model.runs)
            fprintf(fp, "model %.1f msgs/s delivered (%.1f injected)", c->model.delivered[i],
                    c->model.injected[i]);
        else
            fprintf(fp, "model -");
        if (i < c->real.runs)
            fprintf(fp, "; %s %.1f (%.1f)\n", c->mta, c->real.delivered[i], c->real.injected[i]);
        else
            fprintf(fp, "; %s -\n", c->mta);
    }
    if (c->model.runs == 0 || c->real.runs == 0) {
        fprintf(fp, "verdict:    none: a side has no run that finished\n");
        return;
    }
    fprintf(fp, "delivered:  model %.1f msgs/s, %s %.1f msgs/s (medians): model/%s %.2f",
            c->median_model, c->mta, c->median_real, c->mta, c->ratio);
    if (c->have_interval)
        fprintf(fp, " (95 %% CI %.2f-%.2f)", c->interval.ci_low, c->interval.ci_high);
    fprintf(fp, "\ninjected:   model %.1f msgs/s, %s %.1f msgs/s (medians)\n", c->injected_model,
            c->mta, c->injected_real);
    if (isfinite(c->disk_model.bytes_written) || isfinite(c->disk_real.bytes_written)) {
        fprintf(fp, "disk:       model ");
        print_disk(fp, &c->disk_model);
        fprintf(fp, "; %s ", c->mta);
        print_disk(fp, &c->disk_real);
        fprintf(fp, " a message (medians; the device's own counts)\n");
    }
    bench_compare_report_verdict(c, verdict, sizeof(verdict));
    fprintf(fp, "verdict:    %s\n", verdict);
}

static void write_side(struct json_writer *w, const char *key, const struct bench_compare_side *s)
{
    json_begin_array(w, key);
    for (size_t i = 0; i < s->runs; i++) {
        json_begin_object(w, NULL);
        json_double(w, "delivered_per_s", s->delivered[i]);
        json_double(w, "injected_per_s", s->injected[i]);
        json_end_object(w);
    }
    json_end_array(w);
}

static void write_disk(struct json_writer *w, const char *key, const struct bench_compare_disk *d,
                       int complete)
{
    json_begin_object(w, key);
    json_double(w, "bytes_written", complete ? d->bytes_written : NAN);
    json_double(w, "write_ios", complete ? d->write_ios : NAN);
    json_double(w, "flushes", complete ? d->flushes : NAN);
    json_end_object(w);
}

void bench_compare_report_write_json(const struct bench_compare *c, struct json_writer *w)
{
    int complete = c->model.runs > 0 && c->real.runs > 0;

    json_string(w, "mta", c->mta);
    json_string(w, "mta_version", c->mta_version[0] ? c->mta_version : NULL);
    json_string(w, "cost_model", c->model_desc[0] ? c->model_desc : NULL);
    json_string(w, "cost_model_warning", c->model_warning[0] ? c->model_warning : NULL);
    write_side(w, "model_runs", &c->model);
    write_side(w, "mta_runs", &c->real);
    json_begin_object(w, "delivered_per_s"); /* the medians */
    json_double(w, "model", complete ? c->median_model : NAN);
    json_double(w, "mta", complete ? c->median_real : NAN);
    json_end_object(w);
    json_begin_object(w, "injected_per_s");
    json_double(w, "model", complete ? c->injected_model : NAN);
    json_double(w, "mta", complete ? c->injected_real : NAN);
    json_end_object(w);
    json_begin_object(w, "disk_per_message"); /* the medians */
    write_disk(w, "model", &c->disk_model, complete);
    write_disk(w, "mta", &c->disk_real, complete);
    json_end_object(w);
    json_double(w, "ratio", c->ratio > 0 ? c->ratio : NAN); /* model / MTA, delivered */
    json_double(w, "ratio_ci_low", c->have_interval ? c->interval.ci_low : NAN);
    json_double(w, "ratio_ci_high", c->have_interval ? c->interval.ci_high : NAN);
    json_double(w, "tolerance", BENCH_COMPARE_TOLERANCE);
    if (complete)
        json_bool(w, "agree", c->agree);
    else
        json_string(w, "agree", NULL);
}
