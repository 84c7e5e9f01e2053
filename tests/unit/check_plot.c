/*
 * Unit tests for spoolsim/plot: the canvas (clean text, colours, lines
 * with gaps), cairo's bytes of each format, the axes (nice ticks, log and percentile scales, tick
 * labels), the readers of results, and the blocks' series.
 */
#include "config.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "histogram.h"
#include "json.h"
#include "plot_axis.h"
#include "plot_data.h"
#include "plot_draw.h"
#include "plot_canvas.h"
#include "plot_render.h"
#include "sweep_search.h"
#include "check_json_text.h"
#include "check_main.h"

/* How many shapes of c have the class cls, exactly. */
static size_t count_class(const struct plot_canvas *c, const char *cls)
{
    size_t n = 0;

    for (size_t i = 0; i < c->n; i++)
        n += c->item[i].cls && strcmp(c->item[i].cls, cls) == 0;
    return n;
}

/* How many shapes of c of the kind shape read text (a text, or a line's title), or start with it.
 */
static size_t count_text(const struct plot_canvas *c, enum plot_shape shape, const char *text,
                         int prefix)
{
    size_t n = 0;

    for (size_t i = 0; i < c->n; i++) {
        const char *t = c->item[i].text;

        if (c->item[i].shape == shape && t &&
            (prefix ? strncmp(t, text, strlen(text)) == 0 : strcmp(t, text) == 0))
            n++;
    }
    return n;
}

#define has_text(c, t) (count_text((c), PLOT_TEXT, (t), 0) > 0)
#define has_title(c, t) (count_text((c), PLOT_PATH, (t), 0) > 0)

/* What plot_canvas_clean_text() makes of text. */
static char *cleaned(const char *text)
{
    static char out[256];
    char *t = plot_canvas_clean_text(text);

    snprintf(out, sizeof(out), "%s", t);
    free(t);
    return out;
}

/* ---------------------------------------------------------------- canvas */

START_TEST(test_clean_text)
{
    ck_assert_str_eq(cleaned("a<b & \"c\" 'd'>"), "a<b & \"c\" 'd'>"); /* no markup to escape */
    ck_assert_str_eq(cleaned("B/A \xe2\x88\x92 95 %"), "B/A \xe2\x88\x92 95 %"); /* UTF-8 stays */
    ck_assert_str_eq(cleaned("tab\there\nnl"), "tab here nl");
    /* another control character shows that one was there */
    ck_assert_str_eq(cleaned("a\x01"
                             "b\x1b"
                             "c\x7f"),
                     "a\xef\xbf\xbd"
                     "b\xef\xbf\xbd"
                     "c\xef\xbf\xbd");
    /* Bytes that are no UTF-8 character (a file name in Latin-1, a cut sequence): cairo refuses
     * them. */
    ck_assert_str_eq(cleaned("caf\xe9"), "caf\xef\xbf\xbd");
    ck_assert_str_eq(cleaned("\xe2\x88"), "\xef\xbf\xbd\xef\xbf\xbd");
    ck_assert_str_eq(cleaned("\xc0\xaf"), "\xef\xbf\xbd\xef\xbf\xbd"); /* overlong '/' */
    ck_assert_str_eq(cleaned("\xed\xa0\x80"),
                     "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"); /* surrogate */
    ck_assert_str_eq(cleaned("\xf0\x9f\x93\x88"), "\xf0\x9f\x93\x88");
    ck_assert_str_eq(cleaned("\xff\xff"), "\xef\xbf\xbd\xef\xbf\xbd"); /* the most it grows */
}
END_TEST

START_TEST(test_colors)
{
    struct plot_color c;

    ck_assert_int_eq(plot_canvas_color("#4e79a7", &c), 0);
    ck_assert(c.set);
    ck_assert_double_eq_tol(c.r, 0x4e / 255.0, 1e-12);
    ck_assert_double_eq_tol(c.g, 0x79 / 255.0, 1e-12);
    ck_assert_double_eq_tol(c.b, 0xa7 / 255.0, 1e-12);
    ck_assert_int_eq(plot_canvas_color("#f0A", &c), 0); /* #rgb is #rrggbb, each digit twice */
    ck_assert(c.r == 1 && c.g == 0 && c.b == 0xaa / 255.0);
    ck_assert_int_eq(plot_canvas_color("white", &c), -1);
    ck_assert_int_eq(plot_canvas_color("#12345", &c), -1);
    ck_assert_int_eq(plot_canvas_color("#12345g", &c), -1);
    ck_assert_int_eq(plot_canvas_color("#", &c), -1);
    ck_assert_int_eq(plot_canvas_color("", &c), -1);
}
END_TEST

START_TEST(test_polyline_gaps)
{
    const double x[] = {0, 1, 2, 3, 4, 5}, y[] = {10, 11, NAN, 13, 14, 1e300};
    const double none[] = {NAN, INFINITY};
    struct plot_canvas c;
    const struct plot_item *it;

    plot_canvas_init(&c);
    plot_canvas_polyline(&c, x, y, 6,
                         &(struct plot_style){.stroke = "#f00", .dash = "7 4", .cls = "series"},
                         "a<b\x01");
    ck_assert_uint_eq(c.n, 1);
    it = &c.item[0];
    ck_assert_int_eq(it->shape, PLOT_PATH);
    ck_assert_uint_eq(it->npt, 5); /* the NaN left out, the line broken there */
    ck_assert(it->pt[0].move && !it->pt[1].move && it->pt[2].move && !it->pt[3].move);
    ck_assert(it->pt[2].x == 3 && it->pt[2].y == 13);
    ck_assert(it->pt[4].y == PLOT_CANVAS_LIMIT); /* far off, but where cairo can take it */
    ck_assert_str_eq(it->text, "a<b\xef\xbf\xbd");
    ck_assert_str_eq(it->cls, "series");
    ck_assert(it->stroke.set && it->stroke.r == 1 && !it->fill.set);
    ck_assert_double_eq(it->stroke_width, 1);
    ck_assert(it->ndash == 2 && it->dash[0] == 7 && it->dash[1] == 4);
    plot_canvas_polyline(&c, none, none, 2, &(struct plot_style){.stroke = "#f00"}, NULL);
    ck_assert_uint_eq(c.n, 1); /* nothing to draw, no shape */
    plot_canvas_free(&c);
}
END_TEST

