/*
 * fuzz_pf_qfile - Postfix queue files: pf_qfile_read() on hostile bytes,
 * and the writer and reader round trip.
 *
 * A relay reads its queue files back and crash recovery reads whatever a
 * crash left, so pf_qfile_read() must turn any damage into an error and
 * never read outside the buffer (the input is an exact-size allocation,
 * so ASan sees a one-byte over-read). When it accepts the input, the view
 * must point into it: every recipient's offset is inside the file and its
 * type byte is R or D as `done' says, the pending count adds up, and
 * pf_qfile_content_text() fits the content section.
 *
 * Then the input is used as message content: pf_qfile_begin(), _content()
 * in a chunking drawn from the input's hash, and _finish() must give a
 * file that pf_qfile_read() accepts, with the sender, recipients, time
 * and content length it was built with, and whose content text is the
 * input with every line end as CR LF (a CR not before an LF is content;
 * an unfinished last line gets a CR LF unless it ended exactly on a
 * 2048-byte record boundary, where it stays an L record). Marking a
 * recipient delivered by rewriting its type byte to D must be read back.
 */
#include "config.h"

#include "fuzz.h"
#include "pf_qfile.h"

static void check_view(const char *buf, size_t len, const struct pf_qfile_view *v)
{
    unsigned pending = 0;
    size_t text_len;
    char *text;

    FUZZ_CHECK(v->content_start <= v->content_end && v->content_end < len);
    FUZZ_CHECK(v->sender_len == 0 || (v->sender >= buf && v->sender + v->sender_len <= buf + len));
    FUZZ_CHECK(v->arrival_sec >= 0 && v->arrival_usec >= 0 && v->arrival_usec < 1000000);
    for (unsigned i = 0; i < v->rcpt_count; i++) {
        const struct pf_qfile_rcpt *r = &v->rcpts[i];

        FUZZ_CHECK(r->offset < len);
        FUZZ_CHECK(buf[r->offset] == (r->done ? PF_REC_DONE : PF_REC_RCPT));
        FUZZ_CHECK(r->addr > buf + r->offset && r->addr + r->addr_len <= buf + len);
        pending += !r->done;
    }
    FUZZ_CHECK(pending == v->rcpt_pending);
    text = pf_qfile_content_text(buf, v, &text_len);
    FUZZ_CHECK(text != NULL && text_len <= v->content_end - v->content_start);
    FUZZ_CHECK(text[text_len] == '\0');
    free(text);
}

/* The content text pf_qfile.h promises for content `in'. */
static void expected_text(const char *in, size_t n, struct fuzz_buf *out)
{
    size_t last_line = 0; /* where the unfinished last line starts */

    for (size_t i = 0; i < n; i++) {
        if (in[i] == '\n') {
            if (i == 0 || in[i - 1] != '\r')
                fuzz_buf_put(out, "\r", 1);
            last_line = i + 1;
        }
        fuzz_buf_put(out, &in[i], 1);
    }
    if (n > last_line && (n - last_line) % PF_LINE_LIMIT != 0)
        fuzz_buf_put(out, "\r\n", 2);
}

static void round_trip(const char *in, size_t n, uint64_t seed)
{
    static const char *const rcpts[] = {"a@example.org", "<b@example.net>", "", "c"};
    struct fuzz_rng rng;
    struct pf_qfile q;
    struct pf_qfile_view v;
    struct fuzz_buf want = {0};
    unsigned nrcpt;
    size_t fed = 0, text_len, crlf = 0;
    char err[128], *text;

    fuzz_rng_init(&rng, seed);
    nrcpt = (unsigned)(fuzz_rng_next(&rng) % 5);
    pf_qfile_init(&q);
    pf_qfile_begin(&q, 1700000000, 123456, "sender@example.org", "client.example", "192.0.2.1",
                   "helo.example");
    while (fed < n) {
        size_t take = fuzz_chunk(&rng, n - fed);

        pf_qfile_content(&q, in + fed, take);
        fed += take;
    }
    pf_qfile_finish(&q, rcpts, nrcpt);

    if (pf_qfile_read(q.buf, q.len, &v, err, sizeof(err)) != 0) {
        fprintf(stderr, "pf_qfile_read refused its own file: %s\n", err);
        FUZZ_CHECK(0);
    }
    check_view(q.buf, q.len, &v);
    FUZZ_CHECK(v.arrival_sec == 1700000000 && v.arrival_usec == 123456);
    FUZZ_CHECK(v.sender_len == 18 && memcmp(v.sender, "sender@example.org", 18) == 0);
    FUZZ_CHECK(v.rcpt_count == nrcpt && v.rcpt_pending == nrcpt);
    for (unsigned i = 0; i < nrcpt; i++) {
        FUZZ_CHECK(v.rcpts[i].addr_len == strlen(rcpts[i]));
        FUZZ_CHECK(memcmp(v.rcpts[i].addr, rcpts[i], v.rcpts[i].addr_len) == 0);
        FUZZ_CHECK(v.rcpts[i].offset == q.rcpt_offsets[i]);
    }
    for (size_t i = 1; i < n; i++)
        crlf += in[i] == '\n' && in[i - 1] == '\r';
    FUZZ_CHECK(v.content_bytes == q.content_bytes && v.content_bytes == n - crlf);

    expected_text(in, n, &want);
    text = pf_qfile_content_text(q.buf, &v, &text_len);
    FUZZ_CHECK(text_len == want.len);
    FUZZ_CHECK(text_len == 0 || memcmp(text, want.data, text_len) == 0);
    free(text);

    /* Deliver the first recipient in place, as the relay does. */
    if (nrcpt > 0) {
        struct pf_qfile_view v2;

        q.buf[v.rcpts[0].offset] = PF_REC_DONE;
        FUZZ_CHECK(pf_qfile_read(q.buf, q.len, &v2, err, sizeof(err)) == 0);
        FUZZ_CHECK(v2.rcpt_count == nrcpt && v2.rcpt_pending == nrcpt - 1 && v2.rcpts[0].done);
        pf_qfile_view_free(&v2);
    }
    pf_qfile_view_free(&v);
    pf_qfile_free(&q);
    free(want.data);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *buf = (const char *)data;
    struct pf_qfile_view v;
    char err[128];

    if (pf_qfile_read(buf, size, &v, err, sizeof(err)) == 0) {
        check_view(buf, size, &v);
        pf_qfile_view_free(&v);
    } else {
        FUZZ_CHECK(v.rcpts == NULL); /* nothing to free after an error */
        FUZZ_CHECK(strnlen(err, sizeof(err)) < sizeof(err) && err[0] != '\0');
    }
    round_trip(buf, size, fuzz_hash(data, size));
    return 0;
}
