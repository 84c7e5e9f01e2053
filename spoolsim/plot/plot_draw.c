/*
 * plot_draw - the timeline, latency and A/B pictures of `spoolsim plot',
 * and the panels, axes, legend and lines every picture is drawn with
 * (plot_draw_impl.h; the sweep's picture is plot_sweep.c); see plot_draw.h.
 *
 * Every block is laid out the same way: a bold heading, the plotting
 * area from LEFT to where the legend begins, tick labels below and to
 * the left, the axis titles outside them. Sizes are fixed in pixels so
 * that the picture reads the same whatever the data; only the legend's
 * width follows its labels.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plot_axis.h"
#include "plot_draw.h"
#include "plot_draw_impl.h"
#include "xalloc.h"

const char *const plot_palette[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                                    "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};
const char *const plot_dashes[] = {NULL, "7 4", "2 3"};

/* text cut to fit width px at size px, "…" where it was cut, into out. */
static void fit_text(const char *text, double width, double size, char *out, size_t len)
{
    size_t n;

    snprintf(out, len, "%s", text);
    n = strlen(out);
    while (n > 1 && plot_canvas_text_width(out, size) > width) {
        do
            n--;
        while (n > 0 && ((unsigned char)out[n] & 0xc0) == 0x80);
        snprintf(out + n, len - n, "\xe2\x80\xa6");
    }
}

/* An x of 9 px at (x, y): a step that failed, as one broken line. */
void plot_draw_cross(struct plot_canvas *s, double x, double y, const struct plot_style *st)
{
    const double r = 4.5, px[] = {x - r, x + r, NAN, x - r, x + r},
                 py[] = {y - r, y + r, NAN, y + r, y - r};

    plot_canvas_polyline(s, px, py, 5, st, NULL);
}

/* The legend from (x, y) down in a column lw px wide: the height it took. */
double plot_draw_legend_in(struct plot_canvas *s, double x, double y, double lw,
                           const struct legend_item *items, size_t n)
{
    const struct plot_font f = {.size = FONT};
    char text[PLOT_LABEL_MAX + 80];

    if (n == 0)
        return 0;
    plot_canvas_group_begin(s, "legend");
    for (size_t i = 0; i < n; i++) {
        double cy = y + i * LEGEND_ROW + LEGEND_ROW / 2;
        const struct legend_item *it = &items[i];

        switch (it->mark) {
        case MARK_LINE:
            plot_canvas_line(
                s, x, cy, x + 24, cy,
                &(struct plot_style){.stroke = it->color, .stroke_width = 2, .dash = it->dash});
            break;
        case MARK_BOX:
            plot_canvas_rect(
                s, x + 4, cy - 6, 16, 12,
                &(struct plot_style){.stroke = it->color, .fill = it->color, .opacity = 0.35});
            break;
        case MARK_DOT:
            plot_canvas_circle(
                s, x + 12, cy, 4,
                &(struct plot_style){.stroke = "#333", .fill = it->color, .opacity = 0.8});
            break;
        case MARK_CROSS:
            plot_draw_cross(s, x + 12, cy,
                            &(struct plot_style){.stroke = it->color, .stroke_width = 2});
            break;
        case MARK_RING:
            plot_canvas_circle(s, x + 12, cy, 7,
                               &(struct plot_style){.stroke = it->color, .stroke_width = 2});
            break;
        }
        fit_text(it->label, lw - 32, FONT, text, sizeof(text));
        plot_canvas_text(s, x + 32, cy + 4, &f, text);
    }
    plot_canvas_group_end(s);
    return n * LEGEND_ROW;
}

static double draw_legend(struct plot_canvas *s, double x, double y,
                          const struct legend_item *items, size_t n)
{
    return plot_draw_legend_in(s, x, y, LEGEND_W, items, n);
}

double plot_draw_px_x(const struct panel *p, double v)
{
    return plot_axis_scale_map(&p->xs, v);
}

double plot_draw_px_y(const struct panel *p, double v)
{
    return plot_axis_scale_map(&p->ys, v);
}

/* The scales of p from its ticks' axes, over its area. */
void plot_draw_panel_scales(struct panel *p, enum plot_scale_kind xkind, enum plot_scale_kind ykind)
{
    p->xs = (struct plot_scale){xkind, p->xt.lo, p->xt.hi, p->x, p->x + p->w};
    p->ys = (struct plot_scale){ykind, p->yt.lo, p->yt.hi, p->y + p->h, p->y};
}