START_TEST(test_shapes)
{
    struct plot_canvas c;

    plot_canvas_init(&c);
    plot_canvas_group_begin(&c, "legend");
    plot_canvas_text(&c, 10, 20, &(struct plot_font){.anchor = PLOT_END, .rotate = -90}, "x & y");
    plot_canvas_rect(&c, 1, 2, 3, 4,
                     &(struct plot_style){.fill = "#ffffff", .opacity = 0.85, .cls = "bar"});
    plot_canvas_circle(&c, 1, NAN, 3, &(struct plot_style){.stroke = "#000"});       /* left out */
    plot_canvas_line(&c, 0, 0, INFINITY, 1, &(struct plot_style){.stroke = "#000"}); /* too */
    plot_canvas_group_end(&c);
    ck_assert_uint_eq(c.n, 4);
    ck_assert(c.item[0].shape == PLOT_GROUP && strcmp(c.item[0].cls, "legend") == 0);
    ck_assert_int_eq(c.item[1].shape, PLOT_TEXT);
    ck_assert_str_eq(c.item[1].text, "x & y");
    ck_assert(c.item[1].v[0] == 10 && c.item[1].v[1] == 20);
    ck_assert(c.item[1].anchor == PLOT_END && c.item[1].rotate == -90 && c.item[1].size == 12);
    ck_assert(c.item[1].fill.set && c.item[1].fill.r == 0x22 / 255.0); /* the default, #222 */
    ck_assert_ptr_null(c.item[1].cls);
    ck_assert(c.item[2].shape == PLOT_RECT && c.item[2].v[3] == 4 && c.item[2].opacity == 0.85);
    ck_assert(c.item[2].fill.set && !c.item[2].stroke.set);
    ck_assert_int_eq(c.item[3].shape, PLOT_GROUP_END);
    ck_assert_int_eq(count_class(&c, "bar"), 1);
    ck_assert(plot_canvas_has_class("step held", "held"));
    ck_assert(plot_canvas_has_class("step held", "step"));
    ck_assert(!plot_canvas_has_class("step held", "hel"));
    ck_assert(!plot_canvas_has_class("knee-label", "knee"));
    ck_assert(!plot_canvas_has_class(NULL, "knee"));
    plot_canvas_free(&c);
}
END_TEST

START_TEST(test_text_width)
{
    /* Longer is wider, capitals wider than small letters, the size scales it. */
    ck_assert(plot_canvas_text_width("abcd", 12) > plot_canvas_text_width("abc", 12));
    ck_assert(plot_canvas_text_width("MMM", 12) > plot_canvas_text_width("iii", 12));
    ck_assert_double_eq_tol(plot_canvas_text_width("abc", 24),
                            2 * plot_canvas_text_width("abc", 12), 1e-9);
    /* a UTF-8 character is one character, not its bytes */
    ck_assert(plot_canvas_text_width("\xe2\x88\x92", 12) < 2 * plot_canvas_text_width("a", 12));
}
END_TEST

/*
 * plot_render: each format's bytes from a small canvas, as their readers
 * know them; a text cairo could not take never reaches it (the canvas
 * cleans it), so an invalid one still draws.
 */
START_TEST(test_render)
{
    static const struct {
        const char *name;
        const char *magic;
        size_t magic_len;
    } formats[] = {{"PNG", "\x89PNG\r\n\x1a\n", 8}, {"pdf", "%PDF-", 5}, {"svg", "<?xml", 5}};
    struct plot_canvas c;
    enum plot_format fmt;
    char err[128], *doc;
    size_t len;

    plot_canvas_init(&c);
    plot_canvas_line(&c, 0, 0, 100, 50, &(struct plot_style){.stroke = "#4e79a7", .dash = "5 4"});
    plot_canvas_text(&c, 50, 25, &(struct plot_font){.anchor = PLOT_MIDDLE, .rotate = -90},
                     "caf\xe9 \xe2\x89\xa4 1");
    ck_assert_int_eq(plot_render_format("jpg", &fmt), -1);
    for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
        ck_assert_int_eq(plot_render_format(formats[i].name, &fmt), 0);
        ck_assert_int_eq(plot_render(&c, 120, 60.5, "t\xff", fmt, &doc, &len, err, sizeof(err)), 0);
        ck_assert_uint_gt(len, formats[i].magic_len);
        ck_assert(memcmp(doc, formats[i].magic, formats[i].magic_len) == 0);
        if (fmt == PLOT_FORMAT_PNG) { /* IHDR: width and height, big-endian, at 16 and 20 */
            const unsigned char *u = (const unsigned char *)doc;

            ck_assert_uint_eq((unsigned)u[16] << 24 | u[17] << 16 | u[18] << 8 | u[19], 120);
            ck_assert_uint_eq((unsigned)u[20] << 24 | u[21] << 16 | u[22] << 8 | u[23], 61);
        }
        free(doc);
    }
    ck_assert_str_eq(plot_render_format_name(PLOT_FORMAT_PDF), "pdf");
    plot_canvas_free(&c);
}
END_TEST

/* ------------------------------------------------------------------ axis */

START_TEST(test_nice_number)
{
    ck_assert_double_eq_tol(plot_axis_nice_number(7.3, 0), 10, 1e-12);
    ck_assert_double_eq_tol(plot_axis_nice_number(1.4, 1), 1, 1e-12);
    ck_assert_double_eq_tol(plot_axis_nice_number(2.9, 1), 2, 1e-12);
    ck_assert_double_eq_tol(plot_axis_nice_number(4, 1), 5, 1e-12);
    ck_assert_double_eq_tol(plot_axis_nice_number(0.031, 0), 0.05, 1e-12);
    ck_assert_double_eq_tol(plot_axis_nice_number(1800, 1), 2000, 1e-9);
}
END_TEST

