/*
 * io_pool - blocking work off the event loop; see io_pool.h.
 *
 * Finished jobs go on a list under a mutex; the first one to land on an
 * empty list writes one byte to a pipe the loop watches, so a burst of
 * completions costs one wake-up, not one per job.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
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
    unsigned index;
};

struct io_pool {
    pthread_mutex_t lock;
    pthread_cond_t work_ready; /* a job was queued, or the pool stops */
    pthread_cond_t work_done;  /* a job finished (io_pool_drain waits on it) */
    struct job_list queued, finished;
    unsigned running; /* jobs a thread has taken and not finished */
    unsigned pending; /* loop side: submitted, done() not run */
    int stopping;
    pthread_t *threads;
    struct pool_thread_arg *thread_args;
    unsigned thread_count;
    uint64_t busy_ns; /* wall time spent in work(), all threads: under `lock' */
    int wake[2];
    struct event *wake_event;
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
        uint64_t started, finished;

        while (pool->queued.head == NULL && !pool->stopping)
            pthread_cond_wait(&pool->work_ready, &pool->lock);
        if (pool->queued.head == NULL)
            break;
        job = pool->queued.head;
        pool->queued.head = job->next;
        if (pool->queued.head == NULL)
            pool->queued.tail = NULL;
        pool->running++;
        pthread_mutex_unlock(&pool->lock);

        job->thread = self->index; /* per-thread state, without a lock */
        started = clock_now_ns();
        job->work(job);
        finished = clock_now_ns();

        pthread_mutex_lock(&pool->lock);
        pool->busy_ns += finished - started;
        pool->running--;
        was_empty = pool->finished.head == NULL;
        list_push(&pool->finished, job);
        if (was_empty && pool->wake[1] >= 0) {
            char byte = 0;

            /* A full pipe already holds a wake-up: nothing is lost. */
            (void)!write(pool->wake[1], &byte, 1);
        }
        pthread_cond_broadcast(&pool->work_done);
    }
    pthread_mutex_unlock(&pool->lock);
    return NULL;
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
}

struct io_pool *io_pool_new(struct event_base *base, unsigned threads, const char *name)
{
    struct io_pool *pool = xcalloc(1, sizeof(*pool));

    pthread_mutex_init(&pool->lock, NULL);
    pthread_cond_init(&pool->work_ready, NULL);
    pthread_cond_init(&pool->work_done, NULL);
    if (pipe2(pool->wake, O_NONBLOCK | O_CLOEXEC) != 0)
        msg_fatal("pipe: %s", strerror(errno));
    pool->wake_event = event_new(base, pool->wake[0], EV_READ | EV_PERSIST, on_wake, pool);
    event_add(pool->wake_event, NULL);
    pool->thread_count = threads ? threads : 1;
    pool->threads = xcalloc(pool->thread_count, sizeof(*pool->threads));
    pool->thread_args = xcalloc(pool->thread_count, sizeof(*pool->thread_args));
    for (unsigned i = 0; i < pool->thread_count; i++) {
        int err;

        pool->thread_args[i].pool = pool;
        pool->thread_args[i].index = i;
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
    pthread_cond_signal(&pool->work_ready);
    pthread_mutex_unlock(&pool->lock);
}

unsigned io_pool_pending(const struct io_pool *pool)
{
    return pool->pending;
}

void io_pool_drain(struct io_pool *pool)
{
    while (pool->pending > 0) {
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
    close(pool->wake[0]);
    close(pool->wake[1]);
    pthread_cond_destroy(&pool->work_ready);
    pthread_cond_destroy(&pool->work_done);
    pthread_mutex_destroy(&pool->lock);
    free(pool->threads);
    free(pool->thread_args);
    free(pool);
}
