/*
 * Unit tests for spoolsim/drive/msglog.c: parsing the lines smtp-source and
 * smtp-sink write, loading a log file, and the sent/received comparison.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "msglog.h"
#include "check_main.h"

static const char source_line[] =
    "id=4BE8FA72B14 size=1128 sum=db338504de3b48fe rcpts=1 message-id=<6b0c9a981d28.1@vm>\n";
static const char sink_line[] = "id=D0E00000 size=1129 sum=c9f78460faedafab rcpts=1 "
                                "message-id=<6b0c9a981d28.13@vm> from=<foo@vm> client=127.0.0.1";

/* A line that parses, and what it says. */
struct good_line {
    const char *what;
    const char *line;
    const char *message_id;
    uint64_t size;
    uint64_t sum;
    const char *queue_id;
};

static const struct good_line good_lines[] = {
    {"smtp-source's line", source_line, "<6b0c9a981d28.1@vm>", 1128, 0xdb338504de3b48feULL,
     "4BE8FA72B14"},
    {"smtp-sink's line", sink_line, "<6b0c9a981d28.13@vm>", 1129, 0xc9f78460faedafabULL,
     "D0E00000"},
    /* Any order, CR LF, tabs and runs of spaces, unknown keys and bare words. */
    {"any order and spacing",
     "  message-id=<x@y>\tsum=00000000000000FF  extra=1 word size=0 id=Q\r\n", "<x@y>", 0, 0xff,
     "Q"},
    /* No id=: it is optional. A short sum and the extreme values. */
    {"no id, the largest size", "size=18446744073709551615 sum=0 message-id=plain", "plain",
     UINT64_MAX, 0, ""},
    {"the largest sum", "size=1 sum=ffffffffffffffff message-id=<a>", "<a>", 1, UINT64_MAX, ""},
    /* "id" is a whole key, not a prefix of "message-id" or "idx". */
    {"idx is no id", "idx=9 size=1 sum=1 message-id=<a>", "<a>", 1, 1, ""},
};

START_TEST(test_parse_good)
{
    const struct good_line *c = &good_lines[_i];
    struct msglog_entry e;

    ck_assert_msg(msglog_parse_line(c->line, &e) == 0, "%s: refused", c->what);
    ck_assert_msg(strcmp(e.message_id, c->message_id) == 0, "%s: message-id %s", c->what,
                  e.message_id);
    ck_assert_msg(e.size == c->size, "%s: size %llu", c->what, (unsigned long long)e.size);
    ck_assert_msg(e.sum == c->sum, "%s: sum %llx", c->what, (unsigned long long)e.sum);
    ck_assert_msg(strcmp(e.queue_id, c->queue_id) == 0, "%s: id %s", c->what, e.queue_id);
}
END_TEST

START_TEST(test_parse_missing_and_bad)
{
    static const char *bad[] = {
        "",
        "\n",
        "id=X sum=1 message-id=<a>",  /* no size */
        "id=X size=1 message-id=<a>", /* no sum */
        "id=X size=1 sum=1",          /* no message-id */
        "size=1 sum=1 message-id=-",  /* the "none" placeholder */
        "size=1 sum=1 message-id=",
        "size=1 sum=1 message-id=<cut-off", /* a line cut inside the id */
        "size=1 sum=1 message-id=<a\x01>",
        "size= sum=1 message-id=<a>",
        "size=12x sum=1 message-id=<a>",
        "size=-1 sum=1 message-id=<a>",
        "size=+1 sum=1 message-id=<a>",
        "size=18446744073709551616 sum=1 message-id=<a>", /* 2^64 */
        "size=1 sum= message-id=<a>",
        "size=1 sum=xyz message-id=<a>",
        "size=1 sum=db33g504 message-id=<a>",
        "size=1 sum=0x1f message-id=<a>",
        "size=1 sum=-1 message-id=<a>",
        "size=1 sum=00db338504de3b48fe message-id=<a>", /* 17 digits */
        "size=1 sum=1 message-id=<a> size=2",           /* twice: which one? */
        "size=1 sum=1 message-id=<a> sum=1",
        "size=1 sum=1 message-id=<a> message-id=<a>",
        "SIZE=1 sum=1 message-id=<a>",
    };
    struct msglog_entry e, before;

    memset(&e, 0x5a, sizeof(e));
    before = e;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        if (msglog_parse_line(bad[i], &e) != -1)
            ck_abort_msg("accepted bad line #%zu: %s", i, bad[i]);
        ck_assert_mem_eq(&e, &before, sizeof(e)); /* untouched */
    }
}
END_TEST

