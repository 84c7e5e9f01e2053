/*
 * svg - an SVG document built in memory; see svg.h.
 */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "svg.h"
#include "utf8.h"
#include "xalloc.h"
#include "xgrow.h"

void svg_init(struct svg *s)
{
    s->cap = 4096;
    s->buf = xmalloc(s->cap);
    s->len = 0;
    s->buf[0] = '\0';
}

void svg_free(struct svg *s)
{
    free(s->buf);
    s->buf = NULL;
    s->len = s->cap = 0;
}

static void put(struct svg *s, const char *bytes, size_t n)
{
    s->buf = xgrow(s->buf, &s->cap, s->len + n + 1, 4096, 1);
    memcpy(s->buf + s->len, bytes, n);
    s->len += n;
    s->buf[s->len] = '\0';
}

static void puts_(struct svg *s, const char *text)
{
    put(s, text, strlen(text));
}

/* Only for formats whose arguments are numbers from svg_format_number() or fixed words. */
static void putf(struct svg *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void putf(struct svg *s, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    if (n > 0)
        put(s, buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
}

void svg_format_number(char *buf, size_t len, double v)
{
    long long c;
    unsigned long long a;
    unsigned frac;

    if (!isfinite(v) || fabs(v) > 1e15)
        v = 0; /* never written: callers map only finite data into the picture */
    c = llround(v * 100);
    a = c < 0 ? (unsigned long long)-c : (unsigned long long)c;
    frac = (unsigned)(a % 100);
    if (frac == 0)
        snprintf(buf, len, "%s%llu", c < 0 ? "-" : "", a / 100);
    else if (frac % 10 == 0)
        snprintf(buf, len, "%s%llu.%u", c < 0 ? "-" : "", a / 100, frac / 10);
    else
        snprintf(buf, len, "%s%llu.%02u", c < 0 ? "-" : "", a / 100, frac);
}

static void num(struct svg *s, double v)
{
    char buf[32];

    svg_format_number(buf, sizeof(buf), v);
    puts_(s, buf);
}

/* The length of the valid UTF-8 character at p that XML allows (not U+FFFE/U+FFFF), or 0. */
static size_t utf8_char(const unsigned char *p)
{
    if (p[0] == 0xef && p[1] == 0xbf && (p[2] == 0xbe || p[2] == 0xbf))
        return 0; /* U+FFFE and U+FFFF are not XML characters */
    return utf8_char_len(p);
}

void svg_escape(struct svg *s, const char *text)
{
    const unsigned char *p = (const unsigned char *)text;

    while (*p) {
        size_t n;

        switch (*p) {
        case '&':
            puts_(s, "&amp;");
            p++;
            continue;
        case '<':
            puts_(s, "&lt;");
            p++;
            continue;
        case '>':
            puts_(s, "&gt;");
            p++;
            continue;
        case '"':
            puts_(s, "&quot;");
            p++;
            continue;
        case '\'':
            puts_(s, "&apos;");
            p++;
            continue;
        default:
            break;
        }
        if (*p < 0x20) {
            /* XML 1.0 has no other control characters; white space reads as a space. */
            puts_(s, *p == '\t' || *p == '\n' || *p == '\r' ? " " : UTF8_REPLACEMENT);
            p++;
            continue;
        }
        if ((n = utf8_char(p)) == 0) {
            puts_(s, UTF8_REPLACEMENT); /* U+FFFD for each byte that starts no character */
            p++;
            continue;
        }
        put(s, (const char *)p, n);
        p += n;
    }
}

/* name="text", the text escaped. */
static void text_attr(struct svg *s, const char *name, const char *text)
{
    putf(s, " %s=\"", name);
    svg_escape(s, text);
    puts_(s, "\"");
}

/* name="v", v as num() writes it. */
static void num_attr(struct svg *s, const char *name, double v)
{
    putf(s, " %s=\"", name);
    num(s, v);
    puts_(s, "\"");
}

static void style_attrs(struct svg *s, const struct svg_style *st)
{
    if (st->cls)
        text_attr(s, "class", st->cls);
    text_attr(s, "stroke", st->stroke ? st->stroke : "none");
    if (st->stroke)
        num_attr(s, "stroke-width", st->stroke_width > 0 ? st->stroke_width : 1);
    if (st->dash)
        text_attr(s, "stroke-dasharray", st->dash);
    text_attr(s, "fill", st->fill ? st->fill : "none");
    if (st->opacity > 0 && st->opacity < 1)
        num_attr(s, "fill-opacity", st->opacity);
}

/* name="v" for each of n name, value pairs. */
static void num_attrs(struct svg *s, const char *const names[], const double values[], size_t n)
{
    for (size_t i = 0; i < n; i++)
        num_attr(s, names[i], values[i]);
}

/* An element of no content: <tag name="v"... style/>. */
static void empty_element(struct svg *s, const char *tag, const char *const names[],
                          const double values[], size_t n, const struct svg_style *st)
{
    putf(s, "<%s", tag);
    num_attrs(s, names, values, n);
    style_attrs(s, st);
    puts_(s, "/>\n");
}

void svg_line(struct svg *s, double x1, double y1, double x2, double y2, const struct svg_style *st)
{
    static const char *const names[] = {"x1", "y1", "x2", "y2"};

    empty_element(s, "line", names, (const double[]){x1, y1, x2, y2}, 4, st);
}

void svg_rect(struct svg *s, double x, double y, double w, double h, const struct svg_style *st)
{
    static const char *const names[] = {"x", "y", "width", "height"};

    empty_element(s, "rect", names, (const double[]){x, y, w, h}, 4, st);
}

void svg_circle(struct svg *s, double cx, double cy, double r, const struct svg_style *st)
{
    static const char *const names[] = {"cx", "cy", "r"};

    empty_element(s, "circle", names, (const double[]){cx, cy, r}, 3, st);
}

void svg_polyline(struct svg *s, const double *x, const double *y, size_t n,
                  const struct svg_style *st, const char *title)
{
    int pen_down = 0, any = 0, first = 1;

    for (size_t i = 0; i < n && !any; i++)
        any = isfinite(x[i]) && isfinite(y[i]);
    if (!any)
        return;
    puts_(s, "<path d=\"");
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(x[i]) || !isfinite(y[i])) {
            pen_down = 0;
            continue;
        }
        puts_(s, pen_down ? " L" : first ? "M" : " M");
        first = 0;
        num(s, x[i]);
        puts_(s, ",");
        num(s, y[i]);
        pen_down = 1;
    }
    puts_(s, "\"");
    style_attrs(s, st);
    puts_(s, " stroke-linejoin=\"round\"");
    if (title) {
        puts_(s, "><title>");
        svg_escape(s, title);
        puts_(s, "</title></path>\n");
    } else {
        puts_(s, "/>\n");
    }
}

