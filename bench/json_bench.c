/*
 * json_bench - spoolsim's JSON writer and reader (common/report/json*.c)
 * against jansson's, on the same documents; built and run by bench/json.sh,
 * never installed.
 *
 * For each FILE (a report a spoolsim program wrote) the document is first
 * turned into a list of events (begin an object or array under a key, a
 * scalar under a key), which stands for the program's own data. Then, each
 * timed in CPU time, the median of REPS runs:
 *
 *   write  ours:    the events through json_writer to a memory stream
 *          jansson: the events into a json_t tree, json_dumpb() with
 *                   JSON_INDENT(2) | JSON_PRESERVE_ORDER |
 *                   JSON_REAL_PRECISION(9), the tree freed
 *   read   ours:    every value of the text, as the readers do it: an
 *                   object's members by json_read_members_*, an array's
 *                   items by json_read_item_spans, each span copied out
 *                   with a NUL and read on its own; numbers and strings by
 *                   json_read_number and json_read_string
 *          jansson: json_loadb() of the text, a walk over every value
 *                   (json_number_value, json_string_value), the tree freed
 *   lookup ours:    one value by its path, json_read_number(text, PATH)
 *          jansson: json_loadb(), the path walked, the tree freed
 *
 * It prints one line per FILE and operation: the size, each side's median
 * time in microseconds and jansson's over ours. It also says whether
 * jansson's dump is byte-identical to the file our writer wrote and, if
 * not, the first line that differs.
 *
 * Usage: json_bench REPS PATH FILE...
 */
#include "config.h"

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "json_bench.h"

static void add(struct events *e, enum ev_kind kind, const char *key)
{
    if (e->n == e->cap) {
        e->cap = e->cap ? e->cap * 2 : 1024;
        e->ev = realloc(e->ev, e->cap * sizeof(*e->ev));
        if (e->ev == NULL)
            abort();
    }
    e->ev[e->n] = (struct event){.kind = kind, .key = key ? strdup(key) : NULL};
    e->n++;
}

static void flatten(struct events *e, const char *key, json_t *v)
{
    const char *k;
    json_t *item;
    size_t i;

    switch (json_typeof(v)) {
    case JSON_OBJECT:
        add(e, EV_OBJECT, key);
        json_object_foreach(v, k, item) flatten(e, k, item);
        add(e, EV_END, NULL);
        break;
    case JSON_ARRAY:
        add(e, EV_ARRAY, key);
        json_array_foreach(v, i, item) flatten(e, NULL, item);
        add(e, EV_END, NULL);
        break;
    case JSON_STRING:
        add(e, EV_STRING, key);
        e->ev[e->n - 1].str = strdup(json_string_value(v));
        break;
    case JSON_INTEGER:
        add(e, EV_INT, key);
        e->ev[e->n - 1].i = json_integer_value(v);
        break;
    case JSON_REAL:
        add(e, EV_REAL, key);
        e->ev[e->n - 1].d = json_real_value(v);
        break;
    case JSON_TRUE:
    case JSON_FALSE:
        add(e, EV_BOOL, key);
        e->ev[e->n - 1].i = json_is_true(v);
        break;
    case JSON_NULL:
        add(e, EV_NULL, key);
        break;
    }
}

/* jansson: the events into a tree, dumped as close to our format as its flags go. */
static size_t write_jansson(const struct events *e, char **out)
{
    json_t *stack[64], *root = NULL;
    int depth = 0;
    size_t len;

    for (size_t i = 0; i < e->n; i++) {
        const struct event *v = &e->ev[i];
        json_t *value;

        switch (v->kind) {
        case EV_END:
            depth--;
            continue;
        case EV_OBJECT:
            value = json_object();
            break;
        case EV_ARRAY:
            value = json_array();
            break;
        case EV_STRING:
            value = json_stringn(v->str, strlen(v->str));
            break;
        case EV_INT:
            value = json_integer(v->i);
            break;
        case EV_REAL:
            value = json_real(v->d);
            break;
        case EV_BOOL:
            value = json_boolean(v->i);
            break;
        default:
            value = json_null();
            break;
        }
        if (depth == 0)
            root = value;
        else if (json_is_array(stack[depth - 1]))
            json_array_append_new(stack[depth - 1], value);
        else
            json_object_set_new(stack[depth - 1], v->key, value);
        if (v->kind == EV_OBJECT || v->kind == EV_ARRAY)
            stack[depth++] = value;
    }
    *out = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(9));
    len = strlen(*out);
    json_decref(root);
    return len;
}

static double walk_jansson(json_t *v)
{
    double sum = 0;
    const char *k;
    json_t *item;
    size_t i;

    if (json_is_object(v)) {
        json_object_foreach(v, k, item) sum += walk_jansson(item);
    } else if (json_is_array(v)) {
        json_array_foreach(v, i, item) sum += walk_jansson(item);
    } else if (json_is_number(v)) {
        sum += json_number_value(v);
    } else if (json_is_string(v)) {
        sum += (double)json_string_length(v);
    }
    return sum;
}

static double read_jansson(const char *text, size_t len)
{
    json_error_t err;
    json_t *root = json_loadb(text, len, 0, &err);
    double sum;

    if (root == NULL) {
        fprintf(stderr, "json_bench: jansson: %s at line %d\n", err.text, err.line);
        exit(1);
    }
    sum = walk_jansson(root);
    json_decref(root);
    return sum;
}

