/*
 * io_pool - blocking work off the event loop; see io_pool.h.
 *
 * Finished jobs go on a list under a mutex; the first one to land on an
 * empty list writes one byte to a pipe the loop watches, so a burst of
 * completions costs one wake-up, not one per job.
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
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "io_pool.h"
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
    struct job_list queued, finished;
    unsigned running;         /* jobs a thread has taken and not finished */
    unsigned queued_n;        /* jobs in `queued' */
    unsigned idle;            /* threads waiting for work_ready */
    unsigned waking;          /* signals sent for work_ready that no thread has taken up yet */
    uint64_t mean_ns;         /* a moving mean of work()'s wall time; 0 until a job has run */
    _Atomic unsigned pending; /* submitted, done() not run: changed on the loop thread only */
    int stopping;
    pthread_t *threads;
    struct pool_thread_arg *thread_args;
    unsigned thread_count;
    uint64_t busy_ns; /* wall time spent in work(), all threads: under `lock' */
    int wake[2];
    struct event *wake_event;
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

static struct io_job *list_take_all(struct job_list *list)
{
    struct io_job *head = list->head;

    list->head = list->tail = NULL;
    return head;
}

static void *pool_thread(void *arg)
{
    struct pool_thread_arg *self = arg;
    struct io_pool *pool = self->pool;

    pthread_mutex_lock(&pool->lock);
    for (;;) {
        struct io_job *job;
        int was_empty;
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
        pool->running++;
        started = clock_now_ns();
        self->job_start = started;
        pthread_mutex_unlock(&pool->lock);

        job->thread = self->index; /* per-thread state, without a lock */
        job->work(job);
        finished = clock_now_ns();
        took = finished - started;

        pthread_mutex_lock(&pool->lock);
        self->job_start = 0;
        pool->busy_ns += took;
        pool->mean_ns = pool->mean_ns ? pool->mean_ns - pool->mean_ns / 8 + took / 8 : took;
        pool->running--;
        was_empty = pool->finished.head == NULL;
        list_push(&pool->finished, job);
        pthread_cond_broadcast(&pool->work_done);
        if (was_empty && pool->wake[1] >= 0) {
            char byte = 0;

            /* Outside the lock: the loop and the other threads need it meanwhile. */
            pthread_mutex_unlock(&pool->lock);
            /* A full pipe already holds a wake-up: nothing is lost. */
            (void)!write(pool->wake[1], &byte, 1);
            pthread_mutex_lock(&pool->lock);
        }
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
    for (unsigned i = 0; i < wake; i++)
        pthread_cond_signal(&pool->work_ready);
    pthread_mutex_unlock(&pool->lock);
}

static void on_flush(evutil_socket_t fd, short what, void *arg)
{
    struct io_pool *pool = arg;

    (void)fd;
    (void)what;
    pool->flush_armed = 0;
    flush_wakes(pool);
}

/* Run done() for what has finished, in order; jobs may submit more. */
static void run_finished(struct io_pool *pool)
{
    struct io_job *job;

    pthread_mutex_lock(&pool->lock);
    job = list_take_all(&pool->finished);
    pthread_mutex_unlock(&pool->lock);
    while (job) {
        struct io_job *next = job->next;

        pool->pending--;
        job->done(job);
        job = next;
    }
}

static void on_wake(evutil_socket_t fd, short what, void *arg)
{
    char buf[256];

    (void)what;
    while (read(fd, buf, sizeof(buf)) > 0)
        continue;
    run_finished(arg);
    /* A thread counted as absorbing the queue may be stuck in a slow job since. */
    flush_wakes(arg);
}

struct io_pool *io_pool_new(struct event_base *base, unsigned threads, unsigned first,
                            const char *name)
{
    struct io_pool *pool = xcalloc(1, sizeof(*pool));

    pthread_mutex_init(&pool->lock, NULL);
    pthread_cond_init(&pool->work_ready, NULL);
    pthread_cond_init(&pool->work_done, NULL);
    if (pipe2(pool->wake, O_NONBLOCK | O_CLOEXEC) != 0)
        msg_fatal("pipe: %s", strerror(errno));
    pool->wake_event = event_new(base, pool->wake[0], EV_READ | EV_PERSIST, on_wake, pool);
    event_add(pool->wake_event, NULL);
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
        while (pool->finished.head == NULL)
            pthread_cond_wait(&pool->work_done, &pool->lock);
        pthread_mutex_unlock(&pool->lock);
        run_finished(pool);
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
    event_free(pool->wake_event);
    event_free(pool->flush_event);
    close(pool->wake[0]);
    close(pool->wake[1]);
    pthread_cond_destroy(&pool->work_ready);
    pthread_cond_destroy(&pool->work_done);
    pthread_mutex_destroy(&pool->lock);
    free(pool->threads);
    free(pool->thread_args);
    free(pool);
}
