/*
 * mailbox - work posted to an event loop from any thread.
 *
 * A program with several event loops owns each object on one of them;
 * another thread that needs something done to an object posts an item to
 * the owner's mailbox, and the item's function runs later on the owner's
 * loop thread, items from one poster in the order they were posted. The
 * item is the poster's memory (usually a field of the object it is about)
 * and may be posted again only once its function has begun. A burst of
 * posts costs the owner one wake-up, not one per item.
 */
#ifndef SPOOLSIM_MAILBOX_H
#define SPOOLSIM_MAILBOX_H

#include <event2/event.h>

struct mailbox_item {
    struct mailbox_item *next;
    void (*run)(struct mailbox_item *item); /* on the mailbox's loop thread */
};

struct mailbox;

struct mailbox *mailbox_new(struct event_base *base);

/* Any thread: queue `item' to run on the mailbox's loop. */
void mailbox_post(struct mailbox *mb, struct mailbox_item *item);

/* Items posted whose run() has not begun; any thread may ask. */
unsigned mailbox_pending(const struct mailbox *mb);

/*
 * Run what is queued, here, including what those runs post in turn; for a
 * loop that no longer runs (at exit). Returns how many ran.
 */
unsigned mailbox_run(struct mailbox *mb);

void mailbox_free(struct mailbox *mb);

#endif
