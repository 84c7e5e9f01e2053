/*
 * check_io_pool - every job submitted runs and completes, however the
 * wake-ups are batched: bursts of fast jobs submitted in one pass of the
 * loop, jobs whose done() submits more, a one-thread pool's order, and a
 * drain outside the loop (where no pass ends to wake the threads); and
 * the thread numbers a pool gives its jobs, from its first index.
 */
#include "config.h"

#include <check.h>
#include <event2/event.h>
#include <stdlib.h>

#include "check_main.h"
#include "io_pool.h"

#define JOBS 64    /* per burst */
#define ROUNDS 200 /* bursts */

struct run;

struct test_job {
    struct io_job job; /* first: the pool hands back only this */
    struct run *run;
    unsigned index;
};

struct run {
    struct event_base *base;
    struct io_pool *pool;
    struct test_job jobs[JOBS];
    unsigned done, total, order_errors, next_expected;
    unsigned first, threads, outside; /* the pool's numbering; jobs numbered outside it */
    unsigned rounds_left;
};

static void work(struct io_job *job)
{
    struct test_job *tj = (struct test_job *)job;

    /* fast on purpose: the case batching is for */
    if (job->thread < tj->run->first || job->thread >= tj->run->first + tj->run->threads)
        __atomic_fetch_add(&tj->run->outside, 1, __ATOMIC_RELAXED);
}

static void submit_burst(struct run *run)
{
    for (unsigned i = 0; i < JOBS; i++)
        io_pool_submit(run->pool, &run->jobs[i].job);
}

static void done(struct io_job *job)
{
    struct test_job *tj = (struct test_job *)job;
    struct run *run = tj->run;
    unsigned i = tj->index;

    if (i != run->next_expected)
        run->order_errors++;
    run->next_expected = (i + 1) % JOBS;
    run->done++;
    /* A burst's last done() submits the next burst: every job is free again. */
    if (run->done % JOBS == 0 && run->rounds_left > 0) {
        run->rounds_left--;
        submit_burst(run);
    }
    if (run->done == run->total && run->base)
        event_base_loopbreak(run->base);
}

static void on_start(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    submit_burst(arg);
}

static void run_pool(unsigned threads, unsigned first, int in_loop)
{
    struct run *run = calloc(1, sizeof(*run));
    struct event_base *base = event_base_new();

    ck_assert_ptr_nonnull(base);
    run->first = first;
    run->threads = threads;
    run->pool = io_pool_new(base, threads, first, "test");
    run->total = JOBS * ROUNDS;
    run->rounds_left = ROUNDS - 1;
    for (unsigned i = 0; i < JOBS; i++) {
        run->jobs[i].job.work = work;
        run->jobs[i].job.done = done;
        run->jobs[i].run = run;
        run->jobs[i].index = i;
    }
    if (in_loop) {
        run->base = base;
        event_base_once(base, -1, EV_TIMEOUT, on_start, run, NULL);
        event_base_dispatch(base);
    } else {
        submit_burst(run); /* no loop: only io_pool_drain() may wake the threads */
    }
    io_pool_drain(run->pool);
    ck_assert_uint_eq(run->done, run->total);
    ck_assert_uint_eq(io_pool_pending(run->pool), 0);
    ck_assert_uint_eq(run->outside, 0);
    if (threads == 1)
        ck_assert_uint_eq(run->order_errors, 0); /* one thread: the submitted order */
    io_pool_free(run->pool);
    event_base_free(base);
    free(run);
}

START_TEST(test_bursts_one_thread)
{
    run_pool(1, 0, 1);
}
END_TEST

START_TEST(test_bursts_many_threads)
{
    run_pool(8, 0, 1);
}
END_TEST

START_TEST(test_first_index)
{
    run_pool(3, 17, 1); /* the second of two pools that share a table, say */
}
END_TEST

START_TEST(test_drain_outside_loop)
{
    run_pool(4, 0, 0);
}
END_TEST

int main(void)
{
    /* A lost wake-up hangs a test: the timeout makes it a failure. */
    const TTest *const tests[] = {test_bursts_one_thread, test_bursts_many_threads,
                                  test_drain_outside_loop, test_first_index, NULL};

    return check_run_cases("io_pool", 60, tests, NULL, 0);
}
