/*
 * plot_canvas - a picture as a list of shapes in memory; see plot_canvas.h.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "msg.h"
#include "plot_canvas.h"
#include "utf8.h"
#include "xalloc.h"
#include "xgrow.h"

void plot_canvas_init(struct plot_canvas *c)
{
    *c = (struct plot_canvas){0};
}

void plot_canvas_free(struct plot_canvas *c)
{
    for (size_t i = 0; i < c->n; i++) {
        free(c->item[i].pt);
        free(c->item[i].text);
        free(c->item[i].cls);
    }
    free(c->item);
    *c = (struct plot_canvas){0};
}

int plot_canvas_color(const char *text, struct plot_color *out)
{
    size_t n = strlen(text), digits = n == 4 ? 1 : n == 7 ? 2 : 0;
    double v[3];

    if (text[0] != '#' || digits == 0 || strspn(text + 1, "0123456789abcdefABCDEF") != n - 1)
        return -1;
    for (size_t k = 0; k < 3; k++) {
        char hex[3] = {text[1 + k * digits], text[digits * (k + 1)], '\0'};

        /* "#abc" is "#aabbcc": each digit twice */
        v[k] = (double)strtoul(hex, NULL, 16) / 255.0;
    }
    *out = (struct plot_color){v[0], v[1], v[2], 1};
    return 0;
}

/* A colour the drawing code names: a literal of its own, so a bad one is a mistake here. */
static struct plot_color color(const char *text)
{
    struct plot_color c = {0};

    if (text && plot_canvas_color(text, &c) != 0)
        msg_panic("plot colour \"%s\" is not #rgb or #rrggbb", text);
    return c;
}

static double coord(double v)
{
    return fmax(-PLOT_CANVAS_LIMIT, fmin(PLOT_CANVAS_LIMIT, v));
}

/* The next item, its style from st; NULL when one of the n values is not finite. */
static struct plot_item *add(struct plot_canvas *c, enum plot_shape shape, const double *v,
                             size_t n, const struct plot_style *st)
{
    struct plot_item *it;

    for (size_t i = 0; i < n; i++)
        if (!isfinite(v[i]))
            return NULL;
    c->item = xgrow(c->item, &c->cap, c->n + 1, 64, sizeof(*c->item));
    it = &c->item[c->n++];
    *it = (struct plot_item){.shape = shape};
    for (size_t i = 0; i < n; i++)
        it->v[i] = coord(v[i]);
    if (st) {
        it->stroke = color(st->stroke);
        it->fill = color(st->fill);
        it->stroke_width = st->stroke_width > 0 ? st->stroke_width : 1;
        it->opacity = st->opacity > 0 && st->opacity < 1 ? st->opacity : 1;
        it->cls = st->cls ? xstrdup(st->cls) : NULL;
        for (const char *p = st->dash; p && *p && it->ndash < PLOT_DASH_MAX;) {
            char *end;
            double d = strtod(p, &end);

            if (end == p)
                break;
            it->dash[it->ndash++] = d;
            p = end;
        }
    }
    return it;
}

void plot_canvas_line(struct plot_canvas *c, double x1, double y1, double x2, double y2,
                      const struct plot_style *st)
{
    add(c, PLOT_LINE, (const double[]){x1, y1, x2, y2}, 4, st);
}

void plot_canvas_rect(struct plot_canvas *c, double x, double y, double w, double h,
                      const struct plot_style *st)
{
    add(c, PLOT_RECT, (const double[]){x, y, w, h}, 4, st);
}

void plot_canvas_circle(struct plot_canvas *c, double cx, double cy, double r,
                        const struct plot_style *st)
{
    add(c, PLOT_CIRCLE, (const double[]){cx, cy, r}, 3, st);
}

void plot_canvas_polyline(struct plot_canvas *c, const double *x, const double *y, size_t n,
                          const struct plot_style *st, const char *title)
{
    struct plot_item *it;
    int pen_down = 0;

    if ((it = add(c, PLOT_PATH, NULL, 0, st)) == NULL)
        return;
    it->pt = xmalloc((n ? n : 1) * sizeof(*it->pt));
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(x[i]) || !isfinite(y[i])) {
            pen_down = 0;
            continue;
        }
        it->pt[it->npt++] = (struct plot_point){coord(x[i]), coord(y[i]), !pen_down};
        pen_down = 1;
    }
    if (it->npt == 0) { /* nothing to draw, no shape */
        free(it->pt);
        free(it->cls);
        c->n--;
        return;
    }
    it->text = title ? plot_canvas_clean_text(title) : NULL;
}

void plot_canvas_text(struct plot_canvas *c, double x, double y, const struct plot_font *f,
                      const char *text)
{
    struct plot_item *it = add(c, PLOT_TEXT, (const double[]){x, y}, 2, NULL);

    if (it == NULL)
        return;
    it->fill = color(f->fill ? f->fill : "#222222");
    it->size = f->size > 0 ? f->size : 12;
    it->anchor = f->anchor;
    it->bold = f->bold;
    it->rotate = isfinite(f->rotate) ? f->rotate : 0;
    it->cls = f->cls ? xstrdup(f->cls) : NULL;
    it->text = plot_canvas_clean_text(text);
}

void plot_canvas_group_begin(struct plot_canvas *c, const char *cls)
{
    struct plot_item *it = add(c, PLOT_GROUP, NULL, 0, NULL);

    it->cls = cls ? xstrdup(cls) : NULL;
}

void plot_canvas_group_end(struct plot_canvas *c)
{
    add(c, PLOT_GROUP_END, NULL, 0, NULL);
}

char *plot_canvas_clean_text(const char *text)
{
    /* U+FFFD is three bytes: no byte grows to more */
    char *out = xmalloc(3 * strlen(text) + 1), *o = out;
    const unsigned char *p = (const unsigned char *)text;

    while (*p) {
        size_t n;

        if (*p < 0x20 || *p == 0x7f) {
            /* white space reads as a space; another control character shows that one was there */
            const char *r = *p == '\t' || *p == '\n' || *p == '\r' ? " " : UTF8_REPLACEMENT;

            memcpy(o, r, strlen(r));
            o += strlen(r);
            p++;
        } else if ((n = utf8_char_len(p)) == 0) {
            memcpy(o, UTF8_REPLACEMENT, 3); /* for each byte that starts no character */
            o += 3;
            p++;
        } else {
            memcpy(o, p, n);
            o += n;
            p += n;
        }
    }
    *o = '\0';
    return out;
}

double plot_canvas_text_width(const char *text, double size)
{
    double em = 0;

    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        if ((*p & 0xc0) == 0x80)
            continue; /* a continuation byte: the character was counted */
        /* Narrow glyphs (Helvetica and DejaVu Sans advances, rounded up). */
        if (strchr(" .,:;'|!il1()[]ftrIj", *p))
            em += 0.38;
        else if (*p >= 'A' && *p <= 'Z')
            em += 0.72;
        else if (*p == 'm' || *p == 'w' || *p == '%' || *p >= 0x80)
            em += 0.9;
        else
            em += 0.6;
    }
    return em * (size > 0 ? size : 12);
}

int plot_canvas_has_class(const char *cls, const char *word)
{
    size_t n = strlen(word);

    for (const char *p = cls; p && *p;) {
        size_t len = strcspn(p, " ");

        if (len == n && strncmp(p, word, n) == 0)
            return 1;
        p += len;
        p += strspn(p, " ");
    }
    return 0;
}