static double lookup_jansson(const char *text, size_t len, const char *path)
{
    json_t *root = json_loadb(text, len, 0, NULL), *v = root;
    char comp[256];
    double d = -1;

    while (v && path && *path) {
        size_t n = strcspn(path, ".");

        snprintf(comp, sizeof(comp), "%.*s", (int)n, path);
        v = json_is_array(v) ? json_array_get(v, strtoul(comp, NULL, 10))
                             : json_object_get(v, comp);
        path += n + (path[n] == '.');
    }
    if (json_is_number(v))
        d = json_number_value(v);
    json_decref(root);
    return d;
}

static double now_cpu(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

/* Which operation a timed run does. */
enum op { WRITE_OURS, WRITE_JANSSON, READ_OURS, READ_JANSSON, LOOKUP_OURS, LOOKUP_JANSSON };

struct input {
    const struct events *e;
    const char *text;
    size_t len;
    const char *path;
};

static volatile double sink;

static void run_op(enum op op, const struct input *in)
{
    char *out = NULL;
    double d = 0;

    switch (op) {
    case WRITE_OURS:
        json_bench_ours_write(in->e, &out);
        break;
    case WRITE_JANSSON:
        write_jansson(in->e, &out);
        break;
    case READ_OURS:
        d = json_bench_ours_read(in->text, 0);
        break;
    case READ_JANSSON:
        d = read_jansson(in->text, in->len);
        break;
    case LOOKUP_OURS:
        d = json_bench_ours_lookup(in->text, in->path);
        break;
    case LOOKUP_JANSSON:
        d = lookup_jansson(in->text, in->len, in->path);
        break;
    }
    free(out);
    sink = d;
}

/* The median over reps of one run's CPU time in microseconds (a run repeats op for >= 20 ms). */
static double time_op(enum op op, const struct input *in, int reps)
{
    double t[64], start;
    long loops = 1;

    start = now_cpu();
    run_op(op, in);
    if (now_cpu() - start < 0.02)
        loops = (long)(0.02 / (now_cpu() - start + 1e-7)) + 1;
    for (int r = 0; r < reps; r++) {
        start = now_cpu();
        for (long i = 0; i < loops; i++)
            run_op(op, in);
        t[r] = (now_cpu() - start) / loops * 1e6;
    }
    qsort(t, (size_t)reps, sizeof(double), cmp_double);
    return reps % 2 ? t[reps / 2] : (t[reps / 2 - 1] + t[reps / 2]) / 2;
}

static void report(const char *name, const char *what, size_t bytes, double ours, double theirs)
{
    printf("%-14s %-7s %9zu B  ours %10.1f us  jansson %10.1f us  jansson/ours %5.2f\n", name, what,
           bytes, ours, theirs, theirs / ours);
}

/* Where jansson's dump first differs from ours, or that it does not. */
static void compare_format(const char *name, const char *ours, const char *theirs)
{
    size_t line = 1, i = 0;
    const char *a, *b;

    if (strcmp(ours, theirs) == 0) {
        printf("%-14s format  jansson's dump is byte-identical to ours\n", name);
        return;
    }
    while (ours[i] && ours[i] == theirs[i])
        line += ours[i++] == '\n';
    if (ours[i] == '\0' || theirs[i] == '\0') {
        printf("%-14s format  jansson differs at the end: %s\n", name,
               ours[i] == '\n' ? "no final newline" : "a longer document");
        return;
    }
    a = ours + i;
    b = theirs + i;
    while (a > ours && a[-1] != '\n')
        a--, b--;
    printf("%-14s format  jansson differs from line %zu: file \"%.*s\", jansson \"%.*s\"\n", name,
           line, (int)strcspn(a, "\n"), a, (int)strcspn(b, "\n"), b);
}

int main(int argc, char **argv)
{
    int reps;

    if (argc < 4 || (reps = atoi(argv[1])) < 1 || reps > 64) {
        fprintf(stderr, "usage: json_bench REPS PATH FILE...\n");
        return 2;
    }
    for (int f = 3; f < argc; f++) {
        const char *name = strrchr(argv[f], '/') ? strrchr(argv[f], '/') + 1 : argv[f];
        struct events e = {0};
        json_error_t err;
        json_t *root = json_load_file(argv[f], JSON_DECODE_ANY, &err);
        char *text = NULL, *ours, *theirs;
        size_t len = 0;
        FILE *fp;
        struct input in;

        if (root == NULL) {
            fprintf(stderr, "json_bench: %s: %s\n", argv[f], err.text);
            return 1;
        }
        flatten(&e, NULL, root);
        json_decref(root);
        /* What the programs read is the file as the program wrote it. */
        if ((fp = fopen(argv[f], "r")) == NULL || getdelim(&text, &len, '\0', fp) < 0)
            return 1;
        fclose(fp);
        len = strlen(text);
        in = (struct input){&e, text, len, argv[2]};
        write_jansson(&e, &theirs);
        compare_format(name, text, theirs);
        free(theirs);
        json_bench_ours_write(&e, &ours);
        if (strcmp(ours, text) != 0)
            printf("%-14s format  (our writer from the events differs too: inline arrays, times)\n",
                   name);
        free(ours);
        report(name, "write", len, time_op(WRITE_OURS, &in, reps),
               time_op(WRITE_JANSSON, &in, reps));
        report(name, "read", len, time_op(READ_OURS, &in, reps), time_op(READ_JANSSON, &in, reps));
        report(name, "lookup", len, time_op(LOOKUP_OURS, &in, reps),
               time_op(LOOKUP_JANSSON, &in, reps));
        free(text);
        for (size_t i = 0; i < e.n; i++) {
            free(e.ev[i].key);
            free(e.ev[i].str);
        }
        free(e.ev);
    }
    return 0;
}
