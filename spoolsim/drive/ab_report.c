/*
 * ab_report - what `spoolsim ab' measured: the report, its JSON and its
 * exports; see ab.h.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ab.h"
#include "ab_crash.h"
#include "ab_export.h"
#include "ab_stats.h"
#include "interrupt.h"
#include "fileutil.h"
#include "json.h"
#include "json_meta.h"

/*
 * SIGINT and SIGTERM set interrupt_signal() (interrupt.h): the wait for a
 * child checks it, and so does every step between runs.
 */
#define interrupted (interrupt_signal() != 0)

/* ------------------------------------------------------------ the report */

static void print_command(const struct ab_options *o, FILE *fp)
{
    const struct mode *m = o->mode;

    if (m->dir_option == NULL) {
        fprintf(fp, "mode: postmark (spoolsim postmark, the commands of %s), figure: %s\n",
                o->args[0], m->metric);
        return;
    }
    fprintf(fp, "mode: %s (spoolsim %s %s DIR", m->name, m->subcommand, m->dir_option);
    for (int i = 0; i < o->nargs; i++)
        fprintf(fp, " %s", o->args[i]);
    fprintf(fp, "), figure: %s\n", m->metric);
}

/* The verdict line, or why there is none. */
static void verdict_text(const struct ab *ab, const struct ab_result *r, int compared, char *buf,
                         size_t len)
{
    const struct side *few = ab->side[0].ngood < AB_MIN_RUNS ? &ab->side[0] : &ab->side[1];

    if (compared)
        ab_stats_verdict(r, buf, len);
    else
        snprintf(buf, len, "cannot compare: %zu successful run%s of %s, at least %d needed",
                 few->ngood, few->ngood == 1 ? "" : "s", few->name, AB_MIN_RUNS);
}

/* Each side's spread; runs 0 for a side without a successful run. */
static void summarize_sides(const struct ab *ab, struct ab_summary sum[2])
{
    for (int k = 0; k < 2; k++) {
        memset(&sum[k], 0, sizeof(sum[k]));
        if (ab->side[k].ngood)
            ab_stats_summarize(ab->side[k].good, ab->side[k].ngood, &sum[k]);
    }
}

/*
 * With set-ups, what says the toggle did nothing, or not every time: lines
 * ending in "\n", appended to buf. Two sides under the same options on
 * one mount are what an ineffective toggle leaves behind; a setting that
 * is no mount option (an I/O scheduler, a tune2fs feature) leaves it too,
 * hence the advice to look another way.
 */
static void setup_warnings(const struct ab *ab, char *buf, size_t len)
{
    const struct side *a = &ab->side[0], *b = &ab->side[1];
    unsigned same = 0, both = 0;
    const char *options = NULL;
    size_t used = strlen(buf);

    if (!ab->opts->setup[0])
        return;
    for (unsigned i = 0; i < a->done && i < b->done; i++) {
        const struct fsinfo *fa = &a->run_fs[i], *fb = &b->run_fs[i];

        if (!fa->options[0] || !fb->options[0])
            continue;
        both++;
        if (strcmp(fa->options, fb->options) == 0 &&
            strcmp(fa->mount_point, fb->mount_point) == 0 && strcmp(fa->source, fb->source) == 0) {
            same++;
            options = fa->options;
        }
    }
    if (same && used < len)
        used +=
            (size_t)snprintf(buf + used, len - used,
                             "A and B ran under the same mount options (%s) in %u of %u runs: "
                             "the set-ups changed nothing the mount options show (if the setting "
                             "is not a mount option, check it another way)\n",
                             options, same, both);
    for (int k = 0; k < 2; k++) {
        const struct side *s = &ab->side[k];

        for (unsigned i = 1; i < s->done; i++)
            if (strcmp(s->run_fs[i].options, s->run_fs[0].options) != 0) {
                if (used < len)
                    used += (size_t)snprintf(buf + used, len - used,
                                             "%s's runs did not all run under the same mount "
                                             "options: its set-up did not always do the same\n",
                                             s->name);
                break;
            }
    }
}

/* The report's and the JSON's warnings, one a line, each ending in "\n". */
static void all_warnings(const struct ab *ab, const struct ab_summary sum[2],
                         const struct ab_result *r, int compared, char *buf, size_t len)
{
    ab_stats_warnings(&sum[0], &sum[1], compared ? r : NULL, buf, len);
    setup_warnings(ab, buf, len);
}

