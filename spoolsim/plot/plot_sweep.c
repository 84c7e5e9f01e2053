/*
 * plot_sweep - the sweep's picture for `spoolsim plot'; see plot_draw.h.
 *
 * Two panels over the same offered-rate axis, delivered rate and the
 * client's latency, drawn with plot_draw.c's panels, axes and legend (see
 * plot_draw_impl.h); what is the sweep's own is placing the knees' labels
 * where they cover no other, the millisecond ticks and the verdict lines.
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
static void draw_knee_label(struct plot_canvas *s, const struct panel *p, double x, double y,
                            const char *color, const char *text, struct box *placed, size_t *np)
{
    static const int side[][2] = {{1, 1}, {-1, -1}, {1, -1}, {-1, 1}};
    const struct plot_font f = {.size = FONT, .bold = 1, .fill = color, .cls = "knee-label"};
    double tw = plot_canvas_text_width(text, FONT), line = FONT + 3;
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
    plot_canvas_rect(s, b.x0, b.y0, b.x1 - b.x0, b.y1 - b.y0,
                     &(struct plot_style){.fill = "#ffffff", .opacity = 0.85});
    plot_canvas_text(s, b.x0 + 2, b.y1 - 3, &f, text);
    placed[(*np)++] = b;
}

/*
 * The step whose mark the knee's ring goes round: the first held step at
 * the knee's rate, one for each sweep however often that rate was run;
 * sw->n when there is none.
 */
static size_t knee_step(const struct plot_sweep *sw)
{
    for (size_t i = 0; i < sw->n; i++)
        if (sw->held[i] && sw->offered[i] == sw->knee)
            return i;
    return sw->n;
}

