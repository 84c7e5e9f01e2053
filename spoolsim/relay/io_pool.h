/*
 * io_pool - blocking work off the event loop, completions back on it.
 *
 * A pool is a FIFO of jobs and N threads that run them. A job's work()
 * runs on a pool thread and may block on the disk; its done() runs later
 * on the loop thread, from an event, so everything that owns sockets and
 * state stays single-threaded. With one thread a pool runs its jobs in
 * the order they were submitted: that is how the relay models Postfix's
 * single queue manager, and many threads model its many cleanup processes.
 */
#ifndef SPOOLSIM_IO_POOL_H
#define SPOOLSIM_IO_POOL_H

#include <event2/event.h>
#include <stdint.h>

#include "mailbox.h"

struct io_pool;

struct io_job {
    struct io_job *next;
    void (*work)(struct io_job *job); /* pool thread */
    void (*done)(struct io_job *job); /* loop thread */
    unsigned thread; /* set for work(): which thread runs it, from the pool's first index */
    /* the pool's own: */
    struct io_pool *pool;
    struct mailbox_item finished; /* posted back to the loop */
};

/*
 * `name' (at most 15 bytes) names the threads, for per-thread CPU
 * accounting. The threads are numbered from `first' on (io_job.thread), so
 * that several pools can index one table of per-thread state.
 */
struct io_pool *io_pool_new(struct event_base *base, unsigned threads, unsigned first,
                            const char *name);

/*
 * Queue a job; the caller keeps it alive until done() has run. On the loop
 * thread: the pool's threads are woken, as many as needed, once the loop's
 * current pass is over (io_pool.c).
 */
void io_pool_submit(struct io_pool *pool, struct io_job *job);

/* CPU time, user and system, the pool's threads have used so far, in nanoseconds. */
uint64_t io_pool_cpu_ns(const struct io_pool *pool);

/* Wall time the pool's threads have spent in work() so far, in nanoseconds. */
uint64_t io_pool_busy_ns(struct io_pool *pool);

/* Jobs submitted whose done() has not run yet; any thread may ask. */
unsigned io_pool_pending(const struct io_pool *pool);

/*
 * Outside the loop (at shutdown): wait until every job submitted has
 * finished its work, and run the done() callbacks here, including those of
 * jobs they submit in turn.
 */
void io_pool_drain(struct io_pool *pool);

/* Stop the threads (after the queued jobs) and free the pool; drain first. */
void io_pool_free(struct io_pool *pool);

#endif
