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
#include "profile.h"
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

    crash_scan_tree_add(t, xstrdup(path), d, len);
}

/* An envelope of `chunks' chunks of n bytes for message id; mark 'D' for done. */
static void add_envelope(struct scan_tree *t, const char *path, unsigned long long id, size_t n,
                         unsigned chunks, char mark)
{
    char *d = xmalloc(n * chunks);

    for (unsigned i = 0; i < chunks; i++)
        spool_envelope_fill(d + i * n, n, id);
    d[0] = mark;
    crash_scan_tree_add(t, xstrdup(path), d, n * chunks);
}

static void add_bytes(struct scan_tree *t, const char *path, const char *bytes, size_t len)
{
    crash_scan_tree_add(t, xstrdup(path), len ? memcpy(xmalloc(len), bytes, len) : NULL, len);
}

/* Scan t as `how' (sorted here, freed here): how many recovered, *corrupt set. */
static size_t scan(const char *profile, struct scan_tree *t, size_t *corrupt)
{
    struct msglog_set got;
    const struct crash_restart *how;
    size_t n;

    ck_assert_int_eq(crash_scan_restart_of(profile, &how), 0);
    crash_scan_tree_sort(t);
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
    crash_scan_tree_free(t);
    return n;
}

START_TEST(test_restart_of)
{
    const struct crash_restart *how, *exim;

    ck_assert_int_eq(crash_scan_restart_of("exim", &exim), 0);
    ck_assert_int_eq(crash_scan_restart_of("exim-4.98", &how), 0);
    ck_assert_ptr_eq(how, exim); /* keyed by the MTA: both Exims restart alike */
    ck_assert(crash_scan_on_disk(how) && !crash_scan_by_relay(how));
    ck_assert_int_eq(crash_scan_restart_of("postfix", &how), 0);
    ck_assert(crash_scan_on_disk(how) && crash_scan_by_relay(how));
    ck_assert_int_eq(crash_scan_restart_of("courier", &how), -1);
    /* every profile has its MTA's restart: a new MTA needs its row in crash_scan.c */
    for (size_t i = 0; profile_at(i) != NULL; i++)
        ck_assert_msg(crash_scan_restart_of(profile_at(i)->name, &how) == 0, "%s",
                      profile_at(i)->name);
    ck_assert_int_eq(crash_scan_restart_of("null", &how), 0);
    ck_assert(!crash_scan_on_disk(how) && !crash_scan_by_relay(how));
}
END_TEST

/* One file of a spool in a case: an envelope, a data file, or raw bytes. */
struct file_spec {
    char kind; /* 'E' envelope, 'M' data file (message), 'B' bytes */
    const char *path;
    unsigned long long id; /* E: whose; 0 for ID */
    size_t n;              /* E: chunk size; B: length */
    unsigned count;        /* E: chunks; M: recipients */
    char mark;             /* E: T or D */
    const char *bytes;     /* B */
};

struct scan_case {
    const char *what;
    const char *how; /* the profile whose MTA's restart scans it */
    struct file_spec files[6];
    size_t recovered, corrupt;
};

#define Q "1700000000000042"
#define E(path, n, count, mark)                                                                    \
    {                                                                                              \
        'E', path, 0, n, count, mark, NULL                                                         \
    }
#define M(path, rcpts)                                                                             \
    {                                                                                              \
        'M', path, 0, 0, rcpts, 0, NULL                                                            \
    }
#define B(path, bytes, len)                                                                        \
    {                                                                                              \
        'B', path, 0, len, 0, 0, bytes                                                             \
    }

