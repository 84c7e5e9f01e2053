/*
 * loops - N event loops on their threads; see loops.h.
 *
 * A loop that ends on its thread posts its done_item to the main mailbox;
 * the main thread counts them, and the last one ends the main base's
 * dispatch in loops_run(). So the main thread never polls, and a loop
 * that ends early (a load generator whose share is done) costs nothing.
 */
#include "config.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "interrupt.h"
#include "loops.h"
#include "msg.h"
#include "xalloc.h"

#define LOOP_OF(item, field) ((struct loop *)((char *)(item)-offsetof(struct loop, field)))

struct caught {
    struct event *event;
    int signo;
    struct loops *ls;
    void (*fn)(struct loops *ls, int signo, void *arg);
    void *arg;
    struct caught *next;
};

/* A loops_each() call on its way to one loop. */
struct each_call {
    struct mailbox_item item; /* first: run() gets it */
    struct loop *loop;
    void (*fn)(struct loop *loop);
};

struct loops {
    unsigned n, threads; /* loops; those on threads of their own */
    int flags;
    struct loop *loop;
    struct event_base *main_base;
    int own_main_base;
    struct mailbox *main_mailbox; /* loop 0's when it is the main's */
    pthread_t main_thread;
    struct loops_hooks hooks;
    unsigned next_pick; /* where loops_pick() starts looking: ties in turn */
    unsigned ended;     /* loops on threads that said so; the main thread's */
    int started, joined;
    struct caught *caught;
};

static void loop_life(struct loop *loop)
{
    struct loops *ls = loop->set;

    if (ls->hooks.before)
        ls->hooks.before(loop);
    if (ls->flags & LOOPS_YIELD) {
        /* event_base_dispatch(), a pass at a time: it too ends on an exit, a break or no events. */
        while (event_base_loop(loop->base, EVLOOP_ONCE) == 0 && !event_base_got_exit(loop->base) &&
               !event_base_got_break(loop->base))
            sched_yield();
    } else {
        event_base_dispatch(loop->base);
    }
    loop->ended = 1; /* what is posted from now on finds it over */
    if (ls->hooks.after)
        ls->hooks.after(loop);
}

static void *loop_thread(void *arg)
{
    struct loop *loop = arg;

    loop_life(loop);
    mailbox_post(loop->set->main_mailbox, &loop->done_item);
    return NULL;
}

static void on_done(struct mailbox_item *item)
{
    struct loops *ls = LOOP_OF(item, done_item)->set;

    /* Loop 0 on the main base ends that dispatch itself. */
    if (++ls->ended == ls->threads && !(ls->flags & LOOPS_FIRST_ON_MAIN))
        event_base_loopbreak(ls->main_base);
}

static void on_stop(struct mailbox_item *item)
{
    struct loop *loop = LOOP_OF(item, stop_item);

    if (!loop->ended)
        event_base_loopbreak(loop->base);
}

/* libevent's own fatal errors (no descriptor for a base's pipe) exit as ours do. */
static void fatal_from_libevent(int err)
{
    msg_fatal("libevent: fatal error %d (see above)", err);
}

void loops_catch_fatal(void)
{
    event_set_fatal_callback(fatal_from_libevent);
}

struct loops *loops_new(unsigned n, struct event_base *main_base, int flags,
                        const struct loops_hooks *hooks)
{
    struct loops *ls = xcalloc(1, sizeof(*ls));

    loops_catch_fatal();

    if (n == 0)
        n = 1;
    ls->n = n;
    ls->flags = flags;
    ls->threads = flags & LOOPS_FIRST_ON_MAIN ? n - 1 : n;
    ls->main_thread = pthread_self();
    if (hooks)
        ls->hooks = *hooks;
    if ((ls->main_base = main_base) == NULL) {
        if ((ls->main_base = event_base_new()) == NULL)
            msg_fatal("cannot create an event base");
        ls->own_main_base = 1;
    }
    ls->loop = xcalloc(n, sizeof(*ls->loop));
    for (unsigned i = 0; i < n; i++) {
        struct loop *loop = &ls->loop[i];

        loop->set = ls;
        loop->index = i;
        atomic_init(&loop->sessions, 0);
        loop->on_main = i == 0 && (flags & LOOPS_FIRST_ON_MAIN);
        if (loop->on_main)
            loop->base = ls->main_base;
        else if ((loop->base = event_base_new()) == NULL)
            msg_fatal("cannot create an event base");
        loop->mailbox = mailbox_new(loop->base);
        loop->stop_item.run = on_stop;
        loop->done_item.run = on_done;
    }
    ls->main_mailbox = ls->loop[0].on_main ? ls->loop[0].mailbox : mailbox_new(ls->main_base);
    return ls;
}

unsigned loops_count(const struct loops *ls)
{
    return ls->n;
}

struct loop *loops_loop(struct loops *ls, unsigned i)
{
    return &ls->loop[i];
}

struct event_base *loops_main_base(struct loops *ls)
{
    return ls->main_base;
}

void loops_start(struct loops *ls)
{
    for (unsigned i = 0; i < ls->n; i++) {
        struct loop *loop = &ls->loop[i];
        int err;

        if (loop->on_main)
            continue;
        if ((err = interrupt_thread_create(&loop->thread, loop_thread, loop)) != 0)
            msg_fatal("cannot start an event loop thread: %s", strerror(err));
        pthread_setname_np(loop->thread, "loop");
    }
    ls->started = 1;
}

