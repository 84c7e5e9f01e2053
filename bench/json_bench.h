/*
 * json_bench.h - what bench/json_bench.c (jansson's side) and
 * bench/json_bench_ours.c (ours) share: the two cannot be one file, since
 * our writer's json_string() and jansson's have one name.
 */
#ifndef SPOOLSIM_JSON_BENCH_H
#define SPOOLSIM_JSON_BENCH_H

#include <stddef.h>
#include <stdint.h>

enum ev_kind { EV_OBJECT, EV_ARRAY, EV_END, EV_STRING, EV_INT, EV_REAL, EV_BOOL, EV_NULL };

struct event {
    enum ev_kind kind;
    char *key; /* NULL in an array and at the top */
    char *str;
    int64_t i;
    double d;
};

struct events {
    struct event *ev;
    size_t n, cap;
};

size_t json_bench_ours_write(const struct events *e, char **out);
double json_bench_ours_read(const char *text, size_t depth);
double json_bench_ours_lookup(const char *text, const char *path);

#endif
