/*
 * blklog - the recorder's log format; see blklog.h.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blklog.h"
#include "xgrow.h"

static void put32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static void put64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

uint32_t blklog_le32(const unsigned char *p)
{
    uint32_t v = 0;

    for (int i = 3; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

uint64_t blklog_le64(const unsigned char *p)
{
    uint64_t v = 0;

    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

void blklog_header_encode(unsigned char out[BLKLOG_HEADER_LEN], uint64_t image_size)
{
    memset(out, 0, BLKLOG_HEADER_LEN);
    memcpy(out, BLKLOG_MAGIC, 8);
    put32(out + 8, BLKLOG_VERSION);
    put32(out + 12, BLKLOG_HEADER_LEN);
    put64(out + 16, image_size);
}

void blklog_head_encode(unsigned char out[BLKLOG_HEAD_LEN], enum blklog_type type, uint64_t t_ns,
                        uint64_t offset, uint64_t length)
{
    memset(out, 0, BLKLOG_HEAD_LEN);
    put32(out, (uint32_t)type);
    put64(out + 8, t_ns);
    put64(out + 16, offset);
    put64(out + 24, length);
}

void blklog_init(struct blklog *l)
{
    memset(l, 0, sizeof(*l));
}

void blklog_free(struct blklog *l)
{
    free(l->v);
    blklog_init(l);
}

void blklog_add(struct blklog *l, const struct blklog_rec *r)
{
    l->v = xgrow(l->v, &l->cap, l->n + 1, 1024, sizeof(*l->v));
    l->v[l->n++] = *r;
    if (r->type == BLKLOG_WRITE) {
        l->writes++;
        l->bytes += r->length;
    } else {
        l->flushes++;
    }
}

int blklog_parse(const unsigned char *buf, size_t len, struct blklog *l, char *err, size_t errlen)
{
    size_t at;
    uint64_t last_t = 0;

    if (len < BLKLOG_HEADER_LEN || memcmp(buf, BLKLOG_MAGIC, 8) != 0) {
        snprintf(err, errlen, "not a block-write log (bad magic)");
        return -1;
    }
    if (blklog_le32(buf + 8) != BLKLOG_VERSION || blklog_le32(buf + 12) != BLKLOG_HEADER_LEN) {
        snprintf(err, errlen, "block-write log version %u, header %u: this reads version %u",
                 blklog_le32(buf + 8), blklog_le32(buf + 12), BLKLOG_VERSION);
        return -1;
    }
    l->image_size = blklog_le64(buf + 16);
    for (at = BLKLOG_HEADER_LEN; at < len;) {
        struct blklog_rec r;
        uint32_t type;

        if (len - at < BLKLOG_HEAD_LEN) {
            l->truncated = 1;
            break;
        }
        type = blklog_le32(buf + at);
        r.t_ns = r.t_logged_ns = blklog_le64(buf + at + 8);
        r.offset = blklog_le64(buf + at + 16);
        r.length = blklog_le64(buf + at + 24);
        r.data = at + BLKLOG_HEAD_LEN;
        if (type == BLKLOG_WRITE) {
            r.type = BLKLOG_WRITE;
            if (r.length == 0 || r.offset > l->image_size || r.length > l->image_size - r.offset) {
                snprintf(err, errlen,
                         "record at %zu: a write of %llu bytes at %llu, outside the "
                         "image (%llu bytes)",
                         at, (unsigned long long)r.length, (unsigned long long)r.offset,
                         (unsigned long long)l->image_size);
                return -1;
            }
        } else if (type == BLKLOG_FLUSH) {
            r.type = BLKLOG_FLUSH;
            if (r.length != 0 || r.offset != 0) {
                snprintf(err, errlen, "record at %zu: a flush with an offset or a length", at);
                return -1;
            }
        } else {
            snprintf(err, errlen, "record at %zu: unknown type %u", at, type);
            return -1;
        }
        if (r.t_ns < last_t) {
            snprintf(err, errlen, "record at %zu: its time goes backwards", at);
            return -1;
        }
        if (r.length > len - r.data) {
            l->truncated = 1;
            break;
        }
        last_t = r.t_ns;
        blklog_add(l, &r);
        at = r.data + (size_t)r.length;
    }
    return 0;
}
