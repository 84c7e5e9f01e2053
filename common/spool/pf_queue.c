/*
 * pf_queue - Postfix queue IDs and queue directory names; see pf_queue.h.
 */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pf_queue.h"

/* Postfix's safe_ultostr() alphabet: digits and consonants, so IDs spell no words. */
static const char safe_chars[] = "0123456789BCDFGHJKLMNPQRSTVWXYZbcdfghjklmnpqrstvwxyz";

/* `value' in `base', at least `pad' digits (zero-padded); the length written. */
static size_t encode(char *out, unsigned long value, unsigned base, size_t pad)
{
    char rev[64];
    size_t n = 0;

    do {
        rev[n++] = safe_chars[value % base];
        value /= base;
    } while (value);
    while (n < pad)
        rev[n++] = safe_chars[0];
    for (size_t i = 0; i < n; i++)
        out[i] = rev[n - 1 - i];
    return n;
}

static int decode(const char *in, size_t n, unsigned base, unsigned long *value)
{
    unsigned long v = 0;

    for (size_t i = 0; i < n; i++) {
        const char *p = strchr(safe_chars, in[i]);

        if (in[i] == 0 || p == NULL || (unsigned)(p - safe_chars) >= base)
            return -1;
        v = v * base + (unsigned long)(p - safe_chars);
    }
    *value = v;
    return 0;
}

void pf_queue_id_short(char *out, size_t len, unsigned long usec, unsigned long inode)
{
    snprintf(out, len, "%05lX%lX", usec, inode);
}

void pf_queue_id_long(char *out, size_t len, unsigned long sec, unsigned long usec,
                      unsigned long inode)
{
    char buf[96];
    size_t n = 0;

    n += encode(buf + n, sec, 52, 6);
    n += encode(buf + n, usec, 52, 4);
    buf[n++] = 'z';
    n += encode(buf + n, inode, 51, 1);
    buf[n] = 0;
    snprintf(out, len, "%s", buf);
}

int pf_queue_id_ok(const char *id)
{
    size_t n = strlen(id);

    if (n == 0 || n >= PF_QUEUE_ID_MAX)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)id[i]) && id[i] != '_')
            return 0;
    return 1;
}

int pf_queue_hash(const char *id, int depth, char *out, size_t len)
{
    char hex[16];
    /* 'z' is a digit of the seconds and microseconds (base 52), never of the inode (base 51) */
    const char *z = strrchr(id, 'z');
    size_t n = 0;

    if (!pf_queue_id_ok(id) || depth < 0 || len < (size_t)depth * 2 + 1)
        return -1;
    if (z != NULL) {
        /* Long ID: the 4 characters before 'z' are the microseconds in base 52. */
        unsigned long usec;

        if (z - id < 10 || decode(z - 4, 4, 52, &usec) != 0)
            return -1;
        snprintf(hex, sizeof(hex), "%05lX", usec);
    } else {
        if (strlen(id) < 5)
            return -1;
        memcpy(hex, id, 5);
        hex[5] = 0;
    }
    for (int level = 0; level < depth; level++) {
        if (level)
            out[n++] = '/';
        out[n++] = hex[level];
    }
    out[n] = 0;
    return 0;
}

int pf_queue_layout_format(int depth, char *out, size_t len)
{
    int n = snprintf(out, len,
                     "# spoolsim relay: the layout of this spool, checked at every start\n"
                     "hash_depth %d\n"
                     "hash_queues deferred defer\n",
                     depth);

    return n < 0 || (size_t)n >= len ? -1 : 0;
}

int pf_queue_layout_parse(const char *text, size_t len, int *depth, char *err, size_t errlen)
{
    const char *p = text, *end = text + len;
    int lineno = 0, found = 0;

    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *eol = nl ? nl : end;
        char line[128], name[32], value[64], extra[2];
        size_t n = (size_t)(eol - p);

        lineno++;
        if (n >= sizeof(line)) {
            snprintf(err, errlen, "line %d is too long", lineno);
            return -1;
        }
        memcpy(line, p, n);
        line[n] = 0;
        p = nl ? nl + 1 : end;
        if (memchr(line, 0, n) != NULL) {
            snprintf(err, errlen, "line %d holds a NUL byte", lineno);
            return -1;
        }
        line[strcspn(line, "#")] = 0;
        if (sscanf(line, " %31s", name) != 1)
            continue; /* blank or a comment */
        if (strcmp(name, "hash_depth") == 0) {
            char *stop;
            long v;

            if (sscanf(line, " %31s %63s %1s", name, value, extra) != 2) {
                snprintf(err, errlen, "line %d: hash_depth needs one number", lineno);
                return -1;
            }
            v = strtol(value, &stop, 10);
            if (*stop || v < 0 || v > PF_QUEUE_HASH_DEPTH_MAX) {
                snprintf(err, errlen, "line %d: bad hash_depth \"%s\" (0 to %d)", lineno, value,
                         PF_QUEUE_HASH_DEPTH_MAX);
                return -1;
            }
            *depth = (int)v;
            found = 1;
        } else if (strcmp(name, "hash_queues") == 0) {
            /* Only Postfix's default is supported: a spool hashed otherwise is not ours. */
            char q1[16], q2[16];

            if (sscanf(line, " %31s %15s %15s %1s", name, q1, q2, extra) != 3 ||
                strcmp(q1, PF_QUEUE_DEFERRED) != 0 || strcmp(q2, PF_QUEUE_DEFER) != 0) {
                snprintf(err, errlen, "line %d: hash_queues other than \"deferred defer\"", lineno);
                return -1;
            }
        } else {
            snprintf(err, errlen, "line %d: unknown setting \"%s\"", lineno, name);
            return -1;
        }
    }
    if (!found) {
        snprintf(err, errlen, "no hash_depth");
        return -1;
    }
    return 0;
}
