/*
 * source_message - the messages smtp-source sends; see source_message.h.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
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
    struct content_sum sum;
    char buf[8192];
    size_t n, cap = 16384, len = 0;
    char *wire = xmalloc(cap);

    if (fp == NULL)
        msg_usage("-F: cannot open %s: %s", path, strerror(errno));
    smtp_stuff_init(&st);
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
    checksum_content_init(&sum);
    for (size_t i = 0; i < len;) {
        const char *eol = memchr(wire + i, '\n', len - i);
        size_t line_end = (size_t)(eol - wire) + 1;
        size_t skip = wire[i] == '.' ? 1 : 0;

        checksum_content_update(&sum, wire + i + skip, line_end - i - skip, NULL, NULL);
        m->file_content_len += line_end - i - skip;
        i = line_end;
    }
    checksum_content_end(&sum, NULL, NULL);
    m->file_log_size = sum.size;
    m->file_checksum = sum.sum;
}

static char *line_of(size_t *len, const char *verb, const char *arg, const char *end)
{
    size_t n = strlen(verb) + strlen(arg) + strlen(end) + 2;
    char *line = xmalloc(n + 1);

    *len = (size_t)snprintf(line, n + 1, "%s%s%s\r\n", verb, arg, end);
    return line;
}

void source_message_init(struct source_message *m, const struct source_options *opts,
                         const char *myhostname)
{
    char addr[512];
    const char *subject = opts->subject;
    size_t n;

    memset(m, 0, sizeof(*m));
    m->opts = opts;
    m->helo_name = xstrdup(opts->helo_name ? opts->helo_name : myhostname);
    snprintf(addr, sizeof(addr), "foo@%s", m->helo_name);
    m->from = xstrdup(opts->from ? opts->from : addr);
    m->to = xstrdup(opts->to ? opts->to : addr);
    m->date_second = -1;
    m->run_tag = ((unsigned long)time(NULL) << 16) ^ (unsigned long)getpid();
    m->helo_cmd = line_of(&m->helo_cmd_len, opts->tool.lmtp ? "LHLO " : "EHLO ", m->helo_name, "");
    m->mail_cmd = line_of(&m->mail_cmd_len, "MAIL FROM:<", m->from, ">");
    m->rcpt_cmd = line_of(&m->rcpt_cmd_len, "RCPT TO:<", m->to, ">");
    n = strlen(m->helo_name) + (subject ? strlen(subject) : 0) + 32;
    m->tail = xmalloc(n);
    /* Date is at most 63 octets, the tag 16 hex digits. */
    m->head_cap = strlen(m->from) + strlen(m->to) + 160;
    m->head = xmalloc(m->head_cap);
    m->tail_len =
        (size_t)snprintf(m->tail, n, "@%s>\r\n%s%s%s\r\n", m->helo_name, subject ? "Subject: " : "",
                         subject ? subject : "", subject ? "\r\n" : "");
    if (opts->message_file) {
        load_file(m, opts->message_file);
    } else {
        uint64_t max = opts->size.kind == SIZE_FIXED     ? opts->size.a
                       : opts->size.kind == SIZE_UNIFORM ? opts->size.b
                                                         : opts->size.max;

        if (opts->workload) /* its largest message, which no size above 1024m exceeds */
            max = (uint64_t)fmin(opts->workload->quantiles[opts->workload->n_quantiles - 1][1],
                                 1024.0 * 1024 * 1024);

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
    free(m->helo_cmd);
    free(m->mail_cmd);
    free(m->rcpt_cmd);
    free(m->tail);
    free(m->head);
}

void source_message_copy(struct source_message *copy, const struct source_message *m)
{
    *copy = *m;
    copy->head = xmalloc(m->head_cap);
    copy->head_len = 0;
    copy->date[0] = 0;
    copy->date_second = -1;
}

void source_message_free_copy(struct source_message *copy)
{
    free(copy->head);
    copy->head = NULL;
}

/* The header up to the sequence number, for the current second. */
static void build_head(struct source_message *m, time_t now)
{
    struct tm tm;
    int n, id;

    localtime_r(&now, &tm);
    strftime(m->date, sizeof(m->date), "%a, %d %b %Y %H:%M:%S %z", &tm);
    m->date_second = (long)now;
    n = snprintf(m->head, m->head_cap,
                 "From: <%s>\r\nTo: <%s>\r\nDate: %s\r\nMessage-Id: ", m->from, m->to, m->date);
    id = snprintf(m->head + n, m->head_cap - (size_t)n, "<%lx.", m->run_tag);
    m->msgid_start = (size_t)n;
    m->head_len = (size_t)(n + id);
}

/* `v' in decimal at `out' (room for 20 digits); the digit count. */
static size_t put_decimal(char *out, uint64_t v)
{
    char digits[20];
    size_t n = 0;

    do {
        digits[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    for (size_t i = 0; i < n; i++)
        out[i] = digits[n - 1 - i];
    return n;
}

size_t source_message_header(struct source_message *m, uint64_t seq, char *buf, size_t len,
                             char *msgid, size_t msgid_len)
{
    time_t now;
    size_t n, id_len;

    /* -o and -F send no header of ours, so there is no Message-Id to log either. */
    if (m->opts->old_mode || m->opts->message_file) {
        snprintf(msgid, msgid_len, "-");
        return 0;
    }
    now = time(NULL);
    if ((long)now != m->date_second)
        build_head(m, now);
    if (m->head_len + 20 + m->tail_len >= len)
        msg_fatal("message header longer than %zu bytes", len);
    memcpy(buf, m->head, m->head_len);
    n = m->head_len + put_decimal(buf + m->head_len, seq);
    memcpy(buf + n, m->tail, m->tail_len);
    /* The Message-Id runs from its '<' to the '>' that ends the tail's first line. */
    id_len = n - m->msgid_start + strlen(m->helo_name) + 2;
    n += m->tail_len;
    if (msgid_len > 0) {
        size_t keep = id_len < msgid_len ? id_len : msgid_len - 1;

        memcpy(msgid, buf + m->msgid_start, keep);
        msgid[keep] = 0;
    }
    return n;
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
