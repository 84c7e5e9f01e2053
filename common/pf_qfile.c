/*
 * pf_qfile - Postfix queue files, built in memory; see pf_qfile.h.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pf_qfile.h"
#include "xalloc.h"

void pf_qfile_init(struct pf_qfile *q)
{
    memset(q, 0, sizeof(*q));
}

void pf_qfile_free(struct pf_qfile *q)
{
    free(q->buf);
    free(q->line);
    free(q->rcpt_offsets);
    memset(q, 0, sizeof(*q));
}

static void reserve(struct pf_qfile *q, size_t more)
{
    if (q->len + more <= q->cap)
        return;
    q->cap = (q->len + more) * 2 + 256;
    q->buf = xrealloc(q->buf, q->cap);
}

void pf_qfile_record(struct pf_qfile *q, int type, const char *data, size_t len)
{
    size_t n = len;

    reserve(q, len + 11);
    q->buf[q->len++] = (char)type;
    /* little-endian base 128, high bit = more bytes follow */
    do {
        unsigned char byte = n & 0x7f;

        n >>= 7;
        if (n)
            byte |= 0x80;
        q->buf[q->len++] = (char)byte;
    } while (n);
    if (len)
        memcpy(q->buf + q->len, data, len);
    q->len += len;
}

static void record_text(struct pf_qfile *q, int type, const char *text)
{
    pf_qfile_record(q, type, text, strlen(text));
}

static void record_attr(struct pf_qfile *q, const char *name, const char *value)
{
    char buf[600];

    snprintf(buf, sizeof(buf), "%s=%s", name, value);
    record_text(q, PF_REC_ATTR, buf);
}

void pf_qfile_size_record(const struct pf_qfile *q, char out[PF_SIZE_RECORD_LEN])
{
    char fields[PF_SIZE_RECORD_LEN];

    /* content size, data offset, recipients, qmgr flags, content length, SMTPUTF8 flags */
    snprintf(fields, sizeof(fields), "%15ld %15ld %15ld %15ld %15ld %15ld",
             (long)(q->content_end - q->content_start), (long)q->content_start, (long)q->rcpt_count,
             0L, (long)q->content_bytes, 0L);
    out[0] = PF_REC_SIZE;
    out[1] = (char)(PF_SIZE_RECORD_LEN - 2);
    memcpy(out + 2, fields, PF_SIZE_RECORD_LEN - 2);
}

void pf_qfile_begin(struct pf_qfile *q, long arrival_sec, long arrival_usec, const char *sender,
                    const char *client_name, const char *client_addr, const char *helo)
{
    char buf[64];

    q->len = 0;
    reserve(q, PF_SIZE_RECORD_LEN);
    pf_qfile_size_record(q, q->buf); /* zeros for now; see pf_qfile_finish() */
    q->len = PF_SIZE_RECORD_LEN;
    snprintf(buf, sizeof(buf), "%ld %ld", arrival_sec, arrival_usec);
    record_text(q, PF_REC_TIME, buf);
    snprintf(buf, sizeof(buf), "%ld", arrival_sec);
    record_attr(q, "create_time", buf);
    record_attr(q, "rewrite_context", "remote");
    if (client_name)
        record_attr(q, "client_name", client_name);
    if (client_addr)
        record_attr(q, "client_address", client_addr);
    if (helo)
        record_attr(q, "helo_name", helo);
    record_text(q, PF_REC_FROM, sender ? sender : "");
    pf_qfile_record(q, PF_REC_MESG, NULL, 0);
    q->content_start = q->len;
    q->line_len = 0;
}

/*
 * A line becomes an N record; a line longer than 2048 bytes becomes L
 * records of exactly 2048 bytes and a last N, wherever the pieces given
 * to us happened to end, as Postfix's smtpd and cleanup store it. A CR
 * before the LF is not stored: Postfix keeps lines without their ends.
 */
void pf_qfile_content(struct pf_qfile *q, const char *data, size_t len)
{
    if (q->line == NULL)
        q->line = xmalloc(PF_LINE_LIMIT);
    while (len > 0) {
        size_t room = PF_LINE_LIMIT - q->line_len;
        const char *lf = memchr(data, '\n', len < room ? len : room);
        size_t take = lf ? (size_t)(lf - data) : (len < room ? len : room);

        memcpy(q->line + q->line_len, data, take);
        q->line_len += take;
        data += take;
        len -= take;
        if (lf) {
            size_t text = q->line_len;

            if (text > 0 && q->line[text - 1] == '\r')
                text--;
            pf_qfile_record(q, PF_REC_NORM, q->line, text);
            q->content_bytes += text + 1;
            q->line_len = 0;
            data++;
            len--;
        } else if (q->line_len == PF_LINE_LIMIT) {
            pf_qfile_record(q, PF_REC_CONT, q->line, q->line_len);
            q->content_bytes += q->line_len;
            q->line_len = 0;
        }
    }
}

void pf_qfile_finish(struct pf_qfile *q, const char *const *rcpts, unsigned rcpt_count)
{
    if (q->line_len > 0) {
        /* A last line without its end is still content. */
        pf_qfile_record(q, PF_REC_NORM, q->line, q->line_len);
        q->content_bytes += q->line_len;
        q->line_len = 0;
    }
    q->content_end = q->len;
    pf_qfile_record(q, PF_REC_XTRA, NULL, 0);
    q->rcpt_offsets = xrealloc(q->rcpt_offsets, (rcpt_count ? rcpt_count : 1) * sizeof(size_t));
    q->rcpt_count = rcpt_count;
    for (unsigned i = 0; i < rcpt_count; i++) {
        q->rcpt_offsets[i] = q->len;
        record_text(q, PF_REC_RCPT, rcpts[i]);
    }
    pf_qfile_record(q, PF_REC_END, NULL, 0);
    pf_qfile_size_record(q, q->buf);
}

size_t pf_qfile_parse(const char *buf, size_t len, int *type, const char **data, size_t *data_len)
{
    size_t pos = 1, n = 0;
    unsigned shift = 0;

    if (len < 2)
        return 0;
    *type = (unsigned char)buf[0];
    for (;;) {
        unsigned char byte;

        if (pos >= len || shift > 28)
            return 0;
        byte = (unsigned char)buf[pos++];
        n |= (size_t)(byte & 0x7f) << shift;
        shift += 7;
        if (!(byte & 0x80))
            break;
    }
    if (n > len - pos)
        return 0;
    *data = buf + pos;
    *data_len = n;
    return pos + n;
}