/* Heading, grid, frame, ticks and axis titles. xt may have no ticks (categories). */
void plot_draw_axes(struct plot_canvas *s, const struct panel *p)
{
    const struct plot_font head = {.size = 14, .bold = 1};
    const struct plot_font tick_y = {.size = FONT, .anchor = PLOT_END, .fill = "#444"};
    const struct plot_font tick_x = {.size = FONT, .anchor = PLOT_MIDDLE, .fill = "#444"};
    const struct plot_font label_x = {.size = FONT + 1, .anchor = PLOT_MIDDLE, .cls = "axis-label"};
    const struct plot_font label_y = {
        .size = FONT + 1, .anchor = PLOT_MIDDLE, .rotate = -90, .cls = "axis-label"};
    double last_right = -1e9;

    if (p->heading)
        plot_canvas_text(s, p->x, p->y - 10, &head, p->heading);
    plot_canvas_group_begin(s, "grid");
    for (size_t i = 0; i < p->yt.n; i++) {
        double y = plot_draw_px_y(p, p->yt.value[i]);

        plot_canvas_line(s, p->x, y, p->x + p->w, y,
                         &(struct plot_style){.stroke = p->yt.labelled[i] ? "#dddddd" : "#f0f0f0"});
    }
    for (size_t i = 0; i < p->xt.n; i++) {
        double x = plot_draw_px_x(p, p->xt.value[i]);

        plot_canvas_line(s, x, p->y, x, p->y + p->h,
                         &(struct plot_style){.stroke = p->xt.labelled[i] ? "#dddddd" : "#f0f0f0"});
    }
    plot_canvas_group_end(s);
    plot_canvas_rect(s, p->x, p->y, p->w, p->h, &(struct plot_style){.stroke = "#888888"});
    plot_canvas_group_begin(s, "ticks");
    for (size_t i = 0; i < p->yt.n; i++)
        if (p->yt.labelled[i])
            plot_canvas_text(s, p->x - 6, plot_draw_px_y(p, p->yt.value[i]) + 4, &tick_y,
                             p->yt.label[i]);
    for (size_t i = 0; i < p->xt.n; i++) {
        double x = plot_draw_px_x(p, p->xt.value[i]), half;

        if (!p->xt.labelled[i])
            continue;
        half = plot_canvas_text_width(p->xt.label[i], FONT) / 2;
        if (x - half < last_right + 6)
            continue; /* it would run into the label before it */
        plot_canvas_text(s, x, p->y + p->h + 17, &tick_x, p->xt.label[i]);
        last_right = x + half;
    }
    plot_canvas_group_end(s);
    if (p->xlabel)
        plot_canvas_text(s, p->x + p->w / 2, p->y + p->h + 38, &label_x, p->xlabel);
    if (p->ylabel)
        plot_canvas_text(s, p->x - LEFT + 20, p->y + p->h / 2, &label_y, p->ylabel);
}

double plot_draw_title(struct plot_canvas *s, double width, const char *title)
{
    const struct plot_font f = {.size = 17, .bold = 1, .cls = "title"};

    (void)width;
    plot_canvas_text(s, LEFT, 30, &f, title);
    return 44;
}

/* The plotting area's width: what the axis labels and the legend's column leave. */
static double plot_width(double width)
{
    return width - LEFT - RIGHT - LEGEND_W - GAP;
}

/* A line through (x[i], y[i]) in p's pixels. */
void plot_draw_series(struct plot_canvas *s, const struct panel *p, const double *x,
                      const double *y, size_t n, const struct legend_item *it)
{
    double *px = xmalloc((n ? n : 1) * sizeof(*px)), *py = xmalloc((n ? n : 1) * sizeof(*py));

    for (size_t i = 0; i < n; i++) {
        px[i] = plot_draw_px_x(p, x[i]);
        py[i] = plot_draw_px_y(p, y[i]);
    }
    plot_canvas_polyline(
        s, px, py, n,
        &(struct plot_style){
            .stroke = it->color, .stroke_width = 1.8, .dash = it->dash, .cls = "series"},
        it->label);
    free(px);
    free(py);
}

