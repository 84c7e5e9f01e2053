/*
 * pf_qfile - Postfix queue files, built in memory; see pf_qfile.h.
 */
#include "config.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "msg.h"
#include "pf_qfile.h"
#include "xalloc.h"
#include "xgrow.h"

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

uint64_t pf_qfile_bound(uint64_t max_content, unsigned max_rcpt, size_t max_field)
{
    /* type + length (<= 3 bytes below 2^21) + data, per envelope field */
    uint64_t field = (uint64_t)max_field + 4 + 32; /* and an attribute's "name=" */

    /*
     * The fixed records (C, T, create_time, rewrite_context, M, X, E) fit
     * in 512 bytes; a last line without its end costs one record header
     * more than its bytes.
     */
    return 2 * max_content + 3 + (uint64_t)(max_rcpt + 4) * field + 512;
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
    q->drained = 0;
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
    q->content_start = (size_t)q->drained + q->len;
    q->line_len = 0;
}

/*
 * A line becomes an N record; a line longer than 2048 bytes becomes L
 * records of exactly 2048 bytes and a last N, wherever the pieces given
 * to us happened to end, as Postfix's smtpd and cleanup store it. A CR
 * before the LF is not stored: Postfix keeps lines without their ends.
 *
 * When 2048 bytes are buffered and the last one is a CR, the next byte
 * decides what it was (it may come in the next call): before an LF it is
 * half of the line end, and the line is 2047 bytes, an N record (Postfix's
 * smtp_get() repairs a CR LF cut by its length bound the same way);
 * before anything else it is text, and the 2048 bytes are an L record.
 */
void pf_qfile_content(struct pf_qfile *q, const char *data, size_t len)
{
    if (q->line == NULL)
        q->line = xmalloc(PF_LINE_LIMIT);
    while (len > 0) {
        size_t room, take;
        const char *lf;

        if (q->line_len == PF_LINE_LIMIT) {
            /* A full line ending in CR, held back from the previous call. */
            if (*data == '\n') {
                pf_qfile_record(q, PF_REC_NORM, q->line, q->line_len - 1);
                q->content_bytes += q->line_len; /* 2047 bytes and the line end */
                data++;
                len--;
            } else {
                pf_qfile_record(q, PF_REC_CONT, q->line, q->line_len);
                q->content_bytes += q->line_len;
            }
            q->line_len = 0;
            continue;
        }
        room = PF_LINE_LIMIT - q->line_len;
        lf = memchr(data, '\n', len < room ? len : room);
        take = lf ? (size_t)(lf - data) : (len < room ? len : room);
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
        } else if (q->line_len == PF_LINE_LIMIT && q->line[PF_LINE_LIMIT - 1] != '\r') {
            pf_qfile_record(q, PF_REC_CONT, q->line, q->line_len);
            q->content_bytes += q->line_len;
            q->line_len = 0;
        }
        /* else: full and ending in CR; the top of the loop or the next call decides */
    }
}

void pf_qfile_finish(struct pf_qfile *q, const char *const *rcpts, unsigned rcpt_count)
{
    if (q->line_len > 0) {
        /*
         * A last line without its end is still content. A full one held
         * back for its last CR stays the L record it would have been.
         */
        pf_qfile_record(q, q->line_len == PF_LINE_LIMIT ? PF_REC_CONT : PF_REC_NORM, q->line,
                        q->line_len);
        q->content_bytes += q->line_len;
        q->line_len = 0;
    }
    q->content_end = (size_t)q->drained + q->len;
    pf_qfile_record(q, PF_REC_XTRA, NULL, 0);
    q->rcpt_offsets = xrealloc(q->rcpt_offsets, (rcpt_count ? rcpt_count : 1) * sizeof(size_t));
    q->rcpt_count = rcpt_count;
    for (unsigned i = 0; i < rcpt_count; i++) {
        q->rcpt_offsets[i] = (size_t)q->drained + q->len;
        record_text(q, PF_REC_RCPT, rcpts[i]);
    }
    pf_qfile_record(q, PF_REC_END, NULL, 0);
    if (q->drained == 0)
        pf_qfile_size_record(q, q->buf);
}

