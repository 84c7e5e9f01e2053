/*
 * Unit tests for crash_scan: what each MTA's restart would deliver from
 * a spool after a cut. Spools are made in memory, as the relay's table
 * profiles write them: a data file holding the message as queue-file
 * records, envelopes as spool_envelope.h has them. For each profile: a
 * whole message is recovered with the key the sink logs; an envelope cut
 * short or a data file that does not parse is corrupt and not
 * recovered; a message whose delivery was done is neither; a missing
 * file is neither corrupt nor recovered.
 */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "checksum.h"
#include "crash_scan.h"
#include "pf_qfile.h"
#include "spool_envelope.h"
#include "xalloc.h"

#define ID 1700000000000042ULL
#define TEXT "Message-ID: <m42@example.org>\r\nSubject: x\r\n\r\nbody\r\n"

/* The data file of message ID with `rcpts' recipients, as the relay writes it. */
static char *data_file(unsigned rcpts, size_t *len)
{
    const char *to[] = {"a@example.org", "b@example.org", "c@example.org"};
    struct pf_qfile q;
    char *out;

    pf_qfile_init(&q);
    pf_qfile_begin(&q, 1, 2, "s@example.org", "localhost", "127.0.0.1", "localhost");
    pf_qfile_content(&q, TEXT, strlen(TEXT));
    pf_qfile_finish(&q, to, rcpts);
    out = xmalloc(q.len);
    memcpy(out, q.buf, q.len);
    *len = q.len;
    pf_qfile_free(&q);
    return out;
}

static void add_data(struct scan_tree *t, const char *path, unsigned rcpts)
{
    size_t len;
    char *d = data_file(rcpts, &len);

    scan_tree_add(t, xstrdup(path), d, len);
}

/* An envelope of `chunks' chunks of n bytes for message id; mark 'D' for done. */
static void add_envelope(struct scan_tree *t, const char *path, unsigned long long id, size_t n,
                         unsigned chunks, char mark)
{
    char *d = xmalloc(n * chunks);

    for (unsigned i = 0; i < chunks; i++)
        spool_envelope_fill(d + i * n, n, id);
    d[0] = mark;
    scan_tree_add(t, xstrdup(path), d, n * chunks);
}

static void add_bytes(struct scan_tree *t, const char *path, const char *bytes, size_t len)
{
    scan_tree_add(t, xstrdup(path), len ? memcpy(xmalloc(len), bytes, len) : NULL, len);
}

/* Scan t as `how' (sorted here, freed here): how many recovered, *corrupt set. */
static size_t scan(enum crash_restart how, struct scan_tree *t, size_t *corrupt)
{
    struct msglog_set got;
    size_t n;

    scan_tree_sort(t);
    msglog_set_init(&got);
    *corrupt = 0;
    crash_scan(how, t, &got, corrupt);
    n = got.n;
    for (size_t i = 0; i < got.n; i++) {
        ck_assert_str_eq(got.v[i].message_id, "<m42@example.org>");
        ck_assert_uint_eq(got.v[i].size, strlen(TEXT));
        ck_assert_uint_eq(got.v[i].sum, checksum_update(CHECKSUM_INIT, TEXT, strlen(TEXT)));
        ck_assert_str_eq(got.v[i].queue_id, "1700000000000042");
    }
    msglog_set_free(&got);
    scan_tree_free(t);
    return n;
}

START_TEST(test_restart_of)
{
    enum crash_restart how;

    ck_assert_int_eq(crash_restart_of("exim-4.98", &how), 0);
    ck_assert_int_eq(how, CRASH_RESTART_EXIM);
    ck_assert_int_eq(crash_restart_of("postfix", &how), 0);
    ck_assert_int_eq(how, CRASH_RESTART_POSTFIX);
    ck_assert_int_eq(crash_restart_of("courier", &how), -1);
}
END_TEST