/* mono_ns=: optional, decimal, once; lines without it read as before. */
START_TEST(test_parse_mono_ns)
{
    struct msglog_entry e;

    ck_assert_int_eq(msglog_parse_line(source_line, &e), 0);
    ck_assert_uint_eq(e.mono_ns, 0);
    ck_assert_int_eq(msglog_parse_line("size=1 sum=1 message-id=<a@b> mono_ns=123456789012", &e),
                     0);
    ck_assert_uint_eq(e.mono_ns, 123456789012ULL);
    ck_assert_int_eq(msglog_parse_line("size=1 sum=1 message-id=<a@b> mono_ns=12x", &e), -1);
    ck_assert_int_eq(msglog_parse_line("size=1 sum=1 message-id=<a@b> mono_ns=", &e), -1);
    ck_assert_int_eq(msglog_parse_line("size=1 sum=1 message-id=<a@b> mono_ns=1 mono_ns=2", &e),
                     -1);
}
END_TEST

START_TEST(test_parse_huge_line)
{
    size_t big = 1 << 20;
    char *line = malloc(big + 200);
    struct msglog_entry e;
    int n;

    ck_assert_ptr_nonnull(line);
    /* A megabyte of a field nobody reads does not matter. */
    n = sprintf(line, "size=5 sum=abc message-id=<big@x> from=<");
    memset(line + n, 'f', big);
    strcpy(line + n + big, "> client=1.2.3.4\n");
    ck_assert_int_eq(msglog_parse_line(line, &e), 0);
    ck_assert_str_eq(e.message_id, "<big@x>");
    ck_assert_uint_eq(e.size, 5);
    ck_assert_uint_eq(e.sum, 0xabc);

    /* A message-id that does not fit is refused rather than cut to match another. */
    n = sprintf(line, "size=5 sum=abc message-id=<");
    memset(line + n, 'm', big);
    strcpy(line + n + big, ">");
    ck_assert_int_eq(msglog_parse_line(line, &e), -1);

    /* The longest that fits, 255 bytes. */
    n = sprintf(line, "size=5 sum=abc message-id=<");
    memset(line + n, 'm', 253);
    strcpy(line + n + 253, ">");
    ck_assert_int_eq(msglog_parse_line(line, &e), 0);
    ck_assert_uint_eq(strlen(e.message_id), 255);
    line[n + 253] = 'm';
    strcpy(line + n + 254, ">");
    ck_assert_int_eq(msglog_parse_line(line, &e), -1);

    /* A long queue id is cut: it is only there to be looked at. */
    n = sprintf(line, "size=5 sum=abc message-id=<q@x> id=");
    memset(line + n, 'Q', 100);
    line[n + 100] = '\0';
    ck_assert_int_eq(msglog_parse_line(line, &e), 0);
    ck_assert_uint_eq(strlen(e.queue_id), sizeof(e.queue_id) - 1);
    free(line);
}
END_TEST

/* ---------------------------------------------------------------- compare */

static void add(struct msglog_set *s, const char *message_id, uint64_t size, uint64_t sum)
{
    struct msglog_entry e;

    memset(&e, 0, sizeof(e));
    snprintf(e.message_id, sizeof(e.message_id), "%s", message_id);
    e.size = size;
    e.sum = sum;
    msglog_set_add(s, &e);
}

