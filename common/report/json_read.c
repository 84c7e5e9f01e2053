/*
 * json_read - look up one value in a JSON text by path; see json_read.h.
 *
 * A recursive-descent skipper: each scan_* function takes a pointer to the
 * first byte of a token and returns the byte after it, or NULL if the token
 * is malformed. Every byte is tested before the next one is looked at, and
 * NUL matches nothing the grammar accepts, so a scan stops at the end of the
 * text instead of reading past it. Recursion is bounded by
 * JSON_READ_MAX_DEPTH, so hostile nesting cannot exhaust the stack.
 */
#include "config.h"

#include <locale.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "json_read.h"

/*
 * Where the bytes of a string go while it is unescaped: nowhere (skipping),
 * into a caller's buffer, or compared against a path component.
 */
struct str_sink {
    char *buf; /* copy mode: out buffer of len bytes */
    size_t len;
    size_t used;
    int truncated;
    int has_nul;     /* a \u0000 was seen */
    const char *cmp; /* compare mode: the path component */
    size_t cmp_len;
    size_t pos;
    int mismatch;
};

static void sink_put(struct str_sink *o, const unsigned char *bytes, size_t n)
{
    if (o == NULL)
        return;
    if (o->cmp) {
        if (o->mismatch || o->pos + n > o->cmp_len || memcmp(o->cmp + o->pos, bytes, n) != 0)
            o->mismatch = 1;
        else
            o->pos += n;
        return;
    }
    for (size_t i = 0; i < n; i++) {
        if (bytes[i] == 0)
            o->has_nul = 1;
        if (o->used + 1 < o->len)
            o->buf[o->used++] = (char)bytes[i];
        else
            o->truncated = 1;
    }
}

static int sink_matched(const struct str_sink *o)
{
    return !o->mismatch && o->pos == o->cmp_len;
}

/* A cut must not leave the first bytes of a multi-byte UTF-8 sequence. */
static void sink_trim_utf8(struct str_sink *o)
{
    const unsigned char *b = (const unsigned char *)o->buf;
    size_t i = o->used, tail = 0, need;

    while (i > 0 && tail < 3 && (b[i - 1] & 0xc0) == 0x80) {
        i--;
        tail++;
    }
    if (i == 0 || b[i - 1] < 0xc0)
        return; /* ASCII or a stray continuation byte: nothing to cut */
    need = b[i - 1] >= 0xf0 ? 4 : b[i - 1] >= 0xe0 ? 3 : 2;
    if (tail + 1 < need)
        o->used = i - 1;
}

static const char *skip_ws(const char *p)
{
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
        p++;
    return p;
}

static int hex_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* p at the 'u' of "\uXXXX"; the code unit, or -1. Stops at the first non-hex byte. */
static long scan_u_escape(const char *p)
{
    long v = 0;

    if (*p != 'u')
        return -1;
    for (int i = 1; i <= 4; i++) {
        int h = hex_value(p[i]);

        if (h < 0)
            return -1;
        v = v * 16 + h;
    }
    return v;
}

