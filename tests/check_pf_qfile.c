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

static const char *const rcpts[] = {"a@example.org", "b@example.org"};

static void build(struct pf_qfile *q, const char *content, size_t len)
{
    pf_qfile_init(q);
    pf_qfile_begin(q, 1700000000, 123456, "sender@example.org", "client.example", "127.0.0.1",
                   "helo.example");
    pf_qfile_content(q, content, len);
    pf_qfile_finish(q, rcpts, 2);
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
    const char content[] = "Subject: hi\r\n\r\nbody\r\n";

    build(&q, content, strlen(content));
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
    const char content[] = "x\r\n";

    build(&q, content, strlen(content));
    ck_assert_uint_eq(q.rcpt_count, 2);
    for (unsigned i = 0; i < 2; i++) {
        ck_assert_int_eq(q.buf[q.rcpt_offsets[i]], 'R');
        ck_assert(memcmp(q.buf + q.rcpt_offsets[i] + 2, rcpts[i], strlen(rcpts[i])) == 0);
    }
    pf_qfile_free(&q);
}
END_TEST

START_TEST(test_postcat_reads_it)
{
    const char *postcat = "/usr/sbin/postcat";
    char dir[] = "/tmp/pfq.XXXXXX", path[64], cmd[1024], out[64], err[64];
    struct pf_qfile q;
    const char content[] = "Subject: queued\r\n\r\nfirst body line\r\n.dot line\r\n";
    FILE *fp;
    char *text = NULL;
    size_t cap = 0;
    ssize_t n;
    int found_sender = 0, found_body = 0, found_rcpt = 0;

    if (access(postcat, X_OK) != 0) {
        fprintf(stderr, "SKIP postcat check: %s is not installed\n", postcat);
        return;
    }
    ck_assert_ptr_nonnull(mkdtemp(dir));
    /* postcat insists on a main.cf; an empty one will do. */
    snprintf(path, sizeof(path), "%s/main.cf", dir);
    fclose(fopen(path, "w"));
    snprintf(path, sizeof(path), "%s/5361932", dir);
    build(&q, content, strlen(content));
    fp = fopen(path, "w");
    ck_assert_uint_eq(fwrite(q.buf, 1, q.len, fp), q.len);
    fclose(fp);
    pf_qfile_free(&q);
    snprintf(out, sizeof(out), "%s/out", dir);
    snprintf(err, sizeof(err), "%s/err", dir);
    snprintf(cmd, sizeof(cmd), "%s -c %s %s >%s 2>%s", postcat, dir, path, out, err);
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
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    ck_assert_int_eq(system(cmd), 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("pf_qfile");
    TCase *tc = tcase_create("records");

    tcase_add_test(tc, test_record_order);
    tcase_add_test(tc, test_size_record);
    tcase_add_test(tc, test_long_lines_and_pieces);
    tcase_add_test(tc, test_varint_lengths);
    tcase_add_test(tc, test_recipient_offsets);
    tcase_add_test(tc, test_postcat_reads_it);
    suite_add_tcase(s, tc);
    return check_run_suite(s);
}
