/*
 * source_message - the messages smtp-source sends; see source_message.h.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "checksum.h"
#include "msg.h"
#include "smtp_stuff.h"
#include "source_message.h"
#include "xalloc.h"

#define LINE_LEN 80 /* 78 'X' + CR LF */

static void build_body(struct source_message *m, size_t cap)
{
    m->body_cap = cap - cap % LINE_LEN + LINE_LEN;
    m->body = xmalloc(m->body_cap);
    for (size_t off = 0; off < m->body_cap; off += LINE_LEN) {
        memset(m->body + off, 'X', LINE_LEN - 2);
        m->body[off + LINE_LEN - 2] = '\r';
        m->body[off + LINE_LEN - 1] = '\n';
    }
}

static void load_file(struct source_message *m, const char *path)
{
    FILE *fp = fopen(path, "r");
    struct smtp_stuffer st;
    char buf[8192];
    size_t n, cap = 16384, len = 0;
    char *wire = xmalloc(cap);

    if (fp == NULL)
        msg_usage("-F: cannot open %s: %s", path, strerror(errno));
    smtp_stuff_init(&st);
    m->file_checksum = CHECKSUM_INIT;
    while ((n = fread(buf, 1, sizeof(buf), fp)) > 0) {
        size_t start = len;

        if (len + SMTP_STUFF_BOUND(n) + SMTP_STUFF_FINISH_MAX > cap) {
            cap = 2 * (len + SMTP_STUFF_BOUND(n) + SMTP_STUFF_FINISH_MAX);
            wire = xrealloc(wire, cap);
        }
        len += smtp_stuff(&st, buf, n, wire + len);
        (void)start;
    }
    if (ferror(fp))
        msg_fatal("-F: read error on %s: %s", path, strerror(errno));
    fclose(fp);
    /* A last line without a line end gets one, as Postfix's -F does. */
    if (!st.at_line_start) {
        wire[len++] = '\r';
        wire[len++] = '\n';
    }
    m->file_wire = wire;
    m->file_wire_len = len;
    /* Un-stuff the wire form once: that is the content the sink will see. */
    m->file_content_len = 0;
    for (size_t i = 0; i < len;) {
        const char *eol = memchr(wire + i, '\n', len - i);
        size_t line_end = (size_t)(eol - wire) + 1;
        size_t skip = wire[i] == '.' ? 1 : 0;

        m->file_checksum = checksum_update(m->file_checksum, wire + i + skip, line_end - i - skip);
        m->file_content_len += line_end - i - skip;
        i = line_end;
    }
}

void source_message_init(struct source_message *m, const struct source_options *opts,
                         const char *myhostname)
{
    char addr[512];

    memset(m, 0, sizeof(*m));
    m->opts = opts;
    m->helo_name = xstrdup(opts->helo_name ? opts->helo_name : myhostname);
    snprintf(addr, sizeof(addr), "foo@%s", m->helo_name);
    m->from = xstrdup(opts->from ? opts->from : addr);
    m->to = xstrdup(opts->to ? opts->to : addr);
    m->date_second = -1;
    m->run_tag = ((unsigned long)time(NULL) << 16) ^ (unsigned long)getpid();
    if (opts->message_file) {
        load_file(m, opts->message_file);
    } else {
        uint64_t max = opts->size.kind == SIZE_FIXED     ? opts->size.a
                       : opts->size.kind == SIZE_UNIFORM ? opts->size.b
                                                         : opts->size.max;

        build_body(m, (size_t)max + LINE_LEN);
    }
}

void source_message_free(struct source_message *m)
{
    free(m->from);
    free(m->to);
    free(m->helo_name);
    free(m->body);
    free(m->file_wire);
}

size_t source_message_header(struct source_message *m, uint64_t seq, char *buf, size_t len,
                             char *msgid, size_t msgid_len)
{
    time_t now = time(NULL);
    int n;

    /* -o and -F send no header of ours, so there is no Message-Id to log either. */
    if (m->opts->old_mode || m->opts->message_file) {
        snprintf(msgid, msgid_len, "-");
        return 0;
    }
    snprintf(msgid, msgid_len, "<%lx.%llu@%s>", m->run_tag, (unsigned long long)seq, m->helo_name);
    if ((long)now != m->date_second) {
        struct tm tm;

        localtime_r(&now, &tm);
        strftime(m->date, sizeof(m->date), "%a, %d %b %Y %H:%M:%S %z", &tm);
        m->date_second = (long)now;
    }
    n = snprintf(buf, len, "From: <%s>\r\nTo: <%s>\r\nDate: %s\r\nMessage-Id: %s\r\n%s%s%s\r\n",
                 m->from, m->to, m->date, msgid, m->opts->subject ? "Subject: " : "",
                 m->opts->subject ? m->opts->subject : "", m->opts->subject ? "\r\n" : "");
    if (n < 0 || (size_t)n >= len)
        msg_fatal("message header longer than %zu bytes", len);
    return (size_t)n;
}

size_t source_message_body(const struct source_message *m, uint64_t length,
                           struct source_body *body)
{
    size_t want = length < m->body_cap - LINE_LEN ? (size_t)length : m->body_cap - LINE_LEN;
    size_t tail = want % LINE_LEN;

    if (tail == 1)
        tail = 2;
    body->lines = m->body;
    body->lines_len = want - want % LINE_LEN;
    /* The end of any template line is (tail - 2) 'X' and a CR LF. */
    body->tail = m->body + LINE_LEN - tail;
    body->tail_len = tail;
    return body->lines_len + body->tail_len;
}
