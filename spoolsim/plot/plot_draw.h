/*
 * plot_draw - the pictures of `spoolsim plot', drawn onto a canvas of
 * shapes (plot_canvas.h; no I/O).
 *
 * Each kind is a block of one or two panels with its legend, laid out
 * from the top at y0 across width px; it returns the height it took, so
 * that blocks stack into one document. Several results overlay in one
 * block: one line (or pair of bars) per result, the legend naming each.
 * Every series shape carries a class that says what it is: "series" (a
 * line, titled by its legend's label), "bar", "errorbar", "run" (one
 * run's dot), "ratio", "legend", "axis-label", and a sweep's "step",
 * "knee", "slo", "reference".
 */
#ifndef SPOOLSIM_PLOT_DRAW_H
#define SPOOLSIM_PLOT_DRAW_H

#include <stddef.h>

#include "plot_data.h"
#include "plot_canvas.h"

#define PLOT_WIDTH 960.0

/* The page's title at the top: the height it took. */
double plot_draw_title(struct plot_canvas *s, double width, const char *title);

/* Messages in and out per second over time; queue depths in a second panel if any result has them.
 */
double plot_draw_timeline(struct plot_canvas *s, double y0, double width,
                          const struct plot_timeline *tl, size_t n);

/* Latency (ms) by percentile, one line per curve; nresults, how many results they come from. */
double plot_draw_latency(struct plot_canvas *s, double y0, double width, const struct plot_curve *c,
                         size_t n, size_t nresults);

/* Each comparison's two medians as bars with their intervals and runs, and the ratios B/A. */
double plot_draw_ab(struct plot_canvas *s, double y0, double width, const struct plot_ab *ab,
                    size_t n);

/*
 * Sweeps: delivered against offered rate per step with y = x, each step
 * marked held ("step held") or failed ("step failed"), the knee ringed
 * ("knee"); under it the client's p50, p99 and p99.9 against offered rate
 * on a log axis with the SLO ("slo"); a line per sweep saying what it found.
 */
double plot_sweep_draw(struct plot_canvas *s, double y0, double width, const struct plot_sweep *sw,
                       size_t n);

#endif
