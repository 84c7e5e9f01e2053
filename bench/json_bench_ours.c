/*
 * json_bench_ours - our side of bench/json_bench.c: the events through our
 * writer, a report read back through our reader.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "json_bench.h"
#include "json_read.h"

/* Ours: the events through json_writer into a memory stream; its length. */
size_t json_bench_ours_write(const struct events *e, char **out)
{
    struct json_writer w;
    size_t len = 0;
    FILE *fp = open_memstream(out, &len);
    int is_array[JSON_MAX_DEPTH + 1] = {0}, depth = 0;

    json_init(&w, fp);
    for (size_t i = 0; i < e->n; i++) {
        const struct event *v = &e->ev[i];

        switch (v->kind) {
        case EV_OBJECT:
            json_begin_object(&w, v->key);
            is_array[++depth] = 0;
            break;
        case EV_ARRAY:
            json_begin_array(&w, v->key);
            is_array[++depth] = 1;
            break;
        case EV_END:
            if (is_array[depth--])
                json_end_array(&w);
            else
                json_end_object(&w);
            break;
        case EV_STRING:
            json_string(&w, v->key, v->str);
            break;
        case EV_INT:
            json_int(&w, v->key, v->i);
            break;
        case EV_REAL:
            json_double(&w, v->key, v->d);
            break;
        case EV_BOOL:
            json_bool(&w, v->key, (int)v->i);
            break;
        case EV_NULL:
            json_string(&w, v->key, NULL);
            break;
        }
    }
    json_finish(&w);
    fclose(fp);
    return len;
}

static double read_ours_sub(const char *text, size_t off, size_t len, size_t depth);

/* A value's span copied out with a NUL, as the readers do, and read on its own. */
static double read_ours_sub(const char *text, size_t off, size_t len, size_t depth)
{
    char *sub = malloc(len + 1);
    double sum;

    memcpy(sub, text + off, len);
    sub[len] = '\0';
    sum = json_bench_ours_read(sub, depth + 1);
    free(sub);
    return sum;
}

/* Every value of text; the sum of its numbers and string lengths, so nothing is optimised away. */
double json_bench_ours_read(const char *text, size_t depth)
{
    double sum = 0, d;
    char buf[4096];

    if (text[0] == '{') {
        struct json_members it;
        size_t off, len;

        if (json_read_members_begin(&it, text, NULL) != 0)
            return -1;
        while (json_read_members_next(&it, buf, sizeof(buf), &off, &len) >= 0)
            sum += read_ours_sub(text, off, len, depth);
    } else if (text[0] == '[') {
        long n = json_read_array_length(text, NULL);
        size_t *offs = malloc((size_t)(n + 1) * sizeof(size_t));
        size_t *lens = malloc((size_t)(n + 1) * sizeof(size_t));

        n = json_read_item_spans(text, NULL, offs, lens, (size_t)n);
        for (long i = 0; i < n; i++)
            sum += read_ours_sub(text, offs[i], lens[i], depth);
        free(offs);
        free(lens);
    } else if (json_read_number(text, NULL, &d) == 0) {
        sum += d;
    } else if (json_read_string(text, NULL, buf, sizeof(buf)) == 0) {
        sum += (double)strlen(buf);
    }
    return sum;
}

double json_bench_ours_lookup(const char *text, const char *path)
{
    double d = -1;

    json_read_number(text, path, &d);
    return d;
}
