/*
 * Unit tests: pf_qfile, Postfix queue files built in memory. Where
 * Debian's postcat is installed, it must read the result without a
 * warning; elsewhere that one test says it was skipped.
 */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pf_qfile.h"
#include "check_main.h"
#include "check_tmpdir.h"

static const char *const rcpts[] = {"a@example.org", "b@example.org"};

static void build(struct pf_qfile *q, const char *content, size_t len)
{
    pf_qfile_init(q);
    pf_qfile_begin(q, 1700000000, 123456, "sender@example.org", "client.example", "127.0.0.1",
                   "helo.example");
    pf_qfile_content(q, content, len);
    pf_qfile_finish(q, rcpts, 2);
}

/* build() of a string: the text most tests give. */
static void build_text(struct pf_qfile *q, const char *content)
{
    build(q, content, strlen(content));
}

/* Walk the records; fill `types' with their type bytes. */
static size_t walk(const struct pf_qfile *q, char *types, size_t max)
{
    size_t off = 0, n = 0;

    while (off < q->len) {
        int type;
        const char *data;
        size_t data_len, used = pf_qfile_parse(q->buf + off, q->len - off, &type, &data, &data_len);

        ck_assert_msg(used > 0, "malformed record at offset %zu", off);
        if (n < max)
            types[n] = (char)type;
        n++;
        off += used;
    }
    return n;
}

START_TEST(test_record_order)
{
    struct pf_qfile q;
    char types[64];
    size_t n;

    build_text(&q, "Subject: hi\r\n\r\nbody\r\n");
    n = walk(&q, types, sizeof(types));
    types[n] = 0;
    /* C T A(create_time) A(rewrite_context) A A A S M N N N X R R E */
    ck_assert_str_eq(types, "CTAAAAASMNNNXRRE");
    pf_qfile_free(&q);
}
END_TEST

START_TEST(test_size_record)
{
    struct pf_qfile q;
    char expect[128];
    const char content[] = "Subject: hi\r\n\r\nbody\r\n";

    build(&q, content, strlen(content));
    ck_assert_int_eq(q.buf[0], 'C');
    ck_assert_int_eq(q.buf[1], PF_SIZE_RECORD_LEN - 2);
    snprintf(expect, sizeof(expect), "%15ld %15ld %15ld %15ld %15ld %15ld",
             (long)(q.content_end - q.content_start), (long)q.content_start, 2L, 0L,
             (long)strlen("Subject: hi\n\nbody\n"), 0L);
    ck_assert(memcmp(q.buf + 2, expect, PF_SIZE_RECORD_LEN - 2) == 0);
    /* The data offset points at the first content record, right after M. */
    ck_assert_int_eq(q.buf[q.content_start], 'N');
    ck_assert_int_eq(q.buf[q.content_start - 2], 'M');
    ck_assert_int_eq(q.buf[q.content_end], 'X');
    pf_qfile_free(&q);
}
END_TEST

START_TEST(test_long_lines_and_pieces)
{
    struct pf_qfile q;
    char *line = malloc(5001);
    char types[64];
    size_t n;

    memset(line, 'y', 5000);
    line[5000] = '\n';
    pf_qfile_init(&q);
    pf_qfile_begin(&q, 1, 2, "", NULL, NULL, NULL);
    /* The line arrives in pieces that do not fall on the 2048-byte boundaries. */
    pf_qfile_content(&q, line, 3000);
    pf_qfile_content(&q, line + 3000, 2001);
    pf_qfile_finish(&q, rcpts, 1);
    n = walk(&q, types, sizeof(types));
    types[n] = 0;
    /* 5000 bytes: L 2048, L 2048, N 904, however the pieces were cut */
    ck_assert_str_eq(types, "CTAASMLLNXRE");
    ck_assert_uint_eq(q.content_bytes, 5001);
    free(line);
    pf_qfile_free(&q);
}
END_TEST

START_TEST(test_varint_lengths)
{
    struct pf_qfile q;
    char data[300];
    int type;
    const char *got;
    size_t got_len;

    memset(data, 'z', sizeof(data));
    pf_qfile_init(&q);
    pf_qfile_record(&q, 'N', data, 300);
    /* 300 = 0b1_0010_1100: 0xAC then 0x02 */
    ck_assert_uint_eq((unsigned char)q.buf[1], 0xAC);
    ck_assert_uint_eq((unsigned char)q.buf[2], 0x02);
    ck_assert_uint_eq(pf_qfile_parse(q.buf, q.len, &type, &got, &got_len), 303);
    ck_assert_uint_eq(got_len, 300);
    ck_assert_uint_eq(pf_qfile_parse(q.buf, 100, &type, &got, &got_len), 0); /* cut short */
    pf_qfile_free(&q);
}
END_TEST

/* Marking a recipient done is one byte, in place, as Postfix's smtp does. */
START_TEST(test_recipient_offsets)
{
    struct pf_qfile q;

    build_text(&q, "x\r\n");
    ck_assert_uint_eq(q.rcpt_count, 2);
    for (unsigned i = 0; i < 2; i++) {
        ck_assert_int_eq(q.buf[q.rcpt_offsets[i]], 'R');
        ck_assert(memcmp(q.buf + q.rcpt_offsets[i] + 2, rcpts[i], strlen(rcpts[i])) == 0);
    }
    pf_qfile_free(&q);
}
END_TEST

/*
 * A file drained as it is built (written as the message arrives) is the
 * same file, byte for byte, once its C record is rewritten in place; the
 * offsets count what was drained.
 */
