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

/* The point at t seconds with in messages so far; latency as timeline_add() takes it. */
static void add_in(struct timeline *tl, double t, uint64_t in, const struct histogram *latency)
{
    const struct timeline_point p = {.t = t, .in = in};

    timeline_add(tl, &p, latency);
}

START_TEST(test_free_leaves_empty)
{
    static struct histogram h;
    struct timeline tl;

    histogram_init(&h);
    histogram_record(&h, 5000000);
    timeline_init(&tl, TIMELINE_IN | TIMELINE_LATENCY);
    add_in(&tl, 0, 0, NULL);
    add_in(&tl, 1, 7, &h);
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

    timeline_init(&tl, TIMELINE_IN);
    add_in(&tl, 0, 0, NULL);
    add_in(&tl, 1, 4, NULL);
    timeline_free(&tl);
    add_in(&tl, 10, 100, NULL);
    ck_assert_uint_eq(tl.n, 0);
    add_in(&tl, 11, 103, NULL);
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