/* Ten messages, added in an order that is not sorted. */
static void add_ten(struct msglog_set *s)
{
    char id[32];

    for (int i = 9; i >= 0; i--) {
        snprintf(id, sizeof(id), "<m%d@vm>", (i * 7) % 10);
        add(s, id, 1000 + (uint64_t)i, 0xabc0 + (uint64_t)i);
    }
}

static struct msglog_set sent, received;
static struct msglog_compare cmp;

static void sets_setup(void)
{
    msglog_set_init(&sent);
    msglog_set_init(&received);
    memset(&cmp, 0xff, sizeof(cmp));
}

static void sets_teardown(void)
{
    msglog_set_free(&sent);
    msglog_set_free(&received);
}

static void expect(size_t acked, size_t delivered, size_t lost, size_t duplicated,
                   size_t unexpected)
{
    msglog_compare(&sent, &received, &cmp);
    ck_assert_uint_eq(cmp.acked, acked);
    ck_assert_uint_eq(cmp.delivered, delivered);
    ck_assert_uint_eq(cmp.lost, lost);
    ck_assert_uint_eq(cmp.duplicated, duplicated);
    ck_assert_uint_eq(cmp.unexpected, unexpected);
    /* The identities the header promises. */
    ck_assert_uint_eq(cmp.acked, cmp.delivered + cmp.lost);
    ck_assert_uint_eq(received.n, cmp.delivered + cmp.duplicated + cmp.unexpected);
}

START_TEST(test_compare_all_present)
{
    add_ten(&sent);
    add_ten(&received);
    expect(10, 10, 0, 0, 0);
    /* Sorted in place, and comparing again gives the same answer. */
    for (size_t i = 1; i < sent.n; i++)
        ck_assert_int_lt(strcmp(sent.v[i - 1].message_id, sent.v[i].message_id), 0);
    expect(10, 10, 0, 0, 0);
}
END_TEST

START_TEST(test_compare_one_lost)
{
    add_ten(&sent);
    for (int i = 0; i < 10; i++) {
        char id[32];

        snprintf(id, sizeof(id), "<m%d@vm>", (i * 7) % 10);
        if (i != 4)
            add(&received, id, 1000 + (uint64_t)i, 0xabc0 + (uint64_t)i);
    }
    expect(10, 9, 1, 0, 0);
}
END_TEST

START_TEST(test_compare_one_duplicated)
{
    add_ten(&sent);
    add_ten(&received);
    add(&received, "<m3@vm>", 1009, 0xabc9); /* i = 9: (9 * 7) % 10 = 3 */
    expect(10, 10, 0, 1, 0);
    add(&received, "<m3@vm>", 1009, 0xabc9);
    expect(10, 10, 0, 2, 0);
}
END_TEST

/* Each "ID SIZE SUM" of a list ("; " between them) added to s, in order; SUM in hex. */
static void add_all(struct msglog_set *s, const char *list)
{
    char id[256];
    uint64_t size, sum;
    int used;

    while (*list) {
        ck_assert_msg(sscanf(list, "%255s %" SCNu64 " %" SCNx64 "%n", id, &size, &sum, &used) == 3,
                      "bad list: %s", list);
        add(s, id, size, sum);
        list += used;
        list += strspn(list, "; ");
    }
}

