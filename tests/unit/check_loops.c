/*
 * check_loops - the event-loop harness: posts from other threads arrive
 * on the loop they were posted to, each loop's hooks run on its own
 * thread, loops_run() returns only once every thread has been joined,
 * a caught signal reaches every loop, loops_pick() deals by sessions,
 * and loops_free() runs or drops what is still posted (ASan: no leak).
 */
#include "config.h"

#include <check.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#include "check_main.h"
#include "loops.h"

#define LOOPS 3
#define POSTERS 2
#define ITEMS 5000 /* per poster and loop */

struct test_item {
    struct mailbox_item item; /* first: run() gets it */
    struct loop *loop;
};

struct state {
    struct loops *ls;
    _Atomic unsigned ran, wrong_thread, before, after, after_wrong;
    pthread_t thread[LOOPS]; /* each loop's, as its before() saw it */
    struct mailbox_item stop_all;
};

static struct state *state_of(struct loop *loop)
{
    return loop->owner;
}

/*
 * A thread's last act, after its start routine has returned (and so after
 * the harness heard it end): seen only by a caller that joined it.
 */
static pthread_key_t exit_key;
static _Atomic unsigned exited;

static void on_thread_exit(void *arg)
{
    (void)arg;
    usleep(20000); /* a caller that did not wait would be gone by now */
    atomic_fetch_add(&exited, 1);
}

static void on_before(struct loop *loop)
{
    struct state *st = state_of(loop);

    st->thread[loop->index] = pthread_self();
    if (!loop->on_main)
        pthread_setspecific(exit_key, st);
    atomic_fetch_add(&st->before, 1);
}

static void on_after(struct loop *loop)
{
    struct state *st = state_of(loop);

    if (!loop->ended || !pthread_equal(st->thread[loop->index], pthread_self()))
        atomic_fetch_add(&st->after_wrong, 1);
    atomic_fetch_add(&st->after, 1);
}

static const struct loops_hooks hooks = {on_before, on_after};

static void on_stop_all(struct mailbox_item *item)
{
    struct state *st = (struct state *)((char *)item - offsetof(struct state, stop_all));

    loops_stop(st->ls);
}

static void on_item(struct mailbox_item *item)
{
    struct test_item *ti = (struct test_item *)item;
    struct state *st = state_of(ti->loop);

    if (!pthread_equal(pthread_self(), st->thread[ti->loop->index]))
        atomic_fetch_add(&st->wrong_thread, 1);
    if (atomic_fetch_add(&st->ran, 1) + 1 == POSTERS * ITEMS * LOOPS)
        loops_post_main(st->ls, &st->stop_all);
}

struct poster {
    struct state *st;
    struct test_item *items; /* ITEMS * LOOPS */
};

static void *post_all(void *arg)
{
    struct poster *p = arg;

    for (unsigned i = 0; i < ITEMS * LOOPS; i++) {
        struct test_item *ti = &p->items[i];

        ti->item.run = on_item;
        ti->loop = loops_loop(p->st->ls, i % LOOPS);
        loops_post(ti->loop, &ti->item);
    }
    return NULL;
}

static struct state *state_new(unsigned n, int flags)
{
    struct state *st = calloc(1, sizeof(*st));

    st->ls = loops_new(n, NULL, flags, &hooks);
    st->stop_all.run = on_stop_all;
    for (unsigned i = 0; i < n; i++)
        loops_loop(st->ls, i)->owner = st;
    return st;
}

/* Every loop on a thread of its own; posts from threads that are none of them. */
static void posts_arrive(int flags)
{
    struct state *st = state_new(LOOPS, flags);
    pthread_t threads[POSTERS];
    struct poster posters[POSTERS];

    loops_start(st->ls);
    /* The posters may run before a loop does: its before() must see its thread first. */
    while (atomic_load(&st->before) < LOOPS)
        sched_yield();
    for (unsigned i = 0; i < POSTERS; i++) {
        posters[i] = (struct poster){st, calloc(ITEMS * LOOPS, sizeof(struct test_item))};
        ck_assert_int_eq(pthread_create(&threads[i], NULL, post_all, &posters[i]), 0);
    }
    loops_run(st->ls);
    /* Joined: every loop's after() has run, on its own thread, after its dispatch. */
    ck_assert_uint_eq(exited, LOOPS);
    ck_assert_uint_eq(st->after, LOOPS);
    ck_assert_uint_eq(st->after_wrong, 0);
    for (unsigned i = 0; i < POSTERS; i++) {
        pthread_join(threads[i], NULL);
        free(posters[i].items);
    }
    ck_assert_uint_eq(st->ran, POSTERS * ITEMS * LOOPS);
    ck_assert_uint_eq(st->wrong_thread, 0);
    for (unsigned i = 0; i < LOOPS; i++) {
        ck_assert(!pthread_equal(st->thread[i], pthread_self()));
        ck_assert_uint_eq(mailbox_pending(loops_loop(st->ls, i)->mailbox), 0);
    }
    loops_free(st->ls);
    free(st);
}

START_TEST(test_posts_arrive)
{
    posts_arrive(0);
}
END_TEST

/* LOOPS_YIELD: a loop run a pass at a time runs what is posted and ends on the stop as well. */
START_TEST(test_posts_arrive_yield)
{
    posts_arrive(LOOPS_YIELD);
}
END_TEST

static void on_each_exit(struct loop *loop)
{
    struct state *st = state_of(loop);

    if (!pthread_equal(pthread_self(), st->thread[loop->index]))
        atomic_fetch_add(&st->wrong_thread, 1);
    atomic_fetch_add(&st->ran, 1);
    event_base_loopexit(loop->base, NULL);
}

