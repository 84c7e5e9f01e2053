/*
 * relay_qmgr - the relay's queue manager, as the rest of the relay sees it.
 *
 * Its state (the lists of messages, the queue counts, flow control) is a
 * struct relay_qmgr that only the queue manager's files see
 * (relay_qmgr_impl.h); everyone else goes through these functions, all on
 * the loop thread. The file work behind them is the spool table's
 * (relay_spool.h).
 *
 * relay_qmgr.c      the scheduler: the lists, flow control, messages' life
 * relay_cleanup.c   the receiving side: a message's file until its commit
 * relay_attempt.c   one delivery attempt: activation, recording, retiring,
 *                   the bounce service's turn, retries
 */
#ifndef SPOOLSIM_RELAY_QMGR_H
#define SPOOLSIM_RELAY_QMGR_H

#include <stdint.h>

struct relay;
struct relay_msg;

/* Made before anything is queued; freed with every message still known. */
void relay_qmgr_new(struct relay *r);
void relay_qmgr_free(struct relay *r);

/*
 * The cleanup side. With a streaming spool (postfix) a message's file is
 * made at the first accepted RCPT and written as the text comes, each
 * step a job of its own on a cleanup thread, one at a time per message,
 * then the session's waiter (relay_msg.h); the other spools get the whole
 * message at the end of data. A message that will not be finished goes to
 * relay_cleanup_abort(), which removes its file and frees it.
 */
int relay_cleanup_streams(const struct relay *r);
void relay_cleanup_open(struct relay_msg *m);  /* create the file, write the envelope's start */
void relay_cleanup_write(struct relay_msg *m); /* m->qf's records so far */
void relay_cleanup_abort(struct relay_msg *m); /* no job of m under way */
/* The end of data: a flow token, then the commit on a cleanup thread. */
void relay_qmgr_enqueue(struct relay *r, struct relay_msg *m);
/* Recovery found a queued file (pf_recover_spool's callback; ctx is the relay). */
void relay_qmgr_found(void *ctx, const char *queue, const char *id, long mtime);
void relay_attempt_delivered(struct relay_msg *m); /* the next hop's answers are in m->results */
/* At exit, a delivery given up halfway: the message stays queued for the next start. */
void relay_qmgr_abandoned(struct relay_msg *m);
void relay_qmgr_kick(struct relay *r);
void relay_qmgr_flow_flush(struct relay *r); /* at a stop: nothing waits for tokens any more */
struct relay_msg *relay_qmgr_next_ready(struct relay *r); /* for a delivery agent, or NULL */
unsigned relay_qmgr_ready_count(const struct relay *r);   /* read from active/, not handed out */
int relay_qmgr_idle(const struct relay *r);

/* The queues' depths now, as the reports show them (relay_stats.h's struct). */
struct relay_queue_depths;
void relay_qmgr_depths(const struct relay *r, struct relay_queue_depths *d);

struct relay_msg *relay_qmgr_msg_new(struct relay *r);
void relay_qmgr_msg_free(struct relay_msg *m);
/* The wall clock in whole seconds, as queue files' times are. */
long relay_qmgr_wall_s(void);

#endif