/* What msglog_compare() counts of the messages sent and received (add_all()). */
static const struct compare_case {
    const char *sent, *received;
    size_t acked, delivered, lost, duplicated, unexpected;
} compare_cases[] = {
    /* the same id and size, other content */
    {"<a@vm> 100 1111; <b@vm> 200 2222", "<a@vm> 100 1111; <b@vm> 200 2223", 2, 1, 1, 0, 1},
    {"<a@vm> 100 1111", "<a@vm> 101 1111", 1, 0, 1, 0, 1},
    /* accepted by the relay after the client gave up: never acknowledged */
    {"<a@vm> 100 1", "<a@vm> 100 1; <late@vm> 100 2; <late@vm> 100 2", 1, 1, 0, 0, 2},
    /* two acknowledged messages with one key need two arrivals */
    {"<a@vm> 100 1; <a@vm> 100 1", "<a@vm> 100 1", 2, 1, 1, 0, 0},
    {"<a@vm> 100 1; <a@vm> 100 1", "<a@vm> 100 1; <a@vm> 100 1", 2, 2, 0, 0, 0},
    {"<a@vm> 100 1; <a@vm> 100 1", "<a@vm> 100 1; <a@vm> 100 1; <a@vm> 100 1", 2, 2, 0, 1, 0},
    {"", "", 0, 0, 0, 0, 0},
    {"<a@vm> 1 1; <b@vm> 1 1", "", 2, 0, 2, 0, 0},
    {"", "<a@vm> 1 1", 0, 0, 0, 0, 1},
    /* keys that sort between each other and differ only in size or sum */
    {"<b@vm> 1 1; <a@vm> 2 1; <a@vm> 1 2; <c@vm> 1 1",
     "<a@vm> 1 2; <a@vm> 1 1; <c@vm> 1 1; <d@vm> 1 1; <c@vm> 1 1", 4, 2, 2, 1, 2},
};

START_TEST(test_compare_cases)
{
    const struct compare_case *c = &compare_cases[_i];

    add_all(&sent, c->sent);
    add_all(&received, c->received);
    expect(c->acked, c->delivered, c->lost, c->duplicated, c->unexpected);
}
END_TEST

/* Through a real MTA, which adds headers: the Message-ID alone is the key. */
START_TEST(test_compare_ids)
{
    add(&sent, "<a@vm>", 100, 0x1111);
    add(&sent, "<b@vm>", 200, 0x2222);
    add(&sent, "<c@vm>", 300, 0x3333);
    add(&received, "<b@vm>", 260, 0x9999); /* grown by the MTA's headers */
    add(&received, "<a@vm>", 100, 0x1111);
    add(&received, "<a@vm>", 140, 0x7777); /* delivered twice */
    add(&received, "<z@vm>", 300, 0x3333); /* not one of ours: its key is its id */
    msglog_compare_ids(&sent, &received, &cmp);
    ck_assert_uint_eq(cmp.acked, 3);
    ck_assert_uint_eq(cmp.delivered, 2);
    ck_assert_uint_eq(cmp.lost, 1);
    ck_assert_uint_eq(cmp.duplicated, 1);
    ck_assert_uint_eq(cmp.unexpected, 1);
    /* the full key sees the altered and the extra copies for what they are */
    expect(3, 1, 2, 0, 3);
}
END_TEST

/* ------------------------------------------------------------------- load */

static char tmp_path[64];

static void write_file(const char *text, size_t len)
{
    int fd;

    snprintf(tmp_path, sizeof(tmp_path), "/tmp/check_msglog.XXXXXX");
    fd = mkstemp(tmp_path);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, text, len), (ssize_t)len);
    ck_assert_int_eq(close(fd), 0);
}

START_TEST(test_load)
{
    static const char text[] =
        "id=4BE8FA72B14 size=1128 sum=db338504de3b48fe rcpts=1 message-id=<6b0c9a981d28.1@vm>\n"
        "garbage\n"
        "\n"
        "id=D0E00000 size=1129 sum=c9f78460faedafab rcpts=1 message-id=<6b0c9a981d28.13@vm> "
        "from=<foo@vm> client=127.0.0.1\n"
        "id=X size=1 sum=zz message-id=<bad-sum@vm>\n"
        "id=- size=7 sum=7 rcpts=1 message-id=<with\0nul@vm>\n"
        "id=Y size=2 sum=2 message-id=<crlf@vm>\r\n"
        "id=Z size=3 sum=3 rcpts=1 message-id=<cut-sho"; /* a writer died here */
    struct msglog_set s;

    write_file(text, sizeof(text) - 1);
    msglog_set_init(&s);
    ck_assert_int_eq(msglog_set_load(&s, tmp_path), 0);
    unlink(tmp_path);
    ck_assert_uint_eq(s.n, 3);
    ck_assert_uint_eq(s.bad_lines, 5);
    ck_assert_str_eq(s.v[0].message_id, "<6b0c9a981d28.1@vm>");
    ck_assert_str_eq(s.v[1].message_id, "<6b0c9a981d28.13@vm>");
    ck_assert_uint_eq(s.v[1].size, 1129);
    ck_assert_str_eq(s.v[2].message_id, "<crlf@vm>");
    ck_assert_str_eq(s.v[2].queue_id, "Y");
    msglog_set_free(&s);
    ck_assert_ptr_null(s.v);
    ck_assert_uint_eq(s.n, 0);
}
END_TEST

