/*
 * spoolsim merge - the results of smtp-source on several hosts as one
 * report (see spoolsim-merge(1) and docs/multi-host.md).
 *
 * The I/O around merge_data: read each result, hand it in, write the
 * merged summary (text on standard output, as smtp-source prints its own)
 * and the merged JSON. Nothing is written unless every result merged.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exit_status.h"
#include "fileutil.h"
#include "json.h"
#include "json_meta.h"
#include "merge_data.h"
#include "msg.h"
#include "optarg.h"
#include "optgroup.h"
#include "spoolsim.h"

struct merge_options {
    const char *output; /* -o: the merged JSON, NULL: none */
    int no_summary;
};

static void usage(FILE *fp, const struct optgroup *g)
{
    fprintf(fp, "Usage: spoolsim merge [options] RESULT.json...\n"
                "\n"
                "Merges the JSON results of smtp-source runs (one per load host, started\n"
                "together with --start-at) into one: counts added, latency histograms added\n"
                "bucket by bucket (the percentiles exact, never averaged), rates over the\n"
                "union of the windows on the wall clock, timeline rows added by wall-clock\n"
                "interval. Results that cannot be merged are refused: not smtp-source's,\n"
                "histograms of another layout, another --interval, windows that do not\n"
                "overlap, the same result twice (one file, one --id, or one run).\n"
                "\n"
                "Options:\n"
                "  -o, --output FILE   the merged result as JSON (- = stdout)\n"
                "  --no-summary        no text summary on standard output\n");
    optgroup_help(fp, g, OPTGROUP_HELP, 18);
    fprintf(fp, "\n"
                "Exit status: 0 when merged; 1 if the output could not be written; 2 for a\n"
                "usage error or results that cannot be read or merged.\n");
}

enum { OPT_NO_SUMMARY = 256 };

static const struct option long_options[] = {
    {"output", required_argument, NULL, 'o'},
    {"no-summary", no_argument, NULL, OPT_NO_SUMMARY},
    {NULL, 0, NULL, 0},
};

static void parse_options(int argc, char **argv, struct merge_options *o)
{
    struct optgroup_values common;
    struct optgroup g;
    int ch;

    memset(o, 0, sizeof(*o));
    optgroup_init(&g, &common, OPTGROUP_HELP, "o:", long_options, "spoolsim merge", usage);
    while ((ch = optgroup_getopt(&g, argc, argv)) != -1) {
        switch (ch) {
        case 'o':
            optarg_output_file(optarg, "-o");
            o->output = optarg;
            break;
        case OPT_NO_SUMMARY:
            o->no_summary = 1;
            break;
        default:
            msg_panic("option %d not handled", ch);
        }
    }
    if (optind >= argc)
        msg_usage("no results to merge (RESULT.json...)");
}

static void print_counts(FILE *fp, const char *label, const struct merge_counts *c)
{
    if (c->n == 0)
        return;
    fprintf(fp, "%s", label);
    for (size_t i = 0; i < c->n; i++)
        fprintf(fp, " %s=%llu", c->key[i], (unsigned long long)c->value[i]);
    fprintf(fp, "\n");
}

static void report_text(FILE *fp, const struct merge *m)
{
    double secs = merge_data_window_s(m);

    fprintf(fp,
            "spoolsim merge: %zu results, %llu message%s delivered, %llu failed, of %llu "
            "attempted in %.3f s\n",
            m->n, (unsigned long long)m->counts.delivered, m->counts.delivered == 1 ? "" : "s",
            (unsigned long long)m->counts.failed, (unsigned long long)m->counts.attempted, secs);
    if (secs > 0)
        fprintf(fp, "spoolsim merge: %.1f msgs/s, %.3f MB/s, %.1f recipients/s, %llu connections\n",
                (double)m->counts.delivered / secs, (double)m->counts.bytes / secs / 1e6,
                (double)m->counts.recipients / secs, (unsigned long long)m->counts.connections);
    for (size_t i = 0; i < m->n; i++) {
        const struct merge_input *in = &m->inputs[i];

        fprintf(fp, "  %-20s %s %llu delivered, %llu failed, start %+.3f s, end %+.3f s\n",
                in->id[0] ? in->id : in->name, in->target, (unsigned long long)in->counts.delivered,
                (unsigned long long)in->counts.failed, in->start - m->start, in->end - m->start);
    }
    fprintf(fp, "latency:\n");
    for (size_t i = 0; i < m->stages; i++)
        if (histogram_count(&m->latency[i]) > 0)
            histogram_print_text(fp, m->stage[i], &m->latency[i]);
    if (m->counts.failed > 0) {
        print_counts(fp, "failures:", &m->failures);
        print_counts(fp, "connect errors:", &m->connect_errors);
        print_counts(fp, "failures by code:", &m->by_code);
    }
}

