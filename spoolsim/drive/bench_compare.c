/*
 * bench_compare - the model against the real MTA, run by run; see bench_compare.h.
 */
#include "config.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>

#include "exit_status.h"
#include "bench_compare.h"
#include "bench_compare_report.h"
#include "fileutil.h"
#include "fsinfo.h"
#include "interrupt.h"
#include "json_meta.h"
#include "json_read.h"
#include "msg.h"
#include "xalloc.h"

#define interrupted (interrupt_signal() != 0)

enum compare_side { SIDE_MODEL, SIDE_MTA };

struct compare_run {
    const struct bench_options *o;
    struct drive *d;
    int argc;
    char **argv;
    const unsigned char *skip; /* argv indices not passed on */
    struct bench_compare c;
};

/* What a side's first report says of it: the model's description, the MTA's version. */
static void read_identity(struct compare_run *r, enum compare_side side, const char *json)
{
    struct bench_compare *c = &r->c;

    if (side == SIDE_MODEL && c->model_desc[0] == 0) {
        json_read_string(json, "cost_model", c->model_desc, sizeof(c->model_desc));
        if (json_read_string(json, "cost_model_warning", c->model_warning,
                             sizeof(c->model_warning)) != 0)
            c->model_warning[0] = 0;
    }
    if (side == SIDE_MTA && c->mta_version[0] == 0 &&
        json_read_string(json, "mta_version", c->mta_version, sizeof(c->mta_version)) != 0)
        c->mta_version[0] = 0;
}

/* The run's block-device counts per message (bench's "disk"), where it has them. */
static void read_disk(const char *json, struct bench_compare_side *side)
{
    struct bench_compare_disk d = {NAN, NAN, NAN};

    if (json_read_number(json, "disk.per_message.bytes_written", &d.bytes_written) != 0)
        return; /* no device (tmpfs), or not counted */
    if (json_read_number(json, "disk.per_message.write_ios", &d.write_ios) != 0)
        d.write_ios = NAN;
    if (json_read_number(json, "disk.per_message.flushes", &d.flushes) != 0)
        d.flushes = NAN;
    bench_compare_report_add_disk(side, &d);
}

char *bench_compare_child(struct drive *d, int argc, char **argv, const unsigned char *skip,
                          const char *name, const char *const extra[], int *status)
{
    char file[80], json[PATH_MAX];
    char **args = xcalloc((size_t)argc + 16, sizeof(*args));
    struct drive_child child = {0};
    int n = 0;

    snprintf(file, sizeof(file), "%s.json", name);
    drive_path(d, file, json);
    args[n++] = d->self;
    args[n++] = "bench";
    for (int i = 1; i < argc; i++)
        if (!skip[i])
            args[n++] = argv[i];
    args[n++] = "-q"; /* the report is this one's: theirs are in their JSON */
    args[n++] = "--json";
    args[n++] = json;
    for (int i = 0; extra && extra[i] && n < argc + 15; i++)
        args[n++] = (char *)extra[i];
    args[n] = NULL;
    *status =
        drive_spawn_driver(d, &child, name, args) == 0 ? drive_exit_status(drive_reap(&child)) : -1;
    free(args);
    if (interrupted)
        return NULL;
    return fileutil_read_all(json, NULL);
}

/*
 * Run `number' of one side as a child bench whose report goes to
 * WORK/NAME.json: 0 with its rates added, or -1 (said why) when it did
 * not finish or a signal came.
 */
