/*
 * mailbox - work posted to an event loop from any thread; see mailbox.h.
 *
 * The items wait on a list under a mutex. The post that finds the list
 * empty writes one byte to a pipe the loop watches; the loop takes the
 * whole list at once and runs it, so posts that come while it is awake
 * cost no system call at all.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mailbox.h"
#include "msg.h"
#include "xalloc.h"

struct mailbox {
    pthread_mutex_t lock;
    struct mailbox_item *head, *tail; /* under `lock' */
    _Atomic unsigned pending;
    int wake[2];
    struct event *wake_event;
};

static struct mailbox_item *take_all(struct mailbox *mb)
{
    struct mailbox_item *head;

    pthread_mutex_lock(&mb->lock);
    head = mb->head;
    mb->head = mb->tail = NULL;
    pthread_mutex_unlock(&mb->lock);
    return head;
}

unsigned mailbox_run(struct mailbox *mb)
{
    unsigned ran = 0;
    struct mailbox_item *item;

    while ((item = take_all(mb)) != NULL) {
        while (item) {
            struct mailbox_item *next = item->next;

            /* Counted out before it runs: it may post itself again. */
            atomic_fetch_sub(&mb->pending, 1);
            item->run(item);
            ran++;
            item = next;
        }
    }
    return ran;
}

static void on_wake(evutil_socket_t fd, short what, void *arg)
{
    char buf[64];

    (void)what;
    /* Emptied first: a post after this read writes a byte that wakes us again. */
    while (read(fd, buf, sizeof(buf)) > 0)
        continue;
    mailbox_run(arg);
}

struct mailbox *mailbox_new(struct event_base *base)
{
    struct mailbox *mb = xcalloc(1, sizeof(*mb));

    pthread_mutex_init(&mb->lock, NULL);
    atomic_init(&mb->pending, 0);
    if (pipe2(mb->wake, O_NONBLOCK | O_CLOEXEC) != 0)
        msg_fatal("pipe: %s", strerror(errno));
    mb->wake_event = event_new(base, mb->wake[0], EV_READ | EV_PERSIST, on_wake, mb);
    if (mb->wake_event == NULL || event_add(mb->wake_event, NULL) != 0)
        msg_fatal("cannot watch a mailbox's pipe");
    return mb;
}

void mailbox_post(struct mailbox *mb, struct mailbox_item *item)
{
    int was_empty;

    item->next = NULL;
    atomic_fetch_add(&mb->pending, 1);
    pthread_mutex_lock(&mb->lock);
    was_empty = mb->head == NULL;
    if (mb->tail)
        mb->tail->next = item;
    else
        mb->head = item;
    mb->tail = item;
    pthread_mutex_unlock(&mb->lock);
    if (was_empty) {
        char byte = 0;

        /* A full pipe already holds a wake-up: nothing is lost. */
        (void)!write(mb->wake[1], &byte, 1);
    }
}

unsigned mailbox_pending(const struct mailbox *mb)
{
    return atomic_load(&mb->pending);
}

void mailbox_free(struct mailbox *mb)
{
    if (mb == NULL)
        return;
    event_free(mb->wake_event);
    close(mb->wake[0]);
    close(mb->wake[1]);
    pthread_mutex_destroy(&mb->lock);
    free(mb);
}