START_TEST(test_drained_is_the_same_file)
{
    struct pf_qfile whole, q;
    char *text = malloc(100000), *file = malloc(300000), size_record[PF_SIZE_RECORD_LEN];
    size_t file_len = 0;

    for (size_t i = 0; i < 100000; i++)
        text[i] = i % 3001 == 3000 ? '\n' : (i % 97 == 96 ? '\r' : (char)('a' + i % 26));
    build(&whole, text, 100000);
    pf_qfile_init(&q);
    pf_qfile_begin(&q, 1700000000, 123456, "sender@example.org", "client.example", "127.0.0.1",
                   "helo.example");
    for (size_t off = 0; off < 100000; off += 777) {
        pf_qfile_content(&q, text + off, off + 777 < 100000 ? 777 : 100000 - off);
        if (q.len > 5000) {
            memcpy(file + file_len, q.buf, q.len);
            file_len += q.len;
            pf_qfile_drain(&q);
            ck_assert_uint_eq(q.len, 0);
        }
    }
    pf_qfile_finish(&q, rcpts, 2);
    memcpy(file + file_len, q.buf, q.len);
    file_len += q.len;
    ck_assert_uint_gt(q.drained, 0);
    ck_assert_uint_lt(q.cap, 30000); /* the buffer holds a piece, not the message */
    pf_qfile_size_record(&q, size_record);
    memcpy(file, size_record, sizeof(size_record));
    ck_assert_uint_eq(file_len, whole.len);
    ck_assert(memcmp(file, whole.buf, whole.len) == 0);
    ck_assert_uint_eq(q.content_start, whole.content_start);
    ck_assert_uint_eq(q.content_end, whole.content_end);
    ck_assert_uint_eq(q.rcpt_offsets[1], whole.rcpt_offsets[1]);
    free(text);
    free(file);
    pf_qfile_free(&q);
    pf_qfile_free(&whole);
}
END_TEST

START_TEST(test_postcat_reads_it)
{
    /* Postfix's postcat as scripts/fetch-peer.sh extracts it (scripts/peers.sh). */
    const char *postcat = getenv("POSTCAT"), *require = getenv("SPOOLSIM_REQUIRE_PEERS");
    char dir[CHECK_TMPDIR_MAX], path[CHECK_TMPDIR_MAX + 16], cmd[1024];
    char out[CHECK_TMPDIR_MAX + 16], err[CHECK_TMPDIR_MAX + 16];
    struct pf_qfile q;
    FILE *fp;
    char *text = NULL;
    size_t cap = 0;
    ssize_t n;
    int found_sender = 0, found_body = 0, found_rcpt = 0;

    if (postcat == NULL || access(postcat, X_OK) != 0) {
        /* CI fetched the peers: there a missing one is a set-up defect. */
        ck_assert_msg(require == NULL || strcmp(require, "1") != 0,
                      "postcat (%s) not found under SPOOLSIM_REQUIRE_PEERS=1",
                      postcat ? postcat : "POSTCAT unset");
        fprintf(stderr, "SKIP postcat check: %s not found: run scripts/fetch-peer.sh postfix\n",
                postcat ? postcat : "POSTCAT unset");
        return;
    }
    check_tmpdir_make(dir, "pfq");
    snprintf(path, sizeof(path), "%s/5361932", dir);
    build_text(&q, "Subject: queued\r\n\r\nfirst body line\r\n.dot line\r\n");
    fp = fopen(path, "w");
    ck_assert_uint_eq(fwrite(q.buf, 1, q.len, fp), q.len);
    fclose(fp);
    pf_qfile_free(&q);
    snprintf(out, sizeof(out), "%s/out", dir);
    snprintf(err, sizeof(err), "%s/err", dir);
    /* The peer's wrapper gives it its own config directory (MAIL_CONFIG). */
    snprintf(cmd, sizeof(cmd), "%s %s >%s 2>%s", postcat, path, out, err);
    ck_assert_int_eq(system(cmd), 0);
    fp = fopen(out, "r");
    while ((n = getline(&text, &cap, fp)) > 0) {
        found_sender |= strcmp(text, "sender: sender@example.org\n") == 0;
        found_body |= strcmp(text, "first body line\n") == 0;
        found_rcpt |= strcmp(text, "recipient: b@example.org\n") == 0;
    }
    fclose(fp);
    free(text);
    ck_assert(found_sender && found_body && found_rcpt);
    fp = fopen(err, "r");
    ck_assert_int_eq(fgetc(fp), EOF); /* not a single warning */
    fclose(fp);
    check_tmpdir_remove(dir);
}
END_TEST

/*
 * Reading. Each file goes to pf_qfile_read() in a malloc'd copy of
 * exactly its length, so that a read past the end is caught wherever
 * the tests run under a sanitizer or valgrind.
 */
static int read_copy(const char *buf, size_t len, struct pf_qfile_view *v, char *err, size_t errlen)
{
    char *copy = malloc(len ? len : 1);
    int ret;

    memcpy(copy, buf, len);
    ret = pf_qfile_read(copy, len, v, err, errlen);
    if (ret == 0) {
        /* The view points into the copy: check what we can, then let go of both. */
        ck_assert_uint_le(v->content_start, v->content_end);
        ck_assert_uint_lt(v->content_end, len);
        for (unsigned i = 0; i < v->rcpt_count; i++) {
            ck_assert_uint_lt(v->rcpts[i].offset, len);
            ck_assert(v->rcpts[i].addr >= copy && v->rcpts[i].addr <= copy + len);
            ck_assert_uint_le(v->rcpts[i].addr_len, (size_t)(copy + len - v->rcpts[i].addr));
        }
        pf_qfile_view_free(v);
    }
    free(copy);
    return ret;
}

/* A file must be rejected; the reason must start with `why'. */
static void assert_rejected(const char *buf, size_t len, const char *why)
{
    struct pf_qfile_view v;
    char err[128] = "";

    ck_assert_int_eq(read_copy(buf, len, &v, err, sizeof(err)), -1);
    ck_assert_msg(strncmp(err, why, strlen(why)) == 0, "expected \"%s...\", got \"%s\"", why, err);
    /* A failed read leaves nothing behind to free. */
    ck_assert_ptr_null(v.rcpts);
    ck_assert_uint_eq(v.rcpt_count, 0);
}

/* As assert_rejected(), the reason being `what' at offset `at'. */
static void rejected_at(const char *buf, size_t len, const char *what, size_t at)
{
    char why[96];

    snprintf(why, sizeof(why), "%s at offset %zu", what, at);
    assert_rejected(buf, len, why);
}

