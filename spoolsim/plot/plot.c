/*
 * spoolsim plot - pictures of results: a throughput and queue-depth
 * timeline, latency-percentile curves, A/B bars, sweeps' load and
 * latency against offered rate (see spoolsim-plot(1)).
 *
 * The I/O around the pure modules: read the result files, ask plot_data
 * what each holds, lay the kinds out one under another with plot_draw,
 * and write the SVG whole or not at all (a temporary file renamed into
 * place), so that a failure leaves no picture half drawn.
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
#include "json_read.h"
#include "msg.h"
#include "optarg.h"
#include "optgroup.h"
#include "plot_data.h"
#include "plot_draw.h"
#include "spoolsim.h"
#include "svg.h"
#include "xalloc.h"

enum plot_kind { KIND_AUTO, KIND_TIMELINE, KIND_LATENCY, KIND_AB, KIND_SWEEP };

struct plot_options {
    const char *output; /* NULL: the first result's name with .svg */
    enum plot_kind kind;
    const char *title;
};

/* One result file and what it holds. */
struct result {
    const char *path;
    char *text;
    char label[PLOT_LABEL_MAX];
    char program[64];
};

static void usage(FILE *fp, const struct optgroup *g)
{
    fprintf(fp, "Usage: spoolsim plot [options] RESULT.json...\n"
                "\n"
                "Draws what JSON results hold as one SVG picture: messages in and out per\n"
                "second and queue depths over time (a timeline), latency by percentile on a\n"
                "log scale rebuilt from each latency histogram, an A/B comparison's\n"
                "medians with their 95 %% intervals and every run, and a sweep's delivered\n"
                "rate and client latency against offered rate, its knee marked. Several\n"
                "results overlay: one line (or pair of bars) each, the legend naming each by\n"
                "its file or its \"label\" (a sweep by what it swept).\n"
                "\n"
                "Options:\n"
                "  -o, --output FILE   the SVG file (the first RESULT with .svg for .json;\n"
                "                      - = stdout)\n"
                "  --kind KIND         timeline, latency, ab, sweep, or auto: every kind the\n"
                "                      results hold, one under another (auto)\n"
                "  --title TEXT        the picture's title (the results' names)\n");
    optgroup_help(fp, g, OPTGROUP_HELP, 18);
    fprintf(fp, "\n"
                "Exit status: 0 when the picture was written; 1 if it could not be; 2 for a\n"
                "usage error, a result that cannot be read, or one with nothing to plot.\n");
}

static enum plot_kind parse_kind(const char *text)
{
    static const struct {
        const char *name;
        enum plot_kind kind;
    } kinds[] = {{"auto", KIND_AUTO},
                 {"timeline", KIND_TIMELINE},
                 {"latency", KIND_LATENCY},
                 {"ab", KIND_AB},
                 {"sweep", KIND_SWEEP}};

    for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
        if (strcmp(text, kinds[i].name) == 0)
            return kinds[i].kind;
    msg_usage("unknown --kind \"%s\" (timeline, latency, ab, sweep or auto)", text);
}

static void parse_options(int argc, char **argv, struct plot_options *o)
{
    enum { OPT_KIND = 256, OPT_TITLE };
    static const struct option long_options[] = {
        {"output", required_argument, NULL, 'o'},
        {"kind", required_argument, NULL, OPT_KIND},
        {"title", required_argument, NULL, OPT_TITLE},
        {NULL, 0, NULL, 0},
    };
    struct optgroup_values common;
    struct optgroup g;
    int ch;

    *o = (struct plot_options){.kind = KIND_AUTO};
    optgroup_init(&g, &common, OPTGROUP_HELP, "o:", long_options, "spoolsim plot", usage);
    while ((ch = optgroup_getopt(&g, argc, argv)) != -1) {
        switch (ch) {
        case 'o':
            o->output = optarg;
            break;
        case OPT_KIND:
            o->kind = parse_kind(optarg);
            break;
        case OPT_TITLE:
            o->title = optarg;
            break;
        default:
            msg_panic("option %d not handled", ch);
        }
    }
    if (optind >= argc)
        msg_usage("no result given (spoolsim plot RESULT.json...)");
}

/* The first result's path with .svg in place of .json (or after it). */
static char *default_output(const char *path)
{
    size_t n = strlen(path), stem = n > 5 && strcmp(path + n - 5, ".json") == 0 ? n - 5 : n;
    char *out = xmalloc(stem + 5);

    memcpy(out, path, stem);
    memcpy(out + stem, ".svg", 5);
    return out;
}

