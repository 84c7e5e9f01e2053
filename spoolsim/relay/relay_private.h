/*
 * relay_private - what the modules of `spoolsim relay' share.
 *
 * relay.c            the daemon: start, the spool lock, recovery, signals,
 *                    the stop
 * relay_smtpd.c      SMTP sessions from clients, on their loop: a message
 *                    is received, handed to the cleanup side, and answered
 *                    250 once its commit is durable
 * relay_qmgr.c       the queue manager (relay_qmgr.h): its lists, flow
 *                    control, the life of a message (new, free, notes)
 * relay_cleanup.c    its receiving side: a message's file from creation
 *                    (postfix: at the first RCPT, written as the text
 *                    arrives) to its commit, on a cleanup thread
 * relay_attempt.c    its delivery side: one attempt, from activation to
 *                    recording, retiring, the bounce service's turn and
 *                    the retry; its file steps in order on its own thread
 * relay_spool.c      which spool table keeps the profile's messages
 *                    (relay_spool.h): relay_spool_postfix.c, Postfix queue
 *                    files through pf_spool; relay_spool_runner.c, the
 *                    message in memory, its file work the profile's
 *                    backend's (common/spool's runner)
 * relay_smtp.c       delivery over SMTP to the next hop, with a connection
 *                    limit, connection reuse and TLS: the relay's policy
 *                    over common/net's smtp_client and common/smtp's
 *                    smtp_txn; relay_smtp_text.c, the message's text from
 *                    the queue file to the connection (relay_smtp_impl.h)
 * relay_local.c      the other next hops: discard and maildir:DIR
 * relay_bounce.c     the bounce service: a notification made from a bounce
 *                    or defer log and posted as a new queue file
 * relay_stats.c      counters, latencies, queue depths; text and JSON
 * relay_loop.c       the event loops (--threads; relay_loop.h): the
 *                    listener deals sessions to them; loop 0 has the rest
 * relay_usage.c      utilization over the busy window (relay_usage.h)
 *
 * The folder's other modules (relay_options, relay_model, io_pool, dsn,
 * received, cost_model, sysusage, bottleneck, ...) have a header of their
 * own and do not see struct relay.
 *
 * Everything here runs on loop 0's thread, except the work() functions of
 * io_pool jobs, which touch only their own message and the spool (whose
 * description is read-only), and the sessions: those run on their own
 * loop, with their message until it is posted to loop 0 at the end of
 * data (relay_loop.h). What both sides touch is marked so below.
 */
#ifndef SPOOLSIM_RELAY_PRIVATE_H
#define SPOOLSIM_RELAY_PRIVATE_H

#include <event2/event.h>
#include <event2/listener.h>
#include <openssl/ssl.h>
#include <stddef.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/socket.h>

#include "histogram.h"
#include "mailbox.h"
#include "io_pool.h"
#include "json_meta.h"
#include "pf_qfile.h"
#include "pf_spool.h"
#include "spool_runner.h"
#include "progress_out.h"
#include "relay_model.h"
#include "relay_options.h"
#include "retry_policy.h"
#include "smtp_reply.h"
#include "sysusage.h"
#include "timeline.h"

struct loops; /* common/net/loops.h */
struct relay;
struct relay_loop; /* relay_loop.h */
struct relay_session;
struct relay_conn;
struct relay_qmgr;        /* relay_qmgr_impl.h: the queue manager's alone */
struct relay_spool;       /* relay_spool.h */
struct relay_spool_state; /* the spool backend's own, if it has any */

/* Where a message's file is now. */
enum relay_queue { RELAY_Q_NONE, RELAY_Q_INCOMING, RELAY_Q_ACTIVE, RELAY_Q_DEFERRED };

/* A recipient's outcome of one delivery attempt. */
enum relay_rcpt_result { RCPT_UNTRIED, RCPT_SENT, RCPT_DEFERRED, RCPT_BOUNCED };