START_TEST(test_read_round_trip)
{
    struct pf_qfile q;
    struct pf_qfile_view v;
    char err[128] = "", types[64], *content, *expect, *text;
    size_t n, text_len, clen = 0, elen = 0;
    int long_records = 0;

    /* CR LF lines, a bare-LF line, a 5000-byte line, a blank line, a body */
    content = malloc(6000);
    expect = malloc(6000);
    clen += (size_t)sprintf(content + clen, "Subject: round trip\r\nX-Bare: lf\n");
    elen += (size_t)sprintf(expect + elen, "Subject: round trip\r\nX-Bare: lf\r\n");
    memset(content + clen, 'y', 5000);
    memset(expect + elen, 'y', 5000);
    clen += 5000;
    elen += 5000;
    clen += (size_t)sprintf(content + clen, "\r\n\r\nbody\n");
    elen += (size_t)sprintf(expect + elen, "\r\n\r\nbody\r\n");
    build(&q, content, clen);
    n = walk(&q, types, sizeof(types));
    for (size_t i = 0; i < n && i < sizeof(types); i++)
        long_records += types[i] == PF_REC_CONT;
    ck_assert_int_eq(long_records, 2); /* the long line really was split */

    ck_assert_int_eq(pf_qfile_read(q.buf, q.len, &v, err, sizeof(err)), 0);
    ck_assert_str_eq(err, "");
    ck_assert_int_eq(v.arrival_sec, 1700000000);
    ck_assert_int_eq(v.arrival_usec, 123456);
    ck_assert_uint_eq(v.sender_len, strlen("sender@example.org"));
    ck_assert(memcmp(v.sender, "sender@example.org", v.sender_len) == 0);
    ck_assert_uint_eq(v.rcpt_count, 2);
    ck_assert_uint_eq(v.rcpt_pending, 2);
    for (unsigned i = 0; i < 2; i++) {
        ck_assert_uint_eq(v.rcpts[i].addr_len, strlen(rcpts[i]));
        ck_assert(memcmp(v.rcpts[i].addr, rcpts[i], v.rcpts[i].addr_len) == 0);
        ck_assert_uint_eq(v.rcpts[i].offset, q.rcpt_offsets[i]);
        ck_assert_int_eq(v.rcpts[i].done, 0);
    }
    ck_assert_uint_eq(v.content_start, q.content_start);
    ck_assert_uint_eq(v.content_end, q.content_end);
    ck_assert_uint_eq(v.content_bytes, q.content_bytes);

    text = pf_qfile_content_text(q.buf, &v, &text_len);
    ck_assert_uint_eq(text_len, elen);
    ck_assert(memcmp(text, expect, elen) == 0);
    ck_assert_int_eq(text[text_len], 0);
    free(text);
    pf_qfile_view_free(&v);
    ck_assert_ptr_null(v.rcpts);
    free(content);
    free(expect);
    pf_qfile_free(&q);
}
END_TEST

/*
 * Build a file from `content' given in pieces of `chunk' bytes (0: whole),
 * read it back, and check that the text is `content' again, that every
 * L record is exactly PF_LINE_LIMIT bytes, and that no record keeps the CR
 * of a CR LF. Returns the number of L records.
 */
static unsigned round_trip_chunked(const char *content, size_t len, size_t chunk)
{
    struct pf_qfile q;
    struct pf_qfile_view v;
    char err[128] = "", *text;
    size_t off, text_len;
    unsigned long_records = 0;

    pf_qfile_init(&q);
    pf_qfile_begin(&q, 1700000000, 123456, "sender@example.org", NULL, NULL, NULL);
    for (off = 0; off < len; off += chunk ? chunk : len)
        pf_qfile_content(&q, content + off, chunk && len - off > chunk ? chunk : len - off);
    pf_qfile_finish(&q, rcpts, 1);

    ck_assert_int_eq(pf_qfile_read(q.buf, q.len, &v, err, sizeof(err)), 0);
    for (off = v.content_start; off < v.content_end;) {
        int type;
        const char *data;
        size_t data_len;
        size_t used = pf_qfile_parse(q.buf + off, v.content_end - off, &type, &data, &data_len);

        ck_assert_uint_gt(used, 0);
        if (type == PF_REC_CONT) {
            long_records++;
            ck_assert_uint_eq(data_len, PF_LINE_LIMIT);
        } else {
            ck_assert_int_eq(type, PF_REC_NORM);
            ck_assert_uint_le(data_len, PF_LINE_LIMIT);
        }
        off += used;
    }
    text = pf_qfile_content_text(q.buf, &v, &text_len);
    ck_assert_msg(text_len == len && memcmp(text, content, len) == 0,
                  "content of %zu bytes in pieces of %zu came back as %zu bytes", len, chunk,
                  text_len);
    /* Line ends count one byte each, as Postfix counts them. */
    {
        uint64_t expect = 0;

        for (size_t i = 0; i < len; i++)
            expect += !(content[i] == '\r' && i + 1 < len && content[i + 1] == '\n');
        ck_assert_uint_eq(v.content_bytes, expect);
    }
    free(text);
    pf_qfile_view_free(&v);
    pf_qfile_free(&q);
    return long_records;
}

/*
 * A line just under, at and over the 2048-byte limit (and twice it), CR LF
 * terminated, fed whole, in 7-byte pieces and byte by byte: the CR of the
 * CR LF is never stored, even when it is the 2048th byte of the line or
 * the last byte of a piece, and a long line is L records of 2048 bytes
 * and a last N.
 */
