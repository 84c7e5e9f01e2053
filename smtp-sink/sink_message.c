/*
 * sink_message - the message text of one smtp-sink transaction.
 *
 * From the 354 to the end-of-data reply: the text is un-stuffed by
 * smtp_data as it arrives, checked against --max-size and
 * --min-data-rate, summed for the message log and copied to the -d/-D
 * dumps; at its end the message is accepted or refused as the bare-LF
 * policy, the size limit and the fault options say.
 */
#include "config.h"

#include <event2/buffer.h>
#include <event2/event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checksum.h"
#include "clock.h"
#include "data_deadline.h"
#include "msg.h"
#include "sink_private.h"
#include "sink_text.h"
#include "xalloc.h"

/* --min-data-rate: the client fell behind (data_deadline.h). */
void sink_message_too_slow(void *arg)
{
    struct sink_session *s = arg;
    char text[300];

    if (!s->conn.in_data || s->conn.closing)
        return;
    s->server->stats.timeouts++;
    snprintf(text, sizeof(text), "421 4.4.2 %s Error: data rate too low",
             s->server->opts->hostname);
    sink_session_reply(s, text);
    sink_session_close_after_flush(s);
}

void sink_message_begin(struct sink_session *s)
{
    const struct sink_options *opts = s->server->opts;

    smtp_server_begin_data(&s->conn, opts->server.bare_lf);
    data_deadline_start(&s->data_deadline, &s->conn.data);
    s->msg_id = s->server->next_id;
    s->server->next_id += s->server->id_stride;
    s->msg_bytes = 0;
    s->oversize = 0;
    checksum_content_init(&s->sum);
    s->header_len = 0;
    if (opts->tool.msg_log && s->header == NULL)
        s->header = xmalloc(HEADER_KEEP);
    if (opts->dump_template || opts->dump_file) {
        struct sink_dump_envelope env = {
            s->conn.peer,
            s->proto,
            s->helo,
            s->mail_args,
            (const char *const *)s->rcpts,
            s->rcpt_count,
            opts->hostname,
            s->msg_id,
            opts->dump_start,
        };

        if (opts->dump_template)
            s->dump = sink_dump_begin(opts->dump_template, NULL, &env,
                                      workload_prng_next(&s->server->rng));
        if (opts->dump_file)
            s->dump_append = sink_dump_begin(NULL, opts->dump_file, &env, 0);
    }
}

/* The start of what the message log sums, where its Message-ID is looked for. */
static void keep_header(void *arg, const char *buf, size_t len)
{
    struct sink_session *s = arg;

    if (s->header && s->header_len < HEADER_KEEP) {
        size_t keep = HEADER_KEEP - s->header_len < len ? HEADER_KEEP - s->header_len : len;

        memcpy(s->header + s->header_len, buf, keep);
        s->header_len += keep;
    }
}

void sink_message_content(void *arg, const char *buf, size_t len)
{
    struct sink_session *s = arg;
    const struct sink_options *opts = s->server->opts;

    s->msg_bytes += len;
    if (opts->server.max_size && s->msg_bytes > opts->server.max_size)
        s->oversize = 1;
    if (s->server->msg_log)
        checksum_content_update(&s->sum, buf, len, keep_header, s);
    if (s->dump && !s->oversize)
        sink_dump_write(s->dump, buf, len);
    if (s->dump_append && !s->oversize)
        sink_dump_write(s->dump_append, buf, len);
}

/* Keep the dumps of an accepted message; remove those of a refused one. */
void sink_message_end_dumps(struct sink_session *s, int keep)
{
    if (s->dump)
        sink_dump_end(s->dump, keep);
    if (s->dump_append)
        sink_dump_end(s->dump_append, keep);
    s->dump = s->dump_append = NULL;
}

static void log_message(struct sink_session *s, uint64_t id)
{
    char message_id[300];

    checksum_content_end(&s->sum, keep_header, s);
    sink_text_message_id(s->header, s->header_len, message_id, sizeof(message_id));
    fprintf(s->server->msg_log,
            "id=%08llX size=%llu sum=%016llx rcpts=%u message-id=%s mono_ns=%llu from=%s "
            "client=%s\n",
            (unsigned long long)id, (unsigned long long)s->sum.size, (unsigned long long)s->sum.sum,
            s->rcpt_count, message_id, (unsigned long long)clock_now_ns(),
            s->mail_args ? s->mail_args : "", s->conn.peer);
}

void sink_message_finish(void *arg)
{
    struct sink_session *s = arg;
    struct sink_server *server = s->server;
    const char *reject = NULL;
    uint64_t id = s->msg_id;
    char text[160];

    data_deadline_stop(&s->data_deadline);
    if (server->opts->cmd[SINK_CMD_DOT].log)
        msg_info("%s: . (%llu bytes)", s->conn.peer, (unsigned long long)s->msg_bytes);
    if (s->oversize) {
        reject = "552 5.3.4 Error: message too large";
    } else if ((reject = smtp_data_reject(&s->conn.data)) == NULL &&
               sink_session_policy(s, SINK_CMD_DOT)) {
        sink_message_end_dumps(s, 0);
        server->stats.rejected++;
        if (!s->conn.closing)
            sink_session_transaction_reset(s);
        return;
    }
    if (reject == NULL && server->claim_message && !server->claim_message(server)) {
        /*
         * Another thread took the run's last message (-M) and this one has
         * not yet been told to stop: refuse it and go, as the sink is
         * about to, rather than acknowledge one more than -M.
         */
        sink_message_end_dumps(s, 0);
        server->stats.rejected++;
        snprintf(text, sizeof(text), "421 4.3.0 %s Error: message limit reached",
                 server->opts->hostname);
        sink_session_reply(s, text);
        sink_session_close_after_flush(s);
        return;
    }
    sink_message_end_dumps(s, reject == NULL);
    if (reject) {
        server->stats.rejected++;
        sink_session_reply_to(s, SINK_CMD_DOT, reject, AFTER_NONE);
        sink_session_transaction_reset(s);
        return;
    }
    server->stats.messages++;
    smtp_junk_accepted(&s->junk);
    server->stats.last_ns = clock_now_ns();
    server->stats.recipients += s->rcpt_count;
    server->stats.bytes += s->msg_bytes;
    if (server->msg_log)
        log_message(s, id);
    sink_text_queued(text, id);
    if (server->opts->tool.lmtp) {
        /* LMTP: one reply per accepted recipient (RFC 2033 4.2). */
        for (unsigned i = 1; i < s->rcpt_count; i++)
            sink_session_reply(s, text);
    }
    sink_session_transaction_reset(s);
    sink_session_reply_to(s, SINK_CMD_DOT, text, AFTER_NONE);
}
