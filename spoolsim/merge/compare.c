/*
 * spoolsim compare - stored results side by side, with ratios (see
 * spoolsim-compare(1)).
 *
 * The I/O around compare_data: read each result, hand it in, print the
 * table and write the JSON. Nothing runs: the figures are the results'.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare_data.h"
#include "exit_status.h"
#include "fileutil.h"
#include "interrupt.h"
#include "json_meta.h"
#include "msg.h"
#include "optarg.h"
#include "optgroup.h"
#include "spoolsim.h"

static void usage(FILE *fp, const struct optgroup *g)
{
    fprintf(fp, "Usage: spoolsim compare [options] RESULT.json RESULT.json...\n"
                "\n"
                "Stored results side by side: each result's headline figure (delivered_per_s\n"
                "of bench and raw, transactions_per_s of postmark, ...), its median over the\n"
                "runs it holds, and its ratio to the first. Where a result holds repeated runs\n"
                "(ab's sides, bench --compare's, bench -n's), the median's 95 %% bootstrap\n"
                "interval, and that of the ratio where both sides have runs, as ab computes\n"
                "them for live runs.\n"
                "\n"
                "Options:\n");
    optgroup_help(fp, g, OPTGROUP_HELP | OPTGROUP_JSON | OPTGROUP_SEED, 18);
    fprintf(fp, "\n"
                "Exit status: 0 when compared; 1 if the JSON could not be written; 2 for a\n"
                "usage error or a result that cannot be read or has no figure to compare.\n");
}

static void parse_options(int argc, char **argv, struct optgroup_values *v)
{
    static const struct option none[] = {{NULL, 0, NULL, 0}};
    struct optgroup g;
    int ch;

    optgroup_init(&g, v, OPTGROUP_HELP | OPTGROUP_JSON | OPTGROUP_SEED, "", none,
                  "spoolsim compare", usage);
    g.seed_what = "the bootstrap's random numbers";
    while ((ch = optgroup_getopt(&g, argc, argv)) != -1)
        msg_panic("option %d not handled", ch);
    optgroup_end(&g);
    if (argc - optind < 2)
        msg_usage("two results or more to compare (RESULT.json RESULT.json...)");
}

static void report_text(FILE *fp, const struct compare *c)
{
    char row[1024];

    fprintf(fp, "spoolsim compare: %s (%s), against %s\n", c->s[0].metric, c->s[0].unit,
            c->s[0].label);
    fprintf(fp, "%-30s %4s  %-28s %s\n", "result", "runs", "median (95 % CI)", "ratio (95 % CI)");
    for (size_t i = 0; i < c->n; i++) {
        compare_data_format_row(c, i, row, sizeof(row));
        fprintf(fp, "%s\n", row);
    }
}

static int save_json(const char *path, const struct compare *c, const struct json_run *run)
{
    struct json_writer w;

    if (json_meta_begin(&w, path, run) != 0)
        return -1;
    compare_data_write_json(c, &w);
    return json_meta_end(&w);
}

int spoolsim_compare(int argc, char **argv)
{
    struct optgroup_values v;
    struct json_run run;
    struct compare *c = malloc(sizeof(*c)); /* 64 series: too large for the stack */
    char err[1024];
    int status = EXIT_STATUS_OK;

    if (c == NULL)
        msg_fatal("out of memory");
    json_meta_run_init(&run, "spoolsim compare", "spoolsim", argc, argv);
    parse_options(argc, argv, &v);
    compare_data_init(c, v.seed);
    for (int i = optind; i < argc; i++) {
        char *text;
        int added;

        if (v.json && optarg_same_output(v.json, argv[i]))
            msg_usage("--json %s: that is a result to compare", v.json);
        if ((text = fileutil_read_all(argv[i], NULL)) == NULL)
            msg_usage("%s: cannot read: %s", argv[i], strerror(errno));
        added = compare_data_add(c, text, argv[i], err, sizeof(err));
        free(text); /* before a usage error's exit too: the sanitizer build counts it */
        if (added != 0)
            msg_usage("%s", err);
    }
    optgroup_forget_results(&v); /* after the check that it is none of the results */
    compare_data_judge(c);
    report_text(json_meta_text_stream(v.json), c);
    if (v.json && save_json(v.json, c, &run) != 0) {
        msg_warn("cannot write %s: %s", v.json, strerror(errno));
        status = EXIT_STATUS_BAD;
    }
    if (interrupt_flush_stdout() != 0)
        status = EXIT_STATUS_BAD;
    compare_data_free(c);
    free(c);
    json_meta_run_free(&run);
    return status;
}
