/*
 * sink_session - one smtp-sink SMTP/LMTP session on a libevent loop.
 *
 * The server context (struct sink_server) holds what all sessions share:
 * the options, the event base, the TLS context, the prebuilt replies and
 * the statistics. sink_session_start() takes a connected socket and owns
 * it from then on. A session never blocks: delays and faults are timers,
 * and input is parsed by the pure SMTP modules in common/smtp/ as it arrives.
 *
 * The server calls back into smtp-sink.c (on_session_end, claim_message)
 * so that connection limits and exit conditions stay in one place.
 */
#ifndef SPOOLSIM_SINK_SESSION_H
#define SPOOLSIM_SINK_SESSION_H

#include <event2/event.h>
#include <openssl/ssl.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/socket.h>

#include "sink_options.h"
#include "workload.h"

#define SINK_MAX_CODE 600

struct sink_stats {
    uint64_t first_ns; /* first connection */
    uint64_t last_ns;  /* last accepted message */
    uint64_t sessions; /* started */
    uint64_t sessions_ended;
    uint64_t active;
    uint64_t max_active;
    uint64_t tls_sessions;
    uint64_t messages;   /* accepted */
    uint64_t rejected;   /* transactions refused at end of DATA */
    uint64_t recipients; /* in accepted messages */
    uint64_t bytes;      /* content of accepted messages */
    uint64_t timeouts;
    uint64_t protocol_errors;
    uint64_t replies[SINK_MAX_CODE]; /* replies sent, by code */
};

struct sink_server {
    const struct sink_options *opts;
    struct event_base *base;
    SSL_CTX *tls_ctx;
    struct prng rng;
    FILE *msg_log;
    int msg_log_lost; /* the run's total: a write to --msg-log failed */
    struct sink_stats stats;
    char *greeting;
    char *ehlo_reply;     /* before TLS */
    char *ehlo_reply_tls; /* once TLS is up: no STARTTLS */
    uint64_t next_id;     /* queue ids: with --threads N, thread i takes every Nth from its own */
    unsigned id_stride;
    void (*on_session_end)(struct sink_server *server);
    /* Before a message is acknowledged: 0 when the run's -M is already reached. */
    int (*claim_message)(struct sink_server *server);
    int draining; /* stop reading: the server is about to exit */
    /*
     * TCP_NODELAY of the accepted sessions: SINK_NODELAY_LISTENER when it
     * was set on the listening socket, whose accepted sockets inherit it on
     * Linux; the first session then tells (getsockopt) whether they do, and
     * this becomes SINK_NODELAY_INHERITED, or SINK_NODELAY_EACH (a
     * setsockopt per session, as on a system that does not inherit it).
     */
    enum { SINK_NODELAY_EACH, SINK_NODELAY_LISTENER, SINK_NODELAY_INHERITED } nodelay;
    struct sink_session *sessions; /* all live sessions, to free at exit */
};

void sink_session_init_replies(struct sink_server *server);
void sink_session_free_replies(struct sink_server *server);
struct sink_session;

/* Free every live session (at exit, so that nothing leaks). */
void sink_session_close_all(struct sink_server *server);
void sink_session_start(struct sink_server *server, int fd, const struct sockaddr *addr,
                        int addrlen);

#endif
