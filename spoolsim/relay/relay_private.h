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
 * This header is the relay's context, struct relay, alone: a message is
 * relay_msg.h's, the counters relay_stats.h's, and each module's functions
 * are in its own header (relay_smtpd.h; relay_deliver.h for relay_smtp.c
 * and relay_local.c; relay_bounce.h, relay_stats.h, relay_qmgr.h,
 * relay_attempt's in relay_qmgr.h), so that a file includes the modules
 * it calls. The folder's other modules (relay_options, io_pool, dsn,
 * received, sysusage, ...) have a header of their own and do not see
 * struct relay; the cost model is spoolsim/model's.
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
#include <openssl/ssl.h>
#include <stddef.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/socket.h>

#include "io_pool.h"
#include "json_meta.h"
#include "mailbox.h"
#include "pf_spool.h"
#include "progress_out.h"
#include "relay_model.h"
#include "relay_msg.h"
#include "relay_options.h"
#include "relay_stats.h"
#include "retry_policy.h"
#include "sysusage.h"

struct loops; /* common/net/loops.h */
struct relay;
struct relay_loop; /* relay_loop.h */
struct relay_session;
struct relay_conn;
struct relay_qmgr;        /* relay_qmgr_impl.h: the queue manager's alone */
struct relay_spool;       /* relay_spool.h */
struct relay_spool_state; /* the spool backend's own, if it has any */

struct relay {
    const struct relay_options *opts;
    struct retry_policy retry;  /* from --min-backoff and --max-backoff */
    const struct json_run *run; /* the command line, for the JSON report */
    struct event_base *base;
    struct pf_spool spool;
    const struct profile *profile;
    const struct relay_spool *backend; /* the profile's, chosen once at start */
    const struct relay_agent *agent;   /* --next-hop's delivery agent (relay_deliver.h) */
    struct relay_spool_state *spool_state;
    struct relay_model *model; /* --model: a real MTA's CPU per message; NULL = none */
    struct relay_qmgr *qm;
    struct io_pool *cleanup; /* loop 0's cleanup threads (relay_loop.h) */
    struct io_pool *qmgr;    /* queue manager side: one thread, or == cleanup */
    struct io_pool *smtpd;   /* loop 0's, with --model: smtpd's CPU per command; else NULL */
    struct listener *listener;
    struct loops *loop_set;   /* their threads and mailboxes (relay_loop.c) */
    struct relay_loop *loops; /* --threads of them; loops[0] runs on r->base */
    unsigned loop_count;
    int loops_joined;                 /* the others' threads have ended */
    _Atomic unsigned session_total;   /* client sessions, all loops */
    _Atomic int accept_paused;        /* at --max-sessions: the listener waits for one to end */
    _Atomic int resume_posted;        /* resume_item is on its way to loop 0 */
    _Atomic unsigned replies_held;    /* sessions holding replies (--reply-delay): a stop waits */
    _Atomic unsigned incoming_marked; /* commits since a scan of incoming/ last began */
    _Atomic unsigned scanned_ahead;   /* files scans moved to active/, not yet activated */
    struct mailbox_item resume_item;  /* a loop's session ended while the listener waited */
    pthread_mutex_t stats_lock;       /* stats.spool */
    SSL_CTX *tls_ctx;                 /* NULL unless --tls */
    SSL_CTX *hop_tls_ctx;             /* NULL unless --hop-tls */
    char ehlo_reply[512];             /* offers STARTTLS when tls_ctx is set */
    char ehlo_reply_tls[512];         /* inside TLS */

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
    uint64_t cpu_loop_ns, cpu_cleanup_ns, cpu_qmgr_ns, cpu_daemons_ns;
    uint64_t cpu_loop_start_ns; /* the loop thread's CPU when service began */
    struct event *stats_timer, *stop_timer, *stop_poll;
    struct relay_stats stats;
    struct progress_out progress;    /* the live status line (--progress) */
    struct progress_rate progress_r; /* its rates over the last second */
    struct event *progress_timer;
};

#endif