static void write_counts(struct json_writer *w, const char *key, const struct merge_counts *c)
{
    json_begin_object(w, key);
    for (size_t i = 0; i < c->n; i++)
        json_uint(w, c->key[i], c->value[i]);
    json_end_object(w);
}

static void write_json(FILE *fp, const struct merge *m, const struct json_run *run)
{
    struct json_writer w;
    double secs = merge_data_window_s(m);

    json_meta_begin_stream(&w, fp, run);
    json_begin_array(&w, "inputs");
    for (size_t i = 0; i < m->n; i++) {
        const struct merge_input *in = &m->inputs[i];

        json_begin_object(&w, NULL);
        json_string(&w, "file", in->name);
        json_string(&w, "id", in->id[0] ? in->id : NULL);
        json_string(&w, "target", in->target);
        json_time(&w, "start_time", in->start);
        json_time(&w, "end_time", in->end);
        json_uint(&w, "attempted", in->counts.attempted);
        json_uint(&w, "delivered", in->counts.delivered);
        json_uint(&w, "failed", in->counts.failed);
        json_end_object(&w);
    }
    json_end_array(&w);
    json_time(&w, "start_time", m->start);
    json_time(&w, "end_time", m->end);
    json_double(&w, "elapsed_s", secs);
    source_counts_write_json(&w, &m->counts, secs);
    json_begin_object(&w, "latency");
    for (size_t i = 0; i < m->stages; i++)
        histogram_write_json(&w, m->stage[i], &m->latency[i]);
    json_end_object(&w);
    json_double(&w, "interval_s", m->interval_s);
    timeline_write_json(&m->timeline, &w, "timeline");
    timeline_write_latency_json(&m->timeline, &w, "timeline_latency");
    write_counts(&w, "failures", &m->failures);
    write_counts(&w, "connect_errors", &m->connect_errors);
    write_counts(&w, "failures_by_code", &m->by_code);
    json_meta_end_stream(&w);
}

/* The JSON whole at path (through a temporary file renamed into place), or none there: 0, or -1. */
static int save_json(const char *path, const struct merge *m, const struct json_run *run)
{
    struct fileutil_output out;
    FILE *mem = fileutil_output_open(&out, path);

    if (mem == NULL)
        return -1;
    write_json(mem, m, run);
    return fileutil_output_close(&out);
}

int spoolsim_merge(int argc, char **argv)
{
    struct merge_options o;
    struct json_run run;
    struct merge m;
    char err[512];
    int status = 0;

    json_meta_run_init(&run, "spoolsim merge", "spoolsim", argc, argv);
    parse_options(argc, argv, &o);
    merge_data_init(&m);
    for (int i = optind; i < argc; i++) {
        char *text = fileutil_read_all(argv[i], NULL);

        if (text == NULL)
            msg_usage("%s: cannot read: %s", argv[i], strerror(errno));
        /* By device and inode: ./r.json, a link to it and r.json are one file. */
        if (o.output && optarg_same_output(o.output, argv[i]))
            msg_usage("-o %s: that is a result to merge (%s)", o.output, argv[i]);
        for (int j = optind; j < i; j++)
            if (optarg_same_output(argv[j], argv[i]))
                msg_usage("%s and %s are the same file: the same result twice", argv[j], argv[i]);
        if (merge_data_add(&m, text, argv[i], err, sizeof(err)) != 0)
            msg_usage("%s", err);
        free(text);
    }
    if (merge_data_finish(&m, err, sizeof(err)) != 0)
        msg_usage("%s", err);
    if (!o.no_summary && !(o.output && strcmp(o.output, "-") == 0))
        report_text(stdout, &m);
    if (o.output && save_json(o.output, &m, &run) != 0) {
        msg_warn("cannot write %s: %s", o.output, strerror(errno));
        status = EXIT_STATUS_BAD;
    }
    merge_data_free(&m);
    json_meta_run_free(&run);
    return status;
}
