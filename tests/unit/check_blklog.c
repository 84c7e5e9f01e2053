/*
 * Unit tests for spoolsim/crash/blklog.c: the block-write log's encoders
 * and parser (a log cut short, a log that lies about its records).
 */
#include "config.h"

#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "blklog.h"
#include "check_blklog_expect.h"
#include "check_main.h"

struct buf {
    unsigned char b[4096];
    size_t n;
};

static void put_header(struct buf *b, uint64_t image_size)
{
    blklog_header_encode(b->b, image_size);
    b->n = BLKLOG_HEADER_LEN;
}

static void put_write(struct buf *b, uint64_t t, uint64_t off, const char *data)
{
    size_t len = strlen(data);

    blklog_head_encode(b->b + b->n, BLKLOG_WRITE, t, off, len);
    memcpy(b->b + b->n + BLKLOG_HEAD_LEN, data, len);
    b->n += BLKLOG_HEAD_LEN + len;
}

static void put_flush(struct buf *b, uint64_t t)
{
    blklog_head_encode(b->b + b->n, BLKLOG_FLUSH, t, 0, 0);
    b->n += BLKLOG_HEAD_LEN;
}

START_TEST(test_round_trip)
{
    struct buf b;
    struct blklog l;
    char err[128];

    put_header(&b, 1 << 20);
    put_write(&b, 10, 4096, "abc");
    put_flush(&b, 11);
    put_write(&b, 12, 0, "hello");
    blklog_init(&l);
    ck_assert_int_eq(blklog_parse(b.b, b.n, &l, err, sizeof(err)), 0);
    ck_assert_uint_eq(l.image_size, 1 << 20);
    check_blklog_records(&l, 3, 0);
    ck_assert_uint_eq(l.writes, 2);
    ck_assert_uint_eq(l.flushes, 1);
    ck_assert_uint_eq(l.bytes, 8);
    ck_assert_int_eq(l.v[0].type, BLKLOG_WRITE);
    ck_assert_uint_eq(l.v[0].offset, 4096);
    ck_assert_uint_eq(l.v[0].length, 3);
    ck_assert_int_eq(memcmp(b.b + l.v[0].data, "abc", 3), 0);
    ck_assert_int_eq(l.v[1].type, BLKLOG_FLUSH);
    ck_assert_uint_eq(l.v[1].t_ns, 11);
    ck_assert_int_eq(memcmp(b.b + l.v[2].data, "hello", 5), 0);
    blklog_free(&l);
}
END_TEST

/* Little-endian on every host: the bytes are fixed, not the machine's. */
START_TEST(test_byte_order)
{
    unsigned char h[BLKLOG_HEAD_LEN];

    blklog_head_encode(h, BLKLOG_WRITE, 0x0102030405060708ULL, 0x10, 0x200);
    ck_assert_uint_eq(h[0], 1);
    ck_assert_uint_eq(h[8], 0x08);
    ck_assert_uint_eq(h[15], 0x01);
    ck_assert_uint_eq(h[16], 0x10);
    ck_assert_uint_eq(h[24], 0x00);
    ck_assert_uint_eq(h[25], 0x02);
}
END_TEST

/* A recorder that died mid-record: the whole records before it count. */
START_TEST(test_cut_short)
{
    struct buf b;
    struct blklog l;
    char err[128];
    size_t whole;

    put_header(&b, 1 << 20);
    put_write(&b, 1, 0, "abcdef");
    put_flush(&b, 2);
    whole = b.n;
    put_write(&b, 3, 512, "0123456789");
    for (size_t cut = whole + 1; cut < b.n; cut += 7) {
        blklog_init(&l);
        ck_assert_int_eq(blklog_parse(b.b, cut, &l, err, sizeof(err)), 0);
        check_blklog_records(&l, 2, 1);
        blklog_free(&l);
    }
}
END_TEST

START_TEST(test_refused)
{
    struct buf b;

    put_header(&b, 1 << 20);
    b.b[0] = 'X';
    check_blklog_refused(blklog_parse, b.b, b.n, "magic");

    put_header(&b, 1 << 20);
    b.b[8] = 9;
    check_blklog_refused(blklog_parse, b.b, b.n, "version");

    put_header(&b, 4096);
    put_write(&b, 1, 4094, "abc"); /* past the end */
    check_blklog_refused(blklog_parse, b.b, b.n, "outside the image");

    put_header(&b, 4096);
    put_write(&b, 1, UINT64_MAX - 1, "abc"); /* offset + length wraps */
    check_blklog_refused(blklog_parse, b.b, b.n, "outside the image");

    put_header(&b, 4096);
    blklog_head_encode(b.b + b.n, BLKLOG_WRITE, 1, 0, 0); /* a write of nothing */
    b.n += BLKLOG_HEAD_LEN;
    check_blklog_refused(blklog_parse, b.b, b.n, "outside the image");

    put_header(&b, 4096);
    blklog_head_encode(b.b + b.n, BLKLOG_FLUSH, 1, 0, 5);
    b.n += BLKLOG_HEAD_LEN;
    check_blklog_refused(blklog_parse, b.b, b.n, "flush with");

    put_header(&b, 4096);
    blklog_head_encode(b.b + b.n, 7, 1, 0, 0);
    b.n += BLKLOG_HEAD_LEN;
    check_blklog_refused(blklog_parse, b.b, b.n, "unknown type 7");

    put_header(&b, 4096);
    put_flush(&b, 5);
    put_flush(&b, 4);
    check_blklog_refused(blklog_parse, b.b, b.n, "backwards");
}
END_TEST

int main(void)
{
    const TTest *const tests[] = {test_round_trip, test_byte_order, test_cut_short, test_refused,
                                  NULL};

    return check_run_tests("blklog", tests);
}
