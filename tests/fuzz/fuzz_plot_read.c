/*
 * fuzz_plot_read - spoolsim plot's readers (plot_data) and the pictures
 * they feed (plot_draw, plot_sweep), on any text.
 *
 * The input is a result's JSON text. Whatever each reader takes is drawn,
 * twice over for a sweep (two sweeps overlaid, as plot draws two files):
 * nothing may crash, a sweep's line has a point per distinct rate, rising,
 * a picture of an input that names no "nan" or "inf" shows none (a tick
 * of a figure too large for its axis read "-nanM"), and the canvas keeps
 * its promises to cairo: finite coordinates within its limit, text that is
 * UTF-8 without control characters.
 */
#include <math.h>
#include <strings.h>

#include "fuzz.h"
#include "plot_data.h"
#include "plot_draw.h"
#include "plot_canvas.h"
#include "utf8.h"

/* Whether the drawn text holds a number that is not one. */
static int shows_non_number(const char *text)
{
    return strstr(text, "nan") != NULL || strstr(text, "inf") != NULL;
}

static int coord_ok(double v)
{
    return isfinite(v) && fabs(v) <= PLOT_CANVAS_LIMIT;
}

static int text_ok(const char *text)
{
    for (const unsigned char *p = (const unsigned char *)text; *p;) {
        size_t n = utf8_char_len(p);

        if (n == 0 || *p < 0x20 || *p == 0x7f)
            return 0;
        p += n;
    }
    return 1;
}

static void check_canvas(const struct plot_canvas *c, int named)
{
    for (size_t i = 0; i < c->n; i++) {
        const struct plot_item *it = &c->item[i];

        for (size_t k = 0; k < 4; k++)
            FUZZ_CHECK(coord_ok(it->v[k]));
        for (size_t k = 0; k < it->npt; k++)
            FUZZ_CHECK(coord_ok(it->pt[k].x) && coord_ok(it->pt[k].y));
        FUZZ_CHECK(it->shape != PLOT_PATH || (it->npt > 0 && it->pt[0].move));
        if (it->text) {
            FUZZ_CHECK(text_ok(it->text));
            if (!named && it->shape == PLOT_TEXT)
                FUZZ_CHECK(!shows_non_number(it->text));
        }
    }
}

static void check_sweep_line(const struct plot_sweep *sw)
{
    double *x = malloc(sw->n * sizeof(*x)), *y = malloc(sw->n * sizeof(*y));
    size_t points, distinct = 1;

    FUZZ_CHECK(x != NULL && y != NULL);
    for (size_t i = 1; i < sw->n; i++) {
        FUZZ_CHECK(sw->offered[i - 1] <= sw->offered[i]);
        distinct += sw->offered[i - 1] != sw->offered[i];
    }
    points = plot_data_sweep_line(sw, sw->delivered, x, y);
    FUZZ_CHECK(points == distinct);
    for (size_t i = 1; i < points; i++)
        FUZZ_CHECK(x[i - 1] < x[i]);
    free(x);
    free(y);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_strdup(data, size), err[256], label[PLOT_LABEL_MAX];
    struct plot_timeline tl;
    struct plot_curve *curves = NULL;
    struct plot_ab ab;
    struct plot_sweep sw[2];
    size_t ncurves = 0;
    int named = strcasestr(text, "nan") != NULL || strcasestr(text, "inf") != NULL;
    struct plot_canvas s;

    (void)plot_data_check_schema(text, err, sizeof(err));
    plot_data_label(text, "fuzz.json", label, sizeof(label));
    plot_canvas_init(&s);
    if (plot_data_read_sweep(text, &sw[0], err, sizeof(err)) == 0) {
        FUZZ_CHECK(plot_data_read_sweep(text, &sw[1], err, sizeof(err)) == 0);
        check_sweep_line(&sw[0]);
        plot_sweep_draw(&s, 0, PLOT_WIDTH, sw, 2);
        plot_data_sweep_free(&sw[0]);
        plot_data_sweep_free(&sw[1]);
    }
    if (plot_data_read_timeline(text, &tl, err, sizeof(err)) == 0) {
        plot_draw_timeline(&s, 0, PLOT_WIDTH, &tl, 1);
        plot_data_timeline_free(&tl);
    }
    if (plot_data_read_latency(text, label, &curves, &ncurves, err, sizeof(err)) == 0)
        plot_draw_latency(&s, 0, PLOT_WIDTH, curves, ncurves, 1);
    for (size_t i = 0; i < ncurves; i++)
        plot_data_curve_free(&curves[i]);
    free(curves);
    if (plot_data_read_ab(text, &ab, err, sizeof(err)) == 0) {
        plot_draw_ab(&s, 0, PLOT_WIDTH, &ab, 1);
        plot_data_ab_free(&ab);
    }
    plot_draw_title(&s, PLOT_WIDTH, label);
    check_canvas(&s, named);
    plot_canvas_free(&s);
    free(text);
    return 0;
}
