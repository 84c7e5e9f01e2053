/*
 * msglog - read and compare per-message logs; see msglog.h.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "msglog.h"
#include "xgrow.h"

/* Decimal digits only: strtoull() would also take "+1", " 1" and "-1". */
static int parse_dec(const char *v, size_t len, uint64_t *out)
{
    uint64_t n = 0;

    if (len == 0)
        return -1;
    for (size_t i = 0; i < len; i++) {
        unsigned d = (unsigned)(v[i] - '0');

        if (v[i] < '0' || v[i] > '9' || n > (UINT64_MAX - d) / 10)
            return -1;
        n = n * 10 + d;
    }
    *out = n;
    return 0;
}

static int parse_hex(const char *v, size_t len, uint64_t *out)
{
    uint64_t n = 0;

    if (len == 0 || len > 16)
        return -1;
    for (size_t i = 0; i < len; i++) {
        char c = v[i];
        unsigned d;

        if (c >= '0' && c <= '9')
            d = (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f')
            d = (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            d = (unsigned)(c - 'A' + 10);
        else
            return -1;
        n = n << 4 | d;
    }
    *out = n;
    return 0;
}

static int parse_message_id(const char *v, size_t len, char *out, size_t outlen)
{
    if (len == 0 || len >= outlen || (len == 1 && v[0] == '-'))
        return -1;
    for (size_t i = 0; i < len; i++)
        if ((unsigned char)v[i] < 0x20 || v[i] == 0x7f)
            return -1;
    if (v[0] == '<' && v[len - 1] != '>')
        return -1;
    memcpy(out, v, len);
    out[len] = '\0';
    return 0;
}

static int field_is(const char *key, size_t key_len, const char *name)
{
    return key_len == strlen(name) && memcmp(key, name, key_len) == 0;
}

int msglog_parse_line(const char *line, struct msglog_entry *e)
{
    struct msglog_entry tmp;
    int have_size = 0, have_sum = 0, have_id = 0, have_qid = 0, have_mono = 0;
    const char *p = line, *end = line + strlen(line);

    if (end > line && end[-1] == '\n')
        end--;
    if (end > line && end[-1] == '\r')
        end--;
    memset(&tmp, 0, sizeof(tmp));
    while (p < end) {
        const char *tok, *eq;
        size_t key_len, val_len;

        if (*p == ' ' || *p == '\t') {
            p++;
            continue;
        }
        tok = p;
        while (p < end && *p != ' ' && *p != '\t')
            p++;
        eq = memchr(tok, '=', (size_t)(p - tok));
        if (eq == NULL)
            continue;
        key_len = (size_t)(eq - tok);
        val_len = (size_t)(p - eq - 1);
        if (field_is(tok, key_len, "size")) {
            if (have_size++ || parse_dec(eq + 1, val_len, &tmp.size) < 0)
                return -1;
        } else if (field_is(tok, key_len, "sum")) {
            if (have_sum++ || parse_hex(eq + 1, val_len, &tmp.sum) < 0)
                return -1;
        } else if (field_is(tok, key_len, "message-id")) {
            if (have_id++ ||
                parse_message_id(eq + 1, val_len, tmp.message_id, sizeof(tmp.message_id)) < 0)
                return -1;
        } else if (field_is(tok, key_len, "mono_ns")) {
            if (have_mono++ || parse_dec(eq + 1, val_len, &tmp.mono_ns) < 0)
                return -1;
        } else if (field_is(tok, key_len, "id") && !have_qid++) {
            /* Informational only, so a long one is cut rather than refused. */
            size_t n = val_len < sizeof(tmp.queue_id) ? val_len : sizeof(tmp.queue_id) - 1;

            memcpy(tmp.queue_id, eq + 1, n);
            tmp.queue_id[n] = '\0';
        }
    }
    if (!have_size || !have_sum || !have_id)
        return -1;
    *e = tmp;
    return 0;
}

void msglog_set_init(struct msglog_set *s)
{
    memset(s, 0, sizeof(*s));
}

void msglog_set_free(struct msglog_set *s)
{
    free(s->v);
    msglog_set_init(s);
}

void msglog_set_add(struct msglog_set *s, const struct msglog_entry *e)
{
    s->v = xgrow(s->v, &s->cap, s->n + 1, 64, sizeof(*s->v));
    s->v[s->n++] = *e;
}

int msglog_set_load(struct msglog_set *s, const char *path)
{
    FILE *fp = fopen(path, "r");
    struct msglog_entry e;
    char *line = NULL;
    size_t size = 0;
    ssize_t len;
    int saved;

    if (fp == NULL)
        return -1;
    /* getline(), not fgets(): a line of any length is one line, never two. */
    while ((len = getline(&line, &size, fp)) > 0) {
        if (line[len - 1] != '\n' || strlen(line) != (size_t)len || msglog_parse_line(line, &e) < 0)
            s->bad_lines++;
        else
            msglog_set_add(s, &e);
    }
    saved = errno;
    if (ferror(fp)) {
        free(line);
        fclose(fp);
        errno = saved ? saved : EIO;
        return -1;
    }
    free(line);
    fclose(fp);
    return 0;
}

static int entry_cmp(const void *a, const void *b)
{
    const struct msglog_entry *x = a, *y = b;
    int c = strcmp(x->message_id, y->message_id);

    if (c != 0)
        return c;
    if (x->size != y->size)
        return x->size < y->size ? -1 : 1;
    if (x->sum != y->sum)
        return x->sum < y->sum ? -1 : 1;
    return 0;
}

/* The Message-ID alone: msglog_compare_ids(). */
static int id_cmp(const void *a, const void *b)
{
    return strcmp(((const struct msglog_entry *)a)->message_id,
                  ((const struct msglog_entry *)b)->message_id);
}

typedef int (*key_cmp_fn)(const void *, const void *);

static void sort_set(struct msglog_set *s, key_cmp_fn key_cmp)
{
    /* qsort() wants a valid pointer even for no items; an empty set has v == NULL. */
    if (s->n > 1)
        qsort(s->v, s->n, sizeof(*s->v), key_cmp);
}

/* How many entries from v[i] on have the same key as v[i]. */
static size_t run_length(const struct msglog_set *s, size_t i, key_cmp_fn key_cmp)
{
    size_t j = i + 1;

    while (j < s->n && key_cmp(&s->v[i], &s->v[j]) == 0)
        j++;
    return j - i;
}

static void compare_by(struct msglog_set *sent, struct msglog_set *received,
                       struct msglog_compare *out, key_cmp_fn key_cmp)
{
    size_t i = 0, j = 0;

    memset(out, 0, sizeof(*out));
    sort_set(sent, key_cmp);
    sort_set(received, key_cmp);
    out->acked = sent->n;
    /* One merge over both sorted sets, a run of equal keys at a time. */
    while (i < sent->n || j < received->n) {
        int c;
        size_t ns = 0, nr = 0, both;

        if (i == sent->n)
            c = 1;
        else if (j == received->n)
            c = -1;
        else
            c = key_cmp(&sent->v[i], &received->v[j]);
        if (c <= 0)
            ns = run_length(sent, i, key_cmp);
        if (c >= 0)
            nr = run_length(received, j, key_cmp);
        i += ns;
        j += nr;
        both = ns < nr ? ns : nr;
        out->delivered += both;
        out->lost += ns - both;
        if (ns > 0)
            out->duplicated += nr - both;
        else
            out->unexpected += nr;
    }
}

void msglog_compare(struct msglog_set *sent, struct msglog_set *received,
                    struct msglog_compare *out)
{
    compare_by(sent, received, out, entry_cmp);
}

void msglog_compare_ids(struct msglog_set *sent, struct msglog_set *received,
                        struct msglog_compare *out)
{
    compare_by(sent, received, out, id_cmp);
}
