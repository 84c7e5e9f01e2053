/*
 * relay_smtpd - the relay's SMTP server side.
 *
 * The connection (input loop, flushing, STARTTLS, deferred free) is
 * common/net's smtp_server core, shared with smtp-sink; this file is the
 * relay's policy: commands through smtp_cmd / smtp_seq, the message text
 * into the queue. With the
 * postfix profile the queue file is Postfix's: the first accepted RCPT
 * waits for a cleanup thread to create it in incoming/ (0600), as smtpd
 * opens its cleanup stream there (smtpd_delay_open_until_valid_rcpt), and
 * the text goes into it as it arrives, STREAM_CHUNK at a time, the session
 * reading nothing while a piece is written: a session holds a few tens of
 * KiB whatever its message's size. The other profiles build the message
 * in memory and hand it over at the end of data. Either way the session
 * then reads nothing more until the file is committed (fsync'ed and
 * marked 0700), and only then answers 250 with the queue ID, like
 * Postfix's smtpd waiting for its cleanup. At DATA the text starts with
 * our Received: header, and the client's are counted against
 * --hopcount-limit (received.h). RSET, a lost client, a 552, a 554 for
 * too many hops or a timeout remove the file; a full disk gets 452 4.3.1 and leaves no file
 * behind.
 *
 * With --tls the session offers STARTTLS; what the client sent behind the
 * command is discarded and the session starts afresh inside TLS, as
 * smtp-sink does (docs/security.md items 1 and 2).
 *
 * --reply-delay RTT holds each reply for an emulated round trip
 * (relay_smtpd_hold.h).
 */
#include "config.h"

#include <errno.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#include "clock.h"
#include "data_deadline.h"
#include "msg.h"
#include "received.h"
#include "relay_loop.h"
#include "relay_private.h"
#include "relay_smtpd.h"
#include "relay_qmgr.h"
#include "relay_smtpd_hold.h"
#include "relay_spool.h"
#include "smtp_cmd.h"
#include "smtp_data.h"
#include "smtp_junk.h"
#include "smtp_line.h"
#include "smtp_seq.h"
#include "smtp_server.h"
#include "xalloc.h"
#include "xgrow.h"
/* Records gathered before they go to the file; with the input buffer, a session's memory. */
#define STREAM_CHUNK (32 * 1024)

struct relay_session {
    struct relay *relay;
    struct relay_loop *loop; /* the one it runs on, with its timers and jobs */
    struct relay_session *prev, *next;
    struct smtp_server_conn conn; /* the socket, its input and output, STARTTLS */
    struct smtp_seq seq;
    struct relay_msg *committing;       /* the message on a cleanup thread */
    int streaming;                      /* a job on msg's file is under way: read nothing */
    char *opening_rcpt;                 /* the RCPT that waits for the file to be created */
    int stream_errno;                   /* writing msg's file failed: the text goes nowhere */
    struct smtpd_step *step;            /* a reply waiting for its command's CPU */
    struct smtpd_step *step_buf;        /* made once, used for each command's step */
    struct data_deadline data_deadline; /* --min-data-rate */
    unsigned errors;
    struct smtp_junk junk; /* --junk-limit */
    char *helo;
    int esmtp; /* the client said EHLO, not HELO: "with ESMTP" in the Received: header */
    struct received_counter hops; /* the client's Received: fields, against --hopcount-limit */
    char *sender;
    char **rcpts;
    unsigned rcpt_count;
    size_t rcpt_alloc;
    struct relay_msg *msg; /* the message being received */
    uint64_t message_bytes;
    int oversize;
    uint64_t t_mail;
    struct relay_smtpd_hold hold; /* --reply-delay: the replies held back */
    int close_when_out; /* close_after_flush() came while holding: close once they are out */
};

/* A reply that waits for smtpd's CPU for its command (relay_model.h). */
struct smtpd_step {
    struct io_job job;
    struct relay_session *s; /* NULL once the session has gone */
    struct relay_model *model;
    uint64_t ns;
    char text[600];
};

