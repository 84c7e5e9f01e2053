/*
 * io_pool - blocking work off the event loop; see io_pool.h.
 *
 * Finished jobs are posted back to the loop through a mailbox
 * (common/net/mailbox.h), so a burst of completions costs one wake-up, not
 * one per job.
 *
 * Submitting does not wake a thread. The loop wakes them once per pass
 * (flush_wakes(), from an event activated by the first submit of the
 * pass, so it runs after the pass's other callbacks) and only as many as
 * the queued work needs: a thread that is awake takes queued jobs without
 * a wake-up, and one that has been in its job less than BATCH_NS is
 * counted as able to run BATCH_NS worth of them, at the pool's mean job
 * time. A job that is slow (an fsync on a disk) makes the mean large, so
 * such jobs get a thread each, as many at once as before; jobs that are
 * fast (tmpfs) share a thread, and each wake-up and sleep, a context
 * switch on both sides, serves several of them.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "io_pool.h"
#include "mailbox.h"
#include "msg.h"
#include "xalloc.h"

struct job_list {
    struct io_job *head, *tail;
};

struct pool_thread_arg {
    struct io_pool *pool;
    unsigned index;     /* the pool's first index plus its place */
    uint64_t job_start; /* when its current job began; 0 when it has none: under `lock' */
};

/*
 * How much queued work an awake thread is expected to absorb without
 * another thread being woken: also about the latency that batching can
 * add to a job.
 */
#define BATCH_NS 200000ULL

struct io_pool {
    pthread_mutex_t lock;
    pthread_cond_t work_ready; /* a job was queued, or the pool stops */
    pthread_cond_t work_done;  /* a job finished (io_pool_drain waits on it) */
    struct job_list queued;
    struct mailbox *finished; /* jobs whose done() is to run */
    unsigned queued_n;        /* jobs in `queued' */
    unsigned idle;            /* threads waiting for work_ready */
    unsigned waking;          /* signals sent for work_ready that no thread has taken up yet */
    uint64_t mean_ns;         /* a moving mean of work()'s wall time; 0 until a job has run */
    _Atomic unsigned pending; /* submitted, done() not run: changed on the loop thread only */
    int stopping;
    pthread_t *threads;
    struct pool_thread_arg *thread_args;
    unsigned thread_count;
    uint64_t busy_ns;          /* wall time spent in work(), all threads: under `lock' */
    struct event *flush_event; /* loop side: flush_wakes() after this pass */
    int flush_armed;           /* loop side: flush_event is active */
};

static void list_push(struct job_list *list, struct io_job *job)
{
    job->next = NULL;
    if (list->tail)
        list->tail->next = job;
    else
        list->head = job;
    list->tail = job;
}

static void *pool_thread(void *arg)
{
    struct pool_thread_arg *self = arg;
    struct io_pool *pool = self->pool;

    pthread_mutex_lock(&pool->lock);
    for (;;) {
        struct io_job *job;
        uint64_t started, finished, took;

        if (pool->queued.head == NULL && !pool->stopping) {
            pool->idle++;
            while (pool->queued.head == NULL && !pool->stopping) {
                pthread_cond_wait(&pool->work_ready, &pool->lock);
                /*
                 * Taken up, even if another thread took the job meanwhile:
                 * a signal counted for ever would stop the wake-ups. A
                 * spurious return only makes the next flush wake one more.
                 */
                if (pool->waking > 0)
                    pool->waking--;
            }
            pool->idle--;
        }
        if (pool->queued.head == NULL)
            break;
        job = pool->queued.head;
        pool->queued.head = job->next;
        if (pool->queued.head == NULL)
            pool->queued.tail = NULL;
        pool->queued_n--;
        started = clock_now_ns();
        self->job_start = started;
        pthread_mutex_unlock(&pool->lock);

        job->thread = self->index; /* per-thread state, without a lock */
        job->work(job);
        finished = clock_now_ns();
        took = finished - started;
        /*
         * Outside the lock, which the loop and the other threads need
         * meanwhile; the job is the loop's from here on.
         */
        mailbox_post(pool->finished, &job->finished);

        pthread_mutex_lock(&pool->lock);
        self->job_start = 0;
        pool->busy_ns += took;
        pool->mean_ns = pool->mean_ns ? pool->mean_ns - pool->mean_ns / 8 + took / 8 : took;
        pthread_cond_broadcast(&pool->work_done); /* after the post: io_pool_drain looks there */
    }
    pthread_mutex_unlock(&pool->lock);
    return NULL;
}

/*
 * Wake as many idle threads as the queued jobs need (see the top of this
 * file). Whatever it decides, no job is left behind: a thread that is
 * awake looks at the queue before it sleeps, and with none awake at least
 * one is woken.
 */