START_TEST(test_sendmail)
{
    struct scan_tree t;
    size_t corrupt;

    scan_tree_init(&t);
    add_envelope(&t, "mqueue/qf1700000000000042", ID, 480, 1, 'T');
    add_data(&t, "mqueue/df1700000000000042", 1);
    add_envelope(&t, "mqueue/tf1700000000000042", ID, 450, 1, 'T'); /* a rewrite, never read */
    ck_assert_uint_eq(scan(CRASH_RESTART_SENDMAIL, &t, &corrupt), 1);
    ck_assert_uint_eq(corrupt, 0);

    /* qf cut short: set aside */
    scan_tree_init(&t);
    add_envelope(&t, "mqueue/qf1700000000000042", ID, 480, 1, 'T');
    t.v[0].len = 200;
    add_data(&t, "mqueue/df1700000000000042", 1);
    ck_assert_uint_eq(scan(CRASH_RESTART_SENDMAIL, &t, &corrupt), 0);
    ck_assert_uint_eq(corrupt, 1);

    /* df gone: nothing, and no corruption; df zeros: corrupt */
    scan_tree_init(&t);
    add_envelope(&t, "mqueue/qf1700000000000042", ID, 480, 1, 'T');
    ck_assert_uint_eq(scan(CRASH_RESTART_SENDMAIL, &t, &corrupt), 0);
    ck_assert_uint_eq(corrupt, 0);
    scan_tree_init(&t);
    add_envelope(&t, "mqueue/qf1700000000000042", ID, 480, 1, 'T');
    add_bytes(&t, "mqueue/df1700000000000042", "\0\0\0\0\0\0\0\0", 8);
    ck_assert_uint_eq(scan(CRASH_RESTART_SENDMAIL, &t, &corrupt), 0);
    ck_assert_uint_eq(corrupt, 1);

    /* another message's envelope under this name (stale blocks): not this message */
    scan_tree_init(&t);
    add_envelope(&t, "mqueue/qf1700000000000042", ID + 1, 480, 1, 'T');
    add_data(&t, "mqueue/df1700000000000042", 1);
    ck_assert_uint_eq(scan(CRASH_RESTART_SENDMAIL, &t, &corrupt), 0);
    ck_assert_uint_eq(corrupt, 1);
}
END_TEST

START_TEST(test_qmail)
{
    struct scan_tree t;
    size_t corrupt;

    /* 1700000000000042 % 23 == 16 */
    ck_assert_uint_eq(ID % 23, 16);
    scan_tree_init(&t);
    add_envelope(&t, "todo/1700000000000042", ID, 80, 1, 'T');
    add_envelope(&t, "intd/1700000000000042", ID, 80, 1, 'T');
    add_data(&t, "mess/16/1700000000000042", 1);
    ck_assert_uint_eq(scan(CRASH_RESTART_QMAIL, &t, &corrupt), 1);
    ck_assert_uint_eq(corrupt, 0);

    /* intd without todo: never committed, qmail-clean removes it */
    scan_tree_init(&t);
    add_envelope(&t, "intd/1700000000000042", ID, 80, 1, 'T');
    add_data(&t, "mess/16/1700000000000042", 1);
    ck_assert_uint_eq(scan(CRASH_RESTART_QMAIL, &t, &corrupt), 0);

    /* preprocessed: info and remote with T; also still in todo: once */
    scan_tree_init(&t);
    add_envelope(&t, "info/16/1700000000000042", ID, 40, 1, 'T');
    add_envelope(&t, "remote/16/1700000000000042", ID, 40, 1, 'T');
    add_data(&t, "mess/16/1700000000000042", 1);
    ck_assert_uint_eq(scan(CRASH_RESTART_QMAIL, &t, &corrupt), 1);
    scan_tree_init(&t);
    add_envelope(&t, "todo/1700000000000042", ID, 80, 1, 'T');
    add_envelope(&t, "info/16/1700000000000042", ID, 40, 1, 'T');
    add_envelope(&t, "remote/16/1700000000000042", ID, 40, 1, 'T');
    add_data(&t, "mess/16/1700000000000042", 1);
    ck_assert_uint_eq(scan(CRASH_RESTART_QMAIL, &t, &corrupt), 1);

    /* delivered: remote marked D */
    scan_tree_init(&t);
    add_envelope(&t, "info/16/1700000000000042", ID, 40, 1, 'T');
    add_envelope(&t, "remote/16/1700000000000042", ID, 40, 1, 'D');
    add_data(&t, "mess/16/1700000000000042", 1);
    ck_assert_uint_eq(scan(CRASH_RESTART_QMAIL, &t, &corrupt), 0);
    ck_assert_uint_eq(corrupt, 0);

    /* todo cut short; mess missing */
    scan_tree_init(&t);
    add_bytes(&t, "todo/1700000000000042", "", 0);
    add_data(&t, "mess/16/1700000000000042", 1);
    ck_assert_uint_eq(scan(CRASH_RESTART_QMAIL, &t, &corrupt), 0);
    ck_assert_uint_eq(corrupt, 1);
    scan_tree_init(&t);
    add_envelope(&t, "todo/1700000000000042", ID, 80, 1, 'T');
    ck_assert_uint_eq(scan(CRASH_RESTART_QMAIL, &t, &corrupt), 0);
    ck_assert_uint_eq(corrupt, 0);
}
END_TEST

