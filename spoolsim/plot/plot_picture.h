/*
 * plot_picture - result files read, sorted into what each can show, and
 * laid out as one picture on a canvas: what `spoolsim plot' draws, before
 * it is a PNG, PDF or SVG (plot_render) and a file (plot.c).
 *
 * plot_picture_read() reads the files and decides which kinds of picture
 * they give: with a --kind, every result must hold it; with auto, each
 * kind is drawn from the results that hold it, and a result that holds
 * none is an error. A result it cannot read or use, or a mixture it cannot
 * draw (a sweep beside anything but sweeps), is a usage error (exit 2,
 * msg_usage) naming the file and the reason; a warning says what of a
 * result is left out. plot_picture_draw() stacks the kinds one under
 * another under a title.
 *
 * tests/unit/plot_shapes.c draws through here too, so that the
 * integration test sees the very shapes plot draws.
 */
#ifndef SPOOLSIM_PLOT_PICTURE_H
#define SPOOLSIM_PLOT_PICTURE_H

#include <stddef.h>

#include "plot_canvas.h"
#include "plot_data.h"

enum plot_kind {
    PLOT_KIND_AUTO,
    PLOT_KIND_TIMELINE,
    PLOT_KIND_LATENCY,
    PLOT_KIND_AB,
    PLOT_KIND_SWEEP
};

/* One result file and what it says of itself. */
struct plot_result {
    const char *path;
    char *text;
    char label[PLOT_LABEL_MAX];
    char program[64];
};

struct plot_picture {
    struct plot_result *r;
    size_t nr;
    struct plot_timeline *tl;
    size_t ntl;
    struct plot_curve *curves;
    size_t ncurves, ncurve_results;
    struct plot_ab *ab;
    size_t nab;
    struct plot_sweep *sw;
    size_t nsw;
};

/* --kind's word (timeline, latency, ab, sweep or auto); another is a usage error. */
enum plot_kind plot_picture_kind(const char *text);

/* The n results at paths, what each holds of kind, into *pic; exits 2 as above. */
void plot_picture_read(struct plot_picture *pic, char *const *paths, size_t n, enum plot_kind kind);

/* The title when the user gives none: the results' names, and a lone one's program. */
void plot_picture_title(const struct plot_picture *pic, char *out, size_t len);

/*
 * The picture under title onto c, PLOT_WIDTH px wide: its height in px;
 * what it shows in words ("timeline of 1 result, latency (3 curves)") in
 * what.
 */
double plot_picture_draw(const struct plot_picture *pic, const char *title, struct plot_canvas *c,
                         char *what, size_t what_len);

void plot_picture_free(struct plot_picture *pic);

#endif