static void session_process(struct relay_session *s);
static void session_flush(struct relay_session *s);

/* Straight to the socket: the STARTTLS 220, which TLS must follow at once, and held replies. */
static void reply_now(struct relay_session *s, const char *text)
{
    if (s->relay->opts->verbose > 1)
        msg_info("%s: > %s", s->conn.peer, text);
    bufferevent_write(s->conn.bev, text, strlen(text));
    if (strchr(text, '\n') == NULL)
        bufferevent_write(s->conn.bev, "\r\n", 2);
}

static void on_hold_over(void *arg);

/* --reply-delay: keep the reply for the round trip (relay_smtpd_hold.h). */
static void hold_reply(struct relay_session *s, const char *text)
{
    if (s->relay->opts->verbose > 1)
        msg_info("%s: > (held) %s", s->conn.peer, text);
    if (relay_smtpd_hold_add(&s->hold, s->loop->base, s->relay->opts->reply_delay, text,
                             on_hold_over, s))
        s->relay->replies_held++;
}

static void reply(struct relay_session *s, const char *text)
{
    /* a stopping relay's replies go at once, but never ahead of one held */
    if (s->hold.holding || (s->relay->opts->reply_delay > 0 && !s->relay->stopping))
        hold_reply(s, text);
    else
        reply_now(s, text);
}

#define STEP_OF(j) ((struct smtpd_step *)((char *)(j)-offsetof(struct smtpd_step, job)))

static void step_work(struct io_job *job)
{
    struct smtpd_step *st = STEP_OF(job);

    relay_model_burn_command(st->model, st->ns);
}

static void step_done(struct io_job *job)
{
    struct smtpd_step *st = STEP_OF(job);
    struct relay_session *s = st->s;

    if (s == NULL) {
        free(st); /* its session went while it ran: it was the session's buffer */
        return;
    }
    s->step = NULL;
    reply(s, st->text);
    session_process(s);
    session_flush(s);
}

/*
 * Say `text' once `ns' of smtpd's CPU is spent on an smtpd thread (at once
 * without a model); the session reads nothing more until then.
 */
static void reply_spent(struct relay_session *s, const char *text, uint64_t ns)
{
    struct smtpd_step *st;

    if (ns == 0 || s->loop->smtpd == NULL) {
        reply(s, text);
        return;
    }
    if (s->step_buf == NULL) /* one per session, not one per command */
        s->step_buf = xmalloc(sizeof(*s->step_buf));
    st = s->step_buf;
    memset(st, 0, sizeof(*st));
    st->s = s;
    st->model = s->relay->model;
    st->ns = ns;
    snprintf(st->text, sizeof(st->text), "%s", text);
    st->job.work = step_work;
    st->job.done = step_done;
    s->step = st;
    io_pool_submit(s->loop->smtpd, &st->job);
}

static void session_process(struct relay_session *s)
{
    smtp_server_process(&s->conn);
}

static void session_flush(struct relay_session *s)
{
    smtp_server_flush(&s->conn);
}

static void close_after_flush(struct relay_session *s)
{
    data_deadline_stop(&s->data_deadline);
    if (s->hold.holding) { /* the core would close with the held replies unsaid */
        s->close_when_out = 1;
        return;
    }
    smtp_server_close_after_flush(&s->conn);
}

/* The round trip is over: the held replies go, then what they were waiting for. */
static void on_hold_over(void *arg)
{
    struct relay_session *s = arg;

    s->relay->replies_held--;
    bufferevent_write_buffer(s->conn.bev, s->hold.held);
    if (s->close_when_out) {
        s->close_when_out = 0;
        smtp_server_close_after_flush(&s->conn);
    } else if (s->relay->stopping && !s->committing && !s->streaming && !s->step &&
               !s->conn.in_data) {
        reply(s, "421 4.3.2 Service shutting down"); /* relay_smtpd_close_all() passed it by */
        close_after_flush(s);
    } else {
        session_process(s);
    }
    session_flush(s);
}

