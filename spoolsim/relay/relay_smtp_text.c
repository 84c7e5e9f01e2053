/*
 * relay_smtp_text - a message's text on its way to the next hop, for
 * relay_smtp.c (relay_smtp_impl.h).
 *
 * The text goes out a window at a time (RELAY_TEXT_WINDOW), as Postfix's
 * smtp copies the queue file's records to the socket through VSTREAM
 * buffers, and reaches the socket in whole stream units, as those
 * buffers do (smtp_client_text_begin()): the content of a large queue
 * file is read on the connection's cleanup threads while the connection
 * waits, and the next piece is put in the output only once the output has
 * drained to its low-water mark; a message kept in memory is stuffed the
 * same way. A file found damaged
 * half-way (a record that does not read, a file cut short) or a read that
 * fails ends the text before the dot (relay_smtp_text_failed()).
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "msg.h"
#include "relay_loop.h"
#include "relay_smtp_impl.h"
#include "xalloc.h"

#define STUFF_PIECE 4096
#define TEXT_ROOM 65536 /* the most reserved at once for the stuffed text */

/* Stuff `len' bytes into the output a piece at a time, whatever a record's size. */
static void stuff_out(struct out_room *r, struct smtp_stuffer *st, const char *data, size_t len,
                      size_t want)
{
    while (len > 0) {
        size_t piece = len < STUFF_PIECE ? len : STUFF_PIECE;

        r->used +=
            smtp_stuff(st, data, piece, relay_smtp_room_get(r, SMTP_STUFF_BOUND(piece), want));
        data += piece;
        len -= piece;
    }
}

/* The dot after the last of the text: its reply is the one that counts. */
static void text_end(struct relay_conn *c, struct out_room *r)
{
    r->used += smtp_stuff_finish(
        &c->stuffer, relay_smtp_room_get(r, SMTP_STUFF_FINISH_MAX, SMTP_STUFF_FINISH_MAX));
    relay_smtp_room_commit(r);
    smtp_client_write_low(&c->client, 0);
    smtp_client_dot(&c->client);
    smtp_txn_text_sent(&c->txn);
    c->state = c->txn.step;
}

/*
 * The output has room for more text: over its low-water mark, it waits
 * for on_output. Text held back short of a whole stream unit
 * (smtp_client_text_begin()) waits for more, not for the socket.
 */
static int output_low(struct relay_conn *c)
{
    return smtp_client_pending(&c->client) <= RELAY_TEXT_WINDOW;
}

/*
 * A message in memory, up to a window's worth of records into the output
 * each time, until the dot. A small one (the file within a window) goes
 * whole, with its dot, in one write, as before.
 */
static void text_from_memory(struct relay_conn *c)
{
    struct relay_msg *m = c->msg;

    while (c->state == SMTP_STEP_TEXT && output_low(c)) {
        struct out_room r = {.out = smtp_client_output(&c->client)};
        size_t start = c->text_off, len, end = m->view.content_end;
        /* Stuffing at most doubles the records (their headers included). */
        size_t want = end >= start ? 2 * (end - start) + SMTP_STUFF_FINISH_MAX : TEXT_ROOM;
        const char *data;
        int line_end;

        if (want > TEXT_ROOM)
            want = TEXT_ROOM;
        while (c->text_off - start < RELAY_TEXT_WINDOW &&
               pf_qfile_content_next(m->file, &m->view, &c->text_off, &data, &len, &line_end)) {
            stuff_out(&r, &c->stuffer, data, len, want);
            if (line_end)
                stuff_out(&r, &c->stuffer, "\r\n", 2, want);
        }
        if (c->text_off - start < RELAY_TEXT_WINDOW)
            text_end(c, &r); /* no record left: pf_qfile_read() has seen them all */
        relay_smtp_room_commit(&r);
        smtp_client_flush(&c->client);
    }
}

/*
 * A large message's content on its way from the queue file: the reading
 * runs on the connection's loop's cleanup threads, one window per job. It
 * outlives a connection that ends while a job is under way (`conn' is
 * then NULL, and the job's done() frees it).
 */
struct text_stream {
    struct io_job job;
    struct relay_conn *conn;
    struct relay *relay;
    const struct pf_spool *spool;
    char id[PF_QUEUE_ID_MAX];
    uint64_t start, end; /* the content's file offsets */
    int opened, busy;
    int status, err; /* the last job's: 0, -1 with err (errno), -2 damage (rd.damage) */
    struct pf_spool_reader rd;
    struct pf_spool_stats st; /* what the reading cost, for the relay's counts */
};

static void stream_free(struct relay *r, struct text_stream *ts)
{
    pf_spool_file_reader_close(&ts->rd);
    pthread_mutex_lock(&r->stats_lock);
    pf_spool_stats_add(&r->stats.spool, &ts->st);
    pthread_mutex_unlock(&r->stats_lock);
    free(ts);
}