START_TEST(test_ticks_linear)
{
    struct plot_ticks t;

    plot_axis_ticks_linear(0, 7.3, 6, &t);
    ck_assert_uint_eq(t.n, 5);
    ck_assert_str_eq(t.label[0], "0");
    ck_assert_str_eq(t.label[4], "8");
    ck_assert(t.lo == 0 && t.hi == 8);
    plot_axis_ticks_linear(0, 0.37, 6, &t);
    ck_assert_uint_eq(t.n, 5);
    ck_assert_str_eq(t.label[0], "0.0");
    ck_assert_str_eq(t.label[3], "0.3"); /* not 0.30000000000000004 */
    ck_assert_double_eq_tol(t.hi, 0.4, 1e-12);
    plot_axis_ticks_linear(0, 12345, 6, &t);
    ck_assert_str_eq(t.label[0], "0");
    ck_assert_str_eq(t.label[1], "5k");
    ck_assert_str_eq(t.label[t.n - 1], "15k");
    /* Not from 0, and an interval that is one value. */
    plot_axis_ticks_linear(0.83, 2.35, 6, &t);
    ck_assert(t.lo == 0.5 && t.hi == 2.5); /* step 0.5: the ticks just outside the data */
    plot_axis_ticks_linear(5, 5, 6, &t);
    ck_assert(t.lo < 5 && t.hi > 5 && t.n >= 2);
    plot_axis_ticks_linear(0, 0, 6, &t);
    ck_assert(t.lo == 0 && t.hi == 1);
    /* A huge range still fits the array. */
    plot_axis_ticks_linear(0, 1e6, 1000, &t);
    ck_assert(t.n <= PLOT_MAX_TICKS && t.n >= 2);
}
END_TEST

START_TEST(test_format_tick)
{
    char buf[24];

    plot_axis_format_tick(buf, sizeof(buf), 2500, 500);
    ck_assert_str_eq(buf, "2500");
    plot_axis_format_tick(buf, sizeof(buf), 12000, 2000);
    ck_assert_str_eq(buf, "12k");
    plot_axis_format_tick(buf, sizeof(buf), 2.5e6, 5e5);
    ck_assert_str_eq(buf, "2.5M");
    plot_axis_format_tick(buf, sizeof(buf), 0, 5e5);
    ck_assert_str_eq(buf, "0"); /* not "0.0M" */
    plot_axis_format_tick(buf, sizeof(buf), -1e-17, 0.1);
    ck_assert_str_eq(buf, "0.0");
    plot_axis_format_tick(buf, sizeof(buf), 0.05, 0.01);
    ck_assert_str_eq(buf, "0.05");
}
END_TEST

START_TEST(test_log_scale)
{
    struct plot_scale s = {PLOT_LOG, 1, 1000, 0, 300};
    struct plot_scale up = {PLOT_LOG, 0.01, 100, 400, 0};

    ck_assert_double_eq_tol(plot_axis_scale_map(&s, 1), 0, 1e-9);
    ck_assert_double_eq_tol(plot_axis_scale_map(&s, 10), 100, 1e-9);
    ck_assert_double_eq_tol(plot_axis_scale_map(&s, sqrt(10)), 50, 1e-9);
    ck_assert_double_eq_tol(plot_axis_scale_map(&s, 1000), 300, 1e-9);
    ck_assert(isnan(plot_axis_scale_map(&s, 0)));
    ck_assert(isnan(plot_axis_scale_map(&s, -5)));
    ck_assert(isnan(plot_axis_scale_map(&s, INFINITY)));
    /* a y axis grows upwards: the larger value is nearer the top */
    ck_assert_double_eq_tol(plot_axis_scale_map(&up, 1), 200, 1e-9);
    ck_assert(plot_axis_scale_map(&up, 10) < plot_axis_scale_map(&up, 1));
}
END_TEST

START_TEST(test_ticks_log)
{
    struct plot_ticks t;
    size_t labelled = 0;

    plot_axis_ticks_log(1, 50, &t);
    ck_assert(t.lo == 1 && t.hi == 100);
    for (size_t i = 0; i < t.n; i++)
        labelled += t.labelled[i];
    ck_assert_uint_eq(labelled, 7); /* 1 2 5 10 20 50 100 */
    ck_assert_uint_eq(t.n, 19);     /* and the other multiples, unlabelled */
    ck_assert_str_eq(t.label[1], "2");
    ck_assert_str_eq(t.label[t.n - 1], "100");
    plot_axis_ticks_log(0.0009, 45, &t);
    ck_assert_double_eq_tol(t.lo, 0.0001, 1e-12);
    ck_assert_double_eq_tol(t.hi, 100, 1e-9);
    labelled = 0;
    for (size_t i = 0; i < t.n; i++)
        labelled += t.labelled[i];
    ck_assert_uint_eq(labelled, 7); /* six decades: the powers alone */
    ck_assert_str_eq(t.label[0], "0.0001");
    ck_assert_str_eq(t.label[t.n - 1], "100");
    /* Many decades: never more ticks than fit. */
    plot_axis_ticks_log(1e-6, 1e10, &t);
    ck_assert(t.n <= PLOT_MAX_TICKS);
    ck_assert_str_eq(t.label[t.n - 1], "10000M");
}
END_TEST

/* A subnormal latency (5e-324) or a step of 0: labels that fit, ticks on the axis, no UB. */
START_TEST(test_ticks_subnormal)
{
    static const double steps[] = {0, 5e-324, 1e-310, NAN, -1};
    struct plot_ticks t;
    char buf[64];

    for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
        plot_axis_format_tick(buf, sizeof(buf), 5e-324, steps[i]);
        ck_assert_uint_le(strlen(buf), 2 + PLOT_MAX_DECIMALS);
        ck_assert_msg(buf[0] == '0' || buf[0] == '-', "%s", buf);
    }
    plot_axis_ticks_log(5e-324, 5e-324, &t);
    ck_assert_uint_gt(t.n, 1);
    ck_assert(t.lo > 0 && t.hi > t.lo);
    for (size_t i = 0; i < t.n; i++) {
        ck_assert_msg(t.value[i] > 0, "log tick %zu is %g", i, t.value[i]);
        ck_assert_uint_le(strlen(t.label[i]), 2 + PLOT_MAX_DECIMALS);
    }
    plot_axis_ticks_linear(5e-324, 5e-324, 5, &t);
    ck_assert_uint_gt(t.n, 1);
    ck_assert(t.lo == 0 && t.hi == 1);
    plot_axis_ticks_linear(0, 1e-320, 5, &t);
    ck_assert(t.lo == 0 && t.hi == 1);
}
END_TEST

