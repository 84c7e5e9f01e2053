/*
 * Unit tests for spoolsim crash's pure modules: crash_plan (which points,
 * what the disk holds), crash_tally (what a point cost), crash_opts (the
 * options --spool carries over, e2fsck's fixes).
 */
#include "config.h"

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blklog.h"
#include "check_main.h"
#include "crash_opts.h"
#include "crash_plan.h"
#include "crash_tally.h"

/* A log of `n' records in memory: F for a flush, W for a write, at times 1000, 2000, ... */
static void fake_log(struct blklog *l, const char *shape)
{
    blklog_init(l);
    l->image_size = 1 << 20;
    l->n = l->cap = strlen(shape);
    l->v = calloc(l->n, sizeof(*l->v));
    for (size_t i = 0; i < l->n; i++) {
        l->v[i].type = shape[i] == 'F' ? BLKLOG_FLUSH : BLKLOG_WRITE;
        l->v[i].t_ns = (i + 1) * 1000;
        l->v[i].length = shape[i] == 'F' ? 0 : 512;
        l->v[i].offset = 512 * i;
        if (shape[i] == 'F')
            l->flushes++;
        else
            l->writes++;
    }
}

START_TEST(test_plan_points)
{
    struct blklog l;
    struct crash_plan p, q;

    fake_log(&l, "WWFWWWFWFWW");
    crash_plan_make(&l, 10, 7, 1000000, &p);
    ck_assert_uint_eq(p.flush_points, 3); /* all three: 3 <= 10 / 2 */
    ck_assert_uint_eq(p.random_points, 7);
    ck_assert_uint_eq(p.n, 10);
    for (size_t i = 0; i < p.n; i++) {
        const struct crash_point *pt = &p.v[i];

        if (i > 0)
            ck_assert(pt->barrier >= p.v[i - 1].barrier);
        ck_assert(pt->barrier <= pt->end);
        /* the cut is while the disk holds what it holds: up to the next record */
        ck_assert(pt->t_ns >= l.v[pt->end - 1].t_ns);
        if (pt->end < l.n)
            ck_assert(pt->t_ns < l.v[pt->end].t_ns || l.v[pt->end].t_ns == l.v[pt->end - 1].t_ns);
        else
            ck_assert(pt->t_ns < 1000000);
        if (pt->is_flush) {
            ck_assert_int_eq(l.v[pt->end - 1].type, BLKLOG_FLUSH);
            ck_assert_uint_eq(pt->barrier, pt->end);
        } else {
            ck_assert_int_eq(l.v[pt->end - 1].type, BLKLOG_WRITE);
            /* the barrier is just past the last flush before the cut */
            for (size_t j = pt->barrier; j < pt->end; j++)
                ck_assert_int_eq(l.v[j].type, BLKLOG_WRITE);
            ck_assert(pt->barrier == 0 || l.v[pt->barrier - 1].type == BLKLOG_FLUSH);
        }
        for (size_t j = 0; j < pt->barrier; j++)
            ck_assert_int_eq(crash_plan_has(pt, j), 1);
    }
    /* cut times spread over their intervals, not pinned to the records (before: all were) */
    {
        size_t later = 0;

        for (size_t i = 0; i < p.n; i++)
            later += p.v[i].t_ns > l.v[p.v[i].end - 1].t_ns;
        ck_assert_uint_ge(later, p.n / 2);
    }
    /* the same seed, the same points */
    crash_plan_make(&l, 10, 7, 1000000, &q);
    ck_assert_int_eq(memcmp(p.v, q.v, p.n * sizeof(*p.v)), 0);
    crash_plan_free(&p);
    crash_plan_free(&q);
    blklog_free(&l);
}
END_TEST

/*
 * A flush and a write, then nothing reaches the disk for most of the run
 * (a load with no fsync), then a hundred writes: a power cut comes at any
 * time, so about half of the time-drawn points must fall in the long
 * stretch. Drawn by write alone, one draw in 101 did (about 3 points of
 * 350 over these seeds).
 */
START_TEST(test_plan_time)
{
    char shape[103];
    struct blklog l;
    size_t in_gap = 0;

    memset(shape, 'W', sizeof(shape) - 1);
    shape[0] = 'F';
    shape[sizeof(shape) - 1] = 0;
    fake_log(&l, shape);
    for (size_t i = 2; i < l.n; i++)
        l.v[i].t_ns = 1000000 + i;
    for (uint64_t seed = 1; seed <= 50; seed++) {
        struct crash_plan p;

        crash_plan_make(&l, 8, seed, 1000200, &p);
        for (size_t i = 0; i < p.n; i++) {
            ck_assert(p.v[i].t_ns >= l.v[p.v[i].end - 1].t_ns);
            in_gap += p.v[i].t_ns > 2000 && p.v[i].t_ns < 1000000 && p.v[i].end == 2;
        }
        crash_plan_free(&p);
    }
    ck_assert_uint_ge(in_gap, 40);
    blklog_free(&l);
}
END_TEST

