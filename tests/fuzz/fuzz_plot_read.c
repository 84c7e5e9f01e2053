/*
 * fuzz_plot_read - spoolsim plot's readers (plot_data) and the pictures
 * they feed (plot_draw, plot_sweep), on any text.
 *
 * The input is a result's JSON text. Whatever each reader takes is drawn,
 * twice over for a sweep (two sweeps overlaid, as plot draws two files):
 * nothing may crash, a sweep's line has a point per distinct rate, rising,
 * and a picture of an input that names no "nan" or "inf" shows none (a
 * tick of a figure too large for its axis read "-nanM").
 */
#include <math.h>
#include <strings.h>

#include "fuzz.h"
#include "plot_data.h"
#include "plot_draw.h"
#include "svg.h"

/* Whether the drawn text holds a number that is not one. */
static int shows_non_number(const char *doc)
{
    return strstr(doc, "nan") != NULL || strstr(doc, "inf") != NULL;
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
    size_t ncurves = 0, len;
    int named = strcasestr(text, "nan") != NULL || strcasestr(text, "inf") != NULL;
    struct svg s;
    char *doc;

    (void)plot_data_check_schema(text, err, sizeof(err));
    plot_data_label(text, "fuzz.json", label, sizeof(label));
    svg_init(&s);
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
    doc = svg_document(&s, PLOT_WIDTH, 100, "fuzz", &len);
    FUZZ_CHECK(strlen(doc) == len);
    if (!named)
        FUZZ_CHECK(!shows_non_number(doc));
    free(doc);
    svg_free(&s);
    free(text);
    return 0;
}