static int run_side(struct compare_run *r, enum compare_side side, unsigned number)
{
    const struct bench_options *o = r->o;
    const char *what = side == SIDE_MODEL ? "model" : o->compare;
    const char *const extra[] = {side == SIDE_MODEL ? "--profile" : "--mta", o->compare, NULL};
    char name[48];
    double delivered, injected, lost = 0, duplicated = 0;
    int status;
    char *text;

    snprintf(name, sizeof(name), "%s-%u", what, number);
    if (!o->common.quiet)
        fprintf(stderr, "spoolsim bench: run %u of %u: %s...\n", number, o->runs,
                side == SIDE_MODEL ? "the relay and its model" : o->compare);
    text = bench_compare_child(r->d, r->argc, r->argv, r->skip, name, extra, &status);
    if (interrupted) {
        free(text);
        return -1;
    }
    if (text == NULL || json_read_number(text, "delivered_per_s", &delivered) != 0 ||
        json_read_number(text, "injected_per_s", &injected) != 0) {
        msg_warn("run %u of the %s did not finish (exit status %d):", number, what, status);
        drive_show_errors(r->d, name, what);
        free(text);
        return -1;
    }
    read_identity(r, side, text);
    json_read_number(text, "lost", &lost);
    json_read_number(text, "duplicated", &duplicated);
    if (lost > 0 || duplicated > 0)
        msg_warn("run %u of the %s: %.0f messages lost, %.0f duplicated", number, what, lost,
                 duplicated);
    bench_compare_report_add(side == SIDE_MODEL ? &r->c.model : &r->c.real, delivered, injected);
    read_disk(text, side == SIDE_MODEL ? &r->c.model : &r->c.real);
    free(text);
    if (!o->common.quiet)
        fprintf(stderr, "spoolsim bench: run %u of %u: %s %.1f msgs/s delivered\n", number, o->runs,
                what, delivered);
    return 0;
}

/* 0, or -1 when the JSON could not be written whole (said). */
static int write_json(const struct compare_run *r, const char *spool, const struct fsinfo *fs)
{
    struct json_writer w;

    if (json_meta_begin(&w, r->o->common.json, r->o->run) != 0) {
        msg_warn("cannot write %s: %s", r->o->common.json, strerror(errno));
        return -1;
    }
    json_meta_write_spool(&w, "spool", spool, fs);
    json_uint(&w, "runs", r->o->runs);
    bench_compare_report_write_json(&r->c, &w);
    if (json_meta_end(&w) != 0) {
        msg_warn("cannot write %s: %s", r->o->common.json, strerror(errno));
        return -1;
    }
    return 0;
}

int bench_compare_main(const struct bench_options *o, struct drive *d, int argc, char **argv,
                       const unsigned char *skip)
{
    struct compare_run r = {.o = o, .d = d, .argc = argc, .argv = argv, .skip = skip};
    const char *spool = o->spool_parent ? o->spool_parent : getenv("TMPDIR");
    char desc[1200], line[PATH_MAX + 1300];
    struct fsinfo fs;
    int failed = 0;

    r.c.mta = o->compare;
    if (spool == NULL || *spool == 0)
        spool = "/tmp";
    drive_make_work_dir(d, NULL, "TMPDIR", "compare");
    /* Alternating which side goes first: a drift over the runs (a disk filling, the cache
       warming) then falls on both. */
    for (unsigned i = 0; i < o->runs && !failed && !interrupted; i++) {
        enum compare_side first = i % 2 == 0 ? SIDE_MODEL : SIDE_MTA;

        failed = run_side(&r, first, i + 1) != 0 ||
                 run_side(&r, first == SIDE_MODEL ? SIDE_MTA : SIDE_MODEL, i + 1) != 0;
    }
    bench_compare_report_summarize(&r.c);
    fsinfo_lookup(spool, &fs);
    fsinfo_describe(&fs, desc, sizeof(desc));
    snprintf(line, sizeof(line), "%s\n            %s", spool, desc);
    if (interrupted)
        interrupt_print_partial(json_meta_text_stream(o->common.json));
    bench_compare_report_print(&r.c, line, json_meta_text_stream(o->common.json));
    if (o->common.json && !interrupted && !failed && write_json(&r, spool, &fs) != 0)
        failed = 1;
    drive_remove_work(d);
    if (interrupt_flush_stdout() != 0)
        return EXIT_STATUS_BAD;
    if (interrupted)
        return interrupt_exit_status();
    return failed ? EXIT_STATUS_INCOMPLETE : EXIT_STATUS_OK;
}