START_TEST(test_exim)
{
    struct scan_tree t;
    size_t corrupt;

    scan_tree_init(&t);
    add_envelope(&t, "input/1700000000000042-H", ID, 360, 2, 'T');
    add_data(&t, "input/1700000000000042-D", 2);
    add_bytes(&t, "input/hdr.1700000000000043", "x", 1); /* never renamed: not a message */
    ck_assert_uint_eq(scan(CRASH_RESTART_EXIM, &t, &corrupt), 1);
    ck_assert_uint_eq(corrupt, 0);

    /* a journal of one of two recipients: delivered again; of both: done */
    scan_tree_init(&t);
    add_envelope(&t, "input/1700000000000042-H", ID, 360, 2, 'T');
    add_data(&t, "input/1700000000000042-D", 2);
    add_envelope(&t, "input/1700000000000042-J", ID, 40, 1, 'T');
    ck_assert_uint_eq(scan(CRASH_RESTART_EXIM, &t, &corrupt), 1);
    scan_tree_init(&t);
    add_envelope(&t, "input/1700000000000042-H", ID, 360, 2, 'T');
    add_data(&t, "input/1700000000000042-D", 2);
    add_envelope(&t, "input/1700000000000042-J", ID, 40, 2, 'T');
    ck_assert_uint_eq(scan(CRASH_RESTART_EXIM, &t, &corrupt), 0);
    ck_assert_uint_eq(corrupt, 0);

    /* -H in zeros: a spool format error */
    scan_tree_init(&t);
    add_bytes(&t, "input/1700000000000042-H", "\0\0\0\0", 4);
    add_data(&t, "input/1700000000000042-D", 1);
    ck_assert_uint_eq(scan(CRASH_RESTART_EXIM, &t, &corrupt), 0);
    ck_assert_uint_eq(corrupt, 1);
}
END_TEST

START_TEST(test_opensmtpd)
{
    struct scan_tree t;
    size_t corrupt;

    scan_tree_init(&t);
    add_envelope(&t, "queue/3c/1700000000000042/17000000000000420", ID, 250, 1, 'T');
    add_data(&t, "queue/3c/1700000000000042/message", 1);
    add_envelope(&t, "incoming/1700000000000043/17000000000000430", ID + 1, 250, 1, 'T');
    ck_assert_uint_eq(scan(CRASH_RESTART_OPENSMTPD, &t, &corrupt), 1);
    ck_assert_uint_eq(corrupt, 0);

    /* envelopes all gone: delivered; an empty one (unallocated blocks): corrupt */
    scan_tree_init(&t);
    add_data(&t, "queue/3c/1700000000000042/message", 1);
    ck_assert_uint_eq(scan(CRASH_RESTART_OPENSMTPD, &t, &corrupt), 0);
    ck_assert_uint_eq(corrupt, 0);
    scan_tree_init(&t);
    add_bytes(&t, "queue/3c/1700000000000042/17000000000000420", "", 0);
    add_data(&t, "queue/3c/1700000000000042/message", 1);
    ck_assert_uint_eq(scan(CRASH_RESTART_OPENSMTPD, &t, &corrupt), 0);
    ck_assert_uint_eq(corrupt, 1);

    /* an envelope without its message: nothing to deliver */
    scan_tree_init(&t);
    add_envelope(&t, "queue/3c/1700000000000042/17000000000000420", ID, 250, 1, 'T');
    ck_assert_uint_eq(scan(CRASH_RESTART_OPENSMTPD, &t, &corrupt), 0);
}
END_TEST

int main(void)
{
    const TTest *const tests[] = {test_restart_of, test_sendmail,  test_qmail,
                                  test_exim,       test_opensmtpd, NULL};

    return check_run_tests("crash_scan", tests);
}