static size_t utf8_encode(unsigned long cp, unsigned char *b)
{
    if (cp < 0x80) {
        b[0] = (unsigned char)cp;
        return 1;
    }
    if (cp < 0x800) {
        b[0] = (unsigned char)(0xc0 | (cp >> 6));
        b[1] = (unsigned char)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp < 0x10000) {
        b[0] = (unsigned char)(0xe0 | (cp >> 12));
        b[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
        b[2] = (unsigned char)(0x80 | (cp & 0x3f));
        return 3;
    }
    b[0] = (unsigned char)(0xf0 | (cp >> 18));
    b[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3f));
    b[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
    b[3] = (unsigned char)(0x80 | (cp & 0x3f));
    return 4;
}

/* p at the opening quote; unescaped bytes go to o (may be NULL). */
static const char *scan_string(const char *p, struct str_sink *o)
{
    unsigned char enc[4];

    if (*p++ != '"')
        return NULL;
    for (;;) {
        unsigned char c = (unsigned char)*p;

        if (c == '"')
            return p + 1;
        if (c < 0x20)
            return NULL; /* the NUL that ends the text, or a raw control character */
        if (c != '\\') {
            sink_put(o, &c, 1);
            p++;
            continue;
        }
        p++;
        switch (*p) {
        case '"':
        case '\\':
        case '/':
            c = (unsigned char)*p;
            break;
        case 'b':
            c = '\b';
            break;
        case 'f':
            c = '\f';
            break;
        case 'n':
            c = '\n';
            break;
        case 'r':
            c = '\r';
            break;
        case 't':
            c = '\t';
            break;
        case 'u': {
            long cp = scan_u_escape(p), lo;

            if (cp < 0 || (cp >= 0xdc00 && cp <= 0xdfff))
                return NULL;
            p += 5;
            if (cp >= 0xd800 && cp <= 0xdbff) {
                /* A high surrogate is only half a character: the low half must follow. */
                if (p[0] != '\\')
                    return NULL;
                lo = scan_u_escape(p + 1);
                if (lo < 0xdc00 || lo > 0xdfff)
                    return NULL;
                cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                p += 6;
            }
            sink_put(o, enc, utf8_encode((unsigned long)cp, enc));
            continue;
        }
        default:
            return NULL;
        }
        sink_put(o, &c, 1);
        p++;
    }
}

/* -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
static const char *scan_number(const char *p)
{
    if (*p == '-')
        p++;
    if (*p == '0') {
        p++;
    } else if (*p >= '1' && *p <= '9') {
        while (*p >= '0' && *p <= '9')
            p++;
    } else {
        return NULL;
    }
    if (*p == '.') {
        p++;
        if (!(*p >= '0' && *p <= '9'))
            return NULL;
        while (*p >= '0' && *p <= '9')
            p++;
    }
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-')
            p++;
        if (!(*p >= '0' && *p <= '9'))
            return NULL;
        while (*p >= '0' && *p <= '9')
            p++;
    }
    return p;
}

static const char *scan_literal(const char *p, const char *word)
{
    size_t n = strlen(word);

    /* strncmp stops at the first difference, so a NUL in the text ends it. */
    return strncmp(p, word, n) == 0 ? p + n : NULL;
}

/* p at the first byte of a value (no white space); depth = containers around it. */
static const char *scan_value(const char *p, int depth)
{
    int is_object;

    switch (*p) {
    case '"':
        return scan_string(p, NULL);
    case 't':
        return scan_literal(p, "true");
    case 'f':
        return scan_literal(p, "false");
    case 'n':
        return scan_literal(p, "null");
    case '{':
    case '[':
        break;
    default:
        return scan_number(p);
    }
    if (depth >= JSON_READ_MAX_DEPTH)
        return NULL;
    is_object = *p == '{';
    p = skip_ws(p + 1);
    if (*p == (is_object ? '}' : ']'))
        return p + 1;
    for (;;) {
        if (is_object) {
            if ((p = scan_string(p, NULL)) == NULL)
                return NULL;
            p = skip_ws(p);
            if (*p != ':')
                return NULL;
            p = skip_ws(p + 1);
        }
        if ((p = scan_value(p, depth + 1)) == NULL)
            return NULL;
        p = skip_ws(p);
        if (*p == (is_object ? '}' : ']'))
            return p + 1;
        if (*p != ',')
            return NULL;
        p = skip_ws(p + 1);
    }
}

/* A path component of digits only, as an array index; -1 if it is not one. */
static long long parse_index(const char *comp, size_t len)
{
    long long v = 0;

    if (len == 0 || len > 18)
        return -1; /* 18 digits cannot overflow, and no text holds that many items */
    for (size_t i = 0; i < len; i++) {
        if (comp[i] < '0' || comp[i] > '9')
            return -1;
        v = v * 10 + (comp[i] - '0');
    }
    return v;
}

/*
 * p at an object or array; the value of member comp (length len) of it, or
 * NULL. The text has been checked already, but the scans still return NULL
 * on anything unexpected rather than trust that.
 */