static void transaction_reset(struct relay_session *s)
{
    for (unsigned i = 0; i < s->rcpt_count; i++)
        free(s->rcpts[i]);
    s->rcpt_count = 0;
    free(s->sender);
    s->sender = NULL;
    if (s->msg) {
        relay_cleanup_abort(s->msg); /* Postfix's cleanup removes an unfinished file */
        s->msg = NULL;
    }
    s->conn.in_data = 0;
    s->oversize = 0;
    s->stream_errno = 0;
    s->message_bytes = 0;
    data_deadline_stop(&s->data_deadline);
    smtp_seq_end_transaction(&s->seq);
}

/* One error more: 1 when it was the last one allowed, the 421 said and the session closing. */
static int count_error(struct relay_session *s)
{
    if (++s->errors < s->relay->opts->server.error_limit)
        return 0;
    s->relay->stats.error_closes++;
    reply(s, "421 4.7.0 Error: too many errors");
    close_after_flush(s);
    return 1;
}

static void protocol_error(struct relay_session *s, const char *text)
{
    if (!count_error(s))
        reply(s, text);
}

/* ------------------------------------------------------------ message text */

static void on_content(void *arg, const char *buf, size_t len)
{
    struct relay_session *s = arg;

    s->message_bytes += len;
    if (s->message_bytes > s->relay->opts->server.max_size)
        s->oversize = 1;
    received_counter_feed(&s->hops, buf, len);
    if (!s->oversize && !s->stream_errno)
        pf_qfile_content(&s->msg->qf, buf, len);
}

static const char *storage_error(int err)
{
    return err == ENOSPC || err == EDQUOT ? "452 4.3.1 Insufficient system storage"
                                          : "451 4.3.0 Error: queue file write error";
}

/* A file that could not be made or written: said to the client, counted as a commit failure is. */
static void refuse(struct relay_session *s, int err)
{
    if (err == ENOSPC || err == EDQUOT)
        s->relay->stats.rejected_storage++;
    else
        s->relay->stats.rejected_other++;
    reply(s, storage_error(err));
}

/* Back-pressure: a full chunk goes to the file, and the session waits for it. */
static void stream_text(struct relay_session *s)
{
    struct relay_msg *m = s->msg;

    if (m->out == NULL || m->qf.len < STREAM_CHUNK || s->oversize || s->stream_errno)
        return;
    s->streaming = 1;
    relay_cleanup_write(m);
}

/* --min-data-rate: the client fell behind (data_deadline.h). */
static void on_data_too_slow(void *arg)
{
    struct relay_session *s = arg;

    if (!s->conn.in_data || s->conn.closing || s->conn.free_scheduled)
        return;
    s->relay->stats.timeouts++;
    reply(s, "421 4.4.2 Error: data rate too low");
    close_after_flush(s);
    session_flush(s);
}

/* No DNS here: the loopback's name is known, any other client's is not. */
static const char *client_name(const struct relay_session *s)
{
    return strcmp(s->conn.peer, "127.0.0.1") == 0 ? "localhost" : "unknown";
}

static void on_streamed(struct relay_session *s, struct relay_msg *m);
static void on_committed(struct relay_session *s, struct relay_msg *m);
/* How a session hears from cleanup about the message it handed over. */
static const struct relay_cleanup_waiter session_waiter = {on_streamed, on_committed};

static struct relay_msg *new_message(struct relay_session *s)
{
    struct relay_msg *m = relay_qmgr_msg_new(s->relay);
    struct timeval now;

    m->loop = s->loop;
    gettimeofday(&now, NULL);
    m->t_mail = s->t_mail;
    pf_qfile_begin(&m->qf, (long)now.tv_sec, (long)now.tv_usec, s->sender, client_name(s),
                   s->conn.peer, s->helo);
    s->msg = m;
    return m;
}

/* The first RCPT: its answer waits for the file, as smtpd's waits for cleanup's queue ID. */
static void open_message(struct relay_session *s, const struct smtp_cmd *cmd)
{
    struct relay_msg *m = new_message(s);

    s->opening_rcpt = xstrndup(cmd->path.ptr, cmd->path.len);
    m->client = s;
    m->waiter = &session_waiter;
    s->streaming = 1;
    relay_cleanup_open(m);
}

