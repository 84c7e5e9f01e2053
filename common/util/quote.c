/*
 * quote - text from the user made safe to print; see quote.h.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "quote.h"
#include "utf8.h"

/* Appends the n bytes of s to out at *pos, if all fit (room for the NUL kept): 1 if they did. */
static int put(char *out, size_t outlen, size_t *pos, const char *s, size_t n)
{
    if (*pos + n + 1 > outlen)
        return 0;
    memcpy(out + *pos, s, n);
    *pos += n;
    return 1;
}

char *quote_text(const char *in, size_t max_run, int flags, char *out, size_t outlen)
{
    const unsigned char *p = (const unsigned char *)in;
    size_t pos = 0, run = 0, len;
    char esc[20];
    int cut = 0;

    while (*p) {
        len = utf8_char_len(p);
        if (*p == ' ' || ((flags & QUOTE_KEEP_LINES) && (*p == '\n' || *p == '\t'))) {
            run = 0;
            cut = 0;
        } else if (cut) {
            p += len ? len : 1; /* the rest of a run already cut */
            continue;
        } else if (max_run && run == max_run) {
            if (!put(out, outlen, &pos, "...", 3))
                break;
            cut = 1;
            continue;
        } else {
            run++;
        }
        if ((flags & QUOTE_KEEP_LINES) && (*p == '\n' || *p == '\t')) {
            if (!put(out, outlen, &pos, (const char *)p, 1))
                break;
            p++;
            continue;
        }
        if (len == 0 || *p < 0x20 || *p == 0x7f || (len == 2 && p[0] == 0xc2 && p[1] < 0xa0)) {
            /* a control (C0, DEL, C1) or a byte that starts no character: each byte escaped */
            size_t n = len ? len : 1, k = 0;

            for (size_t i = 0; i < n; i++)
                k += (size_t)snprintf(esc + k, sizeof(esc) - k, "\\x%02x", p[i]);
            if (!put(out, outlen, &pos, esc, k))
                break;
            p += n;
            continue;
        }
        if (!put(out, outlen, &pos, (const char *)p, len))
            break;
        p += len;
    }
    out[pos] = 0;
    return out;
}
