/*
 * plot_shapes - the shapes `spoolsim plot' draws for some results, one
 * JSON object a line, for tests/it/it_plot.sh.
 *
 * Not a unit test: the integration test's eyes. cairo's PNG, PDF and SVG
 * keep no trace of what a shape stands for (its class, a line's title) and
 * draw text as glyphs, so the test reads the canvas instead, built by the
 * same plot_picture calls from the same files:
 *
 *   plot_shapes [--kind KIND] [--title TEXT] RESULT.json...
 *
 * prints {"what": ...} (plot's line naming what it drew), then each shape:
 * {"shape": "text", "cls": ..., "text": ...}, {"shape": "path", "cls": ...,
 * "title": ..., "points": [[x, y], ...]}, and "line", "rect", "circle",
 * "group" and "end" with their class. Bad input exits 2 as plot does.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "msg.h"
#include "plot_picture.h"

/* s as a JSON string: the canvas made it UTF-8 without controls, so only '"' and '\' need it. */
static void put_string(const char *s)
{
    putchar('"');
    for (; s && *s; s++) {
        if (*s == '"' || *s == '\\')
            putchar('\\');
        putchar(*s);
    }
    putchar('"');
}

static void put_item(const struct plot_item *it)
{
    static const char *const names[] = {"line", "rect", "circle", "path", "text", "group", "end"};

    printf("{\"shape\": \"%s\", \"cls\": ", names[it->shape]);
    put_string(it->cls);
    if (it->shape == PLOT_TEXT) {
        printf(", \"text\": ");
        put_string(it->text);
    } else if (it->shape == PLOT_PATH) {
        printf(", \"title\": ");
        put_string(it->text);
        printf(", \"points\": [");
        for (size_t i = 0; i < it->npt; i++)
            printf("%s[%.3f, %.3f]", i ? ", " : "", it->pt[i].x, it->pt[i].y);
        putchar(']');
    }
    printf("}\n");
}

int main(int argc, char **argv)
{
    enum plot_kind kind = PLOT_KIND_AUTO;
    const char *given_title = NULL;
    struct plot_picture pic;
    struct plot_canvas c;
    char title[512], what[160];
    int i = 1;

    msg_init("plot_shapes");
    for (; i + 1 < argc && strncmp(argv[i], "--", 2) == 0; i += 2) {
        if (strcmp(argv[i], "--kind") == 0)
            kind = plot_picture_kind(argv[i + 1]);
        else if (strcmp(argv[i], "--title") == 0)
            given_title = argv[i + 1];
        else
            msg_usage("unknown option %s", argv[i]);
    }
    if (i >= argc)
        msg_usage("plot_shapes [--kind KIND] [--title TEXT] RESULT.json...");
    plot_picture_read(&pic, argv + i, (size_t)(argc - i), kind);
    if (given_title)
        snprintf(title, sizeof(title), "%s", given_title);
    else
        plot_picture_title(&pic, title, sizeof(title));
    plot_canvas_init(&c);
    plot_picture_draw(&pic, title, &c, what, sizeof(what));
    printf("{\"what\": ");
    put_string(what);
    printf("}\n");
    for (size_t k = 0; k < c.n; k++)
        put_item(&c.item[k]);
    plot_canvas_free(&c);
    plot_picture_free(&pic);
    return fflush(stdout) == 0 && !ferror(stdout) ? 0 : 1;
}