START_TEST(test_crlf_at_line_limit)
{
    static const size_t lengths[] = {2046, 2047, 2048, 2049, 2050, 4095, 4096, 4097};
    static const size_t chunks[] = {1, 7, 0};
    const char head[] = "Subject: limits\r\n", tail[] = "end\r\n";

    for (size_t i = 0; i < sizeof(lengths) / sizeof(lengths[0]); i++) {
        size_t n = lengths[i], len = 0;
        char *content = malloc(sizeof(head) + n + 2 + sizeof(tail));

        memcpy(content, head, strlen(head));
        len += strlen(head);
        memset(content + len, 'y', n);
        len += n;
        memcpy(content + len, "\r\n", 2);
        len += 2;
        memcpy(content + len, tail, strlen(tail));
        len += strlen(tail);
        for (size_t c = 0; c < sizeof(chunks) / sizeof(chunks[0]); c++)
            ck_assert_uint_eq(round_trip_chunked(content, len, chunks[c]), n / PF_LINE_LIMIT);
        free(content);
    }
}
END_TEST

/* A bare CR that is the 2048th byte of a long line is text, and stays in its L record. */
START_TEST(test_bare_cr_at_line_limit)
{
    static const size_t chunks[] = {1, 7, 2047, 2048, 0};
    size_t len = PF_LINE_LIMIT + 10;
    char *content = malloc(len);

    memset(content, 'y', len);
    content[PF_LINE_LIMIT - 1] = '\r';
    content[len - 2] = '\r';
    content[len - 1] = '\n';
    for (size_t c = 0; c < sizeof(chunks) / sizeof(chunks[0]); c++)
        ck_assert_uint_eq(round_trip_chunked(content, len, chunks[c]), 1);
    /* And a CR before another CR LF: the first is text, the second a line end. */
    content[PF_LINE_LIMIT - 1] = '\r';
    content[PF_LINE_LIMIT] = '\r';
    content[PF_LINE_LIMIT + 1] = '\n';
    for (size_t c = 0; c < sizeof(chunks) / sizeof(chunks[0]); c++)
        ck_assert_uint_eq(round_trip_chunked(content, len, chunks[c]), 1);
    free(content);
}
END_TEST

/* The relay's one-byte rewrite must read back as a delivered recipient. */
START_TEST(test_read_done_recipient)
{
    struct pf_qfile q;
    struct pf_qfile_view v;
    char err[128];

    build_text(&q, "x\r\n");
    q.buf[q.rcpt_offsets[0]] = PF_REC_DONE;
    ck_assert_int_eq(pf_qfile_read(q.buf, q.len, &v, err, sizeof(err)), 0);
    ck_assert_uint_eq(v.rcpt_count, 2);
    ck_assert_uint_eq(v.rcpt_pending, 1);
    ck_assert_int_eq(v.rcpts[0].done, 1);
    ck_assert_int_eq(v.rcpts[1].done, 0);
    ck_assert(memcmp(v.rcpts[0].addr, rcpts[0], strlen(rcpts[0])) == 0);
    ck_assert(memcmp(v.rcpts[1].addr, rcpts[1], strlen(rcpts[1])) == 0);
    pf_qfile_view_free(&v);

    q.buf[q.rcpt_offsets[1]] = PF_REC_DONE;
    ck_assert_int_eq(pf_qfile_read(q.buf, q.len, &v, err, sizeof(err)), 0);
    ck_assert_uint_eq(v.rcpt_pending, 0);
    ck_assert_int_eq(v.rcpts[1].done, 1);
    pf_qfile_view_free(&v);
    pf_qfile_free(&q);
}
END_TEST

/* A crash can leave any prefix of a file; not one of them may pass as whole. */
START_TEST(test_read_every_truncation)
{
    struct pf_qfile q;
    char *line = malloc(2100);

    memset(line, 'z', 2099);
    line[2099] = '\n';
    build_text(&q, "Subject: cut\r\n\r\nbody\r\n");
    for (size_t len = 0; len < q.len; len++)
        assert_rejected(q.buf, len, "");
    assert_rejected(q.buf, PF_SIZE_RECORD_LEN - 1, "file shorter than the C record");
    assert_rejected(q.buf, q.len - 2, "no E record");                /* cut right before E */
    assert_rejected(q.buf, q.content_end, "no X record");            /* cut right before X */
    assert_rejected(q.buf, q.content_start, "no X record");          /* cut right after M */
    assert_rejected(q.buf, q.content_start - 2, "no M record");      /* cut right before M */
    assert_rejected(q.buf, q.len - 3, "malformed record at offset"); /* inside the last R */
    pf_qfile_free(&q);

    /* Again with L records, cut inside them too. */
    pf_qfile_init(&q);
    pf_qfile_begin(&q, 1, 2, "", NULL, NULL, NULL);
    pf_qfile_content(&q, line, 2100);
    pf_qfile_finish(&q, rcpts, 2);
    for (size_t len = 0; len < q.len; len++)
        assert_rejected(q.buf, len, "");
    free(line);
    pf_qfile_free(&q);
}
END_TEST

START_TEST(test_read_bad_length)
{
    struct pf_qfile q;
    const char content[] = "Subject: len\r\n\r\nbody\r\n";
    size_t at;

    build(&q, content, strlen(content));
    /* The first R record's length now runs past the end of the file. */
    at = q.rcpt_offsets[0];
    q.buf[at + 1] = 0x7f;
    rejected_at(q.buf, q.len, "malformed record", at);
    /* A varint that never ends (every byte has the high bit) */
    q.buf[at + 1] = (char)0xff;
    q.buf[at + 2] = (char)0xff;
    q.buf[at + 3] = (char)0xff;
    q.buf[at + 4] = (char)0xff;
    q.buf[at + 5] = (char)0xff;
    rejected_at(q.buf, q.len, "malformed record", at);
    pf_qfile_free(&q);

    /* The C record's own length byte */
    build(&q, content, strlen(content));
    q.buf[1] = PF_SIZE_RECORD_LEN - 3;
    assert_rejected(q.buf, q.len, "bad size record");
    pf_qfile_free(&q);

    /*
     * The first content record ("Subject: len") loses a byte of length:
     * its last data byte ('n') is read as the next record's type and the
     * next type byte ('N', 78) as a length running past the end.
     */
    build(&q, content, strlen(content));
    ck_assert_int_eq(q.buf[q.content_start + 1], 12);
    q.buf[q.content_start + 1] = 11;
    rejected_at(q.buf, q.len, "malformed record", q.content_start + 13);
    pf_qfile_free(&q);
}
END_TEST

