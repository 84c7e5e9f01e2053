/*
 * relay_bounce - the relay's bounce service.
 *
 * What Postfix's bounce daemon does when its qmgr flushes a message's
 * bounce log (bounce_notify_service.c), or its defer log once the message
 * is past its lifetime: read the log and the original's queue file, post
 * a notification through cleanup (here pf_spool_file_enqueue(), the very
 * function a received message goes through: a new file in incoming/,
 * created, renamed, written, fchmod'ed and synced), and only then remove
 * the log. A crash in between costs a duplicate notice, never a lost one.
 *
 * Who hears of it, as Postfix decides: the sender gets the notice, from
 * the null sender; a failed notice (null sender) goes to the postmaster
 * from double-bounce@HOSTNAME when --bounce-to-postmaster names one, and
 * is otherwise discarded with a log line (Postfix's default
 * notify_classes has no "2bounce"); a failed postmaster notice is always
 * discarded. So no notice can come back to us without end.
 *
 * It runs on a cleanup thread and touches only its message and the spool.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/time.h>

#include "dsn.h"
#include "relay_private.h"
#include "relay_bounce.h"
#include "xalloc.h"

/*
 * The most of a large original's text read for its headers: the notice
 * carries only the header section (dsn_header_length()), and Postfix's
 * header_size_limit is 100 KiB.
 */
#define HEADER_READ_MAX (4 * RELAY_TEXT_WINDOW)

struct head_text {
    char *text;
    size_t len;
};

/* Windows of the text until its header section has ended (an empty line) or is too long. */
static int take_head(void *ctx, const char *text, size_t len)
{
    struct head_text *h = ctx;
    size_t from = h->len >= 3 ? h->len - 3 : 0;

    h->text = xrealloc(h->text, h->len + len + 1);
    memcpy(h->text + h->len, text, len);
    h->len += len;
    h->text[h->len] = 0;
    if (h->len >= HEADER_READ_MAX || (h->len >= 2 && memcmp(h->text, "\r\n", 2) == 0))
        return 1;
    for (size_t i = from; i + 4 <= h->len; i++)
        if (memcmp(h->text + i, "\r\n\r\n", 4) == 0)
            return 1;
    return 0;
}

/*
 * The original's text, as the bounce daemon reads it from active/ (of a
 * large one, its beginning, enough for the headers); m's own copy if that
 * fails.
 */
static char *original_text(struct relay_msg *m, size_t *len, long *arrival)
{
    const struct pf_spool *sp = &m->relay->spool;
    struct pf_qfile_view view;
    char *file, *text = NULL, err[200];
    size_t file_len;

    if (pf_spool_file_load(sp, m->id, RELAY_TEXT_WINDOW, &file, &file_len, &view, err, sizeof(err),
                           &m->st) == 0) {
        if (view.content_unread) {
            struct head_text h = {xstrdup(""), 0};

            if (pf_spool_file_content_each(sp, m->id, &view, RELAY_TEXT_WINDOW, take_head, &h, err,
                                           sizeof(err), &m->st) >= 0) {
                text = h.text;
                *len = h.len;
            } else {
                free(h.text);
            }
        } else {
            text = pf_qfile_content_text(file, &view, len);
        }
        *arrival = view.arrival_sec;
        pf_qfile_view_free(&view);
        free(file);
    }
    /* As Postfix: an original that cannot be read is no reason not to tell the sender. */
    if (text == NULL) {
        text = pf_qfile_content_text(m->file, &m->view, len);
        *arrival = m->view.arrival_sec;
    }
    return text;
}

void relay_bounce_flush_work(struct relay_msg *m)
{
    struct relay *r = m->relay;
    const struct relay_options *opts = r->opts;
    const char *log_name = m->flush == RELAY_FLUSH_DEFER ? PF_QUEUE_DEFER : PF_QUEUE_BOUNCE;
    char *log_text, *text, *dsn, sender[1024], double_bounce[300];
    size_t log_len, text_len, dsn_len;
    struct dsn_log log;
    struct dsn_report rep = {0};
    struct timeval now;
    struct pf_qfile q;
    const char *to, *from;

    m->dsn_id[0] = 0;
    if (pf_spool_file_log_read(&r->spool, log_name, m->id, &log_text, &log_len, &m->st) != 0) {
        m->job_status = -1;
        m->job_errno = errno;
        snprintf(m->job_err, sizeof(m->job_err), "reading %s/%s", log_name, m->id);
        return;
    }
    text = original_text(m, &text_len, &rep.arrival_sec);
    dsn_log_parse(log_text, log_len, m->flush == RELAY_FLUSH_DEFER, &log);
    free(log_text);
    snprintf(sender, sizeof(sender), "%.*s", (int)m->view.sender_len, m->view.sender);
    snprintf(double_bounce, sizeof(double_bounce), "double-bounce@%.250s", opts->hostname);

    if (*sender == 0 && opts->bounce_to_postmaster) {
        to = opts->bounce_to_postmaster;
        from = double_bounce;
        rep.postmaster_copy = 1;
        m->job_status = RELAY_BOUNCE_POSTMASTER;
    } else if (*sender && strcasecmp(sender, double_bounce) != 0 && log.count > 0) {
        to = sender;
        from = "";
        m->job_status = RELAY_BOUNCE_SENDER;
    } else {
        to = NULL;
        from = NULL;
        m->job_status = RELAY_BOUNCE_DISCARDED;
        snprintf(m->job_err, sizeof(m->job_err), "%s",
                 log.count == 0 ? "a notice with no recipient in its log: not sent"
                 : *sender      ? "undeliverable postmaster notification discarded"
                                : "undeliverable notification (from <>) discarded: no "
                                  "--bounce-to-postmaster");
    }
    if (to) {
        gettimeofday(&now, NULL);
        rep.queue_id = m->id;
        rep.reporting_mta = opts->hostname;
        rep.sender = sender;
        rep.to = to;
        rep.now_sec = (long)now.tv_sec;
        rep.now_usec = (long)now.tv_usec;
        rep.log = &log;
        rep.headers = text;
        rep.headers_len = dsn_header_length(text, text_len);
        dsn = dsn_compose(&rep, &dsn_len);
        /* the notice is a message like a received one: the same queue file, the same steps */
        pf_qfile_init(&q);
        pf_qfile_begin(&q, (long)now.tv_sec, (long)now.tv_usec, from, NULL, NULL, NULL);
        pf_qfile_content(&q, dsn, dsn_len);
        pf_qfile_finish(&q, &to, 1);
        free(dsn);
        if (pf_spool_file_enqueue(&r->spool, &q, m->dsn_id, sizeof(m->dsn_id), &m->st) != 0) {
            m->job_status = -1;
            m->job_errno = errno;
            m->dsn_id[0] = 0;
            snprintf(m->job_err, sizeof(m->job_err), "posting to incoming/");
        }
        pf_qfile_free(&q);
    }
    dsn_log_free(&log);
    free(text);
    /* Only a notice that was posted (or had nobody to go to) takes its log away. */
    if (m->job_status >= 0 && pf_spool_file_log_remove(&r->spool, log_name, m->id, &m->st) != 0) {
        /* a notice posted twice is better than none: the log stays, the message waits */
        m->job_status = -1;
        m->job_errno = errno;
        snprintf(m->job_err, sizeof(m->job_err), "removing %s/%s", log_name, m->id);
    }
}