static const char *find_member(const char *p, const char *comp, size_t len, int depth)
{
    long long index;

    if (*p == '{') {
        p = skip_ws(p + 1);
        if (*p == '}')
            return NULL;
        for (;;) {
            struct str_sink key = {.cmp = comp, .cmp_len = len};

            if ((p = scan_string(p, &key)) == NULL)
                return NULL;
            p = skip_ws(p);
            if (*p != ':')
                return NULL;
            p = skip_ws(p + 1);
            if (sink_matched(&key))
                return p;
            if ((p = scan_value(p, depth + 1)) == NULL)
                return NULL;
            p = skip_ws(p);
            if (*p != ',')
                return NULL; /* '}': not there */
            p = skip_ws(p + 1);
        }
    }
    if (*p == '[') {
        if ((index = parse_index(comp, len)) < 0)
            return NULL;
        p = skip_ws(p + 1);
        if (*p == ']')
            return NULL;
        for (;;) {
            if (index-- == 0)
                return p;
            if ((p = scan_value(p, depth + 1)) == NULL)
                return NULL;
            p = skip_ws(p);
            if (*p != ',')
                return NULL; /* ']': too few items */
            p = skip_ws(p + 1);
        }
    }
    return NULL; /* a scalar has no members */
}

/* The first byte of the value at path, or NULL if it is missing or the text is malformed. */
static const char *find_value(const char *text, const char *path)
{
    const char *p, *end;
    int depth = 0;

    if (text == NULL)
        return NULL;
    p = skip_ws(text);
    end = scan_value(p, 0);
    if (end == NULL || *skip_ws(end) != '\0')
        return NULL;
    if (path == NULL || *path == '\0')
        return p;
    for (;;) {
        const char *dot = strchr(path, '.');
        size_t len = dot ? (size_t)(dot - path) : strlen(path);

        if ((p = find_member(p, path, len, depth)) == NULL)
            return NULL;
        depth++;
        if (dot == NULL)
            return p;
        path = dot + 1;
    }
}

/*
 * strtod() reads the JSON number grammar exactly, except that a program that
 * called setlocale() may expect a decimal comma; json_double() writes '.'
 * whatever the locale, so its reader must read '.' the same way.
 */
static int convert_number(const char *p, const char *end, double *out)
{
    char buf[512];
    const char *point;
    size_t used = 0, point_len;
    char *stop;
    double v;

    v = strtod(p, &stop);
    if (stop != end) {
        point = localeconv()->decimal_point;
        point_len = strlen(point);
        for (const char *q = p; q < end; q++) {
            const char *piece = *q == '.' ? point : q;
            size_t n = *q == '.' ? point_len : 1;

            if (used + n >= sizeof(buf))
                return -1; /* an absurdly long number in an unusual locale */
            memcpy(buf + used, piece, n);
            used += n;
        }
        buf[used] = '\0';
        v = strtod(buf, &stop);
        if (stop != buf + used)
            return -1;
    }
    if (isinf(v))
        return -1; /* "1e999": too large; underflow to 0 or a denormal is close enough */
    *out = v;
    return 0;
}

int json_read_number(const char *text, const char *path, double *out)
{
    const char *p = find_value(text, path), *end;

    if (p == NULL || !(*p == '-' || (*p >= '0' && *p <= '9')))
        return -1;
    if ((end = scan_number(p)) == NULL)
        return -1;
    return convert_number(p, end, out);
}

int json_read_bool(const char *text, const char *path, int *out)
{
    const char *p = find_value(text, path);

    if (p != NULL && scan_literal(p, "true") != NULL) {
        *out = 1;
        return 0;
    }
    if (p != NULL && scan_literal(p, "false") != NULL) {
        *out = 0;
        return 0;
    }
    return -1;
}

