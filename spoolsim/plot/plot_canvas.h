/*
 * plot_canvas - a picture as a list of shapes in memory (no I/O).
 *
 * spoolsim plot's drawing (plot_draw, plot_sweep) appends lines,
 * rectangles, circles, broken lines, text and groups here, in pixels from
 * the top left; plot_render replays the list through cairo into PNG, PDF
 * or SVG. The list keeps the layout pure and readable: the unit tests, the
 * fuzz target and tests/unit/plot_shapes.c look at what was drawn (a
 * shape's class and a line's title say what it stands for) without a
 * drawing library.
 *
 * What it promises whoever renders the list: every text is well-formed
 * UTF-8 with no control character (a byte that starts no character
 * becomes U+FFFD, white space a space), as cairo needs it; every
 * coordinate is finite and within PLOT_CANVAS_LIMIT px of the origin (a
 * shape with one that is not finite is left out, a broken line leaves the
 * point out and breaks there); colours are parsed here, once.
 */
#ifndef SPOOLSIM_PLOT_CANVAS_H
#define SPOOLSIM_PLOT_CANVAS_H

#include <stddef.h>

/* Far beyond any picture, well inside what cairo's fixed-point coordinates hold. */
#define PLOT_CANVAS_LIMIT 1e6
#define PLOT_DASH_MAX 4

/* How a shape is drawn; a NULL or 0 member takes the default in brackets. */
struct plot_style {
    const char *stroke;  /* stroke colour, "#rgb" or "#rrggbb" (none) */
    double stroke_width; /* (1) */
    const char *dash;    /* lengths on and off, "6 3", at most PLOT_DASH_MAX (solid) */
    const char *fill;    /* fill colour (none) */
    double opacity;      /* the fill's, in (0, 1] (1) */
    const char *cls;     /* what the shape stands for, words ("step held") (none) */
};

enum plot_anchor { PLOT_START, PLOT_MIDDLE, PLOT_END };

struct plot_font {
    double size;             /* px (12) */
    enum plot_anchor anchor; /* where x is on the text */
    int bold;
    double rotate;    /* degrees about (x, y), -90 reads upwards */
    const char *fill; /* (#222) */
    const char *cls;
};

struct plot_color {
    double r, g, b; /* 0 to 1 */
    int set;        /* 0: none (no stroke, no fill) */
};

enum plot_shape {
    PLOT_LINE,     /* v: x1, y1, x2, y2 */
    PLOT_RECT,     /* v: x, y, width, height */
    PLOT_CIRCLE,   /* v: cx, cy, r */
    PLOT_PATH,     /* pt: the points; text: its title or NULL */
    PLOT_TEXT,     /* v: x, y (the baseline); text */
    PLOT_GROUP,    /* the shapes to the matching PLOT_GROUP_END belong together (cls) */
    PLOT_GROUP_END /* */
};

struct plot_point {
    double x, y;
    int move; /* the line starts again here (the first point, and after a gap) */
};

struct plot_item {
    enum plot_shape shape;
    double v[4];
    struct plot_point *pt;
    size_t npt;
    struct plot_color stroke, fill;
    double stroke_width, opacity;
    double dash[PLOT_DASH_MAX];
    size_t ndash;
    char *text, *cls; /* malloc'd, or NULL */
    double size, rotate;
    enum plot_anchor anchor;
    int bold;
};

struct plot_canvas {
    struct plot_item *item;
    size_t n, cap;
};

void plot_canvas_init(struct plot_canvas *c);
void plot_canvas_free(struct plot_canvas *c);

void plot_canvas_line(struct plot_canvas *c, double x1, double y1, double x2, double y2,
                      const struct plot_style *st);
void plot_canvas_rect(struct plot_canvas *c, double x, double y, double w, double h,
                      const struct plot_style *st);
void plot_canvas_circle(struct plot_canvas *c, double cx, double cy, double r,
                        const struct plot_style *st);
/*
 * A line through the n points (x[i], y[i]) as one shape: a point with a
 * coordinate that is not finite is left out and breaks the line there.
 * title, if not NULL, names it. Nothing is recorded without a finite point.
 */
void plot_canvas_polyline(struct plot_canvas *c, const double *x, const double *y, size_t n,
                          const struct plot_style *st, const char *title);
void plot_canvas_text(struct plot_canvas *c, double x, double y, const struct plot_font *f,
                      const char *text);
/* A group of the shapes up to plot_canvas_group_end(); cls may be NULL. */
void plot_canvas_group_begin(struct plot_canvas *c, const char *cls);
void plot_canvas_group_end(struct plot_canvas *c);

/*
 * The width text is likely to take at size px in a sans-serif font: the
 * average advance of its characters, a little on the generous side, so
 * that what is laid out with it does not overlap.
 */
double plot_canvas_text_width(const char *text, double size);

/* text made fit for a picture (see above), malloc'd. */
char *plot_canvas_clean_text(const char *text);

/* "#rgb" or "#rrggbb" into *out: 0, or -1 for anything else. */
int plot_canvas_color(const char *text, struct plot_color *out);

/* Whether cls, as words, holds word: "step held" holds "held". */
int plot_canvas_has_class(const char *cls, const char *word);

#endif