START_TEST(test_read_trailing_garbage)
{
    struct pf_qfile q;
    size_t len;

    build_text(&q, "body\r\n");
    len = q.len;
    pf_qfile_record(&q, 'x', "junk", 4);
    rejected_at(q.buf, q.len, "trailing garbage after E", len);
    /* Even one byte, even a well-formed second E */
    rejected_at(q.buf, len + 1, "trailing garbage after E", len);
    q.len = len;
    pf_qfile_record(&q, PF_REC_END, NULL, 0);
    rejected_at(q.buf, q.len, "trailing garbage after E", len);
    pf_qfile_free(&q);
}
END_TEST

START_TEST(test_read_unknown_in_content)
{
    struct pf_qfile q;
    size_t second;
    int type;
    const char *data;
    size_t data_len;

    build_text(&q, "Subject: hi\r\n\r\nbody\r\n");
    second = q.content_start + pf_qfile_parse(q.buf + q.content_start, q.len - q.content_start,
                                              &type, &data, &data_len);
    /* An envelope record type is still wrong between M and X. */
    q.buf[second] = PF_REC_ATTR;
    rejected_at(q.buf, q.len, "unexpected A record", second);
    q.buf[second] = PF_REC_RCPT;
    rejected_at(q.buf, q.len, "unexpected R record", second);
    /* A type byte that is no Postfix type at all */
    q.buf[second] = 0;
    rejected_at(q.buf, q.len, "malformed record", second);
    pf_qfile_free(&q);
}
END_TEST

/*
 * Real Postfix puts SMTP recipients before M, with O and A records
 * around them, and more after X: all of it is read, in file order.
 */
START_TEST(test_read_postfix_layout)
{
    struct pf_qfile q;
    struct pf_qfile_view v;
    char err[128] = "", placeholder[PF_SIZE_RECORD_LEN - 2], *text;
    size_t text_len, offsets[3];

    memset(placeholder, ' ', sizeof(placeholder));
    pf_qfile_init(&q);
    pf_qfile_record(&q, PF_REC_SIZE, placeholder, sizeof(placeholder));
    pf_qfile_record(&q, PF_REC_TIME, "1700000001", 10); /* older form: no usec */
    pf_qfile_record(&q, 'F', "Full Name", 9);
    pf_qfile_record(&q, PF_REC_ATTR, "rewrite_context=local", 21);
    pf_qfile_record(&q, PF_REC_FROM, "", 0); /* null sender */
    pf_qfile_record(&q, 'O', "orig@example.org", 16);
    offsets[0] = q.len;
    pf_qfile_record(&q, PF_REC_RCPT, "one@example.org", 15);
    pf_qfile_record(&q, 'W', "              0", 15);
    pf_qfile_record(&q, PF_REC_MESG, "            123", 15); /* Postfix's M carries an offset */
    q.content_start = q.len;
    pf_qfile_record(&q, PF_REC_CONT, "ab", 2);
    pf_qfile_record(&q, PF_REC_NORM, "cd", 2);
    pf_qfile_record(&q, PF_REC_NORM, "", 0);
    pf_qfile_record(&q, PF_REC_CONT, "no end", 6);
    q.content_end = q.len;
    q.content_bytes = 11;
    pf_qfile_record(&q, PF_REC_XTRA, NULL, 0);
    pf_qfile_record(&q, 'P', "0", 1);
    pf_qfile_record(&q, '>', "redir@example.org", 17);
    offsets[1] = q.len;
    pf_qfile_record(&q, PF_REC_DONE, "two@example.org", 15);
    pf_qfile_record(&q, 'K', "", 0);
    offsets[2] = q.len;
    pf_qfile_record(&q, PF_REC_RCPT, "three@example.org", 17);
    pf_qfile_record(&q, PF_REC_ATTR, "dsn_orig_rcpt=x", 15);
    pf_qfile_record(&q, PF_REC_END, NULL, 0);
    q.rcpt_count = 3;

    /* Before the C record is rewritten, the file is not whole. */
    assert_rejected(q.buf, q.len, "bad size record");
    pf_qfile_size_record(&q, q.buf);
    ck_assert_int_eq(pf_qfile_read(q.buf, q.len, &v, err, sizeof(err)), 0);
    ck_assert_str_eq(err, "");
    ck_assert_int_eq(v.arrival_sec, 1700000001);
    ck_assert_int_eq(v.arrival_usec, 0);
    ck_assert_uint_eq(v.sender_len, 0);
    ck_assert_uint_eq(v.rcpt_count, 3);
    ck_assert_uint_eq(v.rcpt_pending, 2);
    for (unsigned i = 0; i < 3; i++)
        ck_assert_uint_eq(v.rcpts[i].offset, offsets[i]);
    ck_assert(memcmp(v.rcpts[0].addr, "one@example.org", 15) == 0);
    ck_assert(memcmp(v.rcpts[1].addr, "two@example.org", 15) == 0);
    ck_assert(memcmp(v.rcpts[2].addr, "three@example.org", 17) == 0);
    ck_assert_int_eq(v.rcpts[1].done, 1);
    ck_assert_uint_eq(v.content_bytes, 11);
    text = pf_qfile_content_text(q.buf, &v, &text_len);
    ck_assert_uint_eq(text_len, strlen("abcd\r\n\r\nno end"));
    ck_assert_str_eq(text, "abcd\r\n\r\nno end");
    free(text);
    pf_qfile_view_free(&v);

    /* A second S, or a T after X, is damage. */
    q.buf[offsets[2]] = PF_REC_TIME;
    assert_rejected(q.buf, q.len, "unexpected T record");
    q.buf[offsets[2]] = PF_REC_MESG;
    assert_rejected(q.buf, q.len, "unexpected M record");
    pf_qfile_free(&q);
}
END_TEST

