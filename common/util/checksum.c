/*
 * checksum - a 64-bit FNV-1a content checksum; see checksum.h.
 */
#include "config.h"

#include <string.h>

#include "checksum.h"

uint64_t checksum_update(uint64_t sum, const void *data, size_t len)
{
    const unsigned char *p = data;
    const unsigned char *end = p + len;

    while (p < end) {
        sum ^= *p++;
        sum *= 0x100000001b3ULL;
    }
    return sum;
}

enum {
    CS_FIRST, /* at the first line: no field left out yet */
    CS_LINE,  /* at a line after a Received: line: a continuation is left out too */
    CS_NAME,  /* reading a line's first bytes: Received:, or not */
    CS_SKIP,  /* in a line left out, up to its LF */
    CS_PASS   /* past the trace fields: everything counts */
};

void checksum_content_init(struct content_sum *cs)
{
    memset(cs, 0, sizeof(*cs));
    cs->sum = CHECKSUM_INIT;
    cs->state = CS_FIRST;
}

static void put(struct content_sum *cs, const char *p, size_t n, content_sum_keep *keep, void *arg)
{
    if (n == 0)
        return;
    cs->size += n;
    cs->sum = checksum_update(cs->sum, p, n);
    if (keep)
        keep(arg, p, n);
}

void checksum_content_update(struct content_sum *cs, const void *data, size_t len,
                             content_sum_keep *keep, void *arg)
{
    const char *p = data, *end = p + len;

    while (p < end) {
        unsigned char c = (unsigned char)*p;
        const char *nl;

        switch (cs->state) {
        case CS_PASS:
            put(cs, p, (size_t)(end - p), keep, arg);
            return;
        case CS_SKIP:
            nl = memchr(p, '\n', (size_t)(end - p));
            if (nl == NULL)
                return;
            p = nl + 1;
            cs->state = CS_LINE;
            break;
        case CS_LINE:
            if (c == ' ' || c == '\t') { /* folded: the rest of the field left out */
                cs->state = CS_SKIP;
                break;
            }
            /* fall through */
        case CS_FIRST:
            cs->state = CS_NAME;
            cs->held = 0;
            /* fall through */
        case CS_NAME:
            if ((c >= 'A' && c <= 'Z' ? c + 'a' - 'A' : c) !=
                (unsigned char)CONTENT_SUM_NAME[cs->held]) {
                /* not a trace field: what was held and all that follows counts */
                put(cs, cs->hold, cs->held, keep, arg);
                cs->held = 0;
                cs->state = CS_PASS;
                break;
            }
            cs->hold[cs->held++] = (char)c;
            p++;
            if (cs->held == sizeof(cs->hold)) {
                cs->held = 0;
                cs->state = CS_SKIP;
            }
            break;
        }
    }
}

void checksum_content_end(struct content_sum *cs, content_sum_keep *keep, void *arg)
{
    if (cs->state == CS_NAME)
        put(cs, cs->hold, cs->held, keep, arg);
    cs->held = 0;
    cs->state = CS_PASS;
}
