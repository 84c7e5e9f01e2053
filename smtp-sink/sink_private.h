/*
 * sink_private - what smtp-sink's session modules share, and no one else.
 *
 * sink_session.c owns a connection: its bufferevent, replies, delays,
 * faults, commands and TLS. sink_message.c owns the message text of one
 * transaction: un-stuffing, size and rate limits, checksums, dumps, the
 * message log and the end-of-data reply. Both work on struct sink_session.
 */
#ifndef SPOOLSIM_SINK_PRIVATE_H
#define SPOOLSIM_SINK_PRIVATE_H

#include <event2/bufferevent.h>
#include <stdint.h>

#include "checksum.h"
#include "data_deadline.h"
#include "sink_dump.h"
#include "sink_options.h"
#include "sink_session.h"
#include "smtp_data.h"
#include "smtp_junk.h"
#include "smtp_line.h"
#include "smtp_seq.h"
#include "smtp_server.h"

#define HEADER_KEEP 2048 /* header bytes kept to find the Message-ID (trace fields left out) */

enum after_reply { AFTER_NONE, AFTER_CLOSE, AFTER_STARTTLS, AFTER_DATA_BEGIN };

struct sink_session {
    struct sink_server *server;
    struct sink_session *prev, *next; /* in server->sessions */
    struct smtp_server_conn conn;     /* the socket, its input and output, STARTTLS */
    struct event *timer;
    struct data_deadline data_deadline; /* --min-data-rate */
    struct smtp_seq seq;
    int paused;          /* waiting for a timer: a delayed reply or -A/-H */
    char *pending_reply; /* sent when the timer fires */
    enum after_reply pending_after;
    int abort_after_pause; /* -A: the timer ends the session with 550 */
    int greeting_pending;  /* --greet-delay: the greeting is not out yet */
    unsigned errors;
    struct smtp_junk junk; /* --junk-limit */
    const char *proto;
    char *helo;
    char *mail_args;
    char **rcpts;
    unsigned rcpt_count;
    unsigned rcpt_alloc;
    uint64_t msg_id;
    uint64_t msg_bytes;
    int oversize;
    struct content_sum sum; /* the message log's size and checksum */
    char *header;           /* first HEADER_KEEP content bytes the sum keeps, with --msg-log */
    size_t header_len;
    struct sink_dump *dump;        /* -d */
    struct sink_dump *dump_append; /* -D */
};

/* sink_session.c */
void sink_session_reply(struct sink_session *s, const char *text);
void sink_session_reply_to(struct sink_session *s, enum sink_cmd cmd, const char *text,
                           enum after_reply after);
int sink_session_policy(struct sink_session *s, enum sink_cmd cmd);
void sink_session_flush(struct sink_session *s);
void sink_session_close_after_flush(struct sink_session *s);
void sink_session_transaction_reset(struct sink_session *s);

/* sink_message.c */
void sink_message_begin(struct sink_session *s);
void sink_message_too_slow(void *session); /* the data_deadline callback */
void sink_message_content(void *session, const char *buf, size_t len);
void sink_message_finish(void *session); /* the end of data */
void sink_message_end_dumps(struct sink_session *s, int keep);

#endif