START_TEST(test_load_appends_and_cut_last_line)
{
    struct msglog_set s;
    char big[300];
    size_t i;

    msglog_set_init(&s);
    /* A last line without its newline is bad even when it parses. */
    write_file("size=1 sum=1 message-id=<a@vm>\nsize=2 sum=2 message-id=<b@vm>",
               strlen("size=1 sum=1 message-id=<a@vm>\nsize=2 sum=2 message-id=<b@vm>"));
    ck_assert_int_eq(msglog_set_load(&s, tmp_path), 0);
    unlink(tmp_path);
    ck_assert_uint_eq(s.n, 1);
    ck_assert_uint_eq(s.bad_lines, 1);
    /* A second file adds to the same set; enough lines to make it grow. */
    for (i = 0; i < 200; i++) {
        int n = snprintf(big, sizeof(big), "size=%zu sum=%zx message-id=<m%zu@vm>\n", i, i, i);
        FILE *fp;

        if (i == 0) {
            write_file(big, (size_t)n);
            continue;
        }
        fp = fopen(tmp_path, "a");
        ck_assert_ptr_nonnull(fp);
        fputs(big, fp);
        ck_assert_int_eq(fclose(fp), 0);
    }
    ck_assert_int_eq(msglog_set_load(&s, tmp_path), 0);
    unlink(tmp_path);
    ck_assert_uint_eq(s.n, 201);
    ck_assert_uint_eq(s.bad_lines, 1);
    ck_assert_uint_eq(s.v[200].size, 199);
    ck_assert_uint_eq(s.v[200].sum, 199);
    msglog_set_free(&s);
}
END_TEST

START_TEST(test_load_missing_file)
{
    struct msglog_set s;

    msglog_set_init(&s);
    errno = 0;
    ck_assert_int_eq(msglog_set_load(&s, "/nonexistent/check_msglog.log"), -1);
    ck_assert_int_eq(errno, ENOENT);
    ck_assert_uint_eq(s.n, 0);
    ck_assert_uint_eq(s.bad_lines, 0);
    msglog_set_free(&s);
}
END_TEST

int main(void)
{
    const TTest *const parse[] = {test_parse_mono_ns, test_parse_missing_and_bad,
                                  test_parse_huge_line, NULL};
    const TTest *const compare[] = {test_compare_all_present, test_compare_one_lost,
                                    test_compare_one_duplicated, test_compare_ids, NULL};
    const TTest *const load[] = {test_load, test_load_appends_and_cut_last_line,
                                 test_load_missing_file, NULL};
    Suite *s = suite_create("msglog");
    TCase *tc;

    tc = check_add_tcase(s, "parse", parse);
    tcase_add_loop_test(tc, test_parse_good, 0, (int)(sizeof(good_lines) / sizeof(good_lines[0])));
    tc = check_add_tcase(s, "compare", compare);
    tcase_add_loop_test(tc, test_compare_cases, 0, CHECK_ROWS(compare_cases));
    tcase_add_checked_fixture(tc, sets_setup, sets_teardown);
    check_add_tcase(s, "load", load);
    return check_run_suite(s);
}
