/*
 * Unit tests for spoolsim/crash/dmlog.c: dm-log-writes' log, built here
 * byte by byte as the kernel lays it out, read into blklog's records
 * (flushes, FUA, discards, marks and their times; a log cut short; logs
 * that lie), the crash points such a log gives, and a log the kernel wrote.
 */
#include "config.h"

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blklog.h"
#include "check_blklog_expect.h"
#include "check_main.h"
#include "crash_plan.h"
#include "dmlog.h"
#include "fileutil.h"

#define SS 512u
#define IMAGE (1u << 20)

struct buf {
    unsigned char b[64 * SS];
    size_t n;
    uint64_t entries;
};

static void le(unsigned char *p, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

/* The super, rewritten with the entry count at every entry, as after a clean
 * removal. */
static void super(struct buf *b)
{
    le(b->b, 0x6a736677736872ULL, 8);
    le(b->b + 8, 1, 8);
    le(b->b + 16, b->entries, 8);
    le(b->b + 24, SS, 4);
}

static void start(struct buf *b)
{
    memset(b, 0, sizeof(*b));
    b->n = SS;
    super(b);
}

/* An entry; `fill' is the byte its data sectors hold. */
static void entry(struct buf *b, uint64_t sector, uint64_t nr, uint64_t flags, int fill)
{
    unsigned char *e = b->b + b->n;

    le(e, sector, 8);
    le(e + 8, nr, 8);
    le(e + 16, flags, 8);
    b->n += SS;
    if (!(flags & 4)) {
        memset(b->b + b->n, fill, nr * SS);
        b->n += nr * SS;
    }
    b->entries++;
    super(b);
}

static void mark(struct buf *b, const char *name)
{
    unsigned char *e = b->b + b->n;

    le(e + 16, 8, 8);
    le(e + 24, strlen(name), 8);
    memcpy(e + 32, name, strlen(name));
    b->n += SS;
    b->entries++;
    super(b);
}

static void stamp(struct buf *b, uint64_t t)
{
    char name[64];

    dmlog_mark_name(name, sizeof(name), t);
    mark(b, name);
}

static int parse(const struct buf *b, size_t len, struct blklog *l, struct dmlog_info *info,
                 char *err)
{
    blklog_init(l);
    return dmlog_parse(b->b, len, IMAGE, 7, l, info, err, 128);
}

/* dmlog_parse() called as blklog_parse() is, for check_blklog_refused(). */
static int parse_as_blklog(const unsigned char *b, size_t len, struct blklog *l, char *err,
                           size_t errlen)
{
    struct dmlog_info info;

    return dmlog_parse(b, len, IMAGE, 7, l, &info, err, errlen);
}

START_TEST(test_records)
{
    struct buf b;
    struct blklog l;
    struct dmlog_info info;
    char err[128] = "";

    start(&b);
    entry(&b, 2, 1, 0, 'a'); /* before any stamp: t_start */
    stamp(&b, 100);
    entry(&b, 8, 2, 16, 'b'); /* METADATA is a hint */
    entry(&b, 0, 0, 1, 0);    /* an empty flush */
    stamp(&b, 250);
    mark(&b, "someone-else");    /* no time */
    entry(&b, 4, 1, 1 | 2, 'c'); /* preflush, then a FUA write */
    entry(&b, 16, 4, 4, 0);      /* a discard: no data */
    entry(&b, 6, 1, 2, 'd');     /* FUA alone */
    entry(&b, 10, 1, 0, 'e');    /* spliced at the removal, never flushed */
    mark(&b, "dm-log-writes-end");
    ck_assert_int_eq(parse(&b, b.n, &l, &info, err), 0);
    ck_assert_msg(err[0] == '\0', "%s", err);
    ck_assert_int_eq(l.mark_times, 1);
    ck_assert_int_eq(l.truncated, 0);
    ck_assert_uint_eq(l.image_size, IMAGE);
    ck_assert_uint_eq(info.sectorsize, SS);
    ck_assert_uint_eq(info.entries, 11);
    ck_assert_uint_eq(info.marks, 4);
    ck_assert_uint_eq(info.stamps, 2);
    ck_assert_uint_eq(info.discards, 1);
    ck_assert_int_eq(info.ended, 1);
    /* W F | F W F | W F | W */
    ck_assert_uint_eq(l.n, 9);
    ck_assert_uint_eq(l.writes, 5);
    ck_assert_uint_eq(l.flushes, 4);
    ck_assert_uint_eq(l.bytes, 6 * SS);
    const struct {
        enum blklog_type type;
        uint64_t t, offset, length;
        int fill;
    } want[] = {
        {BLKLOG_WRITE, 7, 2 * SS, SS, 'a'},    {BLKLOG_WRITE, 100, 8 * SS, 2 * SS, 'b'},
        {BLKLOG_FLUSH, 100, 0, 0, 0},          {BLKLOG_FLUSH, 250, 0, 0, 0},
        {BLKLOG_WRITE, 250, 4 * SS, SS, 'c'},  {BLKLOG_FLUSH, 250, 0, 0, 0},
        {BLKLOG_WRITE, 250, 6 * SS, SS, 'd'},  {BLKLOG_FLUSH, 250, 0, 0, 0},
        {BLKLOG_WRITE, 250, 10 * SS, SS, 'e'},
    };
    for (size_t i = 0; i < l.n; i++) {
        ck_assert_int_eq(l.v[i].type, want[i].type);
        ck_assert_uint_eq(l.v[i].t_ns, want[i].t);
        ck_assert_uint_eq(l.v[i].offset, want[i].offset);
        ck_assert_uint_eq(l.v[i].length, want[i].length);
        if (want[i].type == BLKLOG_WRITE) {
            ck_assert_uint_eq(b.b[l.v[i].data], want[i].fill);
            ck_assert_uint_eq(b.b[l.v[i].data + l.v[i].length - 1], want[i].fill);
        }
    }
    blklog_free(&l);
}
END_TEST

/* A log whose bytes end early, or whose super counts fewer entries than it
 * holds. */
START_TEST(test_short)
{
    struct buf b;
    struct blklog l;
    struct dmlog_info info;
    char err[128] = "";
    size_t whole;

    start(&b);
    stamp(&b, 10);
    entry(&b, 0, 1, 0, 'x');
    entry(&b, 0, 0, 1, 0);
    whole = b.n;
    entry(&b, 4, 3, 0, 'y');
    for (size_t cut = whole; cut < b.n; cut += 100) {
        ck_assert_int_eq(parse(&b, cut, &l, &info, err), 0);
        check_blklog_records(&l, 2, 1);
        ck_assert_int_eq(info.ended, 0);
        blklog_free(&l);
    }
    /* the super rewritten before the last entry: what it counts is read, no more
     */
    le(b.b + 16, 3, 8);
    ck_assert_int_eq(parse(&b, b.n, &l, &info, err), 0);
    check_blklog_records(&l, 2, 0);
    ck_assert_int_eq(info.ended, 0);
    blklog_free(&l);
}
END_TEST

START_TEST(test_refused)
{
    struct buf b;
    char name[SS];

    start(&b);
    b.b[0] = 'X';
    check_blklog_refused(parse_as_blklog, b.b, b.n, "magic");

    start(&b);
    le(b.b + 8, 2, 8);
    check_blklog_refused(parse_as_blklog, b.b, b.n, "version 2");

    start(&b);
    le(b.b + 24, 1000, 4);
    check_blklog_refused(parse_as_blklog, b.b, b.n, "sector size of 1000");

    start(&b);
    entry(&b, 0, 1, 64, 'z');
    check_blklog_refused(parse_as_blklog, b.b, b.n, "unknown flags");

    start(&b);
    entry(&b, IMAGE / SS - 1, 2, 0, 'z'); /* past the end */
    check_blklog_refused(parse_as_blklog, b.b, b.n, "outside the image");

    start(&b);
    entry(&b, UINT64_MAX - 1, 1, 4, 0); /* sector + count wraps */
    check_blklog_refused(parse_as_blklog, b.b, b.n, "outside the image");

    start(&b);
    entry(&b, 0, 0, 2, 0); /* no sectors, no flush */
    check_blklog_refused(parse_as_blklog, b.b, b.n, "no sectors");

    start(&b);
    stamp(&b, 50);
    stamp(&b, 40);
    check_blklog_refused(parse_as_blklog, b.b, b.n, "backwards");

    start(&b);
    memset(name, 'm', sizeof(name) - 1);
    name[sizeof(name) - 1] = '\0';
    mark(&b, name + 32); /* fills the sector: longer than the kernel writes */
    le(b.b + SS + 24, SS, 8);
    check_blklog_refused(parse_as_blklog, b.b, b.n, "a mark of");
}
END_TEST

/* Only "spoolsim-t" and digits stamp a time; anything else is a plain mark. */
START_TEST(test_stamps)
{
    const char *plain[] = {"spoolsim-t", "spoolsim-t12x", "spoolsim-t99999999999999999999",
                           "Spoolsim-t5", "spoolsim-5"};
    char name[64];

    dmlog_mark_name(name, sizeof(name), 1234567890123ULL);
    ck_assert_str_eq(name, "spoolsim-t1234567890123");
    for (size_t k = 0; k < sizeof(plain) / sizeof(plain[0]); k++) {
        struct buf b;
        struct blklog l;
        struct dmlog_info info;
        char err[128] = "";

        start(&b);
        mark(&b, plain[k]);
        entry(&b, 0, 1, 0, 'q');
        ck_assert_int_eq(parse(&b, b.n, &l, &info, err), 0);
        ck_assert_uint_eq(info.stamps, 0);
        ck_assert_uint_eq(l.v[0].t_ns, 7);
        blklog_free(&l);
    }
}
END_TEST

/* Where point p's time must lie in a log timed by its marks (crash_plan.h). */
static void assert_timed(const struct blklog *l, const struct crash_point *pt, uint64_t end_ns)
{
    uint64_t from = l->v[pt->end - 1].t_logged_ns;
    uint64_t to = pt->end < l->n ? l->v[pt->end].t_ns : end_ns;

    if (from >= to)
        ck_assert_uint_eq(pt->t_ns, to);
    else
        ck_assert_msg(pt->t_ns >= from && pt->t_ns <= to,
                      "cut after record %zu at %llu, not in [%llu, %llu]", pt->end - 1,
                      (unsigned long long)pt->t_ns, (unsigned long long)from,
                      (unsigned long long)to);
}

/*
 * The points of a log timed by its marks: each lies between the mark after
 * the record it cuts after and the mark before the next record, or at the
 * latter when no mark came between them; and a record's t_logged_ns is the
 * first stamp after it.
 */
START_TEST(test_plan)
{
    struct buf b;
    struct blklog l;
    struct dmlog_info info;
    struct crash_plan p;
    char err[128] = "";

    start(&b);
    for (unsigned k = 1; k <= 6; k++) {
        stamp(&b, 1000 * k);
        entry(&b, 2 * k, 1, 0, 'w');
        entry(&b, 2 * k + 1, 1, 0, 'w');
        if (k % 2 == 0)
            entry(&b, 0, 0, 1, 0);
    }
    ck_assert_int_eq(parse(&b, b.n, &l, &info, err), 0);
    for (size_t i = 0; i < l.n; i++)
        ck_assert_uint_eq(l.v[i].t_logged_ns, l.v[i].t_ns < 6000 ? l.v[i].t_ns + 1000 : UINT64_MAX);
    crash_plan_make(&l, 40, 3, 9000, &p);
    ck_assert_uint_eq(p.flush_points, 3);
    for (size_t i = 0; i < p.n; i++)
        assert_timed(&l, &p.v[i], 9000);
    crash_plan_free(&p);
    blklog_free(&l);
}
END_TEST

/*
 * What --sync none showed in the lab (docs/lab.md): the mount's records,
 * then a load that ran in the page cache, 20 messages acknowledged from
 * 1100 to 1290 and delivered from 3000 on, with marks every 200 and no
 * record, then the unmount's records after the last mark, 5000. A power
 * cut in the load loses every message acknowledged and not yet delivered:
 * points after the mount's flush must come in that stretch too, not only
 * at the unmount's mark, by which the sink had them all.
 */
START_TEST(test_plan_quiet_load)
{
    struct buf b;
    struct blklog l;
    struct dmlog_info info;
    char err[128] = "";
    size_t mounted = SIZE_MAX, in_load = 0, at_end = 0;

    start(&b);
    stamp(&b, 1000);
    entry(&b, 2, 1, 0, 'm');
    entry(&b, 0, 0, 1, 0);
    entry(&b, 3, 1, 2, 'm'); /* the mount's journal commit, FUA */
    for (uint64_t t = 1200; t <= 4800; t += 200)
        stamp(&b, t);
    stamp(&b, 5000);
    entry(&b, 8, 2, 0, 'u');
    entry(&b, 0, 0, 1, 0);
    entry(&b, 3, 1, 2, 'u');
    mark(&b, "dm-log-writes-end");
    ck_assert_int_eq(parse(&b, b.n, &l, &info, err), 0);
    for (size_t i = 0; i < l.n; i++)
        if (l.v[i].t_ns == 1000 && l.v[i].type == BLKLOG_FLUSH)
            mounted = i; /* the flush after the FUA write */
    ck_assert_uint_eq(mounted, 3);
    ck_assert_uint_eq(l.v[mounted].t_logged_ns, 1200);
    ck_assert_uint_eq(l.v[mounted + 1].t_ns, 5000);
    for (uint64_t seed = 1; seed <= 10; seed++) {
        struct crash_plan p;

        crash_plan_make(&l, 12, seed, 5000, &p);
        for (size_t i = 0; i < p.n; i++) {
            const struct crash_point *pt = &p.v[i];

            assert_timed(&l, pt, 5000);
            if (pt->end == mounted + 1) {
                in_load += pt->t_ns > 1290 && pt->t_ns < 3000;
                at_end += pt->t_ns == 5000;
            }
        }
        crash_plan_free(&p);
    }
    ck_assert_msg(in_load >= 3, "%zu cuts after the mount in the load, %zu at its end", in_load,
                  at_end);
    blklog_free(&l);
}
END_TEST

/*
 * A log the kernel wrote (Debian's 6.1 in the lab, docs/lab.md): ext2 on a
 * 4 MiB image of 1 KiB blocks behind log-writes, a mark spoolsim-t1000, a
 * file written and fsynced, a mark spoolsim-t2000, the unmount, the
 * device removed (tests/unit/dmlog-ext2.bin).
 */
START_TEST(test_kernel_log)
{
    const char *top = getenv("top_srcdir");
    const char *text = "spoolsim dmlog fixture\n";
    char path[4096], err[128] = "";
    unsigned char *buf;
    size_t len, w = SIZE_MAX;
    struct blklog l;
    struct dmlog_info info;
    int flushed = 0;

    snprintf(path, sizeof(path), "%s/tests/unit/dmlog-ext2.bin", top ? top : ".");
    buf = (unsigned char *)fileutil_read_all(path, &len);
    ck_assert_msg(buf != NULL, "cannot read %s", path);
    blklog_init(&l);
    ck_assert_int_eq(dmlog_parse(buf, len, 4u << 20, 1, &l, &info, err, sizeof(err)), 0);
    ck_assert_msg(err[0] == '\0', "%s", err);
    ck_assert_int_eq(info.ended, 1);
    ck_assert_int_eq(l.truncated, 0);
    ck_assert_uint_eq(info.sectorsize, 512);
    ck_assert_uint_eq(info.stamps, 2);
    for (size_t i = 0; i < l.n && w == SIZE_MAX; i++)
        if (l.v[i].type == BLKLOG_WRITE &&
            memmem(buf + l.v[i].data, l.v[i].length, text, strlen(text)) != NULL)
            w = i;
    ck_assert_msg(w != SIZE_MAX, "the file's bytes are in no write");
    ck_assert_uint_eq(l.v[w].t_ns, 1000); /* logged at the fsync's flush, before the second mark */
    for (size_t i = w + 1; i < l.n; i++)
        flushed |= l.v[i].type == BLKLOG_FLUSH && l.v[i].t_ns == 1000;
    ck_assert_msg(flushed, "no flush after the file's write before the second mark");
    ck_assert_uint_eq(l.v[l.n - 1].t_ns, 2000); /* the unmount's */
    blklog_free(&l);
    free(buf);
}
END_TEST

int main(void)
{
    const TTest *const tests[] = {test_records, test_short,           test_refused,    test_stamps,
                                  test_plan,    test_plan_quiet_load, test_kernel_log, NULL};

    return check_run_tests("dmlog", tests);
}