/* Series v of sweep sw as a line through each rate's median (plot_data_sweep_line). */
static void draw_sweep_series(struct plot_canvas *s, const struct panel *p,
                              const struct plot_sweep *sw, const double *v,
                              const struct legend_item *it)
{
    double *x = xmalloc((sw->n ? sw->n : 1) * sizeof(*x)),
           *y = xmalloc((sw->n ? sw->n : 1) * sizeof(*y));

    plot_draw_series(s, p, x, y, plot_data_sweep_line(sw, v, x, y), it);
    free(x);
    free(y);
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
        if (isfinite(sw->knee) && isfinite(sw->peak))
            snprintf(head + used, head_len - used,
                     "knee %.6g msgs/s, %.1fx the log's busiest minute", sw->knee,
                     sw->knee / sw->peak);
        else if (isfinite(sw->knee))
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

double plot_sweep_draw(struct plot_canvas *s, double y0, double width, const struct plot_sweep *sw,
                       size_t n)
{
    static const char *const pct_dash[] = {NULL, "7 4", "2 3"};
    const struct plot_font note = {.size = FONT, .cls = "verdict"};
    struct legend_item *load_items = xcalloc(n + 5, sizeof(*load_items));
    struct legend_item lat_items[4];
    /* What the knees' labels must not cover: a ring and a label per sweep at most (knee_step). */
    struct box *placed = xcalloc(2 * n + 1, sizeof(*placed));
    size_t nload = 0, nlat = 0, nplaced = 0;
    double hi = 0, lo_ms = INFINITY, hi_ms = 0, lw = LEGEND_W, w, y, legend_h;
    struct panel load, lat;
    char text[PLOT_LABEL_MAX + 320];
    const char *tail = NULL;
    int mixed_tail = 0;

    for (size_t r = 0; r < n; r++) {
        const double *const pct[] = {sw[r].p50, sw[r].p99, sw[r].tail};

        hi = plot_draw_max_of(plot_draw_max_of(hi, sw[r].offered, sw[r].n), sw[r].delivered,
                              sw[r].n);
        for (size_t k = 0; k < 3; k++)
            for (size_t i = 0; i < sw[r].n; i++)
                if (isfinite(pct[k][i])) {
                    lo_ms = fmin(lo_ms, pct[k][i]);
                    hi_ms = fmax(hi_ms, pct[k][i]);
                }
        if (isfinite(sw[r].peak)) /* its line must be on the axis */
            hi = fmax(hi, sw[r].peak);
        if (isfinite(sw[r].slo_ms) && sw[r].slo_ms > 0) {
            lo_ms = fmin(lo_ms, sw[r].slo_ms);
            hi_ms = fmax(hi_ms, sw[r].slo_ms);
        }
        if (sw[r].tail_name[0]) {
            mixed_tail |= tail && strcmp(tail, sw[r].tail_name) != 0;
            tail = sw[r].tail_name;
        }
        load_items[nload++] = (struct legend_item){.color = plot_palette[r % NCOLORS],
                                                   .dash = plot_dashes[(r / NCOLORS) % 3]};
        snprintf(load_items[r].label, sizeof(load_items[r].label), "%s", sw[r].label);
        lw = fmax(lw, plot_canvas_text_width(sw[r].label, FONT) + 36);
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
    for (size_t r = 0; r < n; r++)
        if (isfinite(sw[r].peak)) {
            load_items[nload++] = (struct legend_item){
                .label = "the log's busiest minute", .color = "#b2182b", .dash = "2 3"};
            break;
        }

    /* Offered and delivered on one scale, so that y = x is the diagonal. */
    y = y0 + HEADING;
    load = (struct panel){.x = LEFT,
                          .y = y,
                          .w = w,
                          .h = PANEL_H,
                          .heading = "Delivered against offered load",
                          .ylabel = "delivered (messages/s)"};
    plot_axis_ticks_linear(0, hi, 10, &load.xt);
    plot_axis_ticks_linear(0, hi, 10, &load.yt);
    plot_draw_panel_scales(&load, PLOT_LINEAR, PLOT_LINEAR);
    plot_draw_axes(s, &load);
    plot_canvas_line(s, plot_draw_px_x(&load, 0), plot_draw_px_y(&load, 0),
                     plot_draw_px_x(&load, load.xt.hi), plot_draw_px_y(&load, load.xt.hi),
                     &(struct plot_style){.stroke = "#999999", .dash = "5 4", .cls = "reference"});
    /* --workload: the rate of the log's busiest minute, against which the knee is read. */
    for (size_t r = 0; r < n; r++)
        if (isfinite(sw[r].peak))
            plot_canvas_line(
                s, plot_draw_px_x(&load, sw[r].peak), plot_draw_px_y(&load, 0),
                plot_draw_px_x(&load, sw[r].peak), plot_draw_px_y(&load, load.yt.hi),
                &(struct plot_style){.stroke = "#b2182b", .dash = "2 3", .cls = "workload-peak"});
    /* The knees' rings first, so that no knee's label covers another's ring. */
    for (size_t r = 0; r < n; r++) {
        size_t i = knee_step(&sw[r]);

        if (i < sw[r].n && isfinite(plot_draw_px_y(&load, sw[r].delivered[i]))) {
            double x = plot_draw_px_x(&load, sw[r].offered[i]),
                   yy = plot_draw_px_y(&load, sw[r].delivered[i]);

            placed[nplaced++] = (struct box){x - 8, yy - 8, x + 8, yy + 8};
        }
    }
    for (size_t r = 0; r < n; r++) {
        struct legend_item it = load_items[r];
        size_t knee = knee_step(&sw[r]);

        snprintf(it.label, sizeof(it.label), "%s: delivered", sw[r].label);
        plot_canvas_group_begin(s, "sweep-load");
        draw_sweep_series(s, &load, &sw[r], sw[r].delivered, &it);
        for (size_t i = 0; i < sw[r].n; i++) {
            double x = plot_draw_px_x(&load, sw[r].offered[i]),
                   yy = plot_draw_px_y(&load, sw[r].delivered[i]);

            if (!isfinite(yy))
                continue;
            if (sw[r].held[i])
                plot_canvas_circle(
                    s, x, yy, 4,
                    &(struct plot_style){.stroke = it.color, .fill = it.color, .cls = "step held"});
            else
                plot_draw_cross(s, x, yy,
                                &(struct plot_style){
                                    .stroke = it.color, .stroke_width = 2, .cls = "step failed"});
            if (i == knee) {
                plot_canvas_circle(
                    s, x, yy, 8,
                    &(struct plot_style){.stroke = "#222222", .stroke_width = 2, .cls = "knee"});
                snprintf(text, sizeof(text), "knee %.6g/s", sw[r].knee);
                draw_knee_label(s, &load, x, yy, it.color, text, placed, &nplaced);
            }
        }
        plot_canvas_group_end(s);
    }
    legend_h = plot_draw_legend_in(s, LEFT + w + GAP, load.y, lw, load_items, nload);
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
    plot_axis_ticks_log(lo_ms, hi_ms, &lat.yt);
    label_ms_ticks(&lat.yt);
    plot_draw_panel_scales(&lat, PLOT_LINEAR, PLOT_LOG);
    plot_draw_axes(s, &lat);
    for (size_t r = 0; r < n; r++) {
        static const char *const pct_name[] = {"p50", "p99"};
        const double *const pct[] = {sw[r].p50, sw[r].p99, sw[r].tail};
        int drawn = 0;

        for (size_t r2 = 0; r2 < r; r2++)
            drawn |= sw[r2].slo_ms == sw[r].slo_ms;
        if (isfinite(sw[r].slo_ms) && sw[r].slo_ms > 0 && !drawn) {
            const struct plot_font f = {.size = FONT, .fill = "#c0392b", .cls = "slo-label"};
            double yy = plot_draw_px_y(&lat, sw[r].slo_ms);

            plot_canvas_line(
                s, lat.x, yy, lat.x + lat.w, yy,
                &(struct plot_style){
                    .stroke = "#c0392b", .stroke_width = 1.5, .dash = "8 3 2 3", .cls = "slo"});
            /* at the left, where the latencies are low: above them, not across them */
            snprintf(text, sizeof(text), "SLO: p99 \xe2\x89\xa4 %.6g ms", sw[r].slo_ms);
            plot_canvas_rect(s, lat.x + 4, yy - 5 - FONT, plot_canvas_text_width(text, FONT) + 4,
                             FONT + 3, &(struct plot_style){.fill = "#ffffff", .opacity = 0.85});
            plot_canvas_text(s, lat.x + 6, yy - 5, &f, text);
        }
        plot_canvas_group_begin(s, "sweep-latency");
        for (size_t k = 0; k < 3; k++) {
            struct legend_item it = {.color = load_items[r].color, .dash = pct_dash[k]};

            if (k == 2 && !sw[r].tail_name[0])
                continue;
            snprintf(it.label, sizeof(it.label), "%s: %s", sw[r].label,
                     k < 2 ? pct_name[k] : sw[r].tail_name);
            draw_sweep_series(s, &lat, &sw[r], pct[k], &it);
        }
        /* The p99 is what the SLO judges: its failed steps marked as above. */
        for (size_t i = 0; i < sw[r].n; i++)
            if (!sw[r].held[i] && isfinite(sw[r].p99[i]))
                plot_draw_cross(
                    s, plot_draw_px_x(&lat, sw[r].offered[i]), plot_draw_px_y(&lat, sw[r].p99[i]),
                    &(struct plot_style){
                        .stroke = load_items[r].color, .stroke_width = 2, .cls = "p99-failed"});
        plot_canvas_group_end(s);
    }
    lat_items[nlat++] = (struct legend_item){.label = "p50", .color = "#444444"};
    lat_items[nlat++] = (struct legend_item){.label = "p99", .color = "#444444", .dash = "7 4"};
    if (tail) {
        lat_items[nlat] = (struct legend_item){.color = "#444444", .dash = "2 3"};
        snprintf(lat_items[nlat++].label, sizeof(lat_items[0].label), "%s",
                 mixed_tail ? "p99.9 (or max)" : tail);
    }
    lat_items[nlat++] = (struct legend_item){.label = "SLO", .color = "#c0392b", .dash = "8 3 2 3"};
    legend_h = plot_draw_legend_in(s, LEFT + w + GAP, lat.y, lw, lat_items, nlat);
    y += fmax(PANEL_H + BELOW + 14, legend_h + 10);

    plot_canvas_group_begin(s, "verdicts");
    for (size_t r = 0; r < n; r++) {
        char tail_text[256];

        sweep_verdict(&sw[r], n > 1, text, sizeof(text), tail_text, sizeof(tail_text));
        if (tail_text[0]) {
            size_t used = strlen(text);

            /* On one line when it fits, else what broke it on a line of its own under it. */
            snprintf(text + used, sizeof(text) - used, "; %s", tail_text);
            if (plot_canvas_text_width(text, FONT) > width - LEFT - RIGHT) {
                text[used] = '\0';
                plot_draw_fitted_text(s, LEFT, y, width - LEFT - RIGHT, &note, text);
                y += 16;
                snprintf(text, sizeof(text), "%s", tail_text);
                plot_draw_fitted_text(s, LEFT + 24, y, width - LEFT - RIGHT - 24, &note, text);
                y += 20;
                continue;
            }
        }
        plot_draw_fitted_text(s, LEFT, y, width - LEFT - RIGHT, &note, text);
        y += 18;
    }
    plot_canvas_group_end(s);
    free(load_items);
    free(placed);
    return y + 6 - y0;
}