double plot_draw_max_of(double m, const double *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (isfinite(v[i]) && v[i] > m)
            m = v[i];
    return m;
}

/* ------------------------------------------------------------- timeline */

double plot_draw_timeline(struct plot_canvas *s, double y0, double width,
                          const struct plot_timeline *tl, size_t n)
{
    static const char *const rate_name[] = {"in", "out"};
    static const char *const depth_name[] = {"incoming", "active", "deferred"};
    struct legend_item *rate_items = xcalloc(2 * n, sizeof(*rate_items));
    struct legend_item *depth_items = xcalloc(3 * n, sizeof(*depth_items));
    size_t nrate = 0, ndepth = 0;
    double tmax = 0, rmax = 0, dmax = 0, w, y;
    struct panel top = {0}, bottom = {0};
    double **mid = xcalloc(n, sizeof(*mid)), **end = xcalloc(n, sizeof(*end));

    for (size_t f = 0; f < n; f++) {
        const struct plot_timeline *t = &tl[f];

        mid[f] = xmalloc(t->n * sizeof(double));
        end[f] = xmalloc(t->n * sizeof(double));
        for (size_t i = 0; i < t->n; i++) {
            /* A rate is the interval's, drawn at its middle; a depth is at its end. */
            mid[f][i] = t->t[i] + t->dt[i] / 2;
            end[f][i] = t->t[i] + t->dt[i];
            if (end[f][i] > tmax)
                tmax = end[f][i];
        }
        rmax = plot_draw_max_of(plot_draw_max_of(rmax, t->in_per_s, t->n), t->out_per_s, t->n);
        for (int k = 0; k < 2; k++) {
            struct legend_item *it = &rate_items[nrate++];

            it->color = n == 1 ? plot_palette[k] : plot_palette[f % NCOLORS];
            it->dash = n == 1 ? NULL : plot_dashes[k];
            if (n == 1)
                snprintf(it->label, sizeof(it->label), "messages %s/s", rate_name[k]);
            else
                snprintf(it->label, sizeof(it->label), "%s: %s/s", t->label, rate_name[k]);
        }
        if (!t->has_depths)
            continue;
        dmax = plot_draw_max_of(dmax, t->incoming, t->n);
        dmax = plot_draw_max_of(dmax, t->active, t->n);
        dmax = plot_draw_max_of(dmax, t->deferred, t->n);
        for (int k = 0; k < 3; k++) {
            struct legend_item *it = &depth_items[ndepth++];

            it->color = n == 1 ? plot_palette[2 + k] : plot_palette[f % NCOLORS];
            it->dash = n == 1 ? NULL : plot_dashes[k];
            if (n == 1)
                snprintf(it->label, sizeof(it->label), "%s", depth_name[k]);
            else
                snprintf(it->label, sizeof(it->label), "%s: %s", t->label, depth_name[k]);
        }
    }
    w = plot_width(width);

    y = y0 + HEADING;
    top = (struct panel){.x = LEFT,
                         .y = y,
                         .w = w,
                         .h = PANEL_H,
                         .heading = "Throughput",
                         .ylabel = "messages/s",
                         .xlabel = ndepth ? NULL : "time since the start (s)"};
    plot_axis_ticks_linear(0, tmax, 10, &top.xt);
    plot_axis_ticks_linear(0, rmax, 6, &top.yt);
    plot_draw_panel_scales(&top, PLOT_LINEAR, PLOT_LINEAR);
    plot_draw_axes(s, &top);
    plot_canvas_group_begin(s, "timeline-rates");
    for (size_t f = 0, k = 0; f < n; f++) {
        plot_draw_series(s, &top, mid[f], tl[f].in_per_s, tl[f].n, &rate_items[k++]);
        plot_draw_series(s, &top, mid[f], tl[f].out_per_s, tl[f].n, &rate_items[k++]);
    }
    plot_canvas_group_end(s);
    draw_legend(s, LEFT + w + GAP, top.y, rate_items, nrate);
    y += PANEL_H + (ndepth ? 30 : BELOW);

    if (ndepth) {
        y += HEADING;
        bottom = (struct panel){.x = LEFT,
                                .y = y,
                                .w = w,
                                .h = PANEL_H * 0.75,
                                .heading = "Queue depth",
                                .ylabel = "messages queued",
                                .xlabel = "time since the start (s)"};
        bottom.xt = top.xt;
        plot_axis_ticks_linear(0, dmax, 5, &bottom.yt);
        plot_draw_panel_scales(&bottom, PLOT_LINEAR, PLOT_LINEAR);
        plot_draw_axes(s, &bottom);
        plot_canvas_group_begin(s, "timeline-depths");
        for (size_t f = 0, k = 0; f < n; f++) {
            if (!tl[f].has_depths)
                continue;
            plot_draw_series(s, &bottom, end[f], tl[f].incoming, tl[f].n, &depth_items[k++]);
            plot_draw_series(s, &bottom, end[f], tl[f].active, tl[f].n, &depth_items[k++]);
            plot_draw_series(s, &bottom, end[f], tl[f].deferred, tl[f].n, &depth_items[k++]);
        }
        plot_canvas_group_end(s);
        draw_legend(s, LEFT + w + GAP, bottom.y, depth_items, ndepth);
        y += bottom.h + BELOW;
    }
    for (size_t f = 0; f < n; f++) {
        free(mid[f]);
        free(end[f]);
    }
    free(mid);
    free(end);
    free(rate_items);
    free(depth_items);
    return y - y0;
}