/*
 * Our Received: header goes first, as Postfix's smtpd sends it to cleanup
 * at DATA: it names the queue ID, so the ID is given now (a streaming
 * spool named the file at the first RCPT already).
 */
static void add_received(struct relay_session *s, struct relay_msg *m)
{
    char addr[sizeof(s->conn.peer) + 8], text[RECEIVED_MAX + 1];
    struct received_info ri = {0};
    size_t len;

    s->relay->backend->assign_id(s->relay, m);
    snprintf(addr, sizeof(addr), "%s%s", strchr(s->conn.peer, ':') ? "IPv6:" : "", s->conn.peer);
    ri.helo = s->helo;
    ri.client_name = client_name(s);
    ri.client_addr = addr;
    ri.hostname = s->relay->opts->hostname;
    ri.protocol = !s->esmtp ? "SMTP" : s->conn.tls ? "ESMTPS" : "ESMTP";
    ri.queue_id = m->id;
    ri.rcpt = s->rcpt_count == 1 ? s->rcpts[0] : NULL;
    ri.time = (long)time(NULL);
    len = received_header(&ri, text);
    pf_qfile_content(&m->qf, text, len);
}

static void begin_message(struct relay_session *s)
{
    if (s->msg == NULL) /* a profile that takes the whole message at the end */
        new_message(s);
    add_received(s, s->msg);
    received_counter_init(&s->hops);
    s->conn.in_data = 1;
    smtp_data_init(&s->conn.data, s->relay->opts->server.bare_lf);
    data_deadline_start(&s->data_deadline, &s->conn.data);
}

static void end_message(struct relay_session *s)
{
    const char *rejected = smtp_data_reject(&s->conn.data);
    struct relay_msg *m = s->msg;

    s->conn.in_data = 0;
    data_deadline_stop(&s->data_deadline);
    if (rejected || s->oversize) {
        reply(s, rejected ? rejected : "552 5.3.4 Error: message file too big");
        transaction_reset(s);
        return;
    }
    /*
     * A mail loop between hosts that do not know each other's names ends
     * here, as in Postfix: its cleanup counts the Received: fields, ours
     * among them, and its smtpd refuses the message at their limit. The
     * client (a relay of ours too) bounces it.
     */
    if (s->hops.count + 1 >= s->relay->opts->hopcount_limit) {
        msg_info("%s: reject: too many hops (%u Received: headers, limit %u)", m->id,
                 s->hops.count + 1, s->relay->opts->hopcount_limit);
        s->relay->stats.rejected_hops++;
        reply(s, "554 5.4.0 Error: too many hops");
        transaction_reset(s);
        return;
    }
    if (s->stream_errno) {
        refuse(s, s->stream_errno);
        transaction_reset(s);
        return;
    }
    m->t_data_end = clock_now_ns();
    pf_qfile_finish(&m->qf, (const char *const *)s->rcpts, s->rcpt_count);
    s->msg = NULL;
    m->client = s;
    m->waiter = &session_waiter;
    s->committing = m; /* input waits in the buffer, up to its high-water mark */
    relay_qmgr_enqueue(s->relay, m);
}

static void on_committed(struct relay_session *s, struct relay_msg *m)
{
    char text[128];

    m->client = NULL;
    s->committing = NULL;
    if (m->job_status == 0) {
        smtp_junk_accepted(&s->junk);
        snprintf(text, sizeof(text), "250 2.0.0 Ok: queued as %s", m->id);
        reply(s, text);
    } else {
        reply(s, storage_error(m->job_errno));
    }
    transaction_reset(s);
    if (s->relay->stopping) {
        reply(s, "421 4.3.2 Service shutting down");
        close_after_flush(s);
    } else {
        session_process(s);
    }
    session_flush(s);
}