START_TEST(test_percentile_axis)
{
    struct plot_ticks t;
    static const char *const want[] = {"0 %", "50 %", "90 %", "99 %", "99.9 %", "99.99 %"};

    ck_assert_double_eq_tol(plot_axis_nines(0), 0, 1e-12);
    ck_assert_double_eq_tol(plot_axis_nines(90), 1, 1e-12);
    ck_assert_double_eq_tol(plot_axis_nines(99.9), 3, 1e-9);
    ck_assert_double_eq_tol(plot_axis_percent_of_nines(2), 99, 1e-12);
    ck_assert_double_eq_tol(plot_axis_percent_of_nines(plot_axis_nines(37.5)), 37.5, 1e-9);
    plot_axis_ticks_percentile(3.78, &t);
    ck_assert_uint_eq(t.n, 6);
    for (size_t i = 0; i < t.n; i++)
        ck_assert_str_eq(t.label[i], want[i]);
    ck_assert_double_eq_tol(t.value[1], log10(2), 1e-12);
    ck_assert(t.lo == 0 && t.hi == 4);
    plot_axis_ticks_percentile(0.3, &t); /* at least up to 99 % */
    ck_assert(t.hi == 2);
}
END_TEST

/* ------------------------------------------------------------------ data */

/* A result with latency objects as histogram_write_json() writes them, in a malloc'd string. */
static char *latency_result(const struct histogram *a, const struct histogram *empty)
{
    struct json_text t;
    struct json_writer *w = json_text_begin(&t);

    json_string(w, "label", "run <1>");
    json_begin_object(w, "latency");
    histogram_write_json(w, "txn", a);
    histogram_write_json(w, "tls", empty);
    json_end_object(w);
    return json_text_end(&t);
}

START_TEST(test_curve)
{
    static struct histogram h, empty;
    struct plot_curve *c = NULL;
    size_t n = 0;
    char *text, err[128], label[64];

    histogram_init(&h);
    histogram_init(&empty);
    for (uint64_t v = 1; v <= 1000; v++)
        histogram_record(&h, v * 1000000); /* 1 .. 1000 ms */
    text = latency_result(&h, &empty);
    ck_assert_int_eq(plot_data_read_latency(text, "r", &c, &n, err, sizeof(err)), 0);
    ck_assert_uint_eq(n, 1); /* the empty stage has no curve */
    ck_assert_str_eq(c[0].stage, "txn");
    ck_assert_str_eq(c[0].label, "r");
    ck_assert_uint_eq(c[0].count, 1000);
    /* From the minimum at 0 nines to the maximum at log10(2 count), in steps, never down. */
    ck_assert_double_eq(c[0].nines[0], 0);
    ck_assert_double_eq_tol(c[0].ms[0], 1, 1e-9);
    ck_assert_double_eq_tol(c[0].nines[c[0].n - 1], log10(2000), 1e-12);
    ck_assert_double_eq_tol(c[0].ms[c[0].n - 1], 1000, 1e-9);
    for (size_t i = 1; i < c[0].n; i++) {
        ck_assert(c[0].nines[i] > c[0].nines[i - 1]);
        ck_assert(c[0].ms[i] >= c[0].ms[i - 1]);
    }
    /* At 1 nine, the 90th percentile: 900 ms within the histogram's resolution. */
    ck_assert_double_eq_tol(c[0].ms[(size_t)(1 / PLOT_CURVE_STEP + 0.5)], 900, 900 / 256.0);
    plot_data_label(text, "dir/x.json", label, sizeof(label));
    ck_assert_str_eq(label, "run <1>");
    plot_data_label("{}", "dir/x.json", label, sizeof(label));
    ck_assert_str_eq(label, "x");
    plot_data_label("{}", "result", label, sizeof(label));
    ck_assert_str_eq(label, "result");
    plot_data_curve_free(&c[0]);
    free(c);
    free(text);
    /* Nothing with values, no latency, buckets that do not add up. */
    c = NULL;
    n = 0;
    text = latency_result(&empty, &empty);
    ck_assert_int_eq(plot_data_read_latency(text, "r", &c, &n, err, sizeof(err)), -1);
    ck_assert_str_eq(err, "no latency with values");
    free(text);
    ck_assert_int_eq(plot_data_read_latency("{\"latency\": {}}", "r", &c, &n, err, sizeof(err)),
                     -1);
    ck_assert_int_eq(plot_data_read_latency("{\"latency\": {\"a\": {\"count\": 3, \"p50_ms\": 1}}}",
                                            "r", &c, &n, err, sizeof(err)),
                     -1);
    ck_assert_str_eq(err, "latency.a has no buckets a histogram can be rebuilt from");
    ck_assert_uint_eq(n, 0);
    free(c);
}
END_TEST