START_TEST(test_plan_limits)
{
    struct blklog l;
    struct crash_plan p;
    size_t last_flush = 0;

    /* more flushes than half the points: half of them, the last among them */
    fake_log(&l, "WFWFWFWFWFWFWFWF");
    crash_plan_make(&l, 6, 1, 1000000, &p);
    ck_assert_uint_eq(p.flush_points, 3);
    ck_assert_uint_eq(p.random_points, 3);
    for (size_t i = 0; i < p.n; i++)
        if (p.v[i].is_flush && p.v[i].end > last_flush)
            last_flush = p.v[i].end;
    ck_assert_uint_eq(last_flush, l.n);
    crash_plan_free(&p);
    blklog_free(&l);

    /* no flush at all (barrier=0): random points only, from the start */
    fake_log(&l, "WWWW");
    crash_plan_make(&l, 4, 1, 1000000, &p);
    ck_assert_uint_eq(p.flush_points, 0);
    ck_assert_uint_eq(p.n, 4);
    for (size_t i = 0; i < p.n; i++)
        ck_assert_uint_eq(p.v[i].barrier, 0);
    crash_plan_free(&p);
    blklog_free(&l);

    /* no write: nothing to cut */
    fake_log(&l, "");
    crash_plan_make(&l, 4, 1, 1000000, &p);
    ck_assert_uint_eq(p.n, 0);
    crash_plan_free(&p);
    blklog_free(&l);
}
END_TEST

/* The unflushed writes kept: some, not all, over many seeds. */
START_TEST(test_plan_subsets)
{
    struct crash_point pt = {.end = 64, .barrier = 0};
    size_t kept = 0;

    for (uint64_t s = 0; s < 100; s++) {
        pt.seed = s;
        for (size_t i = 0; i < pt.end; i++)
            kept += (size_t)crash_plan_has(&pt, i);
    }
    ck_assert(kept > 64 * 100 * 4 / 10 && kept < 64 * 100 * 6 / 10);
}
END_TEST

static void entry(struct msglog_set *s, const char *id, uint64_t t)
{
    struct msglog_entry e;

    memset(&e, 0, sizeof(e));
    snprintf(e.message_id, sizeof(e.message_id), "%s", id);
    e.size = 100;
    e.sum = 7;
    e.mono_ns = t;
    msglog_set_add(s, &e);
}

START_TEST(test_tally)
{
    struct msglog_set acked, sunk, rec;
    struct crash_tally t;

    msglog_set_init(&acked);
    msglog_set_init(&sunk);
    msglog_set_init(&rec);
    entry(&acked, "<a>", 10); /* delivered before the cut */
    entry(&acked, "<b>", 20); /* recovered */
    entry(&acked, "<c>", 30); /* lost */
    entry(&acked, "<d>", 60); /* acknowledged after the cut: not owed */
    entry(&sunk, "<a>", 15);
    entry(&sunk, "<b>", 55); /* delivered after the cut: does not count */
    entry(&rec, "<b>", 0);
    entry(&rec, "<a>", 0); /* delivered and recovered: a duplicate */
    crash_tally_point(&acked, &sunk, &rec, 50, &t);
    ck_assert_uint_eq(t.owed, 3);
    ck_assert_uint_eq(t.delivered, 1);
    ck_assert_uint_eq(t.recovered, 2);
    ck_assert_uint_eq(t.lost, 1);
    ck_assert_uint_eq(t.duplicated, 1);
    /* a real MTA adds headers: what arrives has another size and sum, the same Message-ID */
    for (size_t i = 0; i < sunk.n; i++)
        sunk.v[i].size += 80;
    for (size_t i = 0; i < rec.n; i++)
        rec.v[i].sum ^= 1;
    crash_tally_point(&acked, &sunk, &rec, 50, &t);
    ck_assert_uint_eq(t.lost, 3); /* by the whole key, an altered copy is no copy */
    crash_tally_point_ids(&acked, &sunk, &rec, 50, &t);
    ck_assert_uint_eq(t.owed, 3);
    ck_assert_uint_eq(t.lost, 1);
    ck_assert_uint_eq(t.duplicated, 1);
    msglog_set_free(&acked);
    msglog_set_free(&sunk);
    msglog_set_free(&rec);
}
END_TEST

START_TEST(test_opts_like)
{
    char keep[256], dropped[256];

    crash_opts_like("rw,relatime,discard,resuid=65534,data=writeback,commit=30,nobarrier", keep,
                    sizeof(keep), dropped, sizeof(dropped));
    ck_assert_str_eq(keep, "relatime,data=writeback,commit=30,nobarrier");
    ck_assert_str_eq(dropped, "rw,discard,resuid=65534");
    crash_opts_like("", keep, sizeof(keep), dropped, sizeof(dropped));
    ck_assert_str_eq(keep, "");
    ck_assert_str_eq(dropped, "");
    ck_assert_ptr_nonnull(crash_opts_fs_find("ext4"));
    ck_assert_ptr_null(crash_opts_fs_find("ntfs"));
}
END_TEST

START_TEST(test_e2fsck_fixes)
{
    ck_assert_uint_eq(
        crash_opts_e2fsck_fixes("x: recovering journal\nPass 5: Checking\n"
                                "Free blocks count wrong (5, counted=4).\nFix? yes\n\n"
                                "Free inodes count wrong (9, counted=8).\nFix? yes\n"),
        0);
    ck_assert_uint_eq(crash_opts_e2fsck_fixes("Inode 12 has zero dtime.  Fix? yes\n\n"
                                              "Free blocks count wrong (5, counted=4).\nFix? yes\n"
                                              "Entry 'x' in / (2) has deleted/unused inode 13.\n"
                                              "Clear? yes\n"),
                      2);
}
END_TEST

int main(void)
{
    const TTest *const tests[] = {
        test_plan_points,  test_plan_time, test_plan_limits,  test_opts_like,
        test_plan_subsets, test_tally,     test_e2fsck_fixes, NULL};

    return check_run_tests("crash", tests);
}