/* -------------------------------------------------------------- latency */

double plot_draw_latency(struct plot_canvas *s, double y0, double width, const struct plot_curve *c,
                         size_t n, size_t nresults)
{
    struct legend_item *items = xcalloc(n ? n : 1, sizeof(*items));
    double max_nines = 0, lo = INFINITY, hi = 0, w, legend_h;
    enum plot_scale_kind ykind;
    struct panel p;

    for (size_t i = 0; i < n; i++) {
        struct legend_item *it = &items[i];

        it->color = plot_palette[i % NCOLORS];
        it->dash = plot_dashes[(i / NCOLORS) % 3];
        /* Name what tells the lines apart: the stage, the result, or both. */
        if (nresults == 1)
            snprintf(it->label, sizeof(it->label), "%s", c[i].stage);
        else if (n == nresults)
            snprintf(it->label, sizeof(it->label), "%s", c[i].label);
        else
            snprintf(it->label, sizeof(it->label), "%s: %s", c[i].label, c[i].stage);
        max_nines = fmax(max_nines, c[i].nines[c[i].n - 1]);
        for (size_t j = 0; j < c[i].n; j++) {
            if (c[i].ms[j] > 0 && c[i].ms[j] < lo)
                lo = c[i].ms[j];
            hi = fmax(hi, c[i].ms[j]);
        }
    }
    w = plot_width(width);
    p = (struct panel){.x = LEFT,
                       .y = y0 + HEADING,
                       .w = w,
                       .h = PANEL_H + 40,
                       .heading = "Latency by percentile",
                       .xlabel = "percentile (spaced by 1/(1\xe2\x88\x92p): each step is ten "
                                 "times rarer)"};
    plot_axis_ticks_percentile(max_nines, &p.xt);
    /* Stages that differ a hundredfold would lie flat on a linear axis. */
    if (isfinite(lo) && hi / lo > 100) {
        ykind = PLOT_LOG;
        plot_axis_ticks_log(lo, hi, &p.yt);
        p.ylabel = "latency (ms, log scale)";
    } else {
        ykind = PLOT_LINEAR;
        plot_axis_ticks_linear(0, hi, 6, &p.yt);
        p.ylabel = "latency (ms)";
    }
    plot_draw_panel_scales(&p, PLOT_LINEAR, ykind);
    plot_draw_axes(s, &p);
    plot_canvas_group_begin(s, "latency-curves");
    for (size_t i = 0; i < n; i++) {
        double *ms = xmalloc(c[i].n * sizeof(*ms));

        /* A 0 ms value has no place on a log axis: it sits on the axis' floor. */
        for (size_t j = 0; j < c[i].n; j++)
            ms[j] = ykind == PLOT_LOG && c[i].ms[j] <= 0 ? p.yt.lo : c[i].ms[j];
        plot_draw_series(s, &p, c[i].nines, ms, c[i].n, &items[i]);
        free(ms);
    }
    plot_canvas_group_end(s);
    legend_h = draw_legend(s, LEFT + w + GAP, p.y, items, n);
    free(items);
    return HEADING + fmax(p.h + BELOW, legend_h + 10);
}

/* ------------------------------------------------------------------- A/B */