static void read_result(const char *path, struct result *r)
{
    char key[8], err[128];

    r->path = path;
    if ((r->text = fileutil_read_all(path, NULL)) == NULL)
        msg_usage("%s: cannot read: %s", path, strerror(errno));
    /* Every result is one JSON object; json_read_* check the whole text. */
    if (json_read_key(r->text, NULL, 0, key, sizeof(key)) != 0)
        msg_usage("%s: not a JSON result (one JSON object, as --json writes)", path);
    if (plot_data_check_schema(r->text, err, sizeof(err)) != 0)
        msg_usage("%s: %s", path, err);
    plot_data_label(r->text, path, r->label, sizeof(r->label));
    if (json_read_string(r->text, "program", r->program, sizeof(r->program)) != 0)
        r->program[0] = '\0';
}

/* The picture's title when --title gives none: the results' names, and one's program. */
static void default_title(const struct result *r, size_t n, char *out, size_t len)
{
    size_t used;

    if (n == 1) {
        snprintf(out, len, "%s%s%s", r[0].label, r[0].program[0] ? " \xe2\x80\x94 " : "",
                 r[0].program);
        return;
    }
    used = (size_t)snprintf(out, len, "%zu results: %s", n, r[0].label);
    for (size_t i = 1; i < n && used < len; i++)
        used += (size_t)snprintf(out + used, len - used, ", %s", r[i].label);
}

/*
 * What the results hold of each kind, drawn one under another. With a
 * --kind, every result must hold it; with auto, each kind is drawn from
 * the results that hold it, and a result that holds none is an error.
 */
struct picture {
    struct plot_timeline *tl;
    size_t ntl;
    struct plot_curve *curves;
    size_t ncurves, ncurve_results;
    struct plot_ab *ab;
    size_t nab;
    struct plot_sweep *sw;
    size_t nsw;
};

static void collect(const struct result *r, size_t n, enum plot_kind kind, struct picture *pic)
{
    char err[256];
    size_t first_sweep = n, other = n;
    const char **names;

    *pic = (struct picture){0};
    pic->tl = xcalloc(n, sizeof(*pic->tl));
    pic->ab = xcalloc(n, sizeof(*pic->ab));
    pic->sw = xcalloc(n, sizeof(*pic->sw));
    for (size_t i = 0; i < n; i++) {
        int held = 0;
        char key[8];

        /* A sweep holds nothing else: its steps are its picture. */
        if (kind == KIND_AUTO || kind == KIND_SWEEP) {
            if (plot_data_read_sweep(r[i].text, &pic->sw[pic->nsw], err, sizeof(err)) == 0) {
                if (pic->nsw++ == 0)
                    first_sweep = i;
                continue;
            }
            if (kind == KIND_SWEEP || strcmp(r[i].program, "spoolsim sweep") == 0 ||
                json_read_array_length(r[i].text, "steps") >= 0)
                msg_usage("%s: no sweep to plot: %s", r[i].path, err);
        }
        if (other == n)
            other = i;
        if (kind == KIND_AUTO || kind == KIND_TIMELINE) {
            if (plot_data_read_timeline(r[i].text, &pic->tl[pic->ntl], err, sizeof(err)) == 0) {
                snprintf(pic->tl[pic->ntl++].label, PLOT_LABEL_MAX, "%s", r[i].label);
                held = 1;
            } else if (kind == KIND_TIMELINE) {
                msg_usage("%s: no timeline to plot: %s", r[i].path, err);
            }
        }
        if (kind == KIND_AUTO || kind == KIND_LATENCY) {
            if (plot_data_read_latency(r[i].text, r[i].label, &pic->curves, &pic->ncurves, err,
                                       sizeof(err)) == 0) {
                pic->ncurve_results++;
                held = 1;
            } else if (kind == KIND_LATENCY) {
                msg_usage("%s: no latency to plot: %s", r[i].path, err);
            } else if (json_read_key(r[i].text, "latency", 0, key, sizeof(key)) == 0) {
                msg_warn("%s: latency not drawn: %s", r[i].path, err);
            }
        }
        if (kind == KIND_AUTO || kind == KIND_AB) {
            if (plot_data_read_ab(r[i].text, &pic->ab[pic->nab], err, sizeof(err)) == 0) {
                snprintf(pic->ab[pic->nab++].label, PLOT_LABEL_MAX, "%s", r[i].label);
                held = 1;
            } else if (kind == KIND_AB || plot_data_has_ab(r[i].text)) {
                msg_usage("%s: no A/B comparison to plot: %s", r[i].path, err);
            }
        }
        if (!held)
            msg_usage("%s: nothing to plot: no timeline, no latency with buckets, no A/B "
                      "comparison, no sweep",
                      r[i].path);
    }
    /* Its axes are offered rates, not time or percentiles: nothing else shares them. */
    if (pic->nsw && other < n)
        msg_usage("%s is a sweep and %s is not: a sweep is drawn with other sweeps only "
                  "(plot them apart)",
                  r[first_sweep].path, r[other].path);
    names = xcalloc(n, sizeof(*names));
    for (size_t i = 0; i < pic->nsw; i++)
        names[i] = r[i].label;
    plot_data_sweep_distinct_labels(pic->sw, names, pic->nsw);
    free(names);
}

