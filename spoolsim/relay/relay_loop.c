/*
 * relay_loop - the relay's event loops; see relay_loop.h.
 *
 * They are a common/net/loops set: loop 0 on the main thread, spared when
 * a connection is dealt, and one listener for them all, for the reasons
 * loops.h gives against SO_REUSEPORT. What is the relay's own here is
 * each loop's pools, its share of the next hop, and the pause of the
 * listener at --max-sessions.
 */
#include "config.h"

#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "cpu_burn.h"
#include "io_pool.h"
#include "listener.h"
#include "loops.h"
#include "msg.h"
#include "relay_loop.h"
#include "relay_private.h"
#include "xalloc.h"

/* A connection on its way to the loop that will serve it. */
struct dealt_conn {
    struct mailbox_item item;
    struct relay_loop *loop;
    int fd;
    struct sockaddr_storage addr;
};

/* A loop on a thread of its own, as it ends: a thread's clock goes with it. */
static void on_loop_end(struct loop *l)
{
    ((struct relay_loop *)l->owner)->cpu_ns = cpu_burn_thread_ns();
}

static void on_close(struct loop *l)
{
    struct relay_loop *loop = l->owner;

    loop->server->close_all(loop);
}

static void resume_accepting(struct relay *r)
{
    if (r->accept_paused && r->session_total < r->opts->max_sessions && !r->stopping) {
        r->accept_paused = 0;
        listener_enable(r->listener);
    }
}

static void on_resume(struct mailbox_item *item)
{
    struct relay *r = (struct relay *)((char *)item - offsetof(struct relay, resume_item));

    r->resume_posted = 0;
    resume_accepting(r);
}

void relay_loop_start(struct relay *r, const struct relay_loop_server *server)
{
    unsigned n = r->opts->threads ? r->opts->threads : 1, total = r->opts->cleanup_threads;
    unsigned first = 0;
    const struct loops_hooks hooks = {NULL, on_loop_end};

    /* Loop 0 has the queue manager and the next hop besides: it gets a session only on a tie. */
    r->loop_set = loops_new(n, r->base, LOOPS_FIRST_ON_MAIN | LOOPS_SPARE_FIRST, &hooks);
    r->loops = xcalloc(n, sizeof(*r->loops));
    r->loop_count = n;
    r->resume_item.run = on_resume;
    for (unsigned i = 0; i < n; i++) {
        struct relay_loop *loop = &r->loops[i];
        /* --cleanup-threads in all, as even as it goes (the options keep it >= N) */
        unsigned share = total / n + (i < total % n);

        loop->relay = r;
        loop->index = i;
        loop->server = server;
        loop->harness = loops_loop(r->loop_set, i);
        loop->harness->owner = loop;
        loop->base = loop->harness->base;
        loop->inbox = loop->harness->mailbox;
        for (unsigned w = 0; w < RELAY_WARN_COUNT; w++)
            msg_limit_init(&loop->warn[w], RELAY_WARN_EVERY_NS);
        loop->cleanup = io_pool_new(loop->base, share, first, "cleanup");
        if (r->model) /* Postfix's smtpd processes, as many as the cleanup ones */
            loop->smtpd = io_pool_new(loop->base, share, first, "smtpd");
        first += share;
        /*
         * The next hop is the other loops' when there are others: the
         * first has the queue manager, whose one thread is the wall.
         */
        if (n == 1)
            loop->concurrency = r->opts->concurrency;
        else if (i > 0)
            loop->concurrency =
                r->opts->concurrency / (n - 1) + (i - 1 < r->opts->concurrency % (n - 1));
    }
    r->cleanup = r->loops[0].cleanup;
    r->smtpd = r->loops[0].smtpd;
    loops_start(r->loop_set);
}

static void on_dealt(struct mailbox_item *item)
{
    struct dealt_conn *c = (struct dealt_conn *)item;

    c->loop->server->accept(c->loop, c->fd, (const struct sockaddr *)&c->addr);
    free(c);
}

void relay_loop_deal(struct relay *r, int fd, const struct sockaddr *addr, int addrlen)
{
    struct relay_loop *best = loops_pick(r->loop_set)->owner;
    struct dealt_conn *c;
    unsigned total;

    if ((total = ++r->session_total) > r->stats.max_concurrent)
        r->stats.max_concurrent = total;
    if (total >= r->opts->max_sessions && !r->accept_paused) {
        /* As Postfix at its process limit: the next clients wait in the backlog. */
        r->accept_paused = 1;
        r->stats.session_limit_waits++;
        listener_disable(r->listener);
        /* A session that ended meanwhile on another loop did not see the pause. */
        resume_accepting(r);
    }
    if (best->index == 0) {
        best->server->accept(best, fd, addr);
        return;
    }
    c = xcalloc(1, sizeof(*c));
    c->item.run = on_dealt;
    c->loop = best;
    c->fd = fd;
    memcpy(&c->addr, addr,
           addrlen > 0 && (size_t)addrlen < sizeof(c->addr) ? (size_t)addrlen : sizeof(c->addr));
    loops_post(best->harness, &c->item);
}

