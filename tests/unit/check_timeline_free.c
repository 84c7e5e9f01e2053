/*
 * Unit tests for timeline_free() (common/report/timeline.c): what it leaves
 * is an empty timeline of the same fields, so that one used again starts
 * afresh and a second free is harmless.
 */
#include "config.h"

#include <check.h>
#include <stdint.h>

#include "histogram.h"
#include "timeline.h"
#include "check_main.h"

START_TEST(test_free_leaves_empty)
{
    static struct histogram h;
    struct timeline tl;
    struct timeline_point p = {.t = 0, .in = 0};

    histogram_init(&h);
    histogram_record(&h, 5000000);
    timeline_init(&tl, TIMELINE_IN | TIMELINE_LATENCY);
    timeline_add(&tl, &p, NULL);
    p.t = 1;
    p.in = 7;
    timeline_add(&tl, &p, &h);
    ck_assert_uint_eq(tl.n, 1);
    ck_assert_uint_gt(tl.nbuckets, 0);
    timeline_free(&tl);
    ck_assert_uint_eq(tl.fields, TIMELINE_IN | TIMELINE_LATENCY);
    ck_assert_uint_eq(tl.n, 0);
    ck_assert_uint_eq(tl.cap, 0);
    ck_assert_ptr_null(tl.rows);
    ck_assert_ptr_null(tl.before);
    ck_assert_ptr_null(tl.buckets);
    ck_assert_uint_eq(tl.nbuckets, 0);
    ck_assert_uint_eq(tl.buckets_cap, 0);
    ck_assert_int_eq(tl.histograms, 0);
    timeline_free(&tl); /* again: nothing to free twice */
}
END_TEST

/* The first point after a free starts the timeline again: no row against the old last point. */
START_TEST(test_free_then_reuse)
{
    struct timeline tl;
    struct timeline_point p = {.t = 0, .in = 0};

    timeline_init(&tl, TIMELINE_IN);
    timeline_add(&tl, &p, NULL);
    p.t = 1;
    p.in = 4;
    timeline_add(&tl, &p, NULL);
    timeline_free(&tl);
    p.t = 10;
    p.in = 100;
    timeline_add(&tl, &p, NULL);
    ck_assert_uint_eq(tl.n, 0);
    p.t = 11;
    p.in = 103;
    timeline_add(&tl, &p, NULL);
    ck_assert_uint_eq(tl.n, 1);
    ck_assert_uint_eq(tl.rows[0].messages_in, 3);
    ck_assert(tl.rows[0].t == 10 && tl.rows[0].interval_s == 1);
    timeline_free(&tl);
}
END_TEST

int main(void)
{
    const TTest *const tests[] = {test_free_leaves_empty, test_free_then_reuse, NULL};

    return check_run_tests("timeline_free", tests);
}