START_TEST(test_timeline)
{
    struct plot_timeline tl;
    char err[128];
    const char *text = "{\"timeline\": ["
                       "{\"t\": 0, \"interval_s\": 1, \"messages_in_per_s\": 5, "
                       "\"messages_out_per_s\": 4, \"incoming\": null, \"active\": null},"
                       "{\"t\": 1, \"interval_s\": 0.5, \"messages_in_per_s\": 6, "
                       "\"messages_out_per_s\": null, \"incoming\": 3, \"active\": 1}]}";

    ck_assert_int_eq(plot_data_read_timeline(text, &tl, err, sizeof(err)), 0);
    ck_assert_uint_eq(tl.n, 2);
    ck_assert(tl.t[1] == 1 && tl.dt[1] == 0.5 && tl.in_per_s[1] == 6 && tl.out_per_s[0] == 4);
    ck_assert(isnan(tl.out_per_s[1]) && isnan(tl.incoming[0]) && tl.incoming[1] == 3);
    ck_assert(isnan(tl.deferred[0]) && isnan(tl.deferred[1])); /* missing: NAN */
    ck_assert_int_eq(tl.has_depths, 1);
    plot_data_timeline_free(&tl);
    ck_assert_int_eq(plot_data_read_timeline("{\"timeline\": [{\"t\": 0, \"interval_s\": 1}]}", &tl,
                                             err, sizeof(err)),
                     0);
    ck_assert_int_eq(tl.has_depths, 0);
    plot_data_timeline_free(&tl);
    ck_assert_int_eq(plot_data_read_timeline("{\"a\": 1}", &tl, err, sizeof(err)), -1);
    ck_assert_str_eq(err, "no timeline");
    ck_assert_int_eq(plot_data_read_timeline("{\"timeline\": []}", &tl, err, sizeof(err)), -1);
    ck_assert_str_eq(err, "an empty timeline");
    ck_assert_int_eq(
        plot_data_read_timeline("{\"timeline\": [{\"interval_s\": 1}]}", &tl, err, sizeof(err)),
        -1);
    ck_assert_int_eq(plot_data_read_timeline("{\"timeline\": [1, 2]}", &tl, err, sizeof(err)), -1);
}
END_TEST

START_TEST(test_ab)
{
    struct plot_ab ab;
    char err[128];
    const char *text = "{\"metric\": \"delivered_per_s\", \"unit\": \"msgs/s\", \"seed\": 1,"
                       " \"sides\": {\"A\": {\"spool\": {\"path\": \"/a\"}, \"runs\": [3, null, 1,"
                       " 2], \"median\": 2}, \"B\": {\"runs\": [4, 6], \"median\": 5}},"
                       " \"ratio\": 2.5, \"ci_low\": 1.5, \"ci_high\": null,"
                       " \"verdict\": \"B is faster\"}";

    ck_assert_int_eq(plot_data_read_ab(text, &ab, err, sizeof(err)), 0);
    ck_assert_uint_eq(ab.n[0], 3);
    ck_assert_uint_eq(ab.failed[0], 1);
    ck_assert(ab.runs[0][0] == 3 && ab.runs[0][1] == 1 && ab.runs[0][2] == 2); /* run order */
    ck_assert(ab.median[0] == 2 && ab.median[1] == 5);
    ck_assert(ab.low[0] == 1 && ab.high[0] == 3); /* three runs: min to max */
    ck_assert(ab.low[1] == 4 && ab.high[1] == 6);
    ck_assert(ab.ratio == 2.5 && ab.ci_low == 1.5 && isnan(ab.ci_high));
    ck_assert_str_eq(ab.spool[0], "/a");
    ck_assert_str_eq(ab.spool[1], "");
    ck_assert_str_eq(ab.unit, "msgs/s");
    ck_assert_str_eq(ab.verdict, "B is faster");
    plot_data_ab_free(&ab);
    ck_assert_int_eq(plot_data_read_ab("{\"timeline\": []}", &ab, err, sizeof(err)), -1);
    ck_assert_int_eq(plot_data_read_ab("{\"sides\": {\"A\": {\"runs\": [null]}, \"B\": {\"runs\": "
                                       "[]}}}",
                                       &ab, err, sizeof(err)),
                     -1);
    ck_assert_str_eq(err, "an A/B comparison without a successful run");
}
END_TEST

/* Steps as sweep.c writes them, in the order an automatic sweep runs them: 50, 100, then 75. */
static const char sweep_text[] =
    "{\"program\": \"spoolsim sweep\", \"target\": null, \"relay_options\": [\"--model\", "
    "\"none\"], \"sink_delay_s\": 0.03, \"slo_s\": 0.5, \"steps\": ["
    "{\"offered_per_s\": 50, \"delivered_per_s\": 49.8, \"p50_ms\": 2, \"p99_ms\": 5, "
    "\"p99_9_ms\": 7, \"max_ms\": 8, \"reason\": \"held\", \"reason_text\": \"held\"},"
    "{\"offered_per_s\": 100, \"delivered_per_s\": 60, \"p50_ms\": 0, \"p99_ms\": 900, "
    "\"p99_9_ms\": 950, \"max_ms\": 990, \"reason\": \"fell_behind\", "
    "\"reason_text\": \"delivered 60 % of offered (under 99 %)\"},"
    "{\"offered_per_s\": 75, \"delivered_per_s\": 75, \"p50_ms\": 3, \"p99_ms\": 9, "
    "\"p99_9_ms\": 12, \"max_ms\": 13, \"reason\": \"held\", \"reason_text\": \"held\"}],"
    " \"knee_per_s\": 75, \"broke_per_s\": 100}";