/* 1700000000000042 % 23 == 16: qmail's split directory */
static const struct scan_case cases[] = {
    {"sendmail: qf whole, df",
     "sendmail",
     {E("mqueue/qf" Q, 480, 1, 'T'), M("mqueue/df" Q, 1), E("mqueue/tf" Q, 450, 1, 'T')},
     1,
     0},
    {"sendmail: qf cut short", "sendmail", {B("mqueue/qf" Q, "T17", 3), M("mqueue/df" Q, 1)}, 0, 1},
    {"sendmail: df gone", "sendmail", {E("mqueue/qf" Q, 480, 1, 'T')}, 0, 0},
    {"sendmail: df zeros",
     "sendmail",
     {E("mqueue/qf" Q, 480, 1, 'T'), B("mqueue/df" Q, "\0\0\0\0", 4)},
     0,
     1},
    {"sendmail: another message's qf (stale blocks)",
     "sendmail",
     {{'E', "mqueue/qf" Q, 1700000000000043ULL, 480, 1, 'T', NULL}, M("mqueue/df" Q, 1)},
     0,
     1},
    {"qmail: todo, mess",
     "qmail",
     {E("todo/" Q, 80, 1, 'T'), E("intd/" Q, 80, 1, 'T'), M("mess/16/" Q, 1)},
     1,
     0},
    {"qmail: intd without todo (never committed)",
     "qmail",
     {E("intd/" Q, 80, 1, 'T'), M("mess/16/" Q, 1)},
     0,
     0},
    {"qmail: info, remote T, mess",
     "qmail",
     {E("info/16/" Q, 40, 1, 'T'), E("remote/16/" Q, 40, 1, 'T'), M("mess/16/" Q, 1)},
     1,
     0},
    {"qmail: todo and info both: once",
     "qmail",
     {E("todo/" Q, 80, 1, 'T'), E("info/16/" Q, 40, 1, 'T'), E("remote/16/" Q, 40, 1, 'T'),
      M("mess/16/" Q, 1)},
     1,
     0},
    {"qmail: remote marked D (delivered)",
     "qmail",
     {E("info/16/" Q, 40, 1, 'T'), E("remote/16/" Q, 40, 1, 'D'), M("mess/16/" Q, 1)},
     0,
     0},
    {"qmail: todo empty", "qmail", {B("todo/" Q, "", 0), M("mess/16/" Q, 1)}, 0, 1},
    {"qmail: mess gone", "qmail", {E("todo/" Q, 80, 1, 'T')}, 0, 0},
    {"exim: -H whole, -D",
     "exim",
     {E("input/" Q "-H", 360, 2, 'T'), M("input/" Q "-D", 2),
      B("input/hdr.1700000000000043", "x", 1)},
     1,
     0},
    {"exim: a journal of one of two recipients",
     "exim",
     {E("input/" Q "-H", 360, 2, 'T'), M("input/" Q "-D", 2), E("input/" Q "-J", 40, 1, 'T')},
     1,
     0},
    {"exim: a journal of both (delivered)",
     "exim",
     {E("input/" Q "-H", 360, 2, 'T'), M("input/" Q "-D", 2), E("input/" Q "-J", 40, 2, 'T')},
     0,
     0},
    {"exim: -H zeros", "exim", {B("input/" Q "-H", "\0\0\0\0", 4), M("input/" Q "-D", 1)}, 0, 1},
    {"opensmtpd: message, envelope",
     "opensmtpd",
     {E("queue/3c/" Q "/" Q "0", 250, 1, 'T'),
      M("queue/3c/" Q "/message", 1),
      {'E', "incoming/1700000000000043/17000000000000430", 1700000000000043ULL, 250, 1, 'T', NULL}},
     1,
     0},
    {"opensmtpd: no envelope left (delivered)",
     "opensmtpd",
     {M("queue/3c/" Q "/message", 1)},
     0,
     0},
    {"opensmtpd: an empty envelope",
     "opensmtpd",
     {B("queue/3c/" Q "/" Q "0", "", 0), M("queue/3c/" Q "/message", 1)},
     0,
     1},
    {"opensmtpd: an envelope without its message",
     "opensmtpd",
     {E("queue/3c/" Q "/" Q "0", 250, 1, 'T')},
     0,
     0},
};

static void add_spec(struct scan_tree *t, const struct file_spec *f)
{
    switch (f->kind) {
    case 'E':
        add_envelope(t, f->path, f->id ? f->id : ID, f->n, f->count, f->mark);
        break;
    case 'M':
        add_data(t, f->path, f->count);
        break;
    default:
        add_bytes(t, f->path, f->bytes, f->n);
    }
}

START_TEST(test_cases)
{
    ck_assert_uint_eq(ID % 23, 16);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const struct scan_case *c = &cases[i];
        struct scan_tree t;
        size_t corrupt, got;

        crash_scan_tree_init(&t);
        for (size_t k = 0; k < 6 && c->files[k].path; k++)
            add_spec(&t, &c->files[k]);
        got = scan(c->how, &t, &corrupt);
        ck_assert_msg(got == c->recovered && corrupt == c->corrupt,
                      "%s: %zu recovered (want %zu), %zu corrupt (want %zu)", c->what, got,
                      c->recovered, corrupt, c->corrupt);
    }
}
END_TEST

int main(void)
{
    const TTest *const tests[] = {test_restart_of, test_cases, NULL};

    return check_run_tests("crash_scan", tests);
}
