/*
 * bev_in - read a plain bufferevent's socket with one read() per event.
 *
 * A socket bufferevent asks the kernel how much is readable (ioctl
 * FIONREAD) before every read, then reads with readv: two syscalls for
 * each SMTP command or reply, a third of all a session makes. bev_in
 * keeps the bufferevent's own reading off and reads the socket itself,
 * with an event of its own, into the bufferevent's input buffer, at
 * most BEV_IN_READ_MAX bytes at a time as libevent does. Its callbacks
 * get what the bufferevent's would: the read callback after new bytes,
 * the event callback with BEV_EVENT_READING and EOF, ERROR or TIMEOUT
 * (reading is off by then, as with a bufferevent).
 *
 * The idle timeout is a timer of its own, armed when reading starts and
 * not touched by each read: a read event that carried the timeout would
 * re-add it to libevent's timer heap on every read, four times a message
 * in a session. The timer checks, when it fires, how long ago the last
 * read event came, and waits out the rest: the timeout means the same
 * (that long without a read event while reading is on).
 *
 * Lending (bev_in_lend()): a read into an empty input buffer lands in a
 * buffer on the stack, which the input buffer only references for the
 * read callback's time. An input buffer drained to empty frees its
 * storage, so without this every command line would cost a 4 KiB
 * allocation and its free. The callback must call bev_in_settle() after
 * it has taken what it will and before anything can free the
 * bufferevent: whatever it left is then copied into the buffer's own
 * memory.
 *
 * Plain sockets only: a TLS bufferevent reads through OpenSSL. Stop it
 * (bev_in_stop) before the bufferevent goes or changes hands. The read
 * callback is the last thing bev_in does in its event, so the callbacks
 * may stop it and free what holds it.
 */
#ifndef SPOOLSIM_BEV_IN_H
#define SPOOLSIM_BEV_IN_H

#include <event2/bufferevent.h>
#include <event2/event.h>
#include <stdint.h>

/* libevent's own most per read (EVBUFFER_MAX_READ): input limits keep their meaning. */
#define BEV_IN_READ_MAX 4096

struct bev_in {
    struct bufferevent *bev;
    struct event *ev;    /* NULL: stopped */
    struct event *timer; /* the idle timeout */
    bufferevent_data_cb on_read;
    bufferevent_event_cb on_event;
    void *arg;
    struct timeval timeout;
    uint64_t timeout_ns;
    uint64_t last_ns; /* the last read event (or reading's start), clock_now_ns() */
    int has_timeout;
    int enabled;
    int lend;         /* bev_in_lend() was called */
    const char *lent; /* during the read callback: the stack buffer the input references */
    size_t lent_len;
};

/* Take over reading `bev' (whose EV_READ stays off), still disabled. Returns 0, or -1. */
int bev_in_start(struct bev_in *in, struct bufferevent *bev, bufferevent_data_cb on_read,
                 bufferevent_event_cb on_event, void *arg);
/* The idle timeout of reading; NULL: none. Restarts it when reading is on. */
void bev_in_set_timeout(struct bev_in *in, const struct timeval *tv);
/* Reading on or off; calls that change nothing cost nothing. */
void bev_in_enable(struct bev_in *in);
void bev_in_disable(struct bev_in *in);
/* Reads into an empty input buffer are lent to the read callback (above). */
void bev_in_lend(struct bev_in *in);
/*
 * From the read callback: what it left of a lent read becomes the input
 * buffer's own. Nothing to do once bev_in_stop() was called (before a
 * bufferevent is freed or handed to TLS).
 */
void bev_in_settle(struct bev_in *in);
/* Give the event up; the bufferevent stays as it is. Harmless when stopped. */
void bev_in_stop(struct bev_in *in);

#endif