static void picture_free(struct picture *pic)
{
    for (size_t i = 0; i < pic->ntl; i++)
        plot_data_timeline_free(&pic->tl[i]);
    for (size_t i = 0; i < pic->ncurves; i++)
        plot_data_curve_free(&pic->curves[i]);
    for (size_t i = 0; i < pic->nab; i++)
        plot_data_ab_free(&pic->ab[i]);
    for (size_t i = 0; i < pic->nsw; i++)
        plot_data_sweep_free(&pic->sw[i]);
    free(pic->sw);
    free(pic->tl);
    free(pic->curves);
    free(pic->ab);
}

/* The document, and what it shows in words for the line that names the file. */
static char *draw(const struct picture *pic, const char *title, size_t *len, char *what,
                  size_t what_len)
{
    struct svg s;
    double y;
    char *doc;
    size_t used = 0;

    svg_init(&s);
    y = plot_draw_title(&s, PLOT_WIDTH, title);
    what[0] = '\0';
    if (pic->ntl) {
        y += plot_draw_timeline(&s, y, PLOT_WIDTH, pic->tl, pic->ntl);
        used += (size_t)snprintf(what + used, what_len - used, "timeline of %zu result%s", pic->ntl,
                                 pic->ntl == 1 ? "" : "s");
    }
    if (pic->ncurves && used < what_len) {
        y += plot_draw_latency(&s, y, PLOT_WIDTH, pic->curves, pic->ncurves, pic->ncurve_results);
        used += (size_t)snprintf(what + used, what_len - used, "%slatency (%zu curve%s)",
                                 used ? ", " : "", pic->ncurves, pic->ncurves == 1 ? "" : "s");
    }
    if (pic->nab && used < what_len) {
        y += plot_draw_ab(&s, y, PLOT_WIDTH, pic->ab, pic->nab);
        used += (size_t)snprintf(what + used, what_len - used, "%sA/B of %zu comparison%s",
                                 used ? ", " : "", pic->nab, pic->nab == 1 ? "" : "s");
    }
    if (pic->nsw && used < what_len) {
        y += plot_sweep_draw(&s, y, PLOT_WIDTH, pic->sw, pic->nsw);
        snprintf(what + used, what_len - used, "%ssweep of %zu result%s", used ? ", " : "",
                 pic->nsw, pic->nsw == 1 ? "" : "s");
    }
    doc = svg_document(&s, PLOT_WIDTH, y + 10, title, len);
    svg_free(&s);
    return doc;
}

int spoolsim_plot(int argc, char **argv)
{
    struct plot_options o;
    struct result *r;
    struct picture pic;
    size_t n, len;
    char title[512], what[160], *output, *doc;
    int status = EXIT_STATUS_OK;

    parse_options(argc, argv, &o);
    n = (size_t)(argc - optind);
    output = o.output ? xstrdup(o.output) : default_output(argv[optind]);
    optarg_output_file(output, "-o");
    r = xcalloc(n, sizeof(*r));
    for (size_t i = 0; i < n; i++) {
        read_result(argv[optind + i], &r[i]);
        if (optarg_same_output(output, r[i].path))
            msg_usage("-o %s: that is a result to plot", output);
    }
    collect(r, n, o.kind, &pic);
    if (o.title)
        snprintf(title, sizeof(title), "%s", o.title);
    else
        default_title(r, n, title, sizeof(title));
    doc = draw(&pic, title, &len, what, sizeof(what));
    if (fileutil_write_output(output, doc, len) != 0) {
        int e = errno;

        msg_warn("%s: cannot write: %s", strcmp(output, "-") == 0 ? "standard output" : output,
                 strerror(e));
        status = EXIT_STATUS_BAD; /* drawn, but not there to look at */
    } else if (strcmp(output, "-") != 0) {
        printf("%s: %s\n", output, what); /* not into the picture */
    }
    free(doc);
    picture_free(&pic);
    for (size_t i = 0; i < n; i++)
        free(r[i].text);
    free(r);
    free(output);
    return status;
}