int json_read_string(const char *text, const char *path, char *out, size_t len)
{
    struct str_sink o = {.buf = out, .len = len};
    const char *p;

    if (len == 0)
        return -1;
    out[0] = '\0';
    p = find_value(text, path);
    if (p == NULL || *p != '"' || scan_string(p, &o) == NULL || o.has_nul) {
        out[0] = '\0';
        return -1;
    }
    if (o.truncated)
        sink_trim_utf8(&o);
    out[o.used] = '\0';
    return 0;
}

int json_read_key(const char *text, const char *path, size_t index, char *out, size_t len)
{
    const char *p;

    if (len == 0)
        return -1;
    out[0] = '\0';
    if ((p = find_value(text, path)) == NULL || *p != '{')
        return -1;
    p = skip_ws(p + 1);
    if (*p == '}')
        return -1;
    for (size_t i = 0;; i++) {
        struct str_sink o = {.buf = out, .len = len};

        if ((p = scan_string(p, i == index ? &o : NULL)) == NULL)
            break;
        if (i == index) {
            if (o.has_nul)
                break;
            if (o.truncated)
                sink_trim_utf8(&o);
            out[o.used] = '\0';
            return 0;
        }
        p = skip_ws(p);
        if (*p != ':' || (p = scan_value(skip_ws(p + 1), 1)) == NULL)
            break;
        p = skip_ws(p);
        if (*p != ',')
            break; /* '}': fewer members */
        p = skip_ws(p + 1);
    }
    out[0] = '\0';
    return -1;
}

/*
 * The items of the array at path in turn, each read by item(p, n, ctx) from
 * its first byte (n: how many came before it), which returns the byte after
 * it, or NULL for one it does not take. How many items, or -1: no array
 * there, more than max items, an item not taken, or not JSON.
 */
static long each_item(const char *text, const char *path, size_t max,
                      const char *(*item)(const char *p, size_t n, void *ctx), void *ctx)
{
    const char *p = find_value(text, path);
    size_t n = 0;

    if (p == NULL || *p != '[')
        return -1;
    p = skip_ws(p + 1);
    if (*p == ']')
        return 0;
    for (;;) {
        if (n == max || (p = item(p, n, ctx)) == NULL)
            return -1;
        n++;
        p = skip_ws(p);
        if (*p == ']')
            return (long)n;
        if (*p != ',')
            return -1;
        p = skip_ws(p + 1);
    }
}

struct item_spans {
    const char *text;
    size_t *offsets, *lengths; /* NULL: only counted */
};

static const char *span_item(const char *p, size_t n, void *ctx)
{
    struct item_spans *s = ctx;
    const char *end = scan_value(p, 1);

    if (end != NULL && s->offsets) {
        s->offsets[n] = (size_t)(p - s->text);
        s->lengths[n] = (size_t)(end - p);
    }
    return end;
}

/* The items of the array at path, their spans in offsets and lengths unless those are NULL. */
static long walk_items(const char *text, const char *path, size_t *offsets, size_t *lengths,
                       size_t max_items)
{
    struct item_spans s = {text, offsets, lengths};

    return each_item(text, path, max_items, span_item, &s);
}

long json_read_array_length(const char *text, const char *path)
{
    return walk_items(text, path, NULL, NULL, SIZE_MAX);
}

long json_read_item_spans(const char *text, const char *path, size_t *offsets, size_t *lengths,
                          size_t max_items)
{
    return offsets && lengths ? walk_items(text, path, offsets, lengths, max_items) : -1;
}

/* p at a number; the byte after it and the number in *out, or NULL. */
static const char *read_number_at(const char *p, double *out)
{
    const char *end;

    if (!(*p == '-' || (*p >= '0' && *p <= '9')) || (end = scan_number(p)) == NULL)
        return NULL;
    return convert_number(p, end, out) == 0 ? end : NULL;
}

/* p at '['; the byte after the row of exactly width numbers, or NULL. */
static const char *read_row(const char *p, size_t width, double *out)
{
    if (*p != '[')
        return NULL;
    p = skip_ws(p + 1);
    for (size_t i = 0; i < width; i++) {
        if (i > 0) {
            if (*p != ',')
                return NULL;
            p = skip_ws(p + 1);
        }
        if ((p = read_number_at(p, &out[i])) == NULL)
            return NULL;
        p = skip_ws(p);
    }
    return *p == ']' ? p + 1 : NULL;
}