/* A vertical whisker from lo to hi at x, with caps half as wide as cap. */
static void draw_whisker(struct plot_canvas *s, const struct panel *p, double x, double lo,
                         double hi, double cap)
{
    const struct plot_style st = {.stroke = "#222222", .stroke_width = 1.6};

    if (!isfinite(lo) || !isfinite(hi))
        return;
    plot_canvas_group_begin(s, "errorbar");
    plot_canvas_line(s, x, plot_draw_px_y(p, lo), x, plot_draw_px_y(p, hi), &st);
    plot_canvas_line(s, x - cap / 2, plot_draw_px_y(p, lo), x + cap / 2, plot_draw_px_y(p, lo),
                     &st);
    plot_canvas_line(s, x - cap / 2, plot_draw_px_y(p, hi), x + cap / 2, plot_draw_px_y(p, hi),
                     &st);
    plot_canvas_group_end(s);
}

/* text at (x, y), cut to fit width px. */
void plot_draw_fitted_text(struct plot_canvas *s, double x, double y, double width,
                           const struct plot_font *f, const char *text)
{
    char buf[PLOT_LABEL_MAX + 320];

    fit_text(text, width, f->size, buf, sizeof(buf));
    plot_canvas_text(s, x, y, f, buf);
}

double plot_draw_ab(struct plot_canvas *s, double y0, double width, const struct plot_ab *ab,
                    size_t n)
{
    static const char *const side_name[] = {"A", "B"};
    const struct plot_font cat = {.size = FONT, .anchor = PLOT_MIDDLE, .bold = 1};
    const struct plot_font sub = {.size = FONT - 1, .anchor = PLOT_MIDDLE, .fill = "#555"};
    const struct plot_font note = {.size = FONT, .cls = "verdict"};
    struct legend_item items[4] = {
        {.label = "median of the runs", .color = "#777777", .mark = MARK_BOX},
        {.label = "95 % interval (bootstrap)", .color = "#222222", .mark = MARK_LINE},
        {.label = "one run", .color = "#bbbbbb", .mark = MARK_DOT},
        {.label = "B/A = 1: no difference", .color = "#888888", .dash = "5 4", .mark = MARK_LINE},
    };
    double avail = plot_width(width), hi = 0, rlo = 1, rhi = 1;
    double group, bw, y;
    char ylabel[160], text[512];
    struct panel bars, ratio;

    for (size_t i = 0; i < n; i++) {
        for (int k = 0; k < 2; k++) {
            hi = plot_draw_max_of(hi, ab[i].runs[k], ab[i].n[k]);
            hi = fmax(hi, isfinite(ab[i].high[k]) ? ab[i].high[k] : 0);
        }
        if (isfinite(ab[i].ci_low) && isfinite(ab[i].ci_high)) {
            rlo = fmin(rlo, ab[i].ci_low);
            rhi = fmax(rhi, ab[i].ci_high);
        }
    }
    snprintf(ylabel, sizeof(ylabel), "%s%s%s%s", ab[0].unit[0] ? ab[0].unit : ab[0].metric,
             ab[0].unit[0] ? " (" : "", ab[0].unit[0] ? ab[0].metric : "",
             ab[0].unit[0] ? ")" : "");
    y = y0 + HEADING;
    bars = (struct panel){.x = LEFT,
                          .y = y,
                          .w = avail * 0.62,
                          .h = PANEL_H,
                          .heading = "Each side: median, 95 % interval, every run",
                          .ylabel = ylabel};
    bars.xt = (struct plot_ticks){.n = 0, .lo = 0, .hi = (double)n};
    plot_axis_ticks_linear(0, hi, 6, &bars.yt);
    plot_draw_panel_scales(&bars, PLOT_LINEAR, PLOT_LINEAR);
    plot_draw_axes(s, &bars);
    group = bars.w / (double)n;
    bw = fmin(group * 0.3, 110);
    for (size_t i = 0; i < n; i++) {
        for (int k = 0; k < 2; k++) {
            double cx = bars.x + group * ((double)i + (k ? 0.7 : 0.3)), y_med;
            const char *color = plot_palette[k];

            if (isfinite(ab[i].median[k])) {
                y_med = plot_draw_px_y(&bars, ab[i].median[k]);
                plot_canvas_rect(
                    s, cx - bw / 2, y_med, bw, bars.y + bars.h - y_med,
                    &(struct plot_style){
                        .stroke = color, .fill = color, .opacity = 0.35, .cls = "bar"});
            }
            draw_whisker(s, &bars, cx, ab[i].low[k], ab[i].high[k], bw * 0.4);
            for (size_t j = 0; j < ab[i].n[k]; j++) {
                /* Spread across the bar in run order, so that no dot hides another. */
                double dx = ab[i].n[k] > 1 ? bw * 0.7 * ((double)j / (ab[i].n[k] - 1) - 0.5) : 0;

                plot_canvas_circle(
                    s, cx + dx, plot_draw_px_y(&bars, ab[i].runs[k][j]), 4,
                    &(struct plot_style){
                        .stroke = "#333333", .fill = color, .opacity = 0.8, .cls = "run"});
            }
            plot_canvas_text(s, cx, bars.y + bars.h + 16, &cat, side_name[k]);
            plot_draw_fitted_text(s, cx, bars.y + bars.h + 30, group * 0.48, &sub, ab[i].spool[k]);
        }
        if (n > 1)
            plot_draw_fitted_text(s, bars.x + group * ((double)i + 0.5), bars.y + bars.h + 44,
                                  group * 0.95, &cat, ab[i].label);
    }

    ratio = (struct panel){.x = LEFT + bars.w + LEFT,
                           .y = y,
                           .w = avail - bars.w - LEFT,
                           .h = PANEL_H,
                           .heading = "B/A of the medians",
                           .ylabel = "ratio B/A"};
    ratio.xt = (struct plot_ticks){.n = 0, .lo = 0, .hi = (double)n};
    plot_axis_ticks_linear(rlo - 0.05 * (rhi - rlo), rhi + 0.05 * (rhi - rlo), 6, &ratio.yt);
    plot_draw_panel_scales(&ratio, PLOT_LINEAR, PLOT_LINEAR);
    plot_draw_axes(s, &ratio);
    plot_canvas_line(s, ratio.x, plot_draw_px_y(&ratio, 1), ratio.x + ratio.w,
                     plot_draw_px_y(&ratio, 1),
                     &(struct plot_style){.stroke = "#888888", .dash = "5 4", .cls = "reference"});
    for (size_t i = 0; i < n; i++) {
        double cx = ratio.x + ratio.w * ((double)i + 0.5) / (double)n;
        const struct plot_font value = {.size = FONT, .fill = "#222"};

        if (!isfinite(ab[i].ratio))
            continue;
        draw_whisker(s, &ratio, cx, ab[i].ci_low, ab[i].ci_high, 16);
        plot_canvas_circle(
            s, cx, plot_draw_px_y(&ratio, ab[i].ratio), 5,
            &(struct plot_style){.stroke = "#222222", .fill = "#222222", .cls = "ratio"});
        snprintf(text, sizeof(text), "%.2f", ab[i].ratio);
        plot_canvas_text(s, cx + 9, plot_draw_px_y(&ratio, ab[i].ratio) + 4, &value, text);
        if (n > 1)
            plot_draw_fitted_text(s, cx, ratio.y + ratio.h + 16, ratio.w / (double)n, &cat,
                                  ab[i].label);
    }
    draw_legend(s, LEFT + avail + GAP, y, items, 4);

    y += PANEL_H + BELOW + (n > 1 ? 8 : 0);
    plot_canvas_group_begin(s, "verdicts");
    for (size_t i = 0; i < n; i++) {
        size_t failed = ab[i].failed[0] + ab[i].failed[1];
        char failures[64] = "";

        if (failed)
            snprintf(failures, sizeof(failures), " (%zu failed run%s not shown)", failed,
                     failed == 1 ? "" : "s");
        snprintf(text, sizeof(text), "%s%s%s%s", n > 1 ? ab[i].label : "", n > 1 ? ": " : "",
                 ab[i].verdict[0] ? ab[i].verdict : "no verdict", failures);
        plot_draw_fitted_text(
            s, LEFT + (width - LEFT - RIGHT) / 2, y, width - LEFT - RIGHT,
            &(struct plot_font){.size = FONT, .anchor = PLOT_MIDDLE, .cls = note.cls}, text);
        y += 18;
    }
    plot_canvas_group_end(s);
    return y + 6 - y0;
}
