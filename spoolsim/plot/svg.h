/*
 * svg - an SVG document built in memory (no I/O).
 *
 * The drawing primitives `spoolsim plot' needs: lines, rectangles,
 * circles, polylines with gaps, text and groups, each appended to a
 * growing body; svg_document() wraps the body in the root element once the
 * picture's size is known. Every coordinate is written with '.' whatever
 * the locale, and every text is escaped for XML and made valid UTF-8, so
 * that a file name or a label from a result cannot break the document.
 */
#ifndef SPOOLSIM_SVG_H
#define SPOOLSIM_SVG_H

#include <stddef.h>

struct svg {
    char *buf;
    size_t len, cap;
};

/* How a shape is drawn; a NULL or 0 member takes the default in brackets. */
struct svg_style {
    const char *stroke;  /* stroke colour (none) */
    double stroke_width; /* (1) */
    const char *dash;    /* stroke-dasharray, "6 3" (solid) */
    const char *fill;    /* fill colour (none) */
    double opacity;      /* fill-opacity, in (0, 1] (1) */
    const char *cls;     /* the class attribute, for readers of the file (none) */
};

enum svg_anchor { SVG_START, SVG_MIDDLE, SVG_END };

struct svg_font {
    double size;            /* px (12) */
    enum svg_anchor anchor; /* where x is on the text */
    int bold;
    double rotate;    /* degrees about (x, y), -90 reads upwards */
    const char *fill; /* (#222) */
    const char *cls;
};

void svg_init(struct svg *s);
void svg_free(struct svg *s);

/* text, escaped for XML character data and attribute values, appended to the body. */
void svg_escape(struct svg *s, const char *text);

void svg_line(struct svg *s, double x1, double y1, double x2, double y2,
              const struct svg_style *st);
void svg_rect(struct svg *s, double x, double y, double w, double h, const struct svg_style *st);
void svg_circle(struct svg *s, double cx, double cy, double r, const struct svg_style *st);
/*
 * A line through the n points (x[i], y[i]) as one <path>: a point with a
 * coordinate that is not finite is left out and breaks the line there, so
 * one series with a gap stays one element. title, if not NULL, is its
 * tooltip. Nothing is drawn without a finite point.
 */
void svg_polyline(struct svg *s, const double *x, const double *y, size_t n,
                  const struct svg_style *st, const char *title);
void svg_text(struct svg *s, double x, double y, const struct svg_font *f, const char *text);
/* <g class="cls"> ... </g>; cls may be NULL. */
void svg_group_begin(struct svg *s, const char *cls);
void svg_group_end(struct svg *s);

/*
 * The width text is likely to take at size px in a sans-serif font: the
 * average advance of its characters, a little on the generous side, so
 * that what is laid out with it does not overlap.
 */
double svg_text_width(const char *text, double size);

/*
 * The whole document (malloc'd, NUL-terminated; its length in *len if not
 * NULL): the XML declaration, the root element of width x height px with
 * its title (escaped), a white background, then the body.
 */
char *svg_document(const struct svg *s, double width, double height, const char *title,
                   size_t *len);

/* v rounded to 0.01 and written without a trailing zero or '.', '.' as the point, into buf. */
void svg_format_number(char *buf, size_t len, double v);

#endif