void svg_text(struct svg *s, double x, double y, const struct svg_font *f, const char *text)
{
    static const char *const anchors[] = {"start", "middle", "end"};
    static const char *const names[] = {"x", "y", "font-size"};

    puts_(s, "<text");
    num_attrs(s, names, (const double[]){x, y, f->size > 0 ? f->size : 12}, 3);
    if (f->anchor != SVG_START)
        putf(s, " text-anchor=\"%s\"", anchors[f->anchor]);
    if (f->bold)
        puts_(s, " font-weight=\"bold\"");
    if (f->rotate != 0) {
        puts_(s, " transform=\"rotate(");
        num(s, f->rotate);
        puts_(s, " ");
        num(s, x);
        puts_(s, " ");
        num(s, y);
        puts_(s, ")\"");
    }
    text_attr(s, "fill", f->fill ? f->fill : "#222");
    if (f->cls)
        text_attr(s, "class", f->cls);
    puts_(s, ">");
    svg_escape(s, text);
    puts_(s, "</text>\n");
}

void svg_group_begin(struct svg *s, const char *cls)
{
    puts_(s, "<g");
    if (cls)
        text_attr(s, "class", cls);
    puts_(s, ">\n");
}

void svg_group_end(struct svg *s)
{
    puts_(s, "</g>\n");
}

double svg_text_width(const char *text, double size)
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

char *svg_document(const struct svg *s, double width, double height, const char *title, size_t *len)
{
    struct svg d;
    char w[32], h[32];

    svg_init(&d);
    svg_format_number(w, sizeof(w), width);
    svg_format_number(h, sizeof(h), height);
    puts_(&d, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    putf(&d,
         "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%s\" height=\"%s\" "
         "viewBox=\"0 0 %s %s\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\">\n",
         w, h, w, h);
    puts_(&d, "<title>");
    svg_escape(&d, title);
    puts_(&d, "</title>\n");
    putf(&d, "<rect width=\"%s\" height=\"%s\" fill=\"white\"/>\n", w, h);
    put(&d, s->buf, s->len);
    puts_(&d, "</svg>\n");
    if (len)
        *len = d.len;
    return d.buf;
}
