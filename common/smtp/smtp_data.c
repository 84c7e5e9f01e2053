/*
 * smtp_data - read SMTP DATA content; see smtp_data.h.
 */
#include "config.h"

#include <string.h>

#include "smtp_data.h"

enum {
    ST_LINE_START, /* at the start of a line */
    ST_TEXT,       /* inside a line */
    ST_TEXT_CR,    /* inside a line, a CR was just emitted */
    ST_DOT,        /* a "." at the start of a line, held back */
    ST_DOT_CR,     /* "." CR at the start of a line, both held back */
};

/* Content leaves in runs through a small stack buffer, not byte by byte. */
struct out_buf {
    char data[4096];
    size_t len;
    uint64_t total;
    smtp_data_emit_fn emit;
    void *ctx;
};

static void out_flush(struct out_buf *out)
{
    if (out->len > 0 && out->emit)
        out->emit(out->ctx, out->data, out->len);
    out->total += out->len;
    out->len = 0;
}

static inline void out_put(struct out_buf *out, char c)
{
    if (out->len == sizeof(out->data))
        out_flush(out);
    out->data[out->len++] = c;
}

/* A run of plain text: copied if short, handed over in place if long. */
static void out_put_span(struct out_buf *out, const char *p, size_t n)
{
    if (n <= sizeof(out->data) - out->len) {
        memcpy(out->data + out->len, p, n);
        out->len += n;
        return;
    }
    out_flush(out);
    if (out->emit)
        out->emit(out->ctx, p, n);
    out->total += n;
}

void smtp_data_init(struct smtp_data_reader *rd, enum smtp_bare_lf_policy policy)
{
    memset(rd, 0, sizeof(*rd));
    rd->policy = policy;
    rd->state = ST_LINE_START;
}

/* A bare LF ends a content line: stored as CR LF unless the policy is strict. */
static void bare_lf(struct smtp_data_reader *rd, struct out_buf *out)
{
    rd->bare_lf_seen = 1;
    if (rd->policy != SMTP_BARE_LF_STRICT)
        out_put(out, '\r');
    out_put(out, '\n');
    rd->after_bare_lf = 1;
    rd->state = ST_LINE_START;
}

/* One byte inside a line (ST_TEXT or ST_TEXT_CR). */
static void text_byte(struct smtp_data_reader *rd, struct out_buf *out, char c)
{
    if (rd->state == ST_TEXT_CR) {
        if (c == '\n') {
            out_put(out, '\n');
            rd->after_bare_lf = 0;
            rd->state = ST_LINE_START;
            return;
        }
        rd->bare_cr_seen = 1;
    }
    if (c == '\n') {
        bare_lf(rd, out);
        return;
    }
    out_put(out, c);
    rd->state = c == '\r' ? ST_TEXT_CR : ST_TEXT;
}

/*
 * Text from in[i], which is no CR or LF, in ST_TEXT: the run up to the
 * next CR or LF leaves at once, and a line that ends there in CR LF is
 * taken whole, its end included. Returns the index of the last byte taken.
 */
static size_t text_run(struct smtp_data_reader *rd, struct out_buf *out, const char *in, size_t i,
                       size_t len)
{
    const char *p = in + i, *lf = memchr(p, '\n', len - i);
    size_t scan = lf ? (size_t)(lf - p) : len - i;
    const char *cr = memchr(p, '\r', scan);

    if (lf && cr == lf - 1) {
        out_put_span(out, p, scan + 1);
        rd->after_bare_lf = 0;
        rd->state = ST_LINE_START;
        return i + scan;
    }
    scan = cr ? (size_t)(cr - p) : scan;
    out_put_span(out, p, scan);
    return i + scan - 1;
}

size_t smtp_data_feed(struct smtp_data_reader *rd, const char *in, size_t len,
                      smtp_data_emit_fn emit, void *ctx)
{
    struct out_buf out;
    size_t i;

    out.len = 0;
    out.total = 0;
    out.emit = emit;
    out.ctx = ctx;
    for (i = 0; i < len && !rd->done; i++) {
        char c = in[i];

        switch (rd->state) {
        case ST_LINE_START:
            if (c == '.') {
                rd->state = ST_DOT;
                break;
            }
            rd->state = ST_TEXT;
            /* fall through */
        case ST_TEXT:
            if (c != '\r' && c != '\n') {
                /* Most of a message is plain text: move it a run at a time. */
                i = text_run(rd, &out, in, i, len);
                break;
            }
            text_byte(rd, &out, c);
            break;
        case ST_TEXT_CR:
            text_byte(rd, &out, c);
            break;
        case ST_DOT:
            if (c == '\r') {
                rd->state = ST_DOT_CR;
            } else if (c == '\n') {
                if (rd->policy == SMTP_BARE_LF_LENIENT) {
                    rd->done = 1;
                } else {
                    /* "." LF is no terminator here: keep the line as it came. */
                    out_put(&out, '.');
                    bare_lf(rd, &out);
                }
            } else {
                /* A stuffed line: the leading dot goes, the rest is text. */
                rd->state = ST_TEXT;
                text_byte(rd, &out, c);
            }
            break;
        case ST_DOT_CR:
            if (c == '\n') {
                if (!rd->after_bare_lf || rd->policy == SMTP_BARE_LF_LENIENT) {
                    rd->done = 1;
                } else {
                    out_put(&out, '.');
                    out_put(&out, '\r');
                    out_put(&out, '\n');
                    rd->after_bare_lf = 0;
                    rd->state = ST_LINE_START;
                }
            } else {
                /* ". CR x": a stuffed line whose text starts with a bare CR. */
                out_put(&out, '\r');
                rd->state = ST_TEXT_CR;
                text_byte(rd, &out, c);
            }
            break;
        }
    }
    out_flush(&out);
    rd->content_bytes += out.total;
    return i;
}

const char *smtp_data_reject(const struct smtp_data_reader *rd)
{
    if (rd->policy != SMTP_BARE_LF_STRICT)
        return NULL;
    if (rd->bare_lf_seen)
        return "550 5.5.2 Error: bare <LF> received";
    if (rd->bare_cr_seen)
        return "550 5.5.2 Error: bare <CR> received";
    return NULL;
}

static const char *const policy_names[] = {"strict", "normalize", "lenient"};

double smtp_data_time_left(const struct smtp_data_reader *rd, double timeout, double min_rate,
                           double spent)
{
    return timeout + (double)rd->content_bytes / min_rate - spent;
}

int smtp_data_bare_lf_parse(const char *name, enum smtp_bare_lf_policy *policy)
{
    for (int i = 0; i < 3; i++) {
        if (strcmp(name, policy_names[i]) == 0) {
            *policy = (enum smtp_bare_lf_policy)i;
            return 0;
        }
    }
    return -1;
}

const char *smtp_data_bare_lf_name(enum smtp_bare_lf_policy policy)
{
    return policy_names[policy];
}
