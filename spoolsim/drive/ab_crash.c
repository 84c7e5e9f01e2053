/*
 * ab_crash - spoolsim ab --crash; see ab_crash.h.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "ab_crash.h"
#include "exit_status.h"
#include "fileutil.h"
#include "json_read.h"

void ab_crash_argv(const struct ab *ab, const struct side *s, int dry_run, const char *json,
                   int progress, struct ab_crash_argv *a)
{
    const struct ab_options *o = ab->opts;
    char **argv = a->v;
    int n = 0;

    snprintf(a->points, sizeof(a->points), "%u", o->crash);
    argv[n++] = (char *)ab->d.self;
    argv[n++] = "crash";
    argv[n++] = "--spool";
    argv[n++] = (char *)s->dir;
    argv[n++] = "--points";
    argv[n++] = a->points;
    for (int i = 0; i < o->crash_load.n; i++)
        argv[n++] = (char *)o->crash_load.v[i];
    if (dry_run) {
        argv[n++] = "--dry-run";
    } else {
        argv[n++] = "-q";
        argv[n++] = "--json";
        argv[n++] = (char *)json;
        if (progress)
            argv[n++] = "--progress";
    }
    argv[n] = NULL;
}

static double number(const char *text, const char *key)
{
    double v;

    return json_read_number(text, key, &v) == 0 ? v : NAN;
}

int ab_crash_read(struct side_crash *c, int status, const char *json)
{
    char *text = NULL;
    int code;

    memset(c, 0, sizeof(*c));
    if (status == -1 || !WIFEXITED(status)) {
        snprintf(c->why, sizeof(c->why), "spoolsim crash %s",
                 status != -1 && WIFSIGNALED(status) ? "was killed" : "was lost track of");
        return -1;
    }
    code = WEXITSTATUS(status);
    /* 3 is both "inconclusive" and "failed": only the former writes a report */
    if (code == EXIT_STATUS_OK || code == EXIT_STATUS_BAD || code == EXIT_STATUS_INCOMPLETE)
        text = fileutil_read_all(json, NULL);
    if (text == NULL || json_read_string(text, "verdict", c->verdict, sizeof(c->verdict)) != 0) {
        snprintf(c->why, sizeof(c->why), "spoolsim crash exit status %d%s", code,
                 code == EXIT_STATUS_USAGE ? "" : " without a report");
        free(text);
        return -1;
    }
    c->done = 1;
    c->durable = code == 0;
    c->points = number(text, "points");
    c->acknowledged = number(text, "acknowledged");
    c->max_lost = number(text, "max_lost");
    c->points_losing = number(text, "points_losing");
    c->check_s = number(text, "check_s");
    c->sessions = number(text, "sessions");
    c->messages = number(text, "messages");
    c->duration_s = number(text, "duration_s");
    json_read_string(text, "size", c->size, sizeof(c->size));
    json_read_string(text, "fstype", c->fstype, sizeof(c->fstype));
    json_read_string(text, "mount_options", c->mount_options, sizeof(c->mount_options));
    json_read_string(text, "not_carried_over", c->not_carried_over, sizeof(c->not_carried_over));
    free(text);
    return 0;
}

void ab_crash_print(const struct side *s, FILE *fp)
{
    const struct side_crash *c = &s->crash;

    if (!c->done) {
        fprintf(fp, "%s crash: failed: %s\n", s->name, c->why[0] ? c->why : "not run");
        return;
    }
    fprintf(fp, "%s crash (%s%s%s): %s\n", s->name, c->fstype, c->mount_options[0] ? " -o " : "",
            c->mount_options, c->verdict);
}

void ab_crash_load_text(const struct ab_crash_load *l, char *text, size_t size)
{
    size_t used = 0;

    text[0] = 0;
    for (int i = 0; i < l->n && used < size; i++)
        used += (size_t)snprintf(text + used, size - used, "%s%s", i ? " " : "", l->v[i]);
}

void ab_crash_json(struct json_writer *w, const struct ab *ab, const struct side *s)
{
    const struct side_crash *c = &s->crash;
    char load[1024];

    if (!ab->opts->crash) {
        json_string(w, "crash", NULL);
        return;
    }
    json_begin_object(w, "crash");
    json_bool(w, "done", c->done);
    json_string(w, "why", c->done ? NULL : c->why);
    json_string(w, "fstype", c->done ? c->fstype : NULL);
    json_string(w, "mount_options", c->done ? c->mount_options : NULL);
    json_string(w, "not_carried_over", c->done ? c->not_carried_over : NULL);
    json_string(w, "profile", ab->opts->crash_profile ? ab->opts->crash_profile : "postfix");
    json_string(w, "sync", ab->opts->crash_sync);
    ab_crash_load_text(&ab->opts->crash_load, load, sizeof(load));
    json_string(w, "load", load);
    json_string(w, "load_left_out",
                ab->opts->crash_load.left_out[0] ? ab->opts->crash_load.left_out : NULL);
    json_double(w, "points", c->done ? c->points : NAN);
    json_double(w, "acknowledged", c->done ? c->acknowledged : NAN);
    json_double(w, "max_lost", c->done ? c->max_lost : NAN);
    json_double(w, "points_losing", c->done ? c->points_losing : NAN);
    json_double(w, "check_s", c->done ? c->check_s : NAN);
    json_double(w, "sessions", c->done ? c->sessions : NAN);
    json_double(w, "messages", c->done && c->messages > 0 ? c->messages : NAN);
    json_double(w, "duration_s", c->done ? c->duration_s : NAN);
    json_string(w, "size", c->done && c->size[0] ? c->size : NULL);
    if (c->done)
        json_bool(w, "durable", c->durable);
    else
        json_string(w, "durable", NULL);
    json_string(w, "verdict", c->done ? c->verdict : NULL);
    json_end_object(w);
}
