/*
 * spoolsim plot - pictures of results: a throughput and queue-depth
 * timeline, latency-percentile curves, A/B bars, sweeps' load and
 * latency against offered rate (see spoolsim-plot(1)).
 *
 * The command around the modules: its options, the results read and laid
 * out onto a canvas (plot_picture), the canvas drawn by plot_render in the
 * format -o's name or --format asks for, and the file written whole or not
 * at all (a temporary file renamed into place), so that a failure leaves
 * no picture half drawn.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exit_status.h"
#include "fileutil.h"
#include "msg.h"
#include "optarg.h"
#include "optgroup.h"
#include "plot_canvas.h"
#include "plot_draw.h"
#include "plot_picture.h"
#include "plot_render.h"
#include "spoolsim.h"
#include "xalloc.h"

struct plot_options {
    const char *output; /* NULL: the first result's name with the format's suffix */
    enum plot_kind kind;
    const char *title;
    int has_format;
    enum plot_format format; /* with has_format: --format's */
};

static void usage(FILE *fp, const struct optgroup *g)
{
    fprintf(fp, "Usage: spoolsim plot [options] RESULT.json...\n"
                "\n"
                "Draws what JSON results hold as one picture (PNG, PDF or SVG): messages in\n"
                "and out per second and queue depths over time (a timeline), latency by\n"
                "percentile on a log scale rebuilt from each latency histogram, an A/B\n"
                "comparison's medians with their 95 %% intervals and every run, and a\n"
                "sweep's delivered rate and client latency against offered rate, its knee\n"
                "marked. Several results overlay: one line (or pair of bars) each, the\n"
                "legend naming each by its file or its \"label\" (a sweep by what it swept).\n"
                "\n"
                "Options:\n"
                "  -o, --output FILE   the picture, its format from its suffix: .png, .pdf or\n"
                "                      .svg (the first RESULT with .svg for .json; - = stdout)\n"
                "  --format FORMAT     png, pdf or svg, for - or a FILE of no such suffix\n"
                "                      (FILE's suffix; svg)\n"
                "  --kind KIND         timeline, latency, ab, sweep, or auto: every kind the\n"
                "                      results hold, one under another (auto)\n"
                "  --title TEXT        the picture's title (the results' names)\n");
    optgroup_help(fp, g, OPTGROUP_HELP, 18);
    fprintf(fp, "\n"
                "Exit status: 0 when the picture was written; 1 if it could not be; 2 for a\n"
                "usage error, a result that cannot be read, or one with nothing to plot.\n");
}

static void parse_options(int argc, char **argv, struct plot_options *o)
{
    enum { OPT_KIND = 256, OPT_TITLE, OPT_FORMAT };
    static const struct option long_options[] = {
        {"output", required_argument, NULL, 'o'},
        {"format", required_argument, NULL, OPT_FORMAT},
        {"kind", required_argument, NULL, OPT_KIND},
        {"title", required_argument, NULL, OPT_TITLE},
        {NULL, 0, NULL, 0},
    };
    struct optgroup_values common;
    struct optgroup g;
    int ch;

    *o = (struct plot_options){.kind = PLOT_KIND_AUTO};
    optgroup_init(&g, &common, OPTGROUP_HELP, "o:", long_options, "spoolsim plot", usage);
    while ((ch = optgroup_getopt(&g, argc, argv)) != -1) {
        switch (ch) {
        case 'o':
            o->output = optarg;
            break;
        case OPT_KIND:
            o->kind = plot_picture_kind(optarg);
            break;
        case OPT_TITLE:
            o->title = optarg;
            break;
        case OPT_FORMAT:
            if (plot_render_format(optarg, &o->format) != 0)
                msg_usage("unknown --format \"%s\" (png, pdf or svg)", optarg);
            o->has_format = 1;
            break;
        default:
            msg_panic("option %d not handled", ch);
        }
    }
    if (optind >= argc)
        msg_usage("no result given (spoolsim plot RESULT.json...)");
}

/* The first result's path with the format's suffix in place of .json (or after it). */
static char *default_output(const char *path, enum plot_format fmt)
{
    size_t n = strlen(path), stem = n > 5 && strcmp(path + n - 5, ".json") == 0 ? n - 5 : n;
    char *out = xmalloc(stem + 5);

    memcpy(out, path, stem);
    snprintf(out + stem, 5, ".%s", plot_render_format_name(fmt));
    return out;
}

/*
 * The picture's format: --format's, else the suffix of output's name;
 * svg for standard output and a name without a suffix (a device such as
 * /dev/null). A suffix that names no format, or another than --format, is
 * a usage error: a file named .png that holds an SVG misleads whoever
 * opens it.
 */
static enum plot_format output_format(const struct plot_options *o, const char *output)
{
    const char *base = strrchr(output, '/') ? strrchr(output, '/') + 1 : output,
               *dot = strrchr(base, '.');
    enum plot_format fmt = PLOT_FORMAT_SVG;

    if (strcmp(output, "-") == 0 || dot == NULL || dot == base)
        return o->has_format ? o->format : fmt;
    if (plot_render_format(dot + 1, &fmt) != 0) {
        if (o->has_format)
            return o->format;
        msg_usage("-o %s: no picture format is named \"%s\" (.png, .pdf or .svg; or "
                  "--format FORMAT)",
                  output, dot);
    }
    if (o->has_format && fmt != o->format)
        msg_usage("-o %s is named for %s, but --format is %s", output, plot_render_format_name(fmt),
                  plot_render_format_name(o->format));
    return fmt;
}

int spoolsim_plot(int argc, char **argv)
{
    struct plot_options o;
    struct plot_picture pic;
    struct plot_canvas canvas;
    enum plot_format fmt;
    size_t n, len;
    char title[512], what[160], err[128], *output, *doc = NULL;
    double height;
    int status = EXIT_STATUS_OK;

    parse_options(argc, argv, &o);
    n = (size_t)(argc - optind);
    output = o.output ? xstrdup(o.output)
                      : default_output(argv[optind], o.has_format ? o.format : PLOT_FORMAT_SVG);
    for (size_t i = 0; i < n; i++)
        if (optarg_same_output(output, argv[optind + i]))
            msg_usage("-o %s: that is a result to plot", output);
    fmt = output_format(&o, output);
    optarg_output_file(output, "-o");
    plot_picture_read(&pic, argv + optind, n, o.kind);
    if (o.title)
        snprintf(title, sizeof(title), "%s", o.title);
    else
        plot_picture_title(&pic, title, sizeof(title));
    plot_canvas_init(&canvas);
    height = plot_picture_draw(&pic, title, &canvas, what, sizeof(what));
    if (plot_render(&canvas, PLOT_WIDTH, height, title, fmt, &doc, &len, err, sizeof(err)) != 0) {
        msg_warn("%s: cannot draw the picture: %s",
                 strcmp(output, "-") == 0 ? "standard output" : output, err);
        status = EXIT_STATUS_BAD;
    } else if (fileutil_write_output(output, doc, len) != 0) {
        int e = errno;

        msg_warn("%s: cannot write: %s", strcmp(output, "-") == 0 ? "standard output" : output,
                 strerror(e));
        status = EXIT_STATUS_BAD; /* drawn, but not there to look at */
    } else if (strcmp(output, "-") != 0) {
        printf("%s: %s\n", output, what); /* not into the picture */
    }
    free(doc);
    plot_canvas_free(&canvas);
    plot_picture_free(&pic);
    free(output);
    return status;
}