static void on_usr1(struct loops *ls, int signo, void *arg)
{
    (void)arg;
    ck_assert_int_eq(signo, SIGUSR1);
    loops_each(ls, on_each_exit);
}

static void raise_once_ready(struct loop *loop)
{
    struct state *st = state_of(loop);

    on_before(loop);
    if (loop->index == 0) {
        while (atomic_load(&st->before) < LOOPS)
            sched_yield();
        raise(SIGUSR1); /* caught on the main base, which is loop 0's */
    }
}

/*
 * Loop 0 on the main thread: a caught signal reaches every loop, each on
 * its own thread; loop 0's end ends the run.
 */
static void first_on_main_and_signal(int flags)
{
    struct state *st = state_new(LOOPS, LOOPS_FIRST_ON_MAIN | flags);
    const struct loops_hooks raising = {raise_once_ready, on_after};

    loops_free(st->ls);
    st->ls = loops_new(LOOPS, NULL, LOOPS_FIRST_ON_MAIN | flags, &raising);
    for (unsigned i = 0; i < LOOPS; i++)
        loops_loop(st->ls, i)->owner = st;
    ck_assert_ptr_eq(loops_loop(st->ls, 0)->base, loops_main_base(st->ls));
    loops_catch(st->ls, SIGUSR1, on_usr1, NULL);
    loops_start(st->ls);
    loops_run(st->ls);
    ck_assert_uint_eq(exited, LOOPS - 1);
    ck_assert(pthread_equal(st->thread[0], pthread_self()));
    ck_assert(!pthread_equal(st->thread[1], pthread_self()));
    ck_assert_uint_eq(st->after, LOOPS);
    ck_assert_uint_eq(st->after_wrong, 0);
    ck_assert_uint_eq(st->ran, LOOPS);
    ck_assert_uint_eq(st->wrong_thread, 0);
    /* Ended: a call for every loop now reaches none (and its copies are freed). */
    loops_each(st->ls, on_each_exit);
    loops_free(st->ls);
    ck_assert_uint_eq(st->ran, LOOPS);
    free(st);
}

START_TEST(test_first_on_main_and_signal)
{
    first_on_main_and_signal(0);
}
END_TEST

/* LOOPS_YIELD: each loop, the main thread's too, ends on event_base_loopexit() as dispatch does. */
START_TEST(test_first_on_main_and_signal_yield)
{
    first_on_main_and_signal(LOOPS_YIELD);
}
END_TEST

START_TEST(test_pick)
{
    struct loops *ls = loops_new(3, NULL, 0, NULL);
    struct loop *a, *b, *c;

    /* Equal loads: in turn. */
    a = loops_pick(ls);
    b = loops_pick(ls);
    c = loops_pick(ls);
    ck_assert_uint_eq(a->index, 0);
    ck_assert_uint_eq(b->index, 1);
    ck_assert_uint_eq(c->index, 2);
    loops_session_ended(a);
    loops_session_ended(b);
    loops_session_ended(c);
    /* Sessions that end before the next comes: still in turn, not all on one loop. */
    for (unsigned i = 0; i < 6; i++) {
        struct loop *l = loops_pick(ls);

        ck_assert_uint_eq(l->index, i % 3);
        loops_session_ended(l);
    }
    a = loops_pick(ls);
    b = loops_pick(ls);
    c = loops_pick(ls);
    /* One ends: the next session goes there, however the turn stands. */
    loops_session_ended(b);
    ck_assert_ptr_eq(loops_pick(ls), b);
    loops_session_ended(a);
    ck_assert_ptr_eq(loops_pick(ls), a);
    loops_session_ended(c);
    ck_assert_ptr_eq(loops_pick(ls), c);
    loops_free(ls);

    /* Spare the first: loop 0 only when it has fewer than every other. */
    ls = loops_new(3, NULL, LOOPS_SPARE_FIRST, NULL);
    ck_assert_uint_ne(loops_pick(ls)->index, 0);
    ck_assert_uint_ne(loops_pick(ls)->index, 0);
    ck_assert_uint_eq(loops_pick(ls)->index, 0);
    loops_free(ls);

    ls = loops_new(1, NULL, LOOPS_SPARE_FIRST, NULL);
    ck_assert_uint_eq(loops_pick(ls)->index, 0);
    ck_assert_uint_eq(loops_pick(ls)->index, 0);
    loops_free(ls);
}
END_TEST

struct counted {
    struct mailbox_item item;
    unsigned ran;
};

static void on_counted(struct mailbox_item *item)
{
    ((struct counted *)item)->ran++;
}

/* A set never started: what was posted runs at the free; nothing leaks. */
START_TEST(test_free_runs_leftovers)
{
    struct loops *ls = loops_new(2, NULL, 0, NULL);
    struct counted to_loop = {{NULL, on_counted}, 0}, to_main = {{NULL, on_counted}, 0};

    loops_post(loops_loop(ls, 1), &to_loop.item);
    /* From the main thread it runs at once. */
    loops_post_main(ls, &to_main.item);
    ck_assert_uint_eq(to_main.ran, 1);
    loops_stop(ls);
    loops_run(ls); /* no thread: nothing to wait for */
    loops_free(ls);
    ck_assert_uint_eq(to_loop.ran, 1);
}
END_TEST

int main(void)
{
    pthread_key_create(&exit_key, on_thread_exit);
    const TTest *const tests[] = {test_posts_arrive,
                                  test_posts_arrive_yield,
                                  test_first_on_main_and_signal,
                                  test_first_on_main_and_signal_yield,
                                  test_pick,
                                  test_free_runs_leftovers,
                                  NULL};

    return check_run_tests("loops", tests);
}
