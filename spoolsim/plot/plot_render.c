/*
 * plot_render - a canvas drawn by cairo into PNG, PDF or SVG; see
 * plot_render.h.
 *
 * The shapes are drawn as an SVG renderer would draw the same attributes
 * (a stroke of width 1 unless told, an opacity on the fill alone, lines
 * joined round, text on its baseline), so that the picture looks as it did
 * when spoolsim wrote its SVG by hand. Text goes through cairo's own
 * ("toy") text calls: the labels are short lines of one font, which need
 * neither shaping nor a second font.
 */
#include "config.h"

#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <cairo.h>
#include <fontconfig/fontconfig.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "plot_render.h"
#include "xalloc.h"
#include "xgrow.h"

/* The family the hand-written SVG asked for first; fontconfig picks the nearest it has. */
#define FONT_FAMILY "DejaVu Sans"

static const char *const format_name[] = {"png", "pdf", "svg"};

int plot_render_format(const char *name, enum plot_format *fmt)
{
    for (size_t i = 0; i < sizeof(format_name) / sizeof(format_name[0]); i++)
        if (strcasecmp(name, format_name[i]) == 0) {
            *fmt = (enum plot_format)i;
            return 0;
        }
    return -1;
}

const char *plot_render_format_name(enum plot_format fmt)
{
    return format_name[fmt];
}

/* The document's bytes as cairo writes them. */
struct sink {
    char *buf;
    size_t len, cap;
};

static cairo_status_t sink_write(void *closure, const unsigned char *data, unsigned int length)
{
    struct sink *s = closure;

    s->buf = xgrow(s->buf, &s->cap, s->len + length, 65536, 1);
    memcpy(s->buf + s->len, data, length);
    s->len += length;
    return CAIRO_STATUS_SUCCESS;
}

static void set_color(cairo_t *cr, const struct plot_color *c, double alpha)
{
    cairo_set_source_rgba(cr, c->r, c->g, c->b, alpha);
}

/* The fill, then the stroke, of the path cr holds. */
static void paint_path(cairo_t *cr, const struct plot_item *it)
{
    if (it->fill.set) {
        set_color(cr, &it->fill, it->opacity);
        cairo_fill_preserve(cr);
    }
    if (it->stroke.set) {
        set_color(cr, &it->stroke, 1);
        cairo_set_line_width(cr, it->stroke_width);
        cairo_set_dash(cr, it->dash, (int)it->ndash, 0);
        cairo_stroke(cr);
    }
    cairo_new_path(cr);
}

static void draw_text(cairo_t *cr, const struct plot_item *it)
{
    cairo_text_extents_t ext;
    double dx = 0;

    cairo_select_font_face(cr, FONT_FAMILY, CAIRO_FONT_SLANT_NORMAL,
                           it->bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr, it->size);
    if (it->anchor != PLOT_START) {
        cairo_text_extents(cr, it->text, &ext);
        dx = it->anchor == PLOT_MIDDLE ? -ext.x_advance / 2 : -ext.x_advance;
    }
    cairo_save(cr);
    cairo_translate(cr, it->v[0], it->v[1]);
    cairo_rotate(cr, it->rotate * M_PI / 180);
    cairo_move_to(cr, dx, 0);
    set_color(cr, &it->fill, 1);
    cairo_show_text(cr, it->text);
    cairo_restore(cr);
    cairo_new_path(cr);
}

static void draw_item(cairo_t *cr, const struct plot_item *it)
{
    switch (it->shape) {
    case PLOT_LINE:
        cairo_move_to(cr, it->v[0], it->v[1]);
        cairo_line_to(cr, it->v[2], it->v[3]);
        paint_path(cr, it);
        break;
    case PLOT_RECT:
        cairo_rectangle(cr, it->v[0], it->v[1], it->v[2], it->v[3]);
        paint_path(cr, it);
        break;
    case PLOT_CIRCLE:
        cairo_new_sub_path(cr);
        cairo_arc(cr, it->v[0], it->v[1], it->v[2], 0, 2 * M_PI);
        paint_path(cr, it);
        break;
    case PLOT_PATH:
        for (size_t i = 0; i < it->npt; i++)
            (it->pt[i].move ? cairo_move_to : cairo_line_to)(cr, it->pt[i].x, it->pt[i].y);
        paint_path(cr, it);
        break;
    case PLOT_TEXT:
        draw_text(cr, it);
        break;
    case PLOT_GROUP:
    case PLOT_GROUP_END:
        break; /* what belongs together is for readers of the canvas; cairo draws shapes */
    }
}

static cairo_surface_t *surface_for(enum plot_format fmt, double width, double height,
                                    const char *title, struct sink *sink)
{
    cairo_surface_t *s = NULL;

    switch (fmt) {
    case PLOT_FORMAT_PNG:
        s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, (int)ceil(width * PLOT_RENDER_PNG_SCALE),
                                       (int)ceil(height * PLOT_RENDER_PNG_SCALE));
        cairo_surface_set_device_scale(s, PLOT_RENDER_PNG_SCALE, PLOT_RENDER_PNG_SCALE);
        break;
    case PLOT_FORMAT_PDF: {
        char *clean = plot_canvas_clean_text(title); /* cairo refuses a title not UTF-8 */

        s = cairo_pdf_surface_create_for_stream(sink_write, sink, width, height);
        cairo_pdf_surface_set_metadata(s, CAIRO_PDF_METADATA_TITLE, clean);
        free(clean);
        cairo_pdf_surface_set_metadata(s, CAIRO_PDF_METADATA_CREATOR, PACKAGE_STRING);
        break;
    }
    case PLOT_FORMAT_SVG:
        s = cairo_svg_surface_create_for_stream(sink_write, sink, width, height);
        cairo_svg_surface_set_document_unit(s, CAIRO_SVG_UNIT_PX);
        break;
    }
    return s;
}

/*
 * cairo and fontconfig keep the fonts they found for the life of the
 * process, which for plot ends with the picture: let go of them here, so
 * that the sanitizer build's leak check sees plot's own memory only. Both
 * find their fonts again if another picture is drawn.
 */
static void release_fonts(void)
{
    cairo_debug_reset_static_data();
    FcFini();
}

int plot_render(const struct plot_canvas *c, double width, double height, const char *title,
                enum plot_format fmt, char **out, size_t *len, char *err, size_t errlen)
{
    struct sink sink = {0};
    cairo_surface_t *surface = surface_for(fmt, width, height, title, &sink);
    cairo_t *cr = cairo_create(surface);
    cairo_status_t status;

    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
    for (size_t i = 0; i < c->n; i++)
        draw_item(cr, &c->item[i]);
    /* A drawing call that fails leaves cr in error and the rest undone: it is checked once. */
    status = cairo_status(cr);
    cairo_destroy(cr);
    if (status == CAIRO_STATUS_SUCCESS && fmt == PLOT_FORMAT_PNG)
        status = cairo_surface_write_to_png_stream(surface, sink_write, &sink);
    cairo_surface_finish(surface); /* a PDF or SVG is written out here */
    if (status == CAIRO_STATUS_SUCCESS)
        status = cairo_surface_status(surface);
    cairo_surface_destroy(surface);
    release_fonts();
    if (status != CAIRO_STATUS_SUCCESS) {
        snprintf(err, errlen, "cairo: %s", cairo_status_to_string(status));
        free(sink.buf);
        return -1;
    }
    *out = sink.buf ? sink.buf : xstrdup("");
    *len = sink.len;
    return 0;
}