void ab_report_print(const struct ab *ab, const struct ab_result *r, int compared, FILE *fp)
{
    const struct ab_options *o = ab->opts;
    const char *unit = o->mode->unit;
    char where[1200], verdict[512], warnings[2048];
    struct ab_summary sum[2];

    summarize_sides(ab, sum);
    if (interrupted)
        interrupt_print_partial(fp);
    print_command(o, fp);
    for (int k = 0; k < 2; k++) {
        fsinfo_describe(&ab->side[k].fs, where, sizeof(where));
        fprintf(fp, "%s: %s\n   %s\n", ab->side[k].name, ab->side[k].dir, where);
        if (fsinfo_note(&ab->side[k].fs))
            fprintf(fp, "   note: %s\n", fsinfo_note(&ab->side[k].fs));
        if (o->setup[k])
            fprintf(fp, "   setup: %s\n", o->setup[k]);
        if (ab->side[k].ngood) /* the successful runs' counts, added */
            diskstat_print(fp, "   disk: ", "   note: ", &ab->side[k].disk);
    }
    if (o->prepare)
        fprintf(fp, "prepare: %s\n", o->prepare);
    /* With set-ups the sides are told apart by them: setup_warnings() says whether they were. */
    if (!o->setup[0] && ab_same_filesystem(&ab->side[0], &ab->side[1]))
        fprintf(fp,
                "warning: A and B are on the same filesystem (%s on %s) with the same mount "
                "options: this measures it against itself\n",
                ab->side[0].fs.fstype, ab->side[0].fs.mount_point);
    fprintf(fp, "runs: %u per side, alternating A B, after %u warm-up%s per side (discarded)\n",
            o->runs, o->warmup, o->warmup == 1 ? "" : "s");
    for (unsigned i = 0; i < o->runs; i++) {
        for (int k = 0; k < 2; k++) {
            double f = ab->side[k].figures[i];
            const char *options = ab->side[k].run_fs[i].options;
            char seen[600] = "";

            if (o->setup[0])
                snprintf(seen, sizeof(seen), " (mount options: %s)",
                         options[0] ? options : "unknown");
            if (i >= ab->side[k].done)
                fprintf(fp, "%s run %u: not run (interrupted)\n", ab->side[k].name, i + 1);
            else if (isnan(f))
                fprintf(fp, "%s run %u: failed%s\n", ab->side[k].name, i + 1, seen);
            else
                fprintf(fp, "%s run %u: %.1f %s%s\n", ab->side[k].name, i + 1, f, unit, seen);
        }
    }
    for (int k = 0; k < 2; k++) {
        const struct side *s = &ab->side[k];

        if (s->ngood == 0)
            fprintf(fp, "%s median: none (no successful run)\n", s->name);
        else
            fprintf(fp, "%s median: %.1f %s (%zu run%s)\n", s->name,
                    ab_stats_median(s->good, s->ngood), unit, s->ngood, s->ngood == 1 ? "" : "s");
    }
    for (int k = 0; k < 2; k++) {
        const struct ab_summary *s = &sum[k];

        if (s->runs)
            fprintf(fp, "%s spread: mean %.1f ± %.1f %s (σ), min %.1f, max %.1f\n",
                    ab->side[k].name, s->mean, s->sd, unit, s->min, s->max);
    }
    if (compared)
        fprintf(fp,
                "ratio B/A: %.3f (95 %% CI %.3f–%.3f; bootstrap of the medians, %d resamples, "
                "seed %llu)\n",
                r->ratio, r->ci_low, r->ci_high, AB_RESAMPLES, (unsigned long long)o->common.seed);
    if (ab->failures)
        fprintf(fp, "failed: %u run%s, warm-ups included (see the messages above)\n", ab->failures,
                ab->failures == 1 ? "" : "s");
    all_warnings(ab, sum, r, compared, warnings, sizeof(warnings));
    for (char *line = warnings, *end; (end = strchr(line, '\n')) != NULL; line = end + 1)
        fprintf(fp, "warning: %.*s\n", (int)(end - line), line);
    verdict_text(ab, r, compared, verdict, sizeof(verdict));
    fprintf(fp, "verdict: %s\n", verdict);
    /* the durability beside the speed; none after an interrupt stopped the runs before it */
    for (int k = 0; k < 2 && o->crash && !interrupted; k++)
        ab_crash_print(&ab->side[k], fp);
}