static void add_rcpt(struct relay_session *s, char *addr)
{
    s->rcpts = xgrow(s->rcpts, &s->rcpt_alloc, s->rcpt_count + 1, 4, sizeof(*s->rcpts));
    s->rcpts[s->rcpt_count++] = addr;
}

static void accept_rcpt(struct relay_session *s, char *addr)
{
    smtp_seq_commit(&s->seq, SMTP_VERB_RCPT);
    add_rcpt(s, addr);
    reply_spent(s, SMTP_SERVER_REPLY_RCPT_OK,
                relay_model_command_ns(s->relay->model, s->rcpt_count > 1));
}

static void on_streamed(struct relay_session *s, struct relay_msg *m)
{
    char *rcpt = s->opening_rcpt;

    s->streaming = 0;
    if (rcpt) { /* the file was being created for this RCPT */
        s->opening_rcpt = NULL;
        if (m->job_status == 0) {
            accept_rcpt(s, rcpt);
        } else {
            relay_loop_warn(m->loop, RELAY_WARN_CREATE, "cannot create a queue file", m->job_errno,
                            "cannot create a queue file in %s: %s", s->relay->spool.dir,
                            strerror(m->job_errno));
            refuse(s, m->job_errno);
            free(rcpt);
            s->msg = NULL;
            relay_cleanup_abort(m);
        }
    } else if (m->job_status != 0) {
        relay_loop_warn(m->loop, RELAY_WARN_WRITE, "cannot write a queue file", m->job_errno,
                        "%s: cannot write its queue file: %s", m->id, strerror(m->job_errno));
        s->stream_errno = m->job_errno ? m->job_errno : EIO; /* said at the end of data */
    }
    if (s->relay->stopping && !s->conn.in_data && !s->step) {
        reply(s, "421 4.3.2 Service shutting down");
        close_after_flush(s);
    } else {
        session_process(s);
    }
    session_flush(s);
}

/* ---------------------------------------------------------------- commands */

