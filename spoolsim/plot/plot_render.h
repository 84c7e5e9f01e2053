/*
 * plot_render - a canvas of shapes (plot_canvas.h) drawn by cairo into PNG,
 * PDF or SVG bytes in memory.
 *
 * The one place spoolsim plot meets a drawing library, and the thin part:
 * each shape becomes the few cairo calls that draw it, on white, in the
 * order the canvas holds them; a PNG is PLOT_RENDER_PNG_SCALE pixels to the
 * canvas's pixel, a PDF a point to it. The bytes come back whole or not at
 * all, for plot.c to write (the file is its business).
 */
#ifndef SPOOLSIM_PLOT_RENDER_H
#define SPOOLSIM_PLOT_RENDER_H

#include <stddef.h>

#include "plot_canvas.h"

#define PLOT_RENDER_PNG_SCALE 1.0

enum plot_format { PLOT_FORMAT_PNG, PLOT_FORMAT_PDF, PLOT_FORMAT_SVG };

/* The format a name says, "png", "pdf" or "svg" in any case: 0, or -1 for another. */
int plot_render_format(const char *name, enum plot_format *fmt);

/* The format's name as plot_render_format() reads it, in small letters. */
const char *plot_render_format_name(enum plot_format fmt);

/*
 * The canvas c, width x height px, as a document of format fmt titled
 * title (where the format keeps a title): 0 and the bytes, malloc'd, in
 * *out and *len; or -1 and cairo's reason in err.
 */
int plot_render(const struct plot_canvas *c, double width, double height, const char *title,
                enum plot_format fmt, char **out, size_t *len, char *err, size_t errlen);

#endif
