/*
 * plot_picture - results read and laid out as one picture; see
 * plot_picture.h.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fileutil.h"
#include "json_read.h"
#include "msg.h"
#include "plot_draw.h"
#include "plot_picture.h"
#include "xalloc.h"

enum plot_kind plot_picture_kind(const char *text)
{
    static const struct {
        const char *name;
        enum plot_kind kind;
    } kinds[] = {{"auto", PLOT_KIND_AUTO},
                 {"timeline", PLOT_KIND_TIMELINE},
                 {"latency", PLOT_KIND_LATENCY},
                 {"ab", PLOT_KIND_AB},
                 {"sweep", PLOT_KIND_SWEEP}};

    for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
        if (strcmp(text, kinds[i].name) == 0)
            return kinds[i].kind;
    msg_usage("unknown --kind \"%s\" (timeline, latency, ab, sweep or auto)", text);
}

static void read_result(const char *path, struct plot_result *r)
{
    char key[8], err[128];

    r->path = path;
    if ((r->text = fileutil_read_all(path, NULL)) == NULL)
        msg_usage("%s: cannot read: %s", path, strerror(errno));
    /* Every result is one JSON object; json_read_* check the whole text. */
    if (json_read_key(r->text, NULL, 0, key, sizeof(key)) != 0)
        msg_usage("%s: not a JSON result (one JSON object, as --json writes)", path);
    if (plot_data_check_schema(r->text, err, sizeof(err)) != 0)
        msg_usage("%s: %s", path, err);
    plot_data_label(r->text, path, r->label, sizeof(r->label));
    if (json_read_string(r->text, "program", r->program, sizeof(r->program)) != 0)
        r->program[0] = '\0';
}

void plot_picture_title(const struct plot_picture *pic, char *out, size_t len)
{
    const struct plot_result *r = pic->r;
    size_t used, n = pic->nr;

    if (n == 1) {
        snprintf(out, len, "%s%s%s", r[0].label, r[0].program[0] ? " \xe2\x80\x94 " : "",
                 r[0].program);
        return;
    }
    used = (size_t)snprintf(out, len, "%zu results: %s", n, r[0].label);
    for (size_t i = 1; i < n && used < len; i++)
        used += (size_t)snprintf(out + used, len - used, ", %s", r[i].label);
}

/* What the n results r hold of kind, into pic. */
static void collect(const struct plot_result *r, size_t n, enum plot_kind kind,
                    struct plot_picture *pic)
{
    char err[256];
    size_t first_sweep = n, other = n;
    const char **names;

    pic->tl = xcalloc(n, sizeof(*pic->tl));
    pic->ab = xcalloc(n, sizeof(*pic->ab));
    pic->sw = xcalloc(n, sizeof(*pic->sw));
    for (size_t i = 0; i < n; i++) {
        int held = 0;
        char key[8];

        /* A sweep holds nothing else: its steps are its picture. */
        if (kind == PLOT_KIND_AUTO || kind == PLOT_KIND_SWEEP) {
            if (plot_data_read_sweep(r[i].text, &pic->sw[pic->nsw], err, sizeof(err)) == 0) {
                if (pic->nsw++ == 0)
                    first_sweep = i;
                continue;
            }
            if (kind == PLOT_KIND_SWEEP || strcmp(r[i].program, "spoolsim sweep") == 0 ||
                json_read_array_length(r[i].text, "steps") >= 0)
                msg_usage("%s: no sweep to plot: %s", r[i].path, err);
        }
        if (other == n)
            other = i;
        if (kind == PLOT_KIND_AUTO || kind == PLOT_KIND_TIMELINE) {
            if (plot_data_read_timeline(r[i].text, &pic->tl[pic->ntl], err, sizeof(err)) == 0) {
                snprintf(pic->tl[pic->ntl++].label, PLOT_LABEL_MAX, "%s", r[i].label);
                held = 1;
            } else if (kind == PLOT_KIND_TIMELINE) {
                msg_usage("%s: no timeline to plot: %s", r[i].path, err);
            }
        }
        if (kind == PLOT_KIND_AUTO || kind == PLOT_KIND_LATENCY) {
            if (plot_data_read_latency(r[i].text, r[i].label, &pic->curves, &pic->ncurves, err,
                                       sizeof(err)) == 0) {
                pic->ncurve_results++;
                held = 1;
            } else if (kind == PLOT_KIND_LATENCY) {
                msg_usage("%s: no latency to plot: %s", r[i].path, err);
            } else if (json_read_key(r[i].text, "latency", 0, key, sizeof(key)) == 0) {
                msg_warn("%s: latency not drawn: %s", r[i].path, err);
            }
        }
        if (kind == PLOT_KIND_AUTO || kind == PLOT_KIND_AB) {
            if (plot_data_read_ab(r[i].text, &pic->ab[pic->nab], err, sizeof(err)) == 0) {
                snprintf(pic->ab[pic->nab++].label, PLOT_LABEL_MAX, "%s", r[i].label);
                held = 1;
            } else if (kind == PLOT_KIND_AB || plot_data_has_ab(r[i].text)) {
                msg_usage("%s: no A/B comparison to plot: %s", r[i].path, err);
            }
        }
        if (!held)
            msg_usage("%s: nothing to plot: no timeline, no latency with buckets, no A/B "
                      "comparison, no sweep",
                      r[i].path);
    }
    /* Its axes are offered rates, not time or percentiles: nothing else shares them. */
    if (pic->nsw && other < n)
        msg_usage("%s is a sweep and %s is not: a sweep is drawn with other sweeps only "
                  "(plot them apart)",
                  r[first_sweep].path, r[other].path);
    names = xcalloc(n, sizeof(*names));
    for (size_t i = 0; i < pic->nsw; i++)
        names[i] = r[i].label;
    plot_data_sweep_distinct_labels(pic->sw, names, pic->nsw);
    free(names);
}

