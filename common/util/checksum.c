/*
 * checksum - a 64-bit FNV-1a content checksum; see checksum.h.
 */
#include "config.h"

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