START_TEST(test_sweep)
{
    struct plot_sweep sw;
    char err[128], label[PLOT_LABEL_MAX];

    ck_assert_int_eq(plot_data_read_sweep(sweep_text, &sw, err, sizeof(err)), 0);
    ck_assert_uint_eq(sw.n, 3);
    /* by offered rate, each step keeping its number in the order run */
    ck_assert(sw.offered[0] == 50 && sw.offered[1] == 75 && sw.offered[2] == 100);
    ck_assert(sw.step[0] == 1 && sw.step[1] == 3 && sw.step[2] == 2);
    ck_assert(sw.delivered[0] == 49.8 && sw.delivered[1] == 75 && sw.delivered[2] == 60);
    ck_assert(sw.held[0] && sw.held[1] && !sw.held[2]);
    ck_assert(sw.p50[1] == 3 && sw.p99[1] == 9 && sw.tail[1] == 12);
    ck_assert(isnan(sw.p50[2]) && sw.p99[2] == 900); /* 0 ms: no value, not a point on a log axis */
    ck_assert_str_eq(sw.tail_name, "p99.9");
    ck_assert(sw.knee == 75 && sw.broke == 100 && sw.slo_ms == 500);
    ck_assert_uint_eq(sw.broke_step, 2);
    ck_assert_str_eq(sw.broke_why, "delivered 60 % of offered (under 99 %)");
    ck_assert_str_eq(sw.label, "relay --model none, sink delay 30 ms");
    plot_data_sweep_free(&sw);

    /* an older result, without p99_9_ms: the maximum; no knee, nothing broke, no SLO */
    ck_assert_int_eq(plot_data_read_sweep("{\"steps\": [{\"offered_per_s\": 10, \"max_ms\": 4, "
                                          "\"reason\": \"slo\"}], \"knee_per_s\": null}",
                                          &sw, err, sizeof(err)),
                     0);
    ck_assert_str_eq(sw.tail_name, "max");
    ck_assert(sw.tail[0] == 4 && isnan(sw.p99[0]) && isnan(sw.delivered[0]) && !sw.held[0]);
    ck_assert(isnan(sw.knee) && isnan(sw.broke) && isnan(sw.slo_ms) && sw.broke_step == 0);
    ck_assert_str_eq(sw.label, "relay, its defaults");
    plot_data_sweep_free(&sw);

    ck_assert_int_eq(plot_data_read_sweep("{\"timeline\": []}", &sw, err, sizeof(err)), -1);
    ck_assert_str_eq(err, "no sweep (no \"steps\" array)");
    ck_assert_int_eq(plot_data_read_sweep("{\"steps\": []}", &sw, err, sizeof(err)), -1);
    ck_assert_str_eq(err, "a sweep with no steps");
    ck_assert_int_eq(plot_data_read_sweep("{\"steps\": [{\"offered_per_s\": 5}, {\"p99_ms\": 1}]}",
                                          &sw, err, sizeof(err)),
                     -1);
    ck_assert_str_eq(err, "sweep step 2 has no offered_per_s");
    ck_assert_int_eq(plot_data_read_sweep("{\"steps\": [3]}", &sw, err, sizeof(err)), -1);
    ck_assert_str_eq(err, "sweep steps that are not an array of objects");

    plot_data_sweep_label("{\"target\": \"127.0.0.1:2525\", \"relay_options\": []}", label,
                          sizeof(label));
    ck_assert_str_eq(label, "target 127.0.0.1:2525");
    plot_data_sweep_label("{\"label\": \"mine\", \"target\": \"h:25\"}", label, sizeof(label));
    ck_assert_str_eq(label, "mine");
    plot_data_sweep_label("{\"label\": \"\", \"relay_options\": [\"--model\", \"postfix\"], "
                          "\"sink_delay_s\": null}",
                          label, sizeof(label));
    ck_assert_str_eq(label, "relay --model postfix");
}
END_TEST

/* A steps array longer than any sweep writes is refused; offered_per_s out of range is said so. */
START_TEST(test_sweep_limits)
{
    struct plot_sweep sw;
    char err[128], *text;
    size_t used;

    ck_assert_int_eq(PLOT_MAX_SWEEP_STEPS, SWEEP_MAX_RATES);
    for (int steps = PLOT_MAX_SWEEP_STEPS; steps <= PLOT_MAX_SWEEP_STEPS + 1; steps++) {
        text = malloc(64 * (size_t)steps + 64);
        used = (size_t)sprintf(text, "{\"steps\": [");
        for (int i = 0; i < steps; i++)
            used += (size_t)sprintf(text + used, "%s{\"offered_per_s\": %d, \"reason\": \"%s\"}",
                                    i ? ", " : "", steps - i, i % 2 ? "held" : "slo");
        sprintf(text + used, "]}");
        if (steps == PLOT_MAX_SWEEP_STEPS) {
            ck_assert_int_eq(plot_data_read_sweep(text, &sw, err, sizeof(err)), 0);
            ck_assert_uint_eq(sw.n, (size_t)steps);
            /* by rate: rate 1 was the last step run, odd steps (from 0) held */
            ck_assert(sw.offered[0] == 1 && sw.step[0] == (unsigned)steps && sw.held[0]);
            ck_assert(sw.offered[steps - 1] == steps && sw.step[steps - 1] == 1 &&
                      !sw.held[steps - 1]);
            plot_data_sweep_free(&sw);
        } else {
            ck_assert_int_eq(plot_data_read_sweep(text, &sw, err, sizeof(err)), -1);
            ck_assert_str_eq(err, "a sweep of 65 steps: no sweep runs more than 64");
        }
        free(text);
    }
    static const char *const bad[] = {"0", "-3", "1e400", "null", "\"5\""};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        char doc[128];

        snprintf(doc, sizeof(doc), "{\"steps\": [{\"offered_per_s\": 5}, {\"offered_per_s\": %s}]}",
                 bad[i]);
        ck_assert_int_eq(plot_data_read_sweep(doc, &sw, err, sizeof(err)), -1);
        ck_assert_str_eq(err, "sweep step 2 has an offered_per_s out of range (not a number of "
                              "messages/s above 0)");
    }
}
END_TEST

START_TEST(test_sweep_labels)
{
    struct plot_sweep sw[3] = {{.label = "relay --model none"},
                               {.label = "relay --model postfix"},
                               {.label = "relay --model none"}};
    const char *const names[] = {"a", "b", "c"};

    plot_data_sweep_distinct_labels(sw, names, 3);
    ck_assert_str_eq(sw[0].label, "relay --model none (a)");
    ck_assert_str_eq(sw[1].label, "relay --model postfix"); /* unique: left alone */
    ck_assert_str_eq(sw[2].label, "relay --model none (c)");
}
END_TEST

/* ------------------------------------------------------------------ draw */

/* A timeline of three one-second rows, every depth column depth (NAN: none). */
static struct plot_timeline three_rows(const char *label, double *in, double *out, double *depth)
{
    static double t[] = {0, 1, 2}, dt[] = {1, 1, 1};
    struct plot_timeline tl = {.n = 3, .t = t, .dt = dt, .in_per_s = in, .out_per_s = out};

    snprintf(tl.label, sizeof(tl.label), "%s", label);
    tl.incoming = tl.active = tl.deferred = depth;
    tl.has_depths = isfinite(depth[0]);
    return tl;
}

