/*
 * check_mailbox - posts from other threads all run, once each, on the
 * mailbox's loop, each poster's in its order; a run may post again; and
 * mailbox_run() empties a mailbox whose loop no longer runs.
 */
#include "config.h"

#include <check.h>
#include <event2/event.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "check_main.h"
#include "mailbox.h"

#define POSTERS 3
#define ITEMS 20000 /* per poster */

struct test_item {
    struct mailbox_item item; /* first: the mailbox hands back only this */
    struct run *run;
    unsigned poster, seq;
};

struct run {
    struct event_base *base;
    struct mailbox *mb;
    pthread_t loop_thread;
    struct test_item *items; /* POSTERS * ITEMS */
    unsigned next_seq[POSTERS];
    unsigned ran, order_errors, wrong_thread, reposts;
};

struct poster {
    struct run *run;
    unsigned index;
};

static void on_item(struct mailbox_item *item)
{
    struct test_item *ti = (struct test_item *)item;
    struct run *run = ti->run;

    if (!pthread_equal(pthread_self(), run->loop_thread))
        run->wrong_thread++;
    if (ti->seq != run->next_seq[ti->poster])
        run->order_errors++;
    run->next_seq[ti->poster] = ti->seq + 1;
    if (++run->ran == POSTERS * ITEMS + run->reposts)
        event_base_loopbreak(run->base);
}

static void *post_all(void *arg)
{
    struct poster *p = arg;

    for (unsigned i = 0; i < ITEMS; i++) {
        struct test_item *ti = &p->run->items[p->index * ITEMS + i];

        ti->item.run = on_item;
        ti->run = p->run;
        ti->poster = p->index;
        ti->seq = i;
        mailbox_post(p->run->mb, &ti->item);
    }
    return NULL;
}

START_TEST(test_posts_from_threads)
{
    struct run run = {0};
    pthread_t threads[POSTERS];
    struct poster posters[POSTERS];

    run.base = event_base_new();
    run.mb = mailbox_new(run.base);
    run.loop_thread = pthread_self();
    run.items = calloc(POSTERS * ITEMS, sizeof(*run.items));
    for (unsigned i = 0; i < POSTERS; i++) {
        posters[i] = (struct poster){&run, i};
        ck_assert_int_eq(pthread_create(&threads[i], NULL, post_all, &posters[i]), 0);
    }
    event_base_dispatch(run.base);
    for (unsigned i = 0; i < POSTERS; i++)
        pthread_join(threads[i], NULL);
    ck_assert_uint_eq(run.ran, POSTERS * ITEMS);
    ck_assert_uint_eq(run.order_errors, 0);
    ck_assert_uint_eq(run.wrong_thread, 0);
    ck_assert_uint_eq(mailbox_pending(run.mb), 0);
    for (unsigned i = 0; i < POSTERS; i++)
        ck_assert_uint_eq(run.next_seq[i], ITEMS);
    mailbox_free(run.mb);
    event_base_free(run.base);
    free(run.items);
}
END_TEST

/* An item that posts itself again from its own run, a few times. */
struct again {
    struct mailbox_item item;
    struct mailbox *mb;
    unsigned left, ran;
};

static void on_again(struct mailbox_item *item)
{
    struct again *a = (struct again *)item;

    a->ran++;
    if (a->left > 0) {
        a->left--;
        mailbox_post(a->mb, &a->item);
    }
}

START_TEST(test_run_without_loop)
{
    struct event_base *base = event_base_new();
    struct mailbox *mb = mailbox_new(base);
    struct again a = {{NULL, on_again}, mb, 5, 0};

    mailbox_post(mb, &a.item);
    ck_assert_uint_eq(mailbox_pending(mb), 1);
    /* No loop runs: mailbox_run() does it all, reposts included. */
    ck_assert_uint_eq(mailbox_run(mb), 6);
    ck_assert_uint_eq(a.ran, 6);
    ck_assert_uint_eq(mailbox_pending(mb), 0);
    ck_assert_uint_eq(mailbox_run(mb), 0);
    mailbox_free(mb);
    event_base_free(base);
}
END_TEST

int main(void)
{
    const TTest *const tests[] = {test_posts_from_threads, test_run_without_loop, NULL};

    return check_run_tests("mailbox", tests);
}
