/*
 * plot_draw_impl - what plot_draw.c (the timeline, latency and A/B
 * pictures, and the helpers) and plot_sweep.c (the sweep's picture) share,
 * so that every block has one layout: its sizes, colours, panels, axes,
 * legend and lines. Private to spoolsim/plot's drawing; the contract is
 * plot_draw.h.
 */
#ifndef SPOOLSIM_PLOT_DRAW_IMPL_H
#define SPOOLSIM_PLOT_DRAW_IMPL_H

#include <stddef.h>

#include "plot_axis.h"
#include "plot_data.h"
#include "plot_canvas.h"

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
extern const char *const plot_palette[10];
#define NCOLORS (sizeof(plot_palette) / sizeof(plot_palette[0]))
/* A line's pattern once the colours run out, and for series of one result that share its colour. */
extern const char *const plot_dashes[3];

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

/* An x of 9 px at (x, y): a step that failed, as one broken line. */
void plot_draw_cross(struct plot_canvas *s, double x, double y, const struct plot_style *st);

/* The legend from (x, y) down in a column lw px wide: the height it took. */
double plot_draw_legend_in(struct plot_canvas *s, double x, double y, double lw,
                           const struct legend_item *items, size_t n);

/* A value's pixel on p's x and y axes. */
double plot_draw_px_x(const struct panel *p, double v);
double plot_draw_px_y(const struct panel *p, double v);

/* The scales of p from its ticks' axes, over its area. */
void plot_draw_panel_scales(struct panel *p, enum plot_scale_kind xkind,
                            enum plot_scale_kind ykind);

/* Heading, grid, frame, ticks and axis titles. xt may have no ticks (categories). */
void plot_draw_axes(struct plot_canvas *s, const struct panel *p);

/* A line through (x[i], y[i]) in p's pixels. */
void plot_draw_series(struct plot_canvas *s, const struct panel *p, const double *x,
                      const double *y, size_t n, const struct legend_item *it);

/* The largest of m and the finite v[i]. */
double plot_draw_max_of(double m, const double *v, size_t n);

/* text at (x, y), cut to fit width px. */
void plot_draw_fitted_text(struct plot_canvas *s, double x, double y, double width,
                           const struct plot_font *f, const char *text);

#endif