/* Pool thread: open the file the first time, then read the next window. */
static void stream_work(struct io_job *job)
{
    struct text_stream *ts = (struct text_stream *)job;

    if (!ts->opened) {
        ts->opened = 1;
        ts->status = pf_spool_file_reader_open(ts->spool, ts->id, ts->start, ts->end,
                                               RELAY_TEXT_WINDOW, &ts->rd, &ts->st);
        ts->err = errno;
        if (ts->status != 0)
            return;
    }
    ts->status = pf_spool_file_reader_fill(&ts->rd);
    ts->err = errno;
}

static void stream_submit(struct relay_conn *c)
{
    c->stream->busy = 1;
    io_pool_submit(c->loop->cleanup, &c->stream->job);
}

/* Loop: a window has been read; its whole records go into the output. */
static void stream_done(struct io_job *job)
{
    struct text_stream *ts = (struct text_stream *)job;
    struct relay_conn *c = ts->conn;
    struct pf_spool_reader *rd = &ts->rd;
    struct out_room r;
    enum pf_qfile_piece piece = PF_PIECE_MORE;
    char why[300];

    ts->busy = 0;
    if (c == NULL) {
        stream_free(ts->relay, ts); /* the connection has ended meanwhile */
        return;
    }
    if (ts->status == -1) {
        snprintf(why, sizeof(why), "cannot read the queue file: %s", strerror(ts->err));
        relay_smtp_text_failed(c, 0, why);
        return;
    }
    if (ts->status == -2) {
        snprintf(why, sizeof(why), "queue file content at offset %llu: %s",
                 (unsigned long long)(rd->at + rd->pos), rd->damage);
        relay_smtp_text_failed(c, 1, why);
        return;
    }
    r = (struct out_room){.out = smtp_client_output(&c->client)};
    for (;;) {
        const char *data;
        size_t len, used;
        int line_end;

        piece = pf_qfile_content_piece(rd->buf + rd->pos, rd->len - rd->pos, rd->at + rd->pos,
                                       rd->end, &data, &len, &line_end, &used);
        if (piece != PF_PIECE_RECORD)
            break;
        stuff_out(&r, &c->stuffer, data, len, TEXT_ROOM);
        if (line_end)
            stuff_out(&r, &c->stuffer, "\r\n", 2, TEXT_ROOM);
        rd->pos += used;
    }
    if (piece == PF_PIECE_BAD) {
        relay_smtp_room_commit(&r);
        snprintf(why, sizeof(why), "queue file content at offset %llu: not a content record",
                 (unsigned long long)(rd->at + rd->pos));
        relay_smtp_text_failed(c, 1, why);
        return;
    }
    if (piece == PF_PIECE_END) {
        text_end(c, &r);
        c->stream = NULL;
        stream_free(c->relay, ts);
    }
    relay_smtp_room_commit(&r);
    smtp_client_flush(&c->client);
    if (c->state == SMTP_STEP_TEXT && output_low(c))
        stream_submit(c);
}

void relay_smtp_text_resume(struct relay_conn *c)
{
    if (c->state != SMTP_STEP_TEXT || c->closed || !output_low(c))
        return;
    if (c->stream == NULL)
        text_from_memory(c);
    else if (!c->stream->busy)
        stream_submit(c);
}

void relay_smtp_text_start(struct relay_conn *c)
{
    struct relay_msg *m = c->msg;
    struct text_stream *ts;

    smtp_stuff_init(&c->stuffer);
    c->text_off = m->view.content_start;
    c->state = SMTP_STEP_TEXT;
    smtp_client_text_begin(&c->client);
    /* on_output is called once the output is down to a window, not only when it is empty */
    smtp_client_write_low(&c->client, RELAY_TEXT_WINDOW);
    if (!m->view.content_unread) {
        text_from_memory(c);
        return;
    }
    ts = xcalloc(1, sizeof(*ts));
    ts->job.work = stream_work;
    ts->job.done = stream_done;
    ts->conn = c;
    ts->relay = c->relay;
    ts->spool = &c->relay->spool;
    snprintf(ts->id, sizeof(ts->id), "%s", m->id);
    ts->start = m->view.content_start;
    ts->end = m->view.content_end;
    ts->rd.fd = -1;
    c->stream = ts;
    stream_submit(c);
}

void relay_smtp_text_drop(struct relay_conn *c)
{
    if (c->stream == NULL)
        return;
    if (c->stream->busy)
        c->stream->conn = NULL; /* its job's done() frees it */
    else
        stream_free(c->relay, c->stream);
    c->stream = NULL;
}