static void flush_wakes(struct io_pool *pool)
{
    uint64_t now = clock_now_ns(), capacity = 0, per_thread;
    unsigned wake = 0;

    pthread_mutex_lock(&pool->lock);
    /* In units of a mean job: how many jobs one fresh thread takes in BATCH_NS. */
    per_thread = pool->mean_ns ? BATCH_NS / pool->mean_ns : 0;
    if (per_thread == 0)
        per_thread = 1;
    capacity = (uint64_t)pool->waking * per_thread;
    for (unsigned i = 0; i < pool->thread_count && pool->mean_ns; i++) {
        uint64_t start = pool->thread_args[i].job_start;

        if (start && now - start < BATCH_NS)
            capacity += (BATCH_NS - (now - start)) / pool->mean_ns;
    }
    while (capacity < pool->queued_n && wake < pool->idle - pool->waking) {
        capacity += per_thread;
        wake++;
    }
    pool->waking += wake;
    pthread_mutex_unlock(&pool->lock);
    /*
     * After the unlock: a thread woken while we held the lock would only
     * wake up to wait for it, one more sleep and wake-up for both sides.
     */
    for (unsigned i = 0; i < wake; i++)
        pthread_cond_signal(&pool->work_ready);
}

static void on_flush(evutil_socket_t fd, short what, void *arg)
{
    struct io_pool *pool = arg;

    (void)fd;
    (void)what;
    pool->flush_armed = 0;
    flush_wakes(pool);
}

#define JOB_OF(item) ((struct io_job *)((char *)(item)-offsetof(struct io_job, finished)))

/* A finished job, on the loop thread; it may submit more. */
static void run_finished(struct mailbox_item *item)
{
    struct io_job *job = JOB_OF(item);
    struct io_pool *pool = job->pool;

    pool->pending--;
    /*
     * The wakes are looked at again after this pass: a thread counted as
     * absorbing the queue may be stuck in a slow job since.
     */
    if (!pool->flush_armed) {
        pool->flush_armed = 1;
        event_active(pool->flush_event, 0, 0);
    }
    job->done(job);
}

struct io_pool *io_pool_new(struct event_base *base, unsigned threads, unsigned first,
                            const char *name)
{
    struct io_pool *pool = xcalloc(1, sizeof(*pool));

    pthread_mutex_init(&pool->lock, NULL);
    pthread_cond_init(&pool->work_ready, NULL);
    pthread_cond_init(&pool->work_done, NULL);
    pool->finished = mailbox_new(base);
    pool->flush_event = event_new(base, -1, 0, on_flush, pool);
    pool->thread_count = threads ? threads : 1;
    pool->threads = xcalloc(pool->thread_count, sizeof(*pool->threads));
    pool->thread_args = xcalloc(pool->thread_count, sizeof(*pool->thread_args));
    for (unsigned i = 0; i < pool->thread_count; i++) {
        int err;

        pool->thread_args[i].pool = pool;
        pool->thread_args[i].index = first + i;
        err = pthread_create(&pool->threads[i], NULL, pool_thread, &pool->thread_args[i]);
        if (err != 0) {
            errno = err;
            msg_fatal("cannot start an I/O thread: %s", strerror(errno));
        }
        /* The name shows in /proc/PID/task/TID/comm: CPU per role (docs/fidelity.md). */
        pthread_setname_np(pool->threads[i], name);
    }
    return pool;
}

uint64_t io_pool_busy_ns(struct io_pool *pool)
{
    uint64_t busy;

    pthread_mutex_lock(&pool->lock);
    busy = pool->busy_ns;
    pthread_mutex_unlock(&pool->lock);
    return busy;
}

uint64_t io_pool_cpu_ns(const struct io_pool *pool)
{
    uint64_t total = 0;

    for (unsigned i = 0; i < pool->thread_count; i++) {
        clockid_t clock;
        struct timespec ts;

        if (pthread_getcpuclockid(pool->threads[i], &clock) == 0 && clock_gettime(clock, &ts) == 0)
            total += (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
    }
    return total;
}

void io_pool_submit(struct io_pool *pool, struct io_job *job)
{
    job->pool = pool;
    job->finished.run = run_finished;
    pool->pending++;
    pthread_mutex_lock(&pool->lock);
    list_push(&pool->queued, job);
    pool->queued_n++;
    pthread_mutex_unlock(&pool->lock);
    /*
     * The wake-up waits for the end of this pass of the loop: libevent runs
     * an event made active now after those already active, so every job
     * the pass submits is counted by one flush_wakes().
     */
    if (!pool->flush_armed) {
        pool->flush_armed = 1;
        event_active(pool->flush_event, 0, 0);
    }
}

unsigned io_pool_pending(const struct io_pool *pool)
{
    return pool->pending;
}

void io_pool_drain(struct io_pool *pool)
{
    while (pool->pending > 0) {
        flush_wakes(pool); /* no loop runs here to do it: done() may have submitted more */
        pthread_mutex_lock(&pool->lock);
        while (mailbox_pending(pool->finished) == 0)
            pthread_cond_wait(&pool->work_done, &pool->lock);
        pthread_mutex_unlock(&pool->lock);
        mailbox_run(pool->finished);
    }
}

void io_pool_free(struct io_pool *pool)
{
    if (pool == NULL)
        return;
    pthread_mutex_lock(&pool->lock);
    pool->stopping = 1;
    pthread_cond_broadcast(&pool->work_ready);
    pthread_mutex_unlock(&pool->lock);
    for (unsigned i = 0; i < pool->thread_count; i++)
        pthread_join(pool->threads[i], NULL);
    mailbox_free(pool->finished);
    event_free(pool->flush_event);
    pthread_cond_destroy(&pool->work_ready);
    pthread_cond_destroy(&pool->work_done);
    pthread_mutex_destroy(&pool->lock);
    free(pool->threads);
    free(pool->thread_args);
    free(pool);
}
