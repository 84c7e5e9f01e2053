/*
 * utf8 - well-formed UTF-8, one character at a time; see utf8.h.
 */
#include "config.h"

#include "utf8.h"

size_t utf8_char_len(const unsigned char *p)
{
    unsigned char c = p[0];

    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf)
        return (p[1] & 0xc0) == 0x80 ? 2 : 0;
    if (c >= 0xe0 && c <= 0xef) {
        /* the second byte's bounds: not overlong after E0, not a surrogate after ED */
        unsigned char lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf;

        return p[1] >= lo && p[1] <= hi && (p[2] & 0xc0) == 0x80 ? 3 : 0;
    }
    if (c >= 0xf0 && c <= 0xf4) {
        /* not overlong after F0, not past U+10FFFF after F4 */
        unsigned char lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;

        return p[1] >= lo && p[1] <= hi && (p[2] & 0xc0) == 0x80 && (p[3] & 0xc0) == 0x80 ? 4 : 0;
    }
    return 0; /* a continuation byte first, C0/C1 (overlong), or F5 and above */
}