static void handle_command(struct relay_session *s, const char *line, size_t len)
{
    const struct relay_options *opts = s->relay->opts;
    struct smtp_cmd cmd;
    /*
     * relay_smtpd_build_ehlo() offers no SMTPUTF8, so none is taken: the
     * queue file would have to carry it and the client to pass it on
     * (docs/security.md item 10).
     */
    int status = smtp_cmd_parse(line, len, 0, &cmd);
    const char *seq_error;
    char text[600];

    if (opts->verbose > 1)
        msg_info("%s: < %.*s", s->conn.peer, (int)len, line);
    if (status != 0) {
        protocol_error(s, cmd.error);
        return;
    }
    if (cmd.verb == SMTP_VERB_LHLO ||
        (cmd.verb == SMTP_VERB_STARTTLS && s->relay->tls_ctx == NULL)) {
        protocol_error(s, SMTP_SERVER_REPLY_NOT_IMPLEMENTED);
        return;
    }
    if ((seq_error = smtp_seq_check(&s->seq, cmd.verb)) != NULL) {
        protocol_error(s, seq_error);
        return;
    }
    if (smtp_junk_command(&s->junk, cmd.verb, s->rcpt_count >= opts->server.max_rcpt) &&
        count_error(s))
        return; /* docs/security.md item 11 */
    if (cmd.verb == SMTP_VERB_DATA && evbuffer_get_length(bufferevent_get_input(s->conn.bev)) > 0) {
        /* Text before our 354 is an early talker (docs/security.md item 6). */
        reply(s, SMTP_SERVER_REPLY_SYNC);
        close_after_flush(s);
        return;
    }
    switch (cmd.verb) {
    case SMTP_VERB_HELO:
    case SMTP_VERB_EHLO:
        free(s->helo);
        s->helo = xstrndup(cmd.arg.ptr, cmd.arg.len);
        s->esmtp = cmd.verb == SMTP_VERB_EHLO;
        transaction_reset(s);
        smtp_seq_commit(&s->seq, cmd.verb);
        if (cmd.verb == SMTP_VERB_EHLO) {
            reply_spent(s, s->conn.tls ? s->relay->ehlo_reply_tls : s->relay->ehlo_reply,
                        relay_model_command_ns(s->relay->model, 0));
        } else {
            snprintf(text, sizeof(text), "250 %s", opts->hostname);
            reply_spent(s, text, relay_model_command_ns(s->relay->model, 0));
        }
        break;
    case SMTP_VERB_MAIL:
        if (cmd.has_size && cmd.size > opts->server.max_size) {
            reply(s, SMTP_SERVER_REPLY_TOO_BIG);
            break;
        }
        smtp_seq_commit(&s->seq, cmd.verb);
        s->sender = xstrndup(cmd.path.ptr, cmd.path.len);
        s->t_mail = clock_now_ns();
        reply_spent(s, SMTP_SERVER_REPLY_MAIL_OK, relay_model_command_ns(s->relay->model, 0));
        break;
    case SMTP_VERB_RCPT:
        if (s->rcpt_count >= opts->server.max_rcpt) {
            reply(s, SMTP_SERVER_REPLY_TOO_MANY_RCPTS);
            break;
        }
        if (s->msg == NULL && relay_cleanup_streams(s->relay)) {
            open_message(s, &cmd);
            break;
        }
        accept_rcpt(s, xstrndup(cmd.path.ptr, cmd.path.len));
        break;
    case SMTP_VERB_DATA:
        begin_message(s);
        reply_spent(s, SMTP_SERVER_REPLY_DATA, relay_model_command_ns(s->relay->model, 0));
        break;
    case SMTP_VERB_STARTTLS:
        reply_now(s, SMTP_SERVER_REPLY_STARTTLS);
        smtp_server_begin_tls(&s->conn);
        break;
    case SMTP_VERB_RSET:
        transaction_reset(s);
        reply(s, SMTP_SERVER_REPLY_OK);
        break;
    case SMTP_VERB_NOOP:
        reply(s, SMTP_SERVER_REPLY_OK);
        break;
    case SMTP_VERB_VRFY:
        reply(s, SMTP_SERVER_REPLY_VRFY);
        break;
    case SMTP_VERB_HELP:
        reply(s, SMTP_SERVER_REPLY_HELP);
        break;
    case SMTP_VERB_QUIT:
        reply(s, SMTP_SERVER_REPLY_BYE);
        close_after_flush(s);
        break;
    default:
        protocol_error(s, SMTP_SERVER_REPLY_UNKNOWN);
        break;
    }
}

/* ------------------------------------------------- the core's callbacks */

static int may_read(void *arg)
{
    struct relay_session *s = arg;

    return !s->committing && !s->streaming && !s->step && !s->hold.holding;
}

static void on_command(void *arg, const char *line, size_t len)
{
    handle_command(arg, line, len);
}

static void on_too_long(void *arg)
{
    protocol_error(arg, SMTP_SERVER_REPLY_TOO_LONG);
}

static void on_data_wait(void *arg)
{
    stream_text(arg);
}

static void on_data_end(void *arg)
{
    end_message(arg);
}

static void on_timeout(void *arg)
{
    struct relay_session *s = arg;

    s->relay->stats.timeouts++;
    reply(s, "421 4.4.2 Error: timeout exceeded");
    close_after_flush(s);
}

/* Inside TLS the session starts afresh: no transaction, no EHLO. */
static void on_tls_started(void *arg)
{
    struct relay_session *s = arg;

    s->relay->stats.tls_sessions++;
    transaction_reset(s);
    smtp_seq_tls_started(&s->seq);
    free(s->helo);
    s->helo = NULL;
    s->esmtp = 0;
}

static void session_free(struct relay_session *s);

/* EOF, an error or a closed session; a message on a cleanup thread goes on alone. */
static void on_free(void *arg)
{
    session_free(arg);
}

static const struct smtp_server_ops relay_smtpd_ops = {
    .may_read = may_read,
    .on_command = on_command,
    .on_too_long = on_too_long,
    .on_data_chunk = on_content,
    .on_data_wait = on_data_wait,
    .on_data_end = on_data_end,
    .on_timeout = on_timeout,
    .on_tls_started = on_tls_started,
    .on_free = on_free,
};

