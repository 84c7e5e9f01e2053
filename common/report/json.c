/*
 * json - streaming JSON writer; see json.h.
 */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "json.h"
#include "msg.h"
#include "utf8.h"

void json_init(struct json_writer *w, FILE *fp)
{
    memset(w, 0, sizeof(*w));
    w->fp = fp;
}

/* The characters JSON names with a letter after a backslash, and those letters. */
static const char escaped[] = "\"\\\b\f\n\r\t";
static const char escape_names[] = "\"\\bfnrt";

static void json_escape(FILE *fp, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t n;

    fputc('"', fp);
    while (*p) {
        const char *named = strchr(escaped, *p);

        if (named) {
            fputc('\\', fp);
            fputc(escape_names[named - escaped], fp);
            p++;
        } else if (*p < 0x20) {
            fprintf(fp, "\\u%04x", *p++);
        } else if ((n = utf8_char_len(p)) == 0) {
            /* RFC 8259 8.1: JSON is UTF-8; a reader refuses the document for one bad byte */
            fputs(UTF8_REPLACEMENT, fp);
            p++;
        } else {
            fwrite(p, 1, n, fp);
            p += n;
        }
    }
    fputc('"', fp);
}

static void json_indent(struct json_writer *w)
{
    fputc('\n', w->fp);
    for (int i = 0; i < w->depth; i++)
        fputs("  ", w->fp);
}

/* Everything that goes before a value: comma, newline, indent and key. */
static void json_prefix(struct json_writer *w, const char *key)
{
    int level = w->depth - 1;

    if (w->depth == 0) {
        if (w->done)
            msg_panic("json: second top-level value");
        if (key)
            msg_panic("json: key \"%s\" at top level", key);
        w->done = 1;
        return;
    }
    if (w->has_items[level])
        fputs(w->is_inline[level] ? ", " : ",", w->fp);
    w->has_items[level] = 1;
    if (!w->is_inline[level])
        json_indent(w);
    if (w->is_array[level]) {
        if (key)
            msg_panic("json: key \"%s\" inside an array", key);
        return;
    }
    if (key == NULL)
        msg_panic("json: value without a key inside an object");
    json_escape(w->fp, key);
    fputs(": ", w->fp);
}

static void json_begin(struct json_writer *w, const char *key, int is_array, int is_inline)
{
    json_prefix(w, key);
    if (w->depth >= JSON_MAX_DEPTH)
        msg_panic("json: nesting deeper than %d", JSON_MAX_DEPTH);
    fputc(is_array ? '[' : '{', w->fp);
    w->is_array[w->depth] = (unsigned char)is_array;
    w->has_items[w->depth] = 0;
    /* Inside a line everything stays on it. */
    w->is_inline[w->depth] =
        (unsigned char)(is_inline || (w->depth > 0 && w->is_inline[w->depth - 1]));
    w->depth++;
}

static void json_end(struct json_writer *w, int is_array)
{
    if (w->depth == 0 || w->is_array[w->depth - 1] != is_array)
        msg_panic("json: %s closes no open %s", is_array ? "]" : "}",
                  is_array ? "array" : "object");
    w->depth--;
    /* An empty container stays on one line: {} or []. */
    if (w->has_items[w->depth] && !w->is_inline[w->depth])
        json_indent(w);
    fputc(is_array ? ']' : '}', w->fp);
}

void json_begin_object(struct json_writer *w, const char *key)
{
    json_begin(w, key, 0, 0);
}

void json_end_object(struct json_writer *w)
{
    json_end(w, 0);
}

void json_begin_array(struct json_writer *w, const char *key)
{
    json_begin(w, key, 1, 0);
}

void json_begin_inline_array(struct json_writer *w, const char *key)
{
    json_begin(w, key, 1, 1);
}

void json_end_array(struct json_writer *w)
{
    json_end(w, 1);
}

void json_string(struct json_writer *w, const char *key, const char *value)
{
    json_prefix(w, key);
    if (value)
        json_escape(w->fp, value);
    else
        fputs("null", w->fp);
}

void json_uint(struct json_writer *w, const char *key, uint64_t value)
{
    json_prefix(w, key);
    fprintf(w->fp, "%" PRIu64, value);
}

void json_int(struct json_writer *w, const char *key, int64_t value)
{
    json_prefix(w, key);
    fprintf(w->fp, "%" PRId64, value);
}

/* A program that called setlocale() may get a decimal comma: JSON wants a point. */
static void decimal_point(char *buf)
{
    for (char *p = buf; *p; p++)
        if (*p == ',')
            *p = '.';
}

void json_format_double(char *buf, size_t len, double value)
{
    if (!isfinite(value)) {
        snprintf(buf, len, "null");
        return;
    }
    /* %.9g keeps small latencies (0.000123 ms) that %.3f would zero out. */
    snprintf(buf, len, "%.9g", value);
    decimal_point(buf);
}

void json_double(struct json_writer *w, const char *key, double value)
{
    char buf[64];

    json_prefix(w, key);
    json_format_double(buf, sizeof(buf), value);
    fputs(buf, w->fp);
}

void json_time(struct json_writer *w, const char *key, double unix_s)
{
    char buf[64];

    if (!isfinite(unix_s)) {
        json_double(w, key, unix_s);
        return;
    }
    json_prefix(w, key);
    snprintf(buf, sizeof(buf), "%.6f", unix_s);
    decimal_point(buf);
    fputs(buf, w->fp);
}

void json_bool(struct json_writer *w, const char *key, int value)
{
    json_prefix(w, key);
    fputs(value ? "true" : "false", w->fp);
}

void json_uint_or_null(struct json_writer *w, const char *key, int known, uint64_t value)
{
    if (known)
        json_uint(w, key, value);
    else
        json_string(w, key, NULL);
}

int json_finish(struct json_writer *w)
{
    if (w->depth != 0)
        msg_panic("json: finish with %d container(s) still open", w->depth);
    fputc('\n', w->fp);
    return ferror(w->fp) ? -1 : 0;
}