struct relay_msg {
    struct relay *relay;
    struct relay_loop *loop;               /* its client session's, until committed; else loop 0 */
    struct mailbox_item posted;            /* on its way between loops */
    struct relay_msg *next;                /* in one FIFO at a time */
    struct relay_msg *all_prev, *all_next; /* every message, to free at exit */
    char id[PF_QUEUE_ID_MAX];
    enum relay_queue queue;
    struct relay_session *client; /* waiting for its 250; NULL once answered or gone */

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

struct relay_stats {
    uint64_t received, delivered, bounced, deferrals, corrupt, recovered, expired;
    uint64_t loops; /* of the bounced: mail loops (5.4.6), never counted as delivered */
    _Atomic uint64_t rejected_storage, rejected_other; /* sessions count them on any loop */
    _Atomic uint64_t rejected_hops; /* 554 5.4.0: Received: fields at --hopcount-limit */
    /* notifications: posted, delivered, discarded (failed ones), not made (--no-bounces) */
    uint64_t bounces_sent, bounces_delivered, bounces_discarded, bounces_dropped;
    uint64_t rcpts_sent;
    uint64_t first_in_ns, last_in_ns, last_out_ns; /* arrivals, deliveries: their windows */
    uint64_t recovered_ns; /* when recovery found the first message: it opens the busy window */
    struct pf_spool_stats spool; /* under the relay's stats_lock: every loop's jobs add to it */
    struct pf_spool_stats maildir;
    struct histogram receive, commit, queue_wait, delivery, end_to_end;
    _Atomic uint64_t hop_connects, hop_failures, hop_tls; /* any loop */
    uint64_t flow_waits; /* messages that waited for a flow token */
    _Atomic uint64_t sessions, tls_sessions, timeouts, error_closes; /* SMTP clients, any loop */
    uint64_t session_limit_waits; /* times the listener paused at --max-sessions */
    unsigned max_concurrent;      /* client sessions at once, at most: the listener's count */
    /* queue depths sampled every --stats-interval */
    struct relay_sample {
        double t;
        unsigned incoming, active, deferred, delivering;
        uint64_t received, delivered, fsyncs;
        struct sysusage_sample sys; /* the machine, the kernel, the spool's disk */
        uint64_t self_cpu_ns;       /* the relay, all threads */
        uint64_t qmgr_busy_ns;      /* time the qmgr thread spent in its jobs */
        uint64_t loop_cpu_ns;       /* loop 0's thread, where this is sampled */
    } * samples;
    size_t sample_count, sample_cap;
    struct timeline timeline; /* one row every --interval (relay_stats_tick) */
};

struct relay {
    const struct relay_options *opts;
    struct retry_policy retry;  /* from --min-backoff and --max-backoff */
    const struct json_run *run; /* the command line, for the JSON report */
    struct event_base *base;
    struct pf_spool spool;
    const struct profile *profile;
    const struct relay_spool *backend; /* the profile's, chosen once at start */
    struct relay_spool_state *spool_state;
    struct relay_model *model; /* --model: a real MTA's CPU per message; NULL = none */
    struct relay_qmgr *qm;
    struct io_pool *cleanup; /* loop 0's cleanup threads (relay_loop.h) */
    struct io_pool *qmgr;    /* queue manager side: one thread, or == cleanup */
    struct io_pool *smtpd;   /* loop 0's, with --model: smtpd's CPU per command; else NULL */
    struct evconnlistener *listener;
    struct loops *loop_set;   /* their threads and mailboxes (relay_loop.c) */
    struct relay_loop *loops; /* --threads of them; loops[0] runs on r->base */
    unsigned loop_count;
    int loops_joined;                /* the others' threads have ended */
    _Atomic unsigned session_total;  /* client sessions, all loops */
    _Atomic int accept_paused;       /* at --max-sessions: the listener waits for one to end */
    _Atomic int resume_posted;       /* resume_item is on its way to loop 0 */
    _Atomic unsigned replies_held;   /* sessions holding replies (--reply-delay): a stop waits */
    struct mailbox_item resume_item; /* a loop's session ended while the listener waited */
    pthread_mutex_t stats_lock;      /* stats.spool */
    SSL_CTX *tls_ctx;                /* NULL unless --tls */
    SSL_CTX *hop_tls_ctx;            /* NULL unless --hop-tls */
    char ehlo_reply[512];            /* offers STARTTLS when tls_ctx is set */
    char ehlo_reply_tls[512];        /* inside TLS */