/* ---------------------------------------------------------------- sessions */

static void session_free(struct relay_session *s)
{
    if (s->streaming) { /* the job's end removes the file and frees the message */
        s->msg->client = NULL;
        s->msg = NULL;
    }
    free(s->opening_rcpt);
    transaction_reset(s);
    if (s->prev)
        s->prev->next = s->next;
    else
        s->loop->sessions = s->next;
    if (s->next)
        s->next->prev = s->prev;
    relay_loop_session_ended(s->loop);
    if (s->committing)
        s->committing->client = NULL; /* the message goes on; no one hears its 250 */
    if (s->step)
        s->step->s = NULL; /* its CPU is spent all the same; step_done() frees the buffer */
    else
        free(s->step_buf);
    if (s->hold.holding)
        s->relay->replies_held--;
    relay_smtpd_hold_free(&s->hold);
    data_deadline_free(&s->data_deadline);
    smtp_server_release(&s->conn);
    free(s->helo);
    free(s->rcpts);
    free(s);
}

void relay_smtpd_accept(struct relay_loop *loop, int fd, const struct sockaddr *addr)
{
    struct relay *r = loop->relay;
    struct relay_session *s = xcalloc(1, sizeof(*s));
    /* Only reading times out until TLS: a slow reader is the client's business. */
    struct smtp_server_config cfg = {loop->base, r->tls_ctx, r->opts->timeout, 0, 0};

    s->relay = r;
    s->loop = loop;
    if (smtp_server_start(&s->conn, &cfg, &relay_smtpd_ops, s, fd, addr) < 0) {
        free(s);
        relay_loop_session_ended(loop);
        return;
    }
    smtp_server_direct_read(&s->conn); /* one read() per event, as smtp-sink (bev_in.h) */
    smtp_seq_init(&s->seq);
    smtp_junk_init(&s->junk, r->opts->server.junk_limit);
    data_deadline_init(&s->data_deadline, loop->base, r->opts->timeout,
                       r->opts->server.min_data_rate, on_data_too_slow, s);
    s->next = loop->sessions;
    if (loop->sessions)
        loop->sessions->prev = s;
    loop->sessions = s;
    loop->served++;
    r->stats.sessions++;
    {
        char text[300];

        snprintf(text, sizeof(text), "220 %s ESMTP spoolsim", r->opts->hostname);
        reply_spent(s, text, relay_model_command_ns(r->model, 0));
    }
    smtp_server_read(&s->conn, 1);
    session_flush(s);
}

void relay_smtpd_close_all(struct relay_loop *loop)
{
    for (struct relay_session *s = loop->sessions; s; s = s->next) {
        if (s->committing || s->streaming || s->step || s->hold.holding || s->conn.closing ||
            s->conn.free_scheduled || s->conn.tls_pending)
            continue; /* each says its 421 once it is done, or is going anyway */
        reply(s, "421 4.3.2 Service shutting down");
        close_after_flush(s);
        session_flush(s);
    }
}

/* What this offers, handle_command() must take: SMTPUTF8 goes with smtp_cmd_parse()'s flags. */
void relay_smtpd_build_ehlo(struct relay *r)
{
    const char *format =
        "250-%s\r\n250-PIPELINING\r\n250-SIZE %llu\r\n%s250-ENHANCEDSTATUSCODES\r\n"
        "250 8BITMIME\r\n";

    snprintf(r->ehlo_reply, sizeof(r->ehlo_reply), format, r->opts->hostname,
             (unsigned long long)r->opts->server.max_size, r->tls_ctx ? "250-STARTTLS\r\n" : "");
    snprintf(r->ehlo_reply_tls, sizeof(r->ehlo_reply_tls), format, r->opts->hostname,
             (unsigned long long)r->opts->server.max_size, "");
}

void relay_smtpd_free_all(struct relay *r)
{
    for (unsigned i = 0; i < r->loop_count; i++)
        while (r->loops[i].sessions)
            session_free(r->loops[i].sessions);
}