/* p at '{'; the byte after the object, its members keys[] in out (NAN for the rest). */
static const char *read_object_row(const char *p, const char *const keys[], size_t nkeys,
                                   double *out)
{
    for (size_t j = 0; j < nkeys; j++)
        out[j] = NAN;
    if (*p != '{')
        return NULL;
    p = skip_ws(p + 1);
    if (*p == '}')
        return p + 1;
    for (;;) {
        char key[128];
        struct str_sink o = {.buf = key, .len = sizeof(key)};
        const char *value;

        if ((p = scan_string(p, &o)) == NULL)
            return NULL;
        key[o.used] = '\0';
        p = skip_ws(p);
        if (*p != ':')
            return NULL;
        value = skip_ws(p + 1);
        if ((p = scan_value(value, 2)) == NULL)
            return NULL;
        for (size_t j = 0; j < nkeys && !o.truncated && !o.has_nul; j++) {
            if (strcmp(key, keys[j]) == 0 && isnan(out[j])) { /* the first of a repeated key */
                if (read_number_at(value, &out[j]) == NULL)
                    out[j] = NAN;
                break;
            }
        }
        p = skip_ws(p);
        if (*p == '}')
            return p + 1;
        if (*p != ',')
            return NULL;
        p = skip_ws(p + 1);
    }
}

struct rows {
    size_t width;
    const char *const *keys; /* NULL: rows are arrays */
    double *out;
};

static const char *row_item(const char *p, size_t n, void *ctx)
{
    struct rows *r = ctx;
    double *row = r->out + n * r->width;

    return r->keys ? read_object_row(p, r->keys, r->width, row) : read_row(p, r->width, row);
}

/* The rows of the array at path, each read by read_row() or read_object_row(). */
static long read_rows(const char *text, const char *path, size_t width, const char *const keys[],
                      double *out, size_t max_rows)
{
    struct rows r = {width, keys, out};

    if (width == 0)
        return -1;
    return each_item(text, path, max_rows, row_item, &r);
}

long json_read_number_rows(const char *text, const char *path, size_t width, double *out,
                           size_t max_rows)
{
    return read_rows(text, path, width, NULL, out, max_rows);
}

long json_read_table(const char *text, const char *path, const char *const keys[], size_t nkeys,
                     double *out, size_t max_rows)
{
    return read_rows(text, path, nkeys, keys, out, max_rows);
}

int json_read_members_begin(struct json_members *it, const char *text, const char *path)
{
    const char *p = find_value(text, path);

    it->text = text;
    it->next = NULL;
    if (p == NULL || *p != '{')
        return -1;
    p = skip_ws(p + 1);
    it->next = *p == '}' ? NULL : p;
    return 0;
}

int json_read_members_next(struct json_members *it, char *key, size_t len, size_t *value_off,
                           size_t *value_len)
{
    struct str_sink o = {.buf = key, .len = len};
    const char *p = it->next, *value, *end;

    key[0] = '\0';
    it->next = NULL;
    /* The text was checked whole by json_read_members_begin(), but a scan still stops at anything
     * unexpected rather than trust that. */
    if (p == NULL || (p = scan_string(p, &o)) == NULL)
        return -1;
    p = skip_ws(p);
    if (*p != ':')
        return -1;
    value = skip_ws(p + 1);
    if ((end = scan_value(value, 1)) == NULL)
        return -1;
    p = skip_ws(end);
    if (*p == ',')
        it->next = skip_ws(p + 1);
    else if (*p != '}')
        return -1;
    *value_off = (size_t)(value - it->text);
    *value_len = (size_t)(end - value);
    if (o.has_nul) {
        key[0] = '\0';
        return 0;
    }
    if (o.truncated)
        sink_trim_utf8(&o);
    key[o.used] = '\0';
    return o.truncated ? 0 : 1;
}