int ab_report_write_json(const struct ab *ab, const struct ab_result *r, int compared)
{
    const struct ab_options *o = ab->opts;
    struct json_writer w;
    char verdict[512], warnings[2048];
    struct ab_summary sum[2];

    if (json_meta_begin(&w, o->common.json, ab->run) != 0)
        return -1;
    summarize_sides(ab, sum);
    json_string(&w, "mode", o->mode->name);
    json_string(&w, "metric", o->mode->metric);
    json_string(&w, "unit", o->mode->unit);
    json_uint(&w, "runs_per_side", o->runs);
    json_uint(&w, "warmup_per_side", o->warmup);
    json_uint(&w, "seed", o->common.seed);
    json_uint(&w, "resamples", AB_RESAMPLES);
    json_string(&w, "prepare", o->prepare);
    json_uint(&w, "crash_points", o->crash);
    json_bool(&w, "same_filesystem", ab_same_filesystem(&ab->side[0], &ab->side[1]));
    if (ab->workload[0]) { /* relay -- --workload FILE: what every run drew from */
        json_begin_object(&w, "workload");
        json_string(&w, "file", ab->workload);
        json_string(&w, "sha256", ab->workload_sha256[0] ? ab->workload_sha256 : NULL);
        json_end_object(&w);
    } else
        json_string(&w, "workload", NULL);
    json_begin_object(&w, "sides");
    for (int k = 0; k < 2; k++) {
        const struct side *s = &ab->side[k];

        json_begin_object(&w, s->name);
        json_meta_write_spool(&w, "spool", s->dir, &s->fs);
        json_string(&w, "setup", o->setup[k]);
        json_begin_array(&w, "runs");
        for (unsigned i = 0; i < o->runs; i++)
            json_double(&w, NULL, s->figures[i]); /* a failed run, NAN, is null */
        json_end_array(&w);
        json_begin_array(&w, "run_details");
        for (unsigned i = 0; i < o->runs; i++) {
            json_begin_object(&w, NULL);
            json_double(&w, "figure", s->figures[i]);
            json_string(&w, "setup", o->setup[k]);
            json_string(&w, "prepare", o->prepare);
            json_meta_write_spool(&w, "spool", s->dir, &s->run_fs[i]);
            diskstat_write_json(&w, "disk", &s->run_disk[i]);
            json_end_object(&w);
        }
        json_end_array(&w);
        json_uint(&w, "successful_runs", s->ngood);
        json_double(&w, "median", s->ngood ? sum[k].median : NAN);
        json_double(&w, "mean", s->ngood ? sum[k].mean : NAN);
        json_double(&w, "stddev", s->ngood ? sum[k].sd : NAN);
        json_double(&w, "min", s->ngood ? sum[k].min : NAN);
        json_double(&w, "max", s->ngood ? sum[k].max : NAN);
        diskstat_write_json(&w, "disk", &s->disk);
        ab_crash_json(&w, ab, s);
        json_end_object(&w);
    }
    json_end_object(&w);
    json_double(&w, "ratio", compared ? r->ratio : NAN);
    json_double(&w, "ci_low", compared ? r->ci_low : NAN);
    json_double(&w, "ci_high", compared ? r->ci_high : NAN);
    json_string(&w, "outcome",
                !compared                   ? "none"
                : r->outcome == AB_B_SLOWER ? "b_slower"
                : r->outcome == AB_B_FASTER ? "b_faster"
                                            : "no_difference");
    verdict_text(ab, r, compared, verdict, sizeof(verdict));
    json_string(&w, "verdict", verdict);
    json_uint(&w, "failed_runs", ab->failures);
    all_warnings(ab, sum, r, compared, warnings, sizeof(warnings));
    json_begin_array(&w, "warnings");
    for (char *line = warnings, *end; (end = strchr(line, '\n')) != NULL; line = end + 1) {
        *end = '\0';
        json_string(&w, NULL, line);
    }
    json_end_array(&w);
    return json_meta_end(&w);
}

/* --export-markdown or --export-csv: 0, or -1 with errno. */
int ab_report_write_export(const struct ab *ab, const struct ab_result *r, int compared,
                           const char *path, int markdown)
{
    struct ab_export e = {.unit = ab->opts->mode->unit, .result = compared ? r : NULL};
    char *text;
    int status;

    for (int k = 0; k < 2; k++)
        e.dir[k] = ab->side[k].dir;
    summarize_sides(ab, e.side);
    text = markdown ? ab_export_markdown(&e) : ab_export_csv(&e);
    status = fileutil_write_output(path, text, strlen(text));
    free(text);
    return status;
}
