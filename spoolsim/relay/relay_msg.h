/*
 * relay_msg - a message in the relay: where its file is, what the queue manager
 * read of it, its attempt's outcome per recipient, its times and the file
 * step its io_pool job runs, and what an attempt's outcome means for it
 * (relay_msg.c). Every side of the relay touches one (the
 * session until its commit, then loop 0 and the jobs), as relay_private.h
 * says; struct relay is its context (m->relay).
 */
#ifndef SPOOLSIM_RELAY_MSG_H
#define SPOOLSIM_RELAY_MSG_H

#include <stddef.h>
#include <stdint.h>

#include "io_pool.h"
#include "pf_qfile.h"
#include "pf_spool.h"
#include "smtp_reply.h"
#include "spool_runner.h"

struct event;
struct relay;
struct relay_loop;    /* relay_loop.h */
struct relay_session; /* relay_smtpd.c's */

/* Where a message's file is now. */
enum relay_queue { RELAY_Q_NONE, RELAY_Q_INCOMING, RELAY_Q_ACTIVE, RELAY_Q_DEFERRED };

/* A recipient's outcome of one delivery attempt. */
enum relay_rcpt_result { RCPT_UNTRIED, RCPT_SENT, RCPT_DEFERRED, RCPT_BOUNCED };

/*
 * Who waits for cleanup's word on a message, and how it hears it: the session that hands the
 * message over (relay_smtpd.c) sets `waiter' with `client'; relay_cleanup.c answers through it, on
 * the message's loop, and so never names the session. m->job_status says how the step went.
 */
struct relay_msg;
struct relay_cleanup_waiter {
    void (*streamed)(struct relay_session *s, struct relay_msg *m);  /* file made or written */
    void (*committed)(struct relay_session *s, struct relay_msg *m); /* durable, or refused */
};

struct relay_msg {
    struct relay *relay;
    struct relay_loop *loop;               /* its client session's, until committed; else loop 0 */
    struct mailbox_item posted;            /* on its way between loops */
    struct relay_msg *next;                /* in one FIFO at a time */
    struct relay_msg *all_prev, *all_next; /* every message, to free at exit */
    char id[PF_QUEUE_ID_MAX];
    enum relay_queue queue;
    struct relay_session *client;              /* waiting for its 250; NULL once answered or gone */
    const struct relay_cleanup_waiter *waiter; /* how `client' hears from cleanup */

    struct pf_qfile qf; /* being received and enqueued; postfix: the records not yet written */
    struct pf_spool_file *out; /* postfix: its queue file, open from the first RCPT to the commit */
    char *file;                /* the queue file as the queue manager read it */
    size_t file_len;
    struct pf_qfile_view view;
    enum relay_rcpt_result *results;     /* per view.rcpts, this attempt */
    char reason[600];                    /* the next hop's words for a deferral or bounce */
    char hop_reply[SMTP_REPLY_TEXT_MAX]; /* the reply behind `reason'; "" when there was none */
    const char *own_status;              /* a failure of our own (a mail loop: "5.4.6"); NULL:
                                            the status is the hop's reply's */
    char **rcpt_reason, **rcpt_reply;    /* per view.rcpts: the above when it failed; or NULL */
    const char **rcpt_status;            /* and own_status */
    int ever_bounced;                    /* a bounce log may exist; counted as bounced */
    int looped;                          /* bounced as a mail loop (stats.loops) */
    int damaged; /* its content was found damaged in delivery (m->reason): to corrupt/ */

    /* the bounce service, as Postfix's qmgr asks it at the end of an attempt */
    int is_dsn;       /* a notification this relay made */
    int expired;      /* this attempt's deferrals are past --max-lifetime: they are returned */
    int flush;        /* the log retire_work() found to send: RELAY_FLUSH_BOUNCE or _DEFER */
    int flushed;      /* the logs sent in this attempt */
    int flush_failed; /* a notification could not be posted: the message waits */
    char dsn_id[PF_QUEUE_ID_MAX]; /* the notification's queue file; "" when none was made */
    unsigned attempts;
    unsigned io_failures;   /* file steps failed in a row (activation, reading): the back-off */
    unsigned scan_room;     /* files its activation's scan of incoming/ may move (active/'s room) */
    uint64_t retry_wait_ns; /* this attempt's retry, decided once (retry_policy.h): its wait */
    long retry_due_s;       /* and its deferred file's stamp */

    /* monotonic times of this run; 0 when unknown (recovered messages) */
    uint64_t t_mail, t_data_end, t_committed, t_active, t_deliver, t_delivered;
    uint64_t t_flow; /* when it began to wait for a flow token */

    struct event *retry_timer;
    struct io_job job;
    void (*step)(struct relay_msg *m, unsigned thread); /* the job's work (relay_spool.h) */
    int job_errno;
    int job_status;
    char job_err[200];
    struct pf_spool_stats st;     /* what the current job did to the spool */
    struct pf_spool_stats hop_st; /* and to a Maildir next hop */
    char maildir_name[128];
    struct spool_msg pmsg; /* the runner table: the message's numbers */
};

/* The message whose file step an io_pool job is: the pool hands back only the job. */
#define MSG_OF(job) ((struct relay_msg *)((char *)(job)-offsetof(struct relay_msg, job)))

/*
 * A queue file longer than this is read as its envelope at activation;
 * its delivery reads the content this much at a time and stuffs it into
 * the connection's output only when the output is down to as much again,
 * so a delivery holds a few windows whatever the message's size.
 */
#define RELAY_TEXT_WINDOW 65536

#define RELAY_FLUSH_BOUNCE 1 /* bounce/ID: recipients that failed */
#define RELAY_FLUSH_DEFER 2  /* defer/X/ID: recipients that expired */

/*
 * A message's own state between attempts: its life on the queue's lists is the queue manager's
 * (relay_qmgr_msg_new(), relay_qmgr_msg_free()).
 */
/* Recipient i failed for m->reason (and m->hop_reply): kept for its log entry. */
void relay_msg_note(struct relay_msg *m, unsigned i);
/* The file as read, its view and this attempt's results and notes: gone. */
void relay_msg_release(struct relay_msg *m);
/* Some recipient's result in this attempt is `which' (an enum relay_rcpt_result). */
int relay_msg_any(const struct relay_msg *m, int which);
/* Some recipients wait for a retry: deferred, or bounced with no notification posted yet. */
int relay_msg_must_wait(const struct relay_msg *m);

#endif