/*
 * The C record is rewritten last, so one that disagrees with the file
 * is how an unfinished file shows; it must also be six plain numbers.
 */
START_TEST(test_read_size_record)
{
    struct pf_qfile q;
    struct pf_qfile_view v;
    const char content[] = "Subject: size\r\n\r\nbody\r\n";
    char err[128], good[PF_SIZE_RECORD_LEN];
    size_t start, end;

    build(&q, content, strlen(content));
    memcpy(good, q.buf, sizeof(good));
    start = q.content_start;
    end = q.content_end;
    /* all zeros, as pf_qfile_begin() leaves it */
    q.content_start = q.content_end = 0;
    pf_qfile_size_record(&q, q.buf);
    assert_rejected(q.buf, q.len, "bad size record");
    /* the right content size at the wrong data offset */
    q.content_start = start + 2;
    q.content_end = end + 2;
    pf_qfile_size_record(&q, q.buf);
    assert_rejected(q.buf, q.len, "bad size record");
    /* the right data offset with the wrong content size */
    q.content_start = start;
    q.content_end = end - 1;
    pf_qfile_size_record(&q, q.buf);
    assert_rejected(q.buf, q.len, "bad size record");
    /* one field's syntax spoiled at a time: a letter, a minus sign, a missing separator */
    for (int field = 0; field < 6; field++) {
        memcpy(q.buf, good, sizeof(good));
        q.buf[2 + field * 16 + 14] = 'x';
        assert_rejected(q.buf, q.len, "bad size record");
        memcpy(q.buf, good, sizeof(good));
        q.buf[2 + field * 16 + 13] = '-';
        assert_rejected(q.buf, q.len, "bad size record");
        if (field > 0) {
            memcpy(q.buf, good, sizeof(good));
            q.buf[2 + field * 16 - 1] = '0';
            assert_rejected(q.buf, q.len, "bad size record");
        }
    }
    /* A wrong type byte on a well-formed C record */
    memcpy(q.buf, good, sizeof(good));
    q.buf[0] = PF_REC_TIME;
    assert_rejected(q.buf, q.len, "bad size record");
    /* and the good one still reads */
    memcpy(q.buf, good, sizeof(good));
    ck_assert_int_eq(pf_qfile_read(q.buf, q.len, &v, err, sizeof(err)), 0);
    ck_assert_uint_eq(v.content_bytes, strlen("Subject: size\n\nbody\n"));
    pf_qfile_view_free(&v);
    pf_qfile_free(&q);
}
END_TEST

/*
 * A C record of 97 bytes whose length takes two varint bytes holds only 94
 * bytes of fields. The reader used to read the 95th from the next byte:
 * past the buffer when the file ended there, and otherwise from the next
 * record, so that a file with a '0' record behind such a C record was
 * accepted. Both must be a bad size record.
 */
START_TEST(test_read_size_record_short_data)
{
    struct pf_qfile q;
    char fields[128]; /* room for any long, as far as the compiler knows */
    char *file;
    size_t len;

    build_text(&q, "Subject: short\r\n\r\nbody\r\n");
    /* the sizes as they are once a 2-byte record ("0", empty) follows the C record */
    snprintf(fields, sizeof(fields), "%15ld %15ld %15ld %15ld %15ld %15ld",
             (long)(q.content_end - q.content_start), (long)q.content_start + 2, (long)q.rcpt_count,
             0L, (long)q.content_bytes, 0L);
    len = q.len + 2;
    file = malloc(len);
    file[0] = PF_REC_SIZE;
    file[1] = (char)(0x80 | (PF_SIZE_RECORD_LEN - 3));
    file[2] = 0;
    memcpy(file + 3, fields, PF_SIZE_RECORD_LEN - 3); /* the last '0' is not in the record */
    file[PF_SIZE_RECORD_LEN] = '0';
    file[PF_SIZE_RECORD_LEN + 1] = 0;
    memcpy(file + PF_SIZE_RECORD_LEN + 2, q.buf + PF_SIZE_RECORD_LEN, q.len - PF_SIZE_RECORD_LEN);
    assert_rejected(file, len, "bad size record");
    /* the C record alone, the file ending right after it */
    assert_rejected(file, PF_SIZE_RECORD_LEN, "bad size record");
    free(file);
    pf_qfile_free(&q);
}
END_TEST

START_TEST(test_read_missing_records)
{
    struct pf_qfile q;
    size_t at;

    build_text(&q, "body\r\n");
    /* The T record becomes an unknown-but-allowed one: no T left. */
    at = PF_SIZE_RECORD_LEN;
    ck_assert_int_eq(q.buf[at], PF_REC_TIME);
    q.buf[at] = 'c';
    assert_rejected(q.buf, q.len, "no T record");
    q.buf[at] = PF_REC_TIME;
    /* The S record likewise */
    at = q.content_start - 2 - (2 + strlen("sender@example.org"));
    ck_assert_int_eq(q.buf[at], PF_REC_FROM);
    q.buf[at] = 'F';
    assert_rejected(q.buf, q.len, "no S record");
    q.buf[at] = PF_REC_FROM;
    /* E ahead of M */
    q.buf[q.content_start - 2] = PF_REC_END;
    assert_rejected(q.buf, q.len, "no M record");
    pf_qfile_free(&q);
}
END_TEST

/*
 * Not a fuzzer, but the same idea on a budget: flip bytes of a good file
 * at random (a fixed seed, so a failure repeats) and require a clean
 * answer every time; read_copy() checks the view of any file accepted.
 */
