/*
 * plot_draw - the pictures of `spoolsim plot'; see plot_draw.h.
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
#include "xalloc.h"

#define LEFT 84.0       /* the y axis: its tick labels and its title to the left of it */
#define RIGHT 16.0      /* after the legend */
#define HEADING 26.0    /* above a panel */
#define PANEL_H 240.0   /* a panel's plotting area */
#define BELOW 50.0      /* under a panel: x tick labels and the x axis title */
#define GAP 14.0        /* between the plotting area and the legend */
#define LEGEND_ROW 18.0 /* one legend item */
#define LEGEND_W 196.0  /* the legend's column, the same in every block so that panels align */
#define FONT 12.0

/* Tableau 10: distinct at a glance, and readable on white. */
static const char *const palette[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                                      "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};
#define NCOLORS (sizeof(palette) / sizeof(palette[0]))
/* A line's pattern once the colours run out, and for series of one result that share its colour. */
static const char *const dashes[] = {NULL, "7 4", "2 3"};

enum legend_mark { MARK_LINE, MARK_BOX, MARK_DOT, MARK_CROSS, MARK_RING };

struct legend_item {
    char label[PLOT_LABEL_MAX + 80];
    const char *color, *dash;
    enum legend_mark mark;
};

struct panel {
    double x, y, w, h;
    struct plot_scale xs, ys;
    struct plot_ticks xt, yt;
    const char *heading, *xlabel, *ylabel;
};

/* text cut to fit width px at size px, "…" where it was cut, into out. */
static void fit_text(const char *text, double width, double size, char *out, size_t len)
{
    size_t n;

    snprintf(out, len, "%s", text);
    n = strlen(out);
    while (n > 1 && svg_text_width(out, size) > width) {
        do
            n--;
        while (n > 0 && ((unsigned char)out[n] & 0xc0) == 0x80);
        snprintf(out + n, len - n, "\xe2\x80\xa6");
    }
}

/* An x of 9 px at (x, y): a step that failed, as one <path>. */
static void draw_cross(struct svg *s, double x, double y, const struct svg_style *st)
{
    const double r = 4.5, px[] = {x - r, x + r, NAN, x - r, x + r},
                 py[] = {y - r, y + r, NAN, y + r, y - r};

    svg_polyline(s, px, py, 5, st, NULL);
}

/* The legend from (x, y) down in a column lw px wide: the height it took. */
static double draw_legend_in(struct svg *s, double x, double y, double lw,
                             const struct legend_item *items, size_t n)
{
    const struct svg_font f = {.size = FONT};
    char text[PLOT_LABEL_MAX + 80];

    if (n == 0)
        return 0;
    svg_group_begin(s, "legend");
    for (size_t i = 0; i < n; i++) {
        double cy = y + i * LEGEND_ROW + LEGEND_ROW / 2;
        const struct legend_item *it = &items[i];

        switch (it->mark) {
        case MARK_LINE:
            svg_line(s, x, cy, x + 24, cy,
                     &(struct svg_style){.stroke = it->color, .stroke_width = 2, .dash = it->dash});
            break;
        case MARK_BOX:
            svg_rect(s, x + 4, cy - 6, 16, 12,
                     &(struct svg_style){.stroke = it->color, .fill = it->color, .opacity = 0.35});
            break;
        case MARK_DOT:
            svg_circle(s, x + 12, cy, 4,
                       &(struct svg_style){.stroke = "#333", .fill = it->color, .opacity = 0.8});
            break;
        case MARK_CROSS:
            draw_cross(s, x + 12, cy, &(struct svg_style){.stroke = it->color, .stroke_width = 2});
            break;
        case MARK_RING:
            svg_circle(s, x + 12, cy, 7,
                       &(struct svg_style){.stroke = it->color, .stroke_width = 2});
            break;
        }
        fit_text(it->label, lw - 32, FONT, text, sizeof(text));
        svg_text(s, x + 32, cy + 4, &f, text);
    }
    svg_group_end(s);
    return n * LEGEND_ROW;
}

static double draw_legend(struct svg *s, double x, double y, const struct legend_item *items,
                          size_t n)
{
    return draw_legend_in(s, x, y, LEGEND_W, items, n);
}

static double px_x(const struct panel *p, double v)
{
    return plot_scale_map(&p->xs, v);
}

static double px_y(const struct panel *p, double v)
{
    return plot_scale_map(&p->ys, v);
}

/* The scales of p from its ticks' axes, over its area. */
static void panel_scales(struct panel *p, enum plot_scale_kind xkind, enum plot_scale_kind ykind)
{
    p->xs = (struct plot_scale){xkind, p->xt.lo, p->xt.hi, p->x, p->x + p->w};
    p->ys = (struct plot_scale){ykind, p->yt.lo, p->yt.hi, p->y + p->h, p->y};
}

/* Heading, grid, frame, ticks and axis titles. xt may have no ticks (categories). */
static void draw_axes(struct svg *s, const struct panel *p)
{
    const struct svg_font head = {.size = 14, .bold = 1};
    const struct svg_font tick_y = {.size = FONT, .anchor = SVG_END, .fill = "#444"};
    const struct svg_font tick_x = {.size = FONT, .anchor = SVG_MIDDLE, .fill = "#444"};
    const struct svg_font label_x = {.size = FONT + 1, .anchor = SVG_MIDDLE, .cls = "axis-label"};
    const struct svg_font label_y = {
        .size = FONT + 1, .anchor = SVG_MIDDLE, .rotate = -90, .cls = "axis-label"};
    double last_right = -1e9;

    if (p->heading)
        svg_text(s, p->x, p->y - 10, &head, p->heading);
    svg_group_begin(s, "grid");
    for (size_t i = 0; i < p->yt.n; i++) {
        double y = px_y(p, p->yt.value[i]);

        svg_line(s, p->x, y, p->x + p->w, y,
                 &(struct svg_style){.stroke = p->yt.labelled[i] ? "#dddddd" : "#f0f0f0"});
    }
    for (size_t i = 0; i < p->xt.n; i++) {
        double x = px_x(p, p->xt.value[i]);

        svg_line(s, x, p->y, x, p->y + p->h,
                 &(struct svg_style){.stroke = p->xt.labelled[i] ? "#dddddd" : "#f0f0f0"});
    }
    svg_group_end(s);
    svg_rect(s, p->x, p->y, p->w, p->h, &(struct svg_style){.stroke = "#888888"});
    svg_group_begin(s, "ticks");
    for (size_t i = 0; i < p->yt.n; i++)
        if (p->yt.labelled[i])
            svg_text(s, p->x - 6, px_y(p, p->yt.value[i]) + 4, &tick_y, p->yt.label[i]);
    for (size_t i = 0; i < p->xt.n; i++) {
        double x = px_x(p, p->xt.value[i]), half;

        if (!p->xt.labelled[i])
            continue;
        half = svg_text_width(p->xt.label[i], FONT) / 2;
        if (x - half < last_right + 6)
            continue; /* it would run into the label before it */
        svg_text(s, x, p->y + p->h + 17, &tick_x, p->xt.label[i]);
        last_right = x + half;
    }
    svg_group_end(s);
    if (p->xlabel)
        svg_text(s, p->x + p->w / 2, p->y + p->h + 38, &label_x, p->xlabel);
    if (p->ylabel)
        svg_text(s, p->x - LEFT + 20, p->y + p->h / 2, &label_y, p->ylabel);
}

double plot_draw_title(struct svg *s, double width, const char *title)
{
    const struct svg_font f = {.size = 17, .bold = 1, .cls = "title"};

    (void)width;
    svg_text(s, LEFT, 30, &f, title);
    return 44;
}

/* The plotting area's width: what the axis labels and the legend's column leave. */
static double plot_width(double width)
{
    return width - LEFT - RIGHT - LEGEND_W - GAP;
}

/* A line through (x[i], y[i]) in p's pixels. */
static void draw_series(struct svg *s, const struct panel *p, const double *x, const double *y,
                        size_t n, const struct legend_item *it)
{
    double *px = xmalloc((n ? n : 1) * sizeof(*px)), *py = xmalloc((n ? n : 1) * sizeof(*py));

    for (size_t i = 0; i < n; i++) {
        px[i] = px_x(p, x[i]);
        py[i] = px_y(p, y[i]);
    }
    svg_polyline(s, px, py, n,
                 &(struct svg_style){
                     .stroke = it->color, .stroke_width = 1.8, .dash = it->dash, .cls = "series"},
                 it->label);
    free(px);
    free(py);
}

static double max_of(double m, const double *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (isfinite(v[i]) && v[i] > m)
            m = v[i];
    return m;
}

/* ------------------------------------------------------------- timeline */

double plot_draw_timeline(struct svg *s, double y0, double width, const struct plot_timeline *tl,
                          size_t n)
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
        rmax = max_of(max_of(rmax, t->in_per_s, t->n), t->out_per_s, t->n);
        for (int k = 0; k < 2; k++) {
            struct legend_item *it = &rate_items[nrate++];

            it->color = n == 1 ? palette[k] : palette[f % NCOLORS];
            it->dash = n == 1 ? NULL : dashes[k];
            if (n == 1)
                snprintf(it->label, sizeof(it->label), "messages %s/s", rate_name[k]);
            else
                snprintf(it->label, sizeof(it->label), "%s: %s/s", t->label, rate_name[k]);
        }
        if (!t->has_depths)
            continue;
        dmax = max_of(dmax, t->incoming, t->n);
        dmax = max_of(dmax, t->active, t->n);
        dmax = max_of(dmax, t->deferred, t->n);
        for (int k = 0; k < 3; k++) {
            struct legend_item *it = &depth_items[ndepth++];

            it->color = n == 1 ? palette[2 + k] : palette[f % NCOLORS];
            it->dash = n == 1 ? NULL : dashes[k];
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
    plot_ticks_linear(0, tmax, 10, &top.xt);
    plot_ticks_linear(0, rmax, 6, &top.yt);
    panel_scales(&top, PLOT_LINEAR, PLOT_LINEAR);
    draw_axes(s, &top);
    svg_group_begin(s, "timeline-rates");
    for (size_t f = 0, k = 0; f < n; f++) {
        draw_series(s, &top, mid[f], tl[f].in_per_s, tl[f].n, &rate_items[k++]);
        draw_series(s, &top, mid[f], tl[f].out_per_s, tl[f].n, &rate_items[k++]);
    }
    svg_group_end(s);
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
        plot_ticks_linear(0, dmax, 5, &bottom.yt);
        panel_scales(&bottom, PLOT_LINEAR, PLOT_LINEAR);
        draw_axes(s, &bottom);
        svg_group_begin(s, "timeline-depths");
        for (size_t f = 0, k = 0; f < n; f++) {
            if (!tl[f].has_depths)
                continue;
            draw_series(s, &bottom, end[f], tl[f].incoming, tl[f].n, &depth_items[k++]);
            draw_series(s, &bottom, end[f], tl[f].active, tl[f].n, &depth_items[k++]);
            draw_series(s, &bottom, end[f], tl[f].deferred, tl[f].n, &depth_items[k++]);
        }
        svg_group_end(s);
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

double plot_draw_latency(struct svg *s, double y0, double width, const struct plot_curve *c,
                         size_t n, size_t nresults)
{
    struct legend_item *items = xcalloc(n ? n : 1, sizeof(*items));
    double max_nines = 0, lo = INFINITY, hi = 0, w, legend_h;
    enum plot_scale_kind ykind;
    struct panel p;

    for (size_t i = 0; i < n; i++) {
        struct legend_item *it = &items[i];

        it->color = palette[i % NCOLORS];
        it->dash = dashes[(i / NCOLORS) % 3];
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
    plot_ticks_percentile(max_nines, &p.xt);
    /* Stages that differ a hundredfold would lie flat on a linear axis. */
    if (isfinite(lo) && hi / lo > 100) {
        ykind = PLOT_LOG;
        plot_ticks_log(lo, hi, &p.yt);
        p.ylabel = "latency (ms, log scale)";
    } else {
        ykind = PLOT_LINEAR;
        plot_ticks_linear(0, hi, 6, &p.yt);
        p.ylabel = "latency (ms)";
    }
    panel_scales(&p, PLOT_LINEAR, ykind);
    draw_axes(s, &p);
    svg_group_begin(s, "latency-curves");
    for (size_t i = 0; i < n; i++) {
        double *ms = xmalloc(c[i].n * sizeof(*ms));

        /* A 0 ms value has no place on a log axis: it sits on the axis' floor. */
        for (size_t j = 0; j < c[i].n; j++)
            ms[j] = ykind == PLOT_LOG && c[i].ms[j] <= 0 ? p.yt.lo : c[i].ms[j];
        draw_series(s, &p, c[i].nines, ms, c[i].n, &items[i]);
        free(ms);
    }
    svg_group_end(s);
    legend_h = draw_legend(s, LEFT + w + GAP, p.y, items, n);
    free(items);
    return HEADING + fmax(p.h + BELOW, legend_h + 10);
}

/* ------------------------------------------------------------------- A/B */

/* A vertical whisker from lo to hi at x, with caps half as wide as cap. */
static void draw_whisker(struct svg *s, const struct panel *p, double x, double lo, double hi,
                         double cap)
{
    const struct svg_style st = {.stroke = "#222222", .stroke_width = 1.6};

    if (!isfinite(lo) || !isfinite(hi))
        return;
    svg_group_begin(s, "errorbar");
    svg_line(s, x, px_y(p, lo), x, px_y(p, hi), &st);
    svg_line(s, x - cap / 2, px_y(p, lo), x + cap / 2, px_y(p, lo), &st);
    svg_line(s, x - cap / 2, px_y(p, hi), x + cap / 2, px_y(p, hi), &st);
    svg_group_end(s);
}

/* text at (x, y), cut to fit width px. */
static void fitted_text(struct svg *s, double x, double y, double width, const struct svg_font *f,
                        const char *text)
{
    char buf[PLOT_LABEL_MAX + 320];

    fit_text(text, width, f->size, buf, sizeof(buf));
    svg_text(s, x, y, f, buf);
}

double plot_draw_ab(struct svg *s, double y0, double width, const struct plot_ab *ab, size_t n)
{
    static const char *const side_name[] = {"A", "B"};
    const struct svg_font cat = {.size = FONT, .anchor = SVG_MIDDLE, .bold = 1};
    const struct svg_font sub = {.size = FONT - 1, .anchor = SVG_MIDDLE, .fill = "#555"};
    const struct svg_font note = {.size = FONT, .cls = "verdict"};
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
            hi = max_of(hi, ab[i].runs[k], ab[i].n[k]);
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
    plot_ticks_linear(0, hi, 6, &bars.yt);
    panel_scales(&bars, PLOT_LINEAR, PLOT_LINEAR);
    draw_axes(s, &bars);
    group = bars.w / (double)n;
    bw = fmin(group * 0.3, 110);
    for (size_t i = 0; i < n; i++) {
        for (int k = 0; k < 2; k++) {
            double cx = bars.x + group * ((double)i + (k ? 0.7 : 0.3)), y_med;
            const char *color = palette[k];

            if (isfinite(ab[i].median[k])) {
                y_med = px_y(&bars, ab[i].median[k]);
                svg_rect(s, cx - bw / 2, y_med, bw, bars.y + bars.h - y_med,
                         &(struct svg_style){
                             .stroke = color, .fill = color, .opacity = 0.35, .cls = "bar"});
            }
            draw_whisker(s, &bars, cx, ab[i].low[k], ab[i].high[k], bw * 0.4);
            for (size_t j = 0; j < ab[i].n[k]; j++) {
                /* Spread across the bar in run order, so that no dot hides another. */
                double dx = ab[i].n[k] > 1 ? bw * 0.7 * ((double)j / (ab[i].n[k] - 1) - 0.5) : 0;

                svg_circle(s, cx + dx, px_y(&bars, ab[i].runs[k][j]), 4,
                           &(struct svg_style){
                               .stroke = "#333333", .fill = color, .opacity = 0.8, .cls = "run"});
            }
            svg_text(s, cx, bars.y + bars.h + 16, &cat, side_name[k]);
            fitted_text(s, cx, bars.y + bars.h + 30, group * 0.48, &sub, ab[i].spool[k]);
        }
        if (n > 1)
            fitted_text(s, bars.x + group * ((double)i + 0.5), bars.y + bars.h + 44, group * 0.95,
                        &cat, ab[i].label);
    }

    ratio = (struct panel){.x = LEFT + bars.w + LEFT,
                           .y = y,
                           .w = avail - bars.w - LEFT,
                           .h = PANEL_H,
                           .heading = "B/A of the medians",
                           .ylabel = "ratio B/A"};
    ratio.xt = (struct plot_ticks){.n = 0, .lo = 0, .hi = (double)n};
    plot_ticks_linear(rlo - 0.05 * (rhi - rlo), rhi + 0.05 * (rhi - rlo), 6, &ratio.yt);
    panel_scales(&ratio, PLOT_LINEAR, PLOT_LINEAR);
    draw_axes(s, &ratio);
    svg_line(s, ratio.x, px_y(&ratio, 1), ratio.x + ratio.w, px_y(&ratio, 1),
             &(struct svg_style){.stroke = "#888888", .dash = "5 4", .cls = "reference"});
    for (size_t i = 0; i < n; i++) {
        double cx = ratio.x + ratio.w * ((double)i + 0.5) / (double)n;
        const struct svg_font value = {.size = FONT, .fill = "#222"};

        if (!isfinite(ab[i].ratio))
            continue;
        draw_whisker(s, &ratio, cx, ab[i].ci_low, ab[i].ci_high, 16);
        svg_circle(s, cx, px_y(&ratio, ab[i].ratio), 5,
                   &(struct svg_style){.stroke = "#222222", .fill = "#222222", .cls = "ratio"});
        snprintf(text, sizeof(text), "%.2f", ab[i].ratio);
        svg_text(s, cx + 9, px_y(&ratio, ab[i].ratio) + 4, &value, text);
        if (n > 1)
            fitted_text(s, cx, ratio.y + ratio.h + 16, ratio.w / (double)n, &cat, ab[i].label);
    }
    draw_legend(s, LEFT + avail + GAP, y, items, 4);

    y += PANEL_H + BELOW + (n > 1 ? 8 : 0);
    svg_group_begin(s, "verdicts");
    for (size_t i = 0; i < n; i++) {
        size_t failed = ab[i].failed[0] + ab[i].failed[1];
        char failures[64] = "";

        if (failed)
            snprintf(failures, sizeof(failures), " (%zu failed run%s not shown)", failed,
                     failed == 1 ? "" : "s");
        snprintf(text, sizeof(text), "%s%s%s%s", n > 1 ? ab[i].label : "", n > 1 ? ": " : "",
                 ab[i].verdict[0] ? ab[i].verdict : "no verdict", failures);
        fitted_text(s, LEFT + (width - LEFT - RIGHT) / 2, y, width - LEFT - RIGHT,
                    &(struct svg_font){.size = FONT, .anchor = SVG_MIDDLE, .cls = note.cls}, text);
        y += 18;
    }
    svg_group_end(s);
    return y + 6 - y0;
}

/* ----------------------------------------------------------------- sweep */

/* A label's place in the picture. */
struct box {
    double x0, y0, x1, y1;
};

static int boxes_overlap(const struct box *a, const struct box *b)
{
    return a->x0 < b->x1 && b->x0 < a->x1 && a->y0 < b->y1 && b->y0 < a->y1;
}

/*
 * text beside a knee's ring at (x, y), on white so that it reads across a
 * line: below to the right (a delivered line rises to its knee from the
 * lower left and goes on to the right), else above to the left, above to
 * the right, below to the left, each a line further out in turn, at the
 * first place inside p that overlaps none of the np labels placed; its
 * place added to them.
 */
static void draw_knee_label(struct svg *s, const struct panel *p, double x, double y,
                            const char *color, const char *text, struct box *placed, size_t *np)
{
    static const int side[][2] = {{1, 1}, {-1, -1}, {1, -1}, {-1, 1}};
    const struct svg_font f = {.size = FONT, .bold = 1, .fill = color, .cls = "knee-label"};
    double tw = svg_text_width(text, FONT), line = FONT + 3;
    struct box b = {0}, first = {0};
    int found = 0;

    for (int out = 0; out < 8 && !found; out++)
        for (size_t k = 0; k < sizeof(side) / sizeof(side[0]) && !found; k++) {
            double x0 = side[k][0] > 0 ? x + 10 : x - 12 - tw;
            double base = side[k][1] > 0 ? y + 20 + out * line : y - 10 - out * line;

            b = (struct box){x0 - 2, base - FONT + 2, x0 + tw + 2, base + 3};
            if (out == 0 && k == 0)
                first = b;
            if (b.x0 < p->x || b.x1 > p->x + p->w || b.y0 < p->y || b.y1 > p->y + p->h)
                continue;
            found = 1;
            for (size_t i = 0; i < *np && found; i++)
                found = !boxes_overlap(&b, &placed[i]);
        }
    if (!found)
        b = first; /* nowhere free: where it reads best */
    svg_rect(s, b.x0, b.y0, b.x1 - b.x0, b.y1 - b.y0,
             &(struct svg_style){.fill = "#ffffff", .opacity = 0.85});
    svg_text(s, b.x0 + 2, b.y1 - 3, &f, text);
    placed[(*np)++] = b;
}

/* A log axis of milliseconds labelled "5 ms", "1 s", "20 s": not "0.1M". */
static void label_ms_ticks(struct plot_ticks *t)
{
    for (size_t i = 0; i < t->n; i++)
        if (t->labelled[i]) {
            double v = t->value[i];

            if (v >= 1000)
                snprintf(t->label[i], sizeof(t->label[i]), "%.6g s", v / 1000);
            else
                snprintf(t->label[i], sizeof(t->label[i]), "%.6g ms", v);
        }
}

/*
 * What sweep sw found, for the lines under the picture: its knee into
 * head (named by its label when named), what broke it into tail.
 */
static void sweep_verdict(const struct plot_sweep *sw, int named, char *head, size_t head_len,
                          char *tail, size_t tail_len)
{
    size_t used =
        (size_t)snprintf(head, head_len, "%s%s", named ? sw->label : "", named ? ": " : "");

    if (used < head_len) {
        if (isfinite(sw->knee))
            snprintf(head + used, head_len - used, "knee %.6g msgs/s", sw->knee);
        else
            snprintf(head + used, head_len - used, "no step held");
    }
    if (sw->broke_step)
        snprintf(tail, tail_len, "broke at %.6g msgs/s (step %u): %s", sw->broke, sw->broke_step,
                 sw->broke_why);
    else if (isfinite(sw->knee))
        snprintf(tail, tail_len, "every step held (no rate broke it)");
    else
        tail[0] = '\0';
}

double plot_draw_sweep(struct svg *s, double y0, double width, const struct plot_sweep *sw,
                       size_t n)
{
    static const char *const pct_dash[] = {NULL, "7 4", "2 3"};
    const struct svg_font note = {.size = FONT, .cls = "verdict"};
    struct legend_item *load_items = xcalloc(n + 4, sizeof(*load_items));
    struct legend_item lat_items[4];
    struct box *placed = xcalloc(2 * n + 1, sizeof(*placed));
    size_t nload = 0, nlat = 0, nplaced = 0;
    double hi = 0, lo_ms = INFINITY, hi_ms = 0, lw = LEGEND_W, w, y, legend_h;
    struct panel load, lat;
    char text[PLOT_LABEL_MAX + 320];
    const char *tail = NULL;
    int mixed_tail = 0;

    for (size_t r = 0; r < n; r++) {
        const double *const pct[] = {sw[r].p50, sw[r].p99, sw[r].tail};

        hi = max_of(max_of(hi, sw[r].offered, sw[r].n), sw[r].delivered, sw[r].n);
        for (size_t k = 0; k < 3; k++)
            for (size_t i = 0; i < sw[r].n; i++)
                if (isfinite(pct[k][i])) {
                    lo_ms = fmin(lo_ms, pct[k][i]);
                    hi_ms = fmax(hi_ms, pct[k][i]);
                }
        if (isfinite(sw[r].slo_ms) && sw[r].slo_ms > 0) {
            lo_ms = fmin(lo_ms, sw[r].slo_ms);
            hi_ms = fmax(hi_ms, sw[r].slo_ms);
        }
        if (sw[r].tail_name[0]) {
            mixed_tail |= tail && strcmp(tail, sw[r].tail_name) != 0;
            tail = sw[r].tail_name;
        }
        load_items[nload++] =
            (struct legend_item){.color = palette[r % NCOLORS], .dash = dashes[(r / NCOLORS) % 3]};
        snprintf(load_items[r].label, sizeof(load_items[r].label), "%s", sw[r].label);
        lw = fmax(lw, svg_text_width(sw[r].label, FONT) + 36);
    }
    /*
     * A sweep is drawn alone (plot.c), so its legend may be as wide as its
     * labels, which name command lines, up to what leaves the panels half
     * of the width.
     */
    lw = fmin(lw, width * 0.4);
    w = width - LEFT - RIGHT - lw - GAP;
    load_items[nload++] =
        (struct legend_item){.label = "step held", .color = "#777777", .mark = MARK_DOT};
    load_items[nload++] =
        (struct legend_item){.label = "step failed", .color = "#777777", .mark = MARK_CROSS};
    load_items[nload++] = (struct legend_item){
        .label = "knee: the highest held", .color = "#222222", .mark = MARK_RING};
    load_items[nload++] =
        (struct legend_item){.label = "y = x: all delivered", .color = "#999999", .dash = "5 4"};

    /* Offered and delivered on one scale, so that y = x is the diagonal. */
    y = y0 + HEADING;
    load = (struct panel){.x = LEFT,
                          .y = y,
                          .w = w,
                          .h = PANEL_H,
                          .heading = "Delivered against offered load",
                          .ylabel = "delivered (messages/s)"};
    plot_ticks_linear(0, hi, 10, &load.xt);
    plot_ticks_linear(0, hi, 10, &load.yt);
    panel_scales(&load, PLOT_LINEAR, PLOT_LINEAR);
    draw_axes(s, &load);
    svg_line(s, px_x(&load, 0), px_y(&load, 0), px_x(&load, load.xt.hi), px_y(&load, load.xt.hi),
             &(struct svg_style){.stroke = "#999999", .dash = "5 4", .cls = "reference"});
    /* The knees' rings first, so that no knee's label covers another's ring. */
    for (size_t r = 0; r < n; r++)
        for (size_t i = 0; i < sw[r].n; i++)
            if (sw[r].held[i] && sw[r].offered[i] == sw[r].knee &&
                isfinite(px_y(&load, sw[r].delivered[i]))) {
                double x = px_x(&load, sw[r].offered[i]), yy = px_y(&load, sw[r].delivered[i]);

                placed[nplaced++] = (struct box){x - 8, yy - 8, x + 8, yy + 8};
            }
    for (size_t r = 0; r < n; r++) {
        struct legend_item it = load_items[r];

        snprintf(it.label, sizeof(it.label), "%s: delivered", sw[r].label);
        svg_group_begin(s, "sweep-load");
        draw_series(s, &load, sw[r].offered, sw[r].delivered, sw[r].n, &it);
        for (size_t i = 0; i < sw[r].n; i++) {
            double x = px_x(&load, sw[r].offered[i]), yy = px_y(&load, sw[r].delivered[i]);

            if (!isfinite(yy))
                continue;
            if (sw[r].held[i])
                svg_circle(
                    s, x, yy, 4,
                    &(struct svg_style){.stroke = it.color, .fill = it.color, .cls = "step held"});
            else
                draw_cross(s, x, yy,
                           &(struct svg_style){
                               .stroke = it.color, .stroke_width = 2, .cls = "step failed"});
            if (sw[r].held[i] && sw[r].offered[i] == sw[r].knee) {
                svg_circle(
                    s, x, yy, 8,
                    &(struct svg_style){.stroke = "#222222", .stroke_width = 2, .cls = "knee"});
                snprintf(text, sizeof(text), "knee %.6g/s", sw[r].knee);
                draw_knee_label(s, &load, x, yy, it.color, text, placed, &nplaced);
            }
        }
        svg_group_end(s);
    }
    legend_h = draw_legend_in(s, LEFT + w + GAP, load.y, lw, load_items, nload);
    y += fmax(PANEL_H + 30, legend_h + 20);

    /* Latency on a log axis: a step past the knee is often a thousand times slower. */
    y += HEADING;
    lat = (struct panel){.x = LEFT,
                         .y = y,
                         .w = w,
                         .h = PANEL_H,
                         .heading = "Client latency from the intended send time",
                         .ylabel = "latency (log scale)",
                         .xlabel = "offered (messages/s)"};
    lat.xt = load.xt;
    if (!isfinite(lo_ms))
        lo_ms = hi_ms = 1; /* no step with a latency: an empty axis */
    plot_ticks_log(lo_ms, hi_ms, &lat.yt);
    label_ms_ticks(&lat.yt);
    panel_scales(&lat, PLOT_LINEAR, PLOT_LOG);
    draw_axes(s, &lat);
    for (size_t r = 0; r < n; r++) {
        static const char *const pct_name[] = {"p50", "p99"};
        const double *const pct[] = {sw[r].p50, sw[r].p99, sw[r].tail};
        int drawn = 0;

        for (size_t r2 = 0; r2 < r; r2++)
            drawn |= sw[r2].slo_ms == sw[r].slo_ms;
        if (isfinite(sw[r].slo_ms) && sw[r].slo_ms > 0 && !drawn) {
            const struct svg_font f = {.size = FONT, .fill = "#c0392b", .cls = "slo-label"};
            double yy = px_y(&lat, sw[r].slo_ms);

            svg_line(
                s, lat.x, yy, lat.x + lat.w, yy,
                &(struct svg_style){
                    .stroke = "#c0392b", .stroke_width = 1.5, .dash = "8 3 2 3", .cls = "slo"});
            /* at the left, where the latencies are low: above them, not across them */
            snprintf(text, sizeof(text), "SLO: p99 \xe2\x89\xa4 %.6g ms", sw[r].slo_ms);
            svg_rect(s, lat.x + 4, yy - 5 - FONT, svg_text_width(text, FONT) + 4, FONT + 3,
                     &(struct svg_style){.fill = "#ffffff", .opacity = 0.85});
            svg_text(s, lat.x + 6, yy - 5, &f, text);
        }
        svg_group_begin(s, "sweep-latency");
        for (size_t k = 0; k < 3; k++) {
            struct legend_item it = {.color = load_items[r].color, .dash = pct_dash[k]};

            if (k == 2 && !sw[r].tail_name[0])
                continue;
            snprintf(it.label, sizeof(it.label), "%s: %s", sw[r].label,
                     k < 2 ? pct_name[k] : sw[r].tail_name);
            draw_series(s, &lat, sw[r].offered, pct[k], sw[r].n, &it);
        }
        /* The p99 is what the SLO judges: its failed steps marked as above. */
        for (size_t i = 0; i < sw[r].n; i++)
            if (!sw[r].held[i] && isfinite(sw[r].p99[i]))
                draw_cross(s, px_x(&lat, sw[r].offered[i]), px_y(&lat, sw[r].p99[i]),
                           &(struct svg_style){.stroke = load_items[r].color,
                                               .stroke_width = 2,
                                               .cls = "p99-failed"});
        svg_group_end(s);
    }
    lat_items[nlat++] = (struct legend_item){.label = "p50", .color = "#444444"};
    lat_items[nlat++] = (struct legend_item){.label = "p99", .color = "#444444", .dash = "7 4"};
    if (tail) {
        lat_items[nlat] = (struct legend_item){.color = "#444444", .dash = "2 3"};
        snprintf(lat_items[nlat++].label, sizeof(lat_items[0].label), "%s",
                 mixed_tail ? "p99.9 (or max)" : tail);
    }
    lat_items[nlat++] = (struct legend_item){.label = "SLO", .color = "#c0392b", .dash = "8 3 2 3"};
    legend_h = draw_legend_in(s, LEFT + w + GAP, lat.y, lw, lat_items, nlat);
    y += fmax(PANEL_H + BELOW + 14, legend_h + 10);

    svg_group_begin(s, "verdicts");
    for (size_t r = 0; r < n; r++) {
        char tail_text[256];

        sweep_verdict(&sw[r], n > 1, text, sizeof(text), tail_text, sizeof(tail_text));
        if (tail_text[0]) {
            size_t used = strlen(text);

            /* On one line when it fits, else what broke it on a line of its own under it. */
            snprintf(text + used, sizeof(text) - used, "; %s", tail_text);
            if (svg_text_width(text, FONT) > width - LEFT - RIGHT) {
                text[used] = '\0';
                fitted_text(s, LEFT, y, width - LEFT - RIGHT, &note, text);
                y += 16;
                snprintf(text, sizeof(text), "%s", tail_text);
                fitted_text(s, LEFT + 24, y, width - LEFT - RIGHT - 24, &note, text);
                y += 20;
                continue;
            }
        }
        fitted_text(s, LEFT, y, width - LEFT - RIGHT, &note, text);
        y += 18;
    }
    svg_group_end(s);
    free(load_items);
    free(placed);
    return y + 6 - y0;
}