struct loop *loops_pick(struct loops *ls)
{
    struct loop *best = NULL;
    unsigned best_load = 0;

    for (unsigned k = 0; k < ls->n; k++) {
        struct loop *loop = &ls->loop[(ls->next_pick + k) % ls->n];
        unsigned load = atomic_load(&loop->sessions);

        if (loop->index == 0 && (ls->flags & LOOPS_SPARE_FIRST) && ls->n > 1)
            continue; /* weighed against the best of the others below */
        if (best == NULL || load < best_load) {
            best = loop;
            best_load = load;
        }
    }
    if (best == NULL ||
        ((ls->flags & LOOPS_SPARE_FIRST) && atomic_load(&ls->loop[0].sessions) < best_load))
        best = &ls->loop[0];
    ls->next_pick = (best->index + 1) % ls->n;
    atomic_fetch_add(&best->sessions, 1);
    return best;
}

void loops_session_ended(struct loop *loop)
{
    atomic_fetch_sub(&loop->sessions, 1);
}

void loops_post(struct loop *loop, struct mailbox_item *item)
{
    mailbox_post(loop->mailbox, item);
}

void loops_post_main(struct loops *ls, struct mailbox_item *item)
{
    if (pthread_equal(pthread_self(), ls->main_thread))
        item->run(item);
    else
        mailbox_post(ls->main_mailbox, item);
}

static void on_each(struct mailbox_item *item)
{
    struct each_call *c = (struct each_call *)item;

    if (!c->loop->ended)
        c->fn(c->loop);
    free(c);
}

void loops_each(struct loops *ls, void (*fn)(struct loop *loop))
{
    for (unsigned i = 0; i < ls->n; i++) {
        struct loop *loop = &ls->loop[i];
        struct each_call *c;

        if (loop->on_main) {
            if (!loop->ended)
                fn(loop);
            continue;
        }
        c = xmalloc(sizeof(*c));
        c->item.run = on_each;
        c->loop = loop;
        c->fn = fn;
        mailbox_post(loop->mailbox, &c->item);
    }
}

void loops_stop(struct loops *ls)
{
    for (unsigned i = 0; i < ls->n; i++) {
        struct loop *loop = &ls->loop[i];

        if (!loop->on_main && !loop->stop_posted) {
            loop->stop_posted = 1;
            mailbox_post(loop->mailbox, &loop->stop_item);
        }
    }
}

static void on_signal(evutil_socket_t sig, short what, void *arg)
{
    struct caught *c = arg;

    (void)what;
    c->fn(c->ls, (int)sig, c->arg);
}

void loops_catch(struct loops *ls, int signo, void (*fn)(struct loops *ls, int signo, void *arg),
                 void *arg)
{
    struct caught *c = xcalloc(1, sizeof(*c));

    c->ls = ls;
    c->signo = signo;
    c->fn = fn;
    c->arg = arg;
    if ((c->event = evsignal_new(ls->main_base, signo, on_signal, c)) == NULL ||
        evsignal_add(c->event, NULL) != 0)
        msg_fatal("cannot catch signal %d", signo);
    c->next = ls->caught;
    ls->caught = c;
}

void loops_join(struct loops *ls)
{
    if (!ls->started || ls->joined)
        return;
    for (unsigned i = 0; i < ls->n; i++)
        if (!ls->loop[i].on_main)
            pthread_join(ls->loop[i].thread, NULL);
    ls->joined = 1;
}

void loops_run(struct loops *ls)
{
    if (ls->loop[0].on_main) {
        loop_life(&ls->loop[0]);
        loops_stop(ls); /* the main loop is the run's: the others end with it */
    } else if (ls->started && ls->ended < ls->threads) {
        event_base_dispatch(ls->main_base); /* until on_done() has heard from every loop */
    }
    loops_join(ls);
}

void loops_free(struct loops *ls)
{
    if (ls == NULL)
        return;
    /* Each mailbox's leftovers run before any goes: one may post to another. */
    for (int busy = 1; busy;) {
        busy = ls->main_mailbox != ls->loop[0].mailbox && mailbox_run(ls->main_mailbox) > 0;
        for (unsigned i = 0; i < ls->n; i++)
            if (mailbox_run(ls->loop[i].mailbox) > 0)
                busy = 1;
    }
    /*
     * Freeing a signal's event puts back its default action, and a second stop signal (timeout(1)
     * sends one to the process and one to its group) would then end the program with a signal's
     * status in place of the one its run decided, reports written or not. The run is over, so a
     * stop signal from here on is held until the exit, which drops it.
     */
    sigset_t held;

    sigemptyset(&held);
    for (struct caught *c = ls->caught; c; c = c->next)
        sigaddset(&held, c->signo);
    pthread_sigmask(SIG_BLOCK, &held, NULL);
    while (ls->caught) {
        struct caught *c = ls->caught;

        ls->caught = c->next;
        event_free(c->event);
        free(c);
    }
    if (ls->main_mailbox != ls->loop[0].mailbox)
        mailbox_free(ls->main_mailbox);
    for (unsigned i = 0; i < ls->n; i++) {
        mailbox_free(ls->loop[i].mailbox);
        if (!ls->loop[i].on_main)
            event_base_free(ls->loop[i].base);
    }
    if (ls->own_main_base)
        event_base_free(ls->main_base);
    free(ls->loop);
    free(ls);
}
