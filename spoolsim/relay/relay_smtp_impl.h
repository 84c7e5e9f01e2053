/*
 * relay_smtp_impl - what the relay's client to the next hop shares
 * between its two files: relay_smtp.c, the connections and what the
 * hop's replies mean, and relay_smtp_text.c, a message's text on its way
 * from the queue file (or memory) into a connection's output. Only they
 * include it.
 */
#ifndef SPOOLSIM_RELAY_SMTP_IMPL_H
#define SPOOLSIM_RELAY_SMTP_IMPL_H

#include <event2/buffer.h>
#include <event2/event.h>
#include <stddef.h>
#include <stdint.h>

#include "relay_private.h"
#include "smtp_client.h"
#include "smtp_stuff.h"
#include "smtp_txn.h"

struct text_stream;

struct relay_conn {
    struct smtp_client_conn client; /* the connection itself */
    struct relay *relay;
    struct relay_loop *loop; /* the one it runs on; its message is handed back to loop 0 */
    struct relay_conn *prev, *next;
    enum smtp_step state; /* whose reply comes next; in a transaction, txn.step */
    struct smtp_txn txn;  /* the message's, from MAIL to the dot */
    int pipelining;       /* the hop offered PIPELINING */
    unsigned extensions;  /* what the last EHLO reply offered */
    int closed;           /* the connection is gone; the memory goes at the next turn */
    int counted_idle;     /* in its loop's idle_conns */
    struct relay_msg *msg;
    unsigned rcpt; /* index of the recipient whose RCPT reply comes next */
    /*
     * The cache time; once the connection is closed, the free at the next
     * turn of the loop (an event of its own, which goes with it: nothing is
     * left for a loop that ends first). The cache time is a libevent common
     * timeout: the timer goes on and off with every message, and on a
     * common timeout that is a list append, not a heap operation.
     */
    struct event *idle_timer;
    struct timeval cache_time;
    /* the text under way: its stuffing state, and where it is taken from */
    struct smtp_stuffer stuffer;
    uint64_t text_off;          /* a message in memory: the file offset of its next record */
    struct text_stream *stream; /* a file read a window at a time; NULL for one in memory */
};

/*
 * relay_smtp.c: bytes written straight into space reserved at the end of
 * an output buffer: a command or the stuffed text is put together in
 * place, with no printf, staging copy or allocation of its own.
 */
struct out_room {
    struct evbuffer *out;
    struct evbuffer_iovec v; /* v.iov_len: the size reserved */
    size_t used;
};

/* At least `need' bytes free at r->v.iov_base + r->used; `want' if a new piece is taken. */
char *relay_smtp_room_get(struct out_room *r, size_t need, size_t want);
void relay_smtp_room_put(struct out_room *r, const char *data, size_t len);
/* What was put goes into the output. */
void relay_smtp_room_commit(struct out_room *r);

/* relay_smtp_text.c: after the hop's 354, the text and the dot, a window at a time. */
void relay_smtp_text_start(struct relay_conn *c);
/* The output has drained to its low-water mark: the next piece, if any. */
void relay_smtp_text_resume(struct relay_conn *c);
/* The connection ends: its stream goes now, or when the read under way is done. */
void relay_smtp_text_drop(struct relay_conn *c);

/*
 * relay_smtp.c: the text cannot go on (the queue file is damaged, or a
 * read failed): the connection is dropped before the dot.
 */
void relay_smtp_text_failed(struct relay_conn *c, int damaged, const char *why);

#endif