START_TEST(test_draw_series)
{
    double in[] = {5, 6, 7}, out[] = {4, 5, NAN}, depth[] = {1, 2, 3}, none[] = {NAN, NAN, NAN};
    struct plot_timeline tl[2] = {three_rows("a", in, out, depth),
                                  three_rows("b & c", in, out, none)};
    double runs_a[] = {10, 12, 11}, runs_b[] = {20, 21};
    struct plot_ab ab = {.label = "x",
                         .metric = "m",
                         .unit = "u",
                         .verdict = "v",
                         .n = {3, 2},
                         .runs = {runs_a, runs_b},
                         .median = {11, 20.5},
                         .low = {10, 20},
                         .high = {12, 21},
                         .ratio = 1.86,
                         .ci_low = 1.7,
                         .ci_high = 2.0};
    struct plot_canvas s;
    double h;

    plot_canvas_init(&s);
    h = plot_draw_timeline(&s, 0, PLOT_WIDTH, tl, 2);
    ck_assert(h > 0);
    /* in and out of each result, and the depths of the one that has them */
    ck_assert_uint_eq(count_class(&s, "series"), 2 + 2 + 3);
    ck_assert(has_title(&s, "b & c: in/s"));
    ck_assert(has_text(&s, "Queue depth"));
    plot_canvas_free(&s);
    plot_draw_timeline(&s, 0, PLOT_WIDTH, &tl[1], 1);
    ck_assert_uint_eq(count_class(&s, "series"), 2);
    ck_assert(!has_text(&s, "Queue depth")); /* no depths, no panel */
    plot_canvas_free(&s);
    plot_draw_ab(&s, 0, PLOT_WIDTH, &ab, 1);
    ck_assert_uint_eq(count_class(&s, "bar"), 2);
    ck_assert_uint_eq(count_class(&s, "run"), 5);
    ck_assert_uint_eq(count_class(&s, "errorbar"), 3);
    ck_assert_uint_eq(count_class(&s, "ratio"), 1);
    ck_assert(has_text(&s, "u (m)"));
    plot_canvas_free(&s);
}
END_TEST

START_TEST(test_draw_sweep)
{
    struct plot_sweep sw[2];
    char err[128];
    struct plot_canvas s;

    ck_assert_int_eq(plot_data_read_sweep(sweep_text, &sw[0], err, sizeof(err)), 0);
    ck_assert_int_eq(plot_data_read_sweep(sweep_text, &sw[1], err, sizeof(err)), 0);
    snprintf(sw[1].label, sizeof(sw[1].label), "b");
    plot_canvas_init(&s);
    ck_assert(plot_sweep_draw(&s, 0, PLOT_WIDTH, sw, 2) > 0);
    /* per sweep: delivered, p50, p99, p99.9; two steps held and one failed, one knee */
    ck_assert_uint_eq(count_class(&s, "series"), 2 * 4);
    ck_assert_uint_eq(count_class(&s, "step held"), 2 * 2);
    ck_assert_uint_eq(count_class(&s, "step failed"), 2);
    ck_assert_uint_eq(count_class(&s, "knee"), 2);
    ck_assert_uint_eq(count_class(&s, "slo"), 1); /* one SLO, drawn once */
    ck_assert(has_title(&s, "b: p99.9"));
    ck_assert(has_text(&s, "knee 75/s"));
    ck_assert(has_text(&s, "500 ms")); /* the log axis in ms and s, not "1k" */
    ck_assert(has_text(&s, "1 s"));
    ck_assert(has_text(&s, "b: knee 75 msgs/s; broke at 100 msgs/s (step 2): delivered 60 % of "
                           "offered (under 99 %)"));
    /* a verdict too long for one line: what broke it on the next */
    snprintf(sw[1].broke_why, sizeof(sw[1].broke_why), "%0150d", 0);
    plot_canvas_free(&s);
    plot_sweep_draw(&s, 0, PLOT_WIDTH, sw, 2);
    ck_assert(has_text(&s, "b: knee 75 msgs/s"));
    ck_assert_uint_eq(count_text(&s, PLOT_TEXT, "broke at 100 msgs/s (step 2): 0000", 1), 1);
    plot_canvas_free(&s);
    plot_data_sweep_free(&sw[0]);
    plot_data_sweep_free(&sw[1]);
}
END_TEST

/*
 * A rate run more than once (--rates 20,20,40,20: a repeatability check),
 * the knee among the repeats: a mark per step, the line through each
 * rate's median, one ring and one label for the knee.
 */
static const char repeat_text[] =
    "{\"steps\": ["
    "{\"offered_per_s\": 20, \"delivered_per_s\": 19, \"p50_ms\": 2, \"p99_ms\": 4, "
    "\"reason\": \"held\"},"
    "{\"offered_per_s\": 20, \"delivered_per_s\": 20, \"p50_ms\": 4, \"p99_ms\": null, "
    "\"reason\": \"held\"},"
    "{\"offered_per_s\": 40, \"delivered_per_s\": 30, \"p50_ms\": 9, \"p99_ms\": 90, "
    "\"reason\": \"slo\"},"
    "{\"offered_per_s\": 20, \"delivered_per_s\": 18, \"p50_ms\": 3, \"p99_ms\": 8, "
    "\"reason\": \"held\"}], \"knee_per_s\": 20, \"broke_per_s\": 40}";