    /* next hop: the connections are each loop's own (relay_loop.h) */
    struct sockaddr_storage hop_addr;
    socklen_t hop_addr_len;
    char hop_desc[128];
    _Atomic int hop_unreachable; /* said once when the hop goes away, once when it is back */
    int has_disk;                /* the spool is on a block device, platform_disk_of() names: */
    char disk_id[64];
    struct sysusage_kthreads kthreads;
    struct event *usage_timer; /* relay_usage_mark() when it comes too soon */
    unsigned long maildir_sequence;

    _Atomic int stopping; /* set on loop 0, read by every loop */
    uint64_t start_ns, stop_ns;
    /* CPU used by role at the end (the event loops; the cleanup and qmgr threads) */
    uint64_t cpu_loop_ns, cpu_cleanup_ns, cpu_qmgr_ns;
    uint64_t cpu_loop_start_ns; /* the loop thread's CPU when service began */
    struct event *stats_timer, *stop_timer, *stop_poll;
    struct relay_stats stats;
    struct progress_out progress;    /* the live status line (--progress) */
    struct progress_rate progress_r; /* its rates over the last second */
    struct event *progress_timer;
};

/* relay_smtpd.c: a loop's sessions, on its thread */
void relay_smtpd_accept(struct relay_loop *loop, int fd, const struct sockaddr *addr);
/* The cleanup thread has committed (or failed to commit) the client's message. */
void relay_smtpd_committed(struct relay_session *s, struct relay_msg *m);
/* A cleanup thread has opened or written the client's file (m->job_status says how it went). */
void relay_smtpd_streamed(struct relay_session *s, struct relay_msg *m);
void relay_smtpd_close_all(struct relay_loop *loop);
void relay_smtpd_free_all(struct relay *r); /* every loop's, once they have ended */
void relay_smtpd_build_ehlo(struct relay *r);

/* relay_smtp.c and relay_local.c: deliver m, then call relay_attempt_delivered(m) on loop 0 */
int relay_smtp_init(struct relay *r, char *err, size_t errlen);
/* On loop 0: start what the connection limits allow, on every loop. */
void relay_smtp_deliver(struct relay *r);
void relay_smtp_close_all(struct relay *r); /* every loop's, once they have ended */
void relay_local_deliver(struct relay *r, struct relay_msg *m);
int relay_local_init(struct relay *r, char *err, size_t errlen);

/*
 * relay_bounce.c, on a cleanup thread: m->flush's log becomes a
 * notification in incoming/ (its ID in m->dsn_id) and is removed. Sets
 * m->job_status: one of these, or -1 with m->job_errno (and the log kept).
 */
#define RELAY_BOUNCE_SENDER 0     /* to the original's sender */
#define RELAY_BOUNCE_POSTMASTER 1 /* a double bounce, to --bounce-to-postmaster */
#define RELAY_BOUNCE_DISCARDED 2  /* nobody to tell; m->job_err says why */
void relay_bounce_flush_work(struct relay_msg *m);

/* relay_stats.c */
void relay_stats_init(struct relay_stats *st);
void relay_stats_free(struct relay_stats *st);
void relay_stats_sample(struct relay *r);
/* The timeline's point now: at the start, every --interval and at the end. */
void relay_stats_tick(struct relay *r);
void relay_stats_print(const struct relay *r, FILE *fp);
/* The live status line, every second. */
void relay_stats_progress(struct relay *r);
void relay_stats_print_start(const struct relay *r, int listen_fd, FILE *fp); /* one line */
int relay_stats_write_json(const struct relay *r, const char *path);
/* The busy window's ends (first in to the last in or out), or -1 if it has none yet. */
int relay_stats_busy_span(const struct relay *r, uint64_t *from, uint64_t *to);

#endif
