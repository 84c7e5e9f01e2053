/*
 * ab_compare - the model's A/B against the real MTA's; see ab_compare.h.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "exit_status.h"
#include "ab_compare.h"
#include "ab_compare_report.h"
#include "drive.h"
#include "fileutil.h"
#include "interrupt.h"
#include "json_meta.h"
#include "json_read.h"
#include "msg.h"
#include "xalloc.h"

/*
 * Run argv with this program's standard output and error (its output on
 * standard error when ours holds the JSON alone, --json -): its exit
 * status, or -1.
 */
static int run_here(char *const argv[], FILE *text)
{
    int status;
    pid_t pid;

    fflush(NULL);
    if ((pid = fork()) < 0) {
        msg_warn("fork: %s", strerror(errno));
        return -1;
    }
    if (pid == 0) {
        if (text == stderr)
            dup2(STDERR_FILENO, STDOUT_FILENO);
        execv(argv[0], argv);
        _exit(127);
    }
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    return drive_exit_status(status);
}

/* A pass's ratio and medians from its JSON report; have stays 0 without them. */
static void read_pass(const char *path, struct ab_compare_pass *p)
{
    char *json = fileutil_read_all(path, NULL);

    memset(p, 0, sizeof(*p));
    p->ci_low = p->ci_high = NAN;
    if (json == NULL)
        return;
    if (json_read_number(json, "ratio", &p->ratio) == 0 &&
        json_read_number(json, "sides.A.median", &p->median_a) == 0 &&
        json_read_number(json, "sides.B.median", &p->median_b) == 0) {
        p->have = 1;
        if (json_read_number(json, "ci_low", &p->ci_low) != 0 ||
            json_read_number(json, "ci_high", &p->ci_high) != 0)
            p->ci_low = p->ci_high = NAN;
    }
    free(json);
}

/* One pass: ab again, with --mta MTA for the real one. */
static int run_pass(const struct ab_options *o, char **argv, const char *self, const char *json,
                    int real)
{
    int n = 0, status, first = o->opts_end;
    char **args = xcalloc((size_t)(first + 12 + (o->one_dir ? 1 : 2) + o->nargs), sizeof(*args));

    args[n++] = (char *)self;
    args[n++] = "ab";
    for (int i = 1; i < first; i++)
        args[n++] = argv[i];
    args[n++] = "--compare=none";
    args[n++] = "--json";
    args[n++] = (char *)json;
    args[n++] = (char *)o->dir[0];
    if (!o->one_dir)
        args[n++] = (char *)o->dir[1];
    args[n++] = "--";
    args[n++] = "relay";
    for (int i = 0; i < o->nargs; i++)
        args[n++] = o->args[i];
    args[n++] = real ? "--mta" : "--profile";
    args[n++] = (char *)o->compare;
    args[n] = NULL;
    if (!o->common.quiet)
        fprintf(stderr, "spoolsim ab: --compare: the A/B %s\n",
                real ? "with the real MTA in the relay's place" : "with the relay's model");
    status = run_here(args, json_meta_text_stream(o->common.json));
    free(args);
    return status;
}

int ab_compare_main(const struct ab_options *o, int argc, char **argv, const struct json_run *run)
{
    struct drive d = {0};
    struct ab_compare c = {.mta = o->compare, .unit = o->mode->unit};
    char model_json[PATH_MAX], real_json[PATH_MAX];
    int failed = 0;

    (void)argc;
    drive_find_self(&d);
    drive_make_work_dir(&d, NULL, "TMPDIR", "ab-compare");
    drive_path(&d, "model.json", model_json);
    drive_path(&d, "mta.json", real_json);
    failed |= run_pass(o, argv, d.self, model_json, 0) != 0;
    if (!interrupt_signal())
        failed |= run_pass(o, argv, d.self, real_json, 1) != 0;
    read_pass(model_json, &c.predicted);
    read_pass(real_json, &c.real);
    drive_remove_work(&d);
    ab_compare_report_judge(&c);
    fputc('\n', json_meta_text_stream(o->common.json));
    ab_compare_report_print(&c, json_meta_text_stream(o->common.json));
    if (o->common.json && !interrupt_signal()) {
        struct json_writer w;

        if (json_meta_begin(&w, o->common.json, run) != 0) {
            msg_warn("cannot write %s: %s", o->common.json, strerror(errno));
            failed = 1;
        } else {
            ab_compare_report_write_json(&c, &w);
            if (json_meta_end(&w) != 0) {
                msg_warn("cannot write %s: %s", o->common.json, strerror(errno));
                failed = 1;
            }
        }
    }
    if (interrupt_flush_stdout() != 0)
        failed = 1;
    if (interrupt_signal())
        return interrupt_exit_status();
    return failed ? EXIT_STATUS_BAD : EXIT_STATUS_OK;
}