START_TEST(test_sweep_repeated)
{
    struct plot_sweep sw;
    char err[128];
    double x[4], y[4];
    struct plot_canvas s;

    ck_assert_int_eq(plot_data_read_sweep(repeat_text, &sw, err, sizeof(err)), 0);
    ck_assert_uint_eq(sw.n, 4);
    ck_assert(sw.step[0] == 1 && sw.step[1] == 2 && sw.step[2] == 4 && sw.step[3] == 3);
    ck_assert_uint_eq(plot_data_sweep_line(&sw, sw.delivered, x, y), 2);
    ck_assert(x[0] == 20 && y[0] == 19 && x[1] == 40 && y[1] == 30);
    ck_assert_uint_eq(plot_data_sweep_line(&sw, sw.p99, x, y), 2);
    ck_assert(y[0] == 6 && y[1] == 90); /* the median of the two with a value */
    sw.p99[0] = sw.p99[2] = NAN;
    ck_assert_uint_eq(plot_data_sweep_line(&sw, sw.p99, x, y), 2);
    ck_assert(isnan(y[0])); /* none at 20 has one: a gap */

    plot_canvas_init(&s);
    ck_assert(plot_sweep_draw(&s, 0, PLOT_WIDTH, &sw, 1) > 0);
    ck_assert_uint_eq(count_class(&s, "step held"), 3);
    ck_assert_uint_eq(count_class(&s, "step failed"), 1);
    ck_assert_uint_eq(count_class(&s, "knee"), 1);
    ck_assert_uint_eq(count_text(&s, PLOT_TEXT, "knee 20/s", 0), 1);
    plot_canvas_free(&s);
    plot_data_sweep_free(&sw);
}
END_TEST

/* What a reader refuses: a schema_version it does not know, a seed ab does not take, a figure too
 * large. */
START_TEST(test_reader_limits)
{
    static const char *const bad_schema[][2] = {
        {"{}", "no schema_version (every result spoolsim writes has one)"},
        {"{\"schema_version\": \"1\"}", "schema_version is not a number"},
        {"{\"schema_version\": 0}", "schema_version 0: not one this program reads (1)"},
        {"{\"schema_version\": -3}", "schema_version -3: not one this program reads (1)"},
        {"{\"schema_version\": 1.5}", "schema_version 1.5: not one this program reads (1)"},
        {"{\"schema_version\": 2}", "schema_version 2: not one this program reads (1)"}};
    static const char *const bad_seed[][2] = {
        {"-1", "seed -1: not a seed spoolsim ab takes (a whole number from 0 to 2^64 - 1)"},
        {"1e300", "seed 1e+300: not a seed spoolsim ab takes (a whole number from 0 to 2^64 - 1)"},
        {"0.5", "seed 0.5: not a seed spoolsim ab takes (a whole number from 0 to 2^64 - 1)"},
        {"\"7\"", "seed is not a number"}};
    struct plot_ab ab;
    struct plot_sweep sw;
    struct plot_timeline tl;
    char err[160], text[256];

    ck_assert_int_eq(plot_data_check_schema("{\"schema_version\": 1}", err, sizeof(err)), 0);
    for (size_t i = 0; i < sizeof(bad_schema) / sizeof(bad_schema[0]); i++) {
        ck_assert_int_eq(plot_data_check_schema(bad_schema[i][0], err, sizeof(err)), -1);
        ck_assert_str_eq(err, bad_schema[i][1]);
    }
    for (size_t i = 0; i < sizeof(bad_seed) / sizeof(bad_seed[0]); i++) {
        snprintf(text, sizeof(text),
                 "{\"seed\": %s, \"sides\": {\"A\": {\"runs\": [1, 2]}, \"B\": {\"runs\": [3]}}}",
                 bad_seed[i][0]);
        ck_assert_int_eq(plot_data_read_ab(text, &ab, err, sizeof(err)), -1);
        ck_assert_str_eq(err, bad_seed[i][1]);
    }
    /* the largest seeds ab takes, 2^64 - 1 read as the double 2^64 among them */
    ck_assert_int_eq(
        plot_data_read_ab("{\"seed\": 18446744073709551615, \"sides\": {\"A\": {\"runs\": "
                          "[1, 2]}, \"B\": {\"runs\": [3, 4]}}}",
                          &ab, err, sizeof(err)),
        0);
    plot_data_ab_free(&ab);
    ck_assert_int_eq(
        plot_data_read_ab("{\"sides\": {\"A\": {\"runs\": [1, -2e15]}, \"B\": {\"runs\": "
                          "[3]}}}",
                          &ab, err, sizeof(err)),
        -1);
    ck_assert_str_eq(err, "sides.A.runs.1 -2e+15 is out of range (larger than 1e+15 in size)");
    ck_assert_int_eq(plot_data_read_ab("{\"ci_high\": 1e308, \"sides\": {\"A\": {\"runs\": [1]}, "
                                       "\"B\": {\"runs\": [3]}}}",
                                       &ab, err, sizeof(err)),
                     -1);
    ck_assert_str_eq(err, "ci_high 1e+308 is out of range (larger than 1e+15 in size)");
    ck_assert_int_eq(
        plot_data_read_sweep("{\"steps\": [{\"offered_per_s\": 5}, {\"offered_per_s\": 9, "
                             "\"p99_ms\": 1e16}]}",
                             &sw, err, sizeof(err)),
        -1);
    ck_assert_str_eq(err, "sweep step 2: p99_ms 1e+16 is out of range (larger than 1e+15 in size)");
    ck_assert_int_eq(
        plot_data_read_sweep("{\"steps\": [{\"offered_per_s\": 5}], \"slo_s\": -1e300}", &sw, err,
                             sizeof(err)),
        -1);
    ck_assert_str_eq(err, "slo_s -1e+300 is out of range (larger than 1e+15 in size)");
    ck_assert_int_eq(plot_data_read_timeline("{\"timeline\": [{\"t\": 0, \"interval_s\": 1, "
                                             "\"deferred\": 1e200}]}",
                                             &tl, err, sizeof(err)),
                     -1);
    ck_assert_str_eq(err,
                     "timeline row 1: deferred 1e+200 is out of range (larger than 1e+15 in size)");
}
END_TEST

int main(void)
{
    const TTest *const tests[] = {
        test_clean_text,      test_colors,         test_polyline_gaps, test_shapes,
        test_text_width,      test_render,         test_nice_number,   test_ticks_linear,
        test_format_tick,     test_log_scale,      test_ticks_log,     test_ticks_subnormal,
        test_percentile_axis, test_curve,          test_timeline,      test_ab,
        test_sweep,           test_sweep_limits,   test_sweep_labels,  test_draw_series,
        test_draw_sweep,      test_sweep_repeated, test_reader_limits, NULL};

    return check_run_tests("plot", tests);
}