START_TEST(test_read_random_damage)
{
    struct pf_qfile q;
    struct pf_qfile_view v;
    char *line = malloc(3000), *copy;
    uint32_t seed = 12345;
    unsigned accepted = 0, rejected = 0;

    memset(line, 'w', 2999);
    line[2999] = '\n';
    pf_qfile_init(&q);
    pf_qfile_begin(&q, 1700000000, 5, "s@example.org", "c", "127.0.0.1", "h");
    pf_qfile_content(&q, line, 3000);
    pf_qfile_content(&q, "short\r\n", 7);
    pf_qfile_finish(&q, rcpts, 2);
    copy = malloc(q.len);
    for (int round = 0; round < 20000; round++) {
        int flips = 1 + round % 3;

        memcpy(copy, q.buf, q.len);
        for (int i = 0; i < flips; i++) {
            size_t at;

            seed = seed * 1103515245u + 12345u;
            at = (seed >> 8) % q.len;
            /* Half the time outside the content, which is mostly plain text */
            if (seed & 0x10000u) {
                at %= q.content_start + (q.len - q.content_end);
                if (at >= q.content_start)
                    at += q.content_end - q.content_start;
            }
            seed = seed * 1103515245u + 12345u;
            copy[at] = (char)(seed >> 16);
        }
        if (read_copy(copy, q.len, &v, NULL, 0) == 0)
            accepted++;
        else
            rejected++;
    }
    /* Both outcomes happen: damage to text is still a whole file. */
    ck_assert_uint_gt(accepted, 0);
    ck_assert_uint_gt(rejected, 0);
    free(copy);
    free(line);
    pf_qfile_free(&q);
}
END_TEST

/*
 * pf_qfile_bound(): no message within the limits makes a longer file, in
 * the worst shapes there are (empty lines, lines at each length-byte
 * boundary, long lines, a last line without its end, every envelope field
 * as long as it may be), and the worst reaches the bound within 1%: the
 * factor of two for text is needed.
 */
START_TEST(test_bound)
{
    enum { MAX_CONTENT = 200000, MAX_RCPT = 50, MAX_FIELD = 511 };
    static const size_t lines[] = {0, 1, 126, 127, 128, 2046, 2047, 2048, 2049, 5000};
    char field[MAX_FIELD + 1], *text = malloc(MAX_CONTENT);
    const char *many[MAX_RCPT];
    uint64_t bound = pf_qfile_bound(MAX_CONTENT, MAX_RCPT, MAX_FIELD);

    memset(field, 'x', MAX_FIELD);
    field[MAX_FIELD] = 0;
    for (unsigned i = 0; i < MAX_RCPT; i++)
        many[i] = field;
    for (size_t shape = 0; shape < sizeof(lines) / sizeof(lines[0]) * 3; shape++) {
        size_t line = lines[shape / 3], used = 0;
        const char *end = shape % 3 == 0 ? "\n" : shape % 3 == 1 ? "\r\n" : "\r";
        struct pf_qfile q;

        /* lines of one length up to the limit, the last one cut off */
        while (used < MAX_CONTENT) {
            for (size_t i = 0; i < line && used < MAX_CONTENT; i++)
                text[used++] = 'a';
            for (const char *e = end; *e && used < MAX_CONTENT; e++)
                text[used++] = *e;
        }
        pf_qfile_init(&q);
        pf_qfile_begin(&q, 1700000000, 999999, field, field, field, field);
        pf_qfile_content(&q, text, used);
        pf_qfile_finish(&q, many, MAX_RCPT);
        ck_assert_msg(q.len <= bound, "lines of %zu + \"%s\": %zu bytes over the bound %llu", line,
                      shape % 3 == 2 ? "CR" : end, q.len, (unsigned long long)bound);
        if (line == 0 && shape % 3 == 0)
            ck_assert_msg(q.len * 100 >= bound * 99, "empty lines: %zu bytes, the bound %llu",
                          q.len, (unsigned long long)bound);
        pf_qfile_free(&q);
    }
    free(text);
}
END_TEST

/* The fixed records alone: no text, no recipient, no names; the longest time stamps. */
START_TEST(test_bound_empty)
{
    struct pf_qfile q;

    pf_qfile_init(&q);
    pf_qfile_begin(&q, 9223372036854775807L, 9223372036854775807L, "", "", "", "");
    pf_qfile_finish(&q, NULL, 0);
    ck_assert_uint_le(q.len, pf_qfile_bound(0, 0, 0));
    pf_qfile_free(&q);
}
END_TEST

/* A file of long lines, with its content section cut out: what pf_spool_file_read_envelope() keeps.
 */
static char *cut_content(const struct pf_qfile *q, size_t *len, uint64_t *gap)
{
    uint64_t coff, csize;
    char *env;

    ck_assert_int_eq(pf_qfile_layout(q->buf, q->len, &coff, &csize), 0);
    ck_assert_uint_eq(coff, q->content_start);
    ck_assert_uint_eq(csize, q->content_end - q->content_start);
    *len = q->len - (size_t)csize;
    env = malloc(*len);
    memcpy(env, q->buf, (size_t)coff);
    memcpy(env + coff, q->buf + coff + csize, q->len - (size_t)(coff + csize));
    *gap = csize;
    return env;
}

START_TEST(test_read_envelope)
{
    struct pf_qfile q;
    struct pf_qfile_view whole, v;
    char err[128] = "", *content = malloc(20000), *env, *text;
    size_t len, text_len;
    uint64_t gap;

    for (size_t i = 0; i < 20000; i++)
        content[i] = i % 100 == 99 ? '\n' : 'a' + (char)(i % 26);
    build(&q, content, 20000);
    ck_assert_int_eq(pf_qfile_read(q.buf, q.len, &whole, err, sizeof(err)), 0);
    env = cut_content(&q, &len, &gap);
    ck_assert_int_eq(pf_qfile_read_envelope(env, len, gap, &v, err, sizeof(err)), 0);
    ck_assert_int_eq(v.content_unread, 1);
    ck_assert_int_eq(whole.content_unread, 0);
    /* the same view, offsets of the file, pointers into the cut buffer */
    ck_assert_uint_eq(v.content_start, whole.content_start);
    ck_assert_uint_eq(v.content_end, whole.content_end);
    ck_assert_uint_eq(v.content_bytes, whole.content_bytes);
    ck_assert_uint_eq(v.rcpt_count, 2);
    for (unsigned i = 0; i < 2; i++) {
        ck_assert_uint_eq(v.rcpts[i].offset, q.rcpt_offsets[i]);
        ck_assert(memcmp(v.rcpts[i].addr, rcpts[i], v.rcpts[i].addr_len) == 0);
    }
    /* no content in the buffer: nothing is read from it */
    text = pf_qfile_content_text(env, &v, &text_len);
    ck_assert_uint_eq(text_len, 0);
    free(text);
    pf_qfile_view_free(&v);
    /* a gap the C record does not say is damage */
    ck_assert_int_eq(pf_qfile_read_envelope(env, len, gap + 1, &v, err, sizeof(err)), -1);
    ck_assert_str_eq(err, "bad size record");
    /* with the content left in, X must follow M */
    ck_assert_int_eq(pf_qfile_read_envelope(q.buf, q.len, gap, &v, err, sizeof(err)), -1);
    ck_assert_msg(strstr(err, "unexpected N record") != NULL, "%s", err);
    pf_qfile_view_free(&whole);
    free(env);
    free(content);
    pf_qfile_free(&q);
}
END_TEST

