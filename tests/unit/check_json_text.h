/*
 * check_json_text - a JSON document written into memory, for the unit
 * tests that read back what a writer (common/report/json.c) wrote.
 *
 * json_text_begin() gives the writer with the top-level object begun;
 * json_text_end() ends it, checks that the stream did not fail, and
 * returns the text (malloc'd; the caller frees it); json_text_number()
 * reads a number back.
 */
#ifndef SPOOLSIM_CHECK_JSON_TEXT_H
#define SPOOLSIM_CHECK_JSON_TEXT_H

#include <check.h>
#include <stdio.h>

#include "json.h"
#include "json_read.h"

struct json_text {
    char *buf;
    size_t len;
    FILE *fp;
    struct json_writer w;
};

static inline struct json_writer *json_text_begin(struct json_text *t)
{
    t->buf = NULL;
    t->len = 0;
    t->fp = open_memstream(&t->buf, &t->len);
    ck_assert_ptr_nonnull(t->fp);
    json_init(&t->w, t->fp);
    json_begin_object(&t->w, NULL);
    return &t->w;
}

static inline char *json_text_end(struct json_text *t)
{
    json_end_object(&t->w);
    ck_assert_int_eq(json_finish(&t->w), 0);
    fclose(t->fp);
    return t->buf;
}

/* The number at path in a JSON text, which must be there. */
static inline double json_text_number(const char *text, const char *path)
{
    double v = 0;

    ck_assert_msg(json_read_number(text, path, &v) == 0, "no number at %s", path);
    return v;
}

#endif