void plot_picture_read(struct plot_picture *pic, char *const *paths, size_t n, enum plot_kind kind)
{
    *pic = (struct plot_picture){.r = xcalloc(n, sizeof(*pic->r)), .nr = n};
    for (size_t i = 0; i < n; i++)
        read_result(paths[i], &pic->r[i]);
    collect(pic->r, n, kind, pic);
}

void plot_picture_free(struct plot_picture *pic)
{
    for (size_t i = 0; i < pic->nr; i++)
        free(pic->r[i].text);
    free(pic->r);
    for (size_t i = 0; i < pic->ntl; i++)
        plot_data_timeline_free(&pic->tl[i]);
    for (size_t i = 0; i < pic->ncurves; i++)
        plot_data_curve_free(&pic->curves[i]);
    for (size_t i = 0; i < pic->nab; i++)
        plot_data_ab_free(&pic->ab[i]);
    for (size_t i = 0; i < pic->nsw; i++)
        plot_data_sweep_free(&pic->sw[i]);
    free(pic->sw);
    free(pic->tl);
    free(pic->curves);
    free(pic->ab);
}

double plot_picture_draw(const struct plot_picture *pic, const char *title, struct plot_canvas *s,
                         char *what, size_t what_len)
{
    double y;
    size_t used = 0;

    y = plot_draw_title(s, PLOT_WIDTH, title);
    what[0] = '\0';
    if (pic->ntl) {
        y += plot_draw_timeline(s, y, PLOT_WIDTH, pic->tl, pic->ntl);
        used += (size_t)snprintf(what + used, what_len - used, "timeline of %zu result%s", pic->ntl,
                                 pic->ntl == 1 ? "" : "s");
    }
    if (pic->ncurves && used < what_len) {
        y += plot_draw_latency(s, y, PLOT_WIDTH, pic->curves, pic->ncurves, pic->ncurve_results);
        used += (size_t)snprintf(what + used, what_len - used, "%slatency (%zu curve%s)",
                                 used ? ", " : "", pic->ncurves, pic->ncurves == 1 ? "" : "s");
    }
    if (pic->nab && used < what_len) {
        y += plot_draw_ab(s, y, PLOT_WIDTH, pic->ab, pic->nab);
        used += (size_t)snprintf(what + used, what_len - used, "%sA/B of %zu comparison%s",
                                 used ? ", " : "", pic->nab, pic->nab == 1 ? "" : "s");
    }
    if (pic->nsw && used < what_len) {
        y += plot_sweep_draw(s, y, PLOT_WIDTH, pic->sw, pic->nsw);
        snprintf(what + used, what_len - used, "%ssweep of %zu result%s", used ? ", " : "",
                 pic->nsw, pic->nsw == 1 ? "" : "s");
    }
    return y + 10;
}