/* The content through windows of every size from 16 bytes: the same text as
 * pf_qfile_content_text(). */
START_TEST(test_content_pieces)
{
    struct pf_qfile q;
    struct pf_qfile_view v;
    char err[128] = "", *content = malloc(9000), *expect, *got;
    size_t elen, window;

    for (size_t i = 0; i < 9000; i++)
        content[i] = i % 3001 == 3000 ? '\n' : 'A' + (char)(i % 26); /* with L records */
    build(&q, content, 9000);
    ck_assert_int_eq(pf_qfile_read(q.buf, q.len, &v, err, sizeof(err)), 0);
    expect = pf_qfile_content_text(q.buf, &v, &elen);
    got = malloc(elen + 1);
    for (window = 16; window < 2200; window += 97) {
        uint64_t at = v.content_start; /* the file offset of the window's start */
        size_t n = 0, have = 0, pos = 0;
        enum pf_qfile_piece piece;

        for (;;) {
            const char *data;
            size_t len, used;
            int line_end;

            piece = pf_qfile_content_piece(q.buf + at + pos, have - pos, at + pos, v.content_end,
                                           &data, &len, &line_end, &used);
            if (piece == PF_PIECE_RECORD) {
                memcpy(got + n, data, len);
                n += len;
                if (line_end) {
                    memcpy(got + n, "\r\n", 2);
                    n += 2;
                }
                pos += used;
                continue;
            }
            if (piece != PF_PIECE_MORE)
                break;
            /* keep the rest, read on: a 2048-byte record needs a window that holds it */
            at += pos;
            have -= pos;
            pos = 0;
            if (have == window || at + have >= v.content_end)
                break;
            have = at + window > v.content_end ? (size_t)(v.content_end - at) : window;
        }
        if (window < PF_LINE_LIMIT + 3) {
            ck_assert_int_eq(piece, PF_PIECE_MORE); /* a record longer than the window */
            continue;
        }
        ck_assert_int_eq(piece, PF_PIECE_END);
        ck_assert_uint_eq(n, elen);
        ck_assert(memcmp(got, expect, elen) == 0);
    }
    free(got);
    free(expect);
    pf_qfile_view_free(&v);
    pf_qfile_free(&q);
    free(content);
}
END_TEST

/* Damage in the content: another record type, a record across X. */
START_TEST(test_content_piece_damage)
{
    struct pf_qfile q;
    struct pf_qfile_view v;
    char err[128] = "";
    const char *data;
    size_t len, used;
    int line_end;

    build(&q, "one\ntwo\n", 8);
    ck_assert_int_eq(pf_qfile_read(q.buf, q.len, &v, err, sizeof(err)), 0);
    ck_assert_int_eq(pf_qfile_content_piece(q.buf + v.content_start, q.len - v.content_start,
                                            v.content_start, v.content_end, &data, &len, &line_end,
                                            &used),
                     PF_PIECE_RECORD);
    ck_assert_uint_eq(len, 3);
    /* X one byte earlier: the second record runs across it */
    ck_assert_int_eq(pf_qfile_content_piece(q.buf + v.content_start + used,
                                            q.len - v.content_start - used, v.content_start + used,
                                            v.content_end - 1, &data, &len, &line_end, &used),
                     PF_PIECE_BAD);
    q.buf[v.content_start] = 'Z';
    ck_assert_int_eq(pf_qfile_content_piece(q.buf + v.content_start, q.len - v.content_start,
                                            v.content_start, v.content_end, &data, &len, &line_end,
                                            &used),
                     PF_PIECE_BAD);
    ck_assert_int_eq(pf_qfile_content_piece(q.buf, q.len, v.content_end, v.content_end, &data, &len,
                                            &line_end, &used),
                     PF_PIECE_END);
    pf_qfile_view_free(&v);
    pf_qfile_free(&q);
}
END_TEST

int main(void)
{
    const TTest *const records[] = {test_record_order,          test_size_record,
                                    test_long_lines_and_pieces, test_varint_lengths,
                                    test_recipient_offsets,     test_drained_is_the_same_file,
                                    test_postcat_reads_it,      test_bound,
                                    test_bound_empty,           NULL};
    const TTest *const reading[] = {test_read_round_trip,
                                    test_crlf_at_line_limit,
                                    test_bare_cr_at_line_limit,
                                    test_read_done_recipient,
                                    test_read_every_truncation,
                                    test_read_bad_length,
                                    test_read_trailing_garbage,
                                    test_read_unknown_in_content,
                                    test_read_postfix_layout,
                                    test_read_size_record,
                                    test_read_size_record_short_data,
                                    test_read_missing_records,
                                    test_read_random_damage,
                                    test_read_envelope,
                                    test_content_pieces,
                                    test_content_piece_damage,
                                    NULL};
    Suite *s = suite_create("pf_qfile");

    check_add_tcase(s, "records", records);
    check_add_tcase(s, "reading", reading);
    return check_run_suite(s);
}