void pf_qfile_drain(struct pf_qfile *q)
{
    q->drained += q->len;
    q->len = 0;
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

/*
 * Reading. Everything below trusts nothing in the file: it is how a
 * relay finds what to deliver and how crash recovery decides whether a
 * file left in the queue is whole, so a file cut short anywhere, or with
 * a bad byte anywhere, must come back as an error and never as a read
 * past the buffer. Nothing recurses, and the only allocation is the
 * recipient array, which grows with the R and D records actually there.
 */

/* A non-negative decimal that fits a long, all of [p, end); -1 if it is not one. */
static int parse_number(const char *p, const char *end, long *out)
{
    long n = 0;

    if (p == end)
        return -1;
    for (; p < end; p++) {
        if (*p < '0' || *p > '9' || n > (LONG_MAX - 9) / 10)
            return -1;
        n = n * 10 + (*p - '0');
    }
    *out = n;
    return 0;
}

/*
 * The six "%15ld" fields of the C record, each right-aligned in exactly
 * 15 columns and one space apart, as pf_qfile_size_record() writes them.
 * A negative value is no size at all, so it is rejected with the rest.
 */
static int parse_size_record(const char *data, long fields[6])
{
    for (int i = 0; i < 6; i++) {
        const char *p = data + i * 16, *end = p + 15;

        if (i > 0 && p[-1] != ' ')
            return -1;
        while (p < end && *p == ' ')
            p++;
        if (parse_number(p, end, &fields[i]) != 0)
            return -1;
    }
    return 0;
}

/* "sec usec", or plain "sec" as older Postfix versions wrote it. */
static int parse_time(const char *data, size_t len, long *sec, long *usec)
{
    const char *end = data + len, *sp = memchr(data, ' ', len);

    *usec = 0;
    if (sp == NULL)
        return parse_number(data, end, sec);
    if (parse_number(data, sp, sec) != 0 || parse_number(sp + 1, end, usec) != 0)
        return -1;
    return *usec < 1000000 ? 0 : -1;
}

static int add_rcpt(struct pf_qfile_view *v, size_t *cap, int type, const char *data, size_t len,
                    size_t offset)
{
    struct pf_qfile_rcpt *r;

    if (v->rcpt_count == UINT_MAX)
        return -1;
    v->rcpts = xgrow(v->rcpts, cap, v->rcpt_count + 1, 4, sizeof(*v->rcpts));
    r = &v->rcpts[v->rcpt_count++];
    r->addr = data;
    r->addr_len = len;
    r->offset = offset;
    r->done = type == PF_REC_DONE;
    if (!r->done)
        v->rcpt_pending++;
    return 0;
}

enum segment { SEG_ENVELOPE, SEG_CONTENT, SEG_EXTRACTED };

int pf_qfile_layout(const char *buf, size_t len, uint64_t *content_offset, uint64_t *content_size)
{
    long size[6];
    int type;
    const char *data;
    size_t data_len;

    if (pf_qfile_parse(buf, len, &type, &data, &data_len) != PF_SIZE_RECORD_LEN ||
        type != PF_REC_SIZE || data_len != PF_SIZE_RECORD_LEN - 2 ||
        parse_size_record(data, size) != 0)
        return -1;
    *content_offset = (uint64_t)size[1];
    *content_size = (uint64_t)size[0];
    return 0;
}

/*
 * `gap': the content section's bytes left out of buf after the M record
 * (0: buf is the whole file). Offsets in the view and in errors are the
 * file's: `shift' is what is added to an offset in buf past the gap.
 */
static int read_file(const char *buf, size_t len, uint64_t gap, struct pf_qfile_view *v, char *err,
                     size_t errlen)
{
    enum segment seg = SEG_ENVELOPE;
    size_t off, rcpt_cap = 0, shift = 0;
    long size[6];
    int type, have_time = 0, have_sender = 0;
    const char *data;
    size_t data_len, used;

    memset(v, 0, sizeof(*v));
    if (len < PF_SIZE_RECORD_LEN)
        return msg_set_error(err, errlen, "file shorter than the C record");
    used = pf_qfile_parse(buf, len, &type, &data, &data_len);
    /*
     * 97 bytes are not enough: a length written in two or more varint
     * bytes ("\xde\x00" is 94) leaves fewer than the 95 bytes that
     * parse_size_record() reads, so it read past the record, and past the
     * buffer when the file ended there (found writing fuzz_pf_qfile).
     */
    if (used != PF_SIZE_RECORD_LEN || type != PF_REC_SIZE || data_len != PF_SIZE_RECORD_LEN - 2 ||
        parse_size_record(data, size) != 0)
        return msg_set_error(err, errlen, "bad size record");
    v->content_bytes = (uint64_t)size[4];

    for (off = used;; off += used) {
        if (off == len) {
            /* Ran out before E: which marker is missing says how far the writer got. */
            pf_qfile_view_free(v);
            return msg_set_error(err, errlen, "no %c record",
                                 seg == SEG_ENVELOPE  ? PF_REC_MESG
                                 : seg == SEG_CONTENT ? PF_REC_XTRA
                                                      : PF_REC_END);
        }
        used = pf_qfile_parse(buf + off, len - off, &type, &data, &data_len);
        if (used == 0)
            goto malformed;
        /* Every Postfix record type is a printable character; anything else is damage. */
        if (type <= ' ' || type > '~')
            goto malformed;
        if (seg == SEG_CONTENT) {
            if (type == PF_REC_XTRA) {
                if (gap > SIZE_MAX - off) {
                    pf_qfile_view_free(v);
                    return msg_set_error(err, errlen, "bad size record");
                }
                shift = (size_t)gap;
                v->content_end = off + shift;
                seg = SEG_EXTRACTED;
            } else if (gap > 0 || (type != PF_REC_NORM && type != PF_REC_CONT)) {
                goto misplaced; /* with the content left out, X follows M */
            }
            continue;
        }
        switch (type) {
        case PF_REC_RCPT:
        case PF_REC_DONE:
            if (add_rcpt(v, &rcpt_cap, type, data, data_len, off + shift) != 0) {
                pf_qfile_view_free(v);
                return msg_set_error(err, errlen, "too many recipients at offset %zu", off + shift);
            }
            break;
        case PF_REC_TIME:
            if (seg != SEG_ENVELOPE || have_time)
                goto misplaced;
            if (parse_time(data, data_len, &v->arrival_sec, &v->arrival_usec) != 0) {
                pf_qfile_view_free(v);
                return msg_set_error(err, errlen, "bad T record at offset %zu", off + shift);
            }
            have_time = 1;
            break;
        case PF_REC_FROM:
            if (seg != SEG_ENVELOPE || have_sender)
                goto misplaced;
            v->sender = data;
            v->sender_len = data_len;
            have_sender = 1;
            break;
        case PF_REC_MESG:
            if (seg != SEG_ENVELOPE)
                goto misplaced;
            seg = SEG_CONTENT;
            v->content_start = off + used;
            break;
        case PF_REC_END:
            if (seg != SEG_EXTRACTED) {
                pf_qfile_view_free(v);
                return msg_set_error(err, errlen, "no %c record", PF_REC_MESG);
            }
            goto end;
        case PF_REC_SIZE:
        case PF_REC_NORM:
        case PF_REC_XTRA:
            goto misplaced;
        default:
            /* A, O, W, F, P, K, >, ...: Postfix's, not needed here */
            break;
        }
    }

end:
    if (off + used != len) {
        pf_qfile_view_free(v);
        return msg_set_error(err, errlen, "trailing garbage after E at offset %zu",
                             off + shift + used);
    }
    if (!have_time || !have_sender) {
        pf_qfile_view_free(v);
        return msg_set_error(err, errlen, "no %c record", have_time ? PF_REC_FROM : PF_REC_TIME);
    }
    /* A C record that disagrees with the file was not rewritten, or the file was damaged. */
    if ((size_t)size[1] != v->content_start ||
        (size_t)size[0] != v->content_end - v->content_start) {
        pf_qfile_view_free(v);
        return msg_set_error(err, errlen, "bad size record");
    }
    v->content_unread = gap > 0;
    return 0;

malformed:
    pf_qfile_view_free(v);
    return msg_set_error(err, errlen, "malformed record at offset %zu", off + shift);
misplaced:
    pf_qfile_view_free(v);
    return msg_set_error(err, errlen, "unexpected %c record at offset %zu", type, off + shift);
}

int pf_qfile_read(const char *buf, size_t len, struct pf_qfile_view *v, char *err, size_t errlen)
{
    return read_file(buf, len, 0, v, err, errlen);
}

int pf_qfile_read_envelope(const char *buf, size_t len, uint64_t gap, struct pf_qfile_view *v,
                           char *err, size_t errlen)
{
    return read_file(buf, len, gap, v, err, errlen);
}

void pf_qfile_view_free(struct pf_qfile_view *v)
{
    free(v->rcpts);
    memset(v, 0, sizeof(*v));
}

int pf_qfile_content_next(const char *buf, const struct pf_qfile_view *v, size_t *off,
                          const char **data, size_t *len, int *line_end)
{
    int type;
    size_t used;

    if (*off >= v->content_end || v->content_unread)
        return 0; /* the content is not in buf */
    used = pf_qfile_parse(buf + *off, v->content_end - *off, &type, data, len);
    if (used == 0)
        return 0; /* not a view of this buffer; pf_qfile_read() has ruled it out */
    *line_end = type == PF_REC_NORM;
    *off += used;
    return 1;
}

/*
 * An N record gives its data plus two bytes and an L record its data,
 * while each record takes at least two bytes of the file, so the text is
 * never longer than the content section: one allocation, no second pass.
 */
enum pf_qfile_piece pf_qfile_content_piece(const char *buf, size_t len, uint64_t at,
                                           uint64_t content_end, const char **data,
                                           size_t *data_len, int *line_end, size_t *used)
{
    uint64_t left = content_end > at ? content_end - at : 0;
    size_t avail = len < left ? len : (size_t)left;
    int type;

    if (at >= content_end)
        return at == content_end ? PF_PIECE_END : PF_PIECE_BAD;
    *used = pf_qfile_parse(buf, avail, &type, data, data_len);
    if (*used == 0)
        return len >= left ? PF_PIECE_BAD : PF_PIECE_MORE; /* cut by X, or by the window */
    if (type != PF_REC_NORM && type != PF_REC_CONT)
        return PF_PIECE_BAD;
    *line_end = type == PF_REC_NORM;
    return PF_PIECE_RECORD;
}

char *pf_qfile_content_text(const char *buf, const struct pf_qfile_view *v, size_t *len)
{
    size_t off = v->content_start, n = 0, data_len;
    char *text = xmalloc(v->content_unread ? 1 : v->content_end - v->content_start + 1);
    const char *data;
    int line_end;

    while (pf_qfile_content_next(buf, v, &off, &data, &data_len, &line_end)) {
        memcpy(text + n, data, data_len);
        n += data_len;
        if (line_end) {
            text[n++] = '\r';
            text[n++] = '\n';
        }
    }
    text[n] = 0;
    *len = n;
    return text;
}
