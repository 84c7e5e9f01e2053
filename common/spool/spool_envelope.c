/*
 * spool_envelope - a table profile's envelope bytes; see spool_envelope.h.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "spool_envelope.h"

/* "T<id>:<n>:" into head (64 bytes); its length. */
static size_t head_of(char *head, uint64_t id, size_t n)
{
    return (size_t)snprintf(head, 64, "T%llu:%zu:", (unsigned long long)id, n);
}

size_t spool_envelope_min(uint64_t id)
{
    char head[64];

    /* the head with a 5-digit n, and the newline: every table's sizes are below 100000 */
    return head_of(head, id, 99999) + 1;
}

void spool_envelope_fill(char *buf, size_t n, uint64_t id)
{
    char head[64];
    size_t h = head_of(head, id, n);

    if (n == 0)
        return;
    if (h + 1 > n) {
        memset(buf, '-', n);
        return;
    }
    memcpy(buf, head, h);
    memset(buf + h, '-', n - h - 1);
    buf[n - 1] = '\n';
}

/* The decimal number at *p, up to the delimiter c; -1 if none or malformed. */
static int number(const char **p, const char *end, char c, unsigned long long *out)
{
    const char *s = *p;
    unsigned long long v = 0;

    if (s >= end || *s < '0' || *s > '9')
        return -1;
    while (s < end && *s >= '0' && *s <= '9') {
        if (v > (~0ULL - 9) / 10)
            return -1;
        v = v * 10 + (unsigned long long)(*s++ - '0');
    }
    if (s >= end || *s != c)
        return -1;
    *p = s + 1;
    *out = v;
    return 0;
}

int spool_envelope_read(const char *buf, size_t len, uint64_t id, struct spool_envelope_view *v)
{
    size_t at = 0;

    memset(v, 0, sizeof(*v));
    while (at < len) {
        const char *p = buf + at, *end = buf + len;
        unsigned long long got_id, n;

        if (*p != 'T' && *p != 'D')
            return 0;
        if (v->chunks == 0)
            v->first_done = *p == 'D';
        p++;
        if (number(&p, end, ':', &got_id) != 0 || got_id != id || number(&p, end, ':', &n) != 0)
            return 0;
        if (n > len - at || (size_t)(p - (buf + at)) + 1 > n || buf[at + n - 1] != '\n')
            return 0;
        for (const char *f = p; f < buf + at + n - 1; f++)
            if (*f != '-')
                return 0;
        at += n;
        v->chunks++;
    }
    return v->chunks > 0;
}