void relay_loop_session_ended(struct relay_loop *loop)
{
    struct relay *r = loop->relay;

    loops_session_ended(loop->harness);
    r->session_total--;
    if (!r->accept_paused || r->stopping)
        return;
    if (loop->index == 0)
        resume_accepting(r);
    else if (!atomic_exchange(&r->resume_posted, 1))
        loops_post(r->loops[0].harness, &r->resume_item);
}

void relay_loop_close_sessions(struct relay *r)
{
    loops_each(r->loop_set, on_close);
}

unsigned relay_loop_pending(const struct relay *r)
{
    unsigned pending = 0;

    for (unsigned i = 0; i < r->loop_count; i++) {
        const struct relay_loop *loop = &r->loops[i];

        pending += io_pool_pending(loop->cleanup) + mailbox_pending(loop->inbox);
        if (loop->smtpd)
            pending += io_pool_pending(loop->smtpd);
    }
    return pending;
}

uint64_t relay_loop_take_cpu(struct relay *r)
{
    uint64_t total = 0;

    for (unsigned i = 1; i < r->loop_count; i++) {
        clockid_t clock;
        struct timespec ts;

        /* Once joined, the thread's clock is gone: its last word is in cpu_ns. */
        if (!r->loops_joined && pthread_getcpuclockid(r->loops[i].harness->thread, &clock) == 0 &&
            clock_gettime(clock, &ts) == 0)
            r->loops[i].cpu_ns = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
        total += r->loops[i].cpu_ns;
    }
    return total;
}

uint64_t relay_loop_pool_cpu_ns(const struct relay *r)
{
    uint64_t total = 0;

    for (unsigned i = 0; i < r->loop_count; i++) {
        total += io_pool_cpu_ns(r->loops[i].cleanup);
        if (r->loops[i].smtpd)
            total += io_pool_cpu_ns(r->loops[i].smtpd);
    }
    return total;
}

void relay_loop_join(struct relay *r)
{
    loops_stop(r->loop_set);
    loops_join(r->loop_set);
    r->loops_joined = 1;
}

void relay_loop_drain(struct relay *r)
{
    int busy;

    do {
        busy = 0;
        /* smtpd first: a reply it gives may send a message to cleanup */
        for (unsigned i = 0; i < r->loop_count; i++)
            if (r->loops[i].smtpd && io_pool_pending(r->loops[i].smtpd)) {
                io_pool_drain(r->loops[i].smtpd);
                busy = 1;
            }
        for (unsigned i = 0; i < r->loop_count; i++)
            if (io_pool_pending(r->loops[i].cleanup)) {
                io_pool_drain(r->loops[i].cleanup);
                busy = 1;
            }
        if (r->qmgr != r->cleanup && io_pool_pending(r->qmgr)) {
            io_pool_drain(r->qmgr);
            busy = 1;
        }
        for (unsigned i = 0; i < r->loop_count; i++)
            if (mailbox_run(r->loops[i].inbox) > 0)
                busy = 1;
    } while (busy);
}

void relay_loop_warn(struct relay_loop *loop, enum relay_warn which, const char *what, int err,
                     const char *fmt, ...)
{
    char key[MSG_LIMIT_KEY], text[1024];
    va_list ap;

    snprintf(key, sizeof(key), "%s: %s", what, strerror(err));
    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    msg_warn_limited(&loop->warn[which], clock_now_ns(), key, "%s", text);
}

void relay_loop_warn_flush(struct relay *r)
{
    uint64_t now = clock_now_ns();

    for (unsigned i = 0; i < r->loop_count; i++)
        for (unsigned w = 0; w < RELAY_WARN_COUNT; w++)
            msg_limit_flush(&r->loops[i].warn[w], now);
}

void relay_loop_free(struct relay *r)
{
    for (unsigned i = 0; i < r->loop_count; i++) {
        struct relay_loop *loop = &r->loops[i];

        io_pool_free(loop->cleanup); /* the queue manager's too, in the pool shape */
        io_pool_free(loop->smtpd);
    }
    loops_free(r->loop_set); /* the mailboxes, and the bases but loop 0's, which is r->base */
    r->loop_set = NULL;
    free(r->loops);
    r->loops = NULL;
    r->loop_count = 0;
    r->cleanup = r->smtpd = NULL;
}
