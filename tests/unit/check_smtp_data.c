/*
 * Unit tests: smtp_data (end of DATA, un-stuffing, bare-LF policies) and
 * smtp_stuff (the client's wire form), including the smuggling endings of
 * docs/security.md item 3.
 */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "smtp_data.h"
#include "smtp_stuff.h"
#include "check_collect.h"
#include "check_main.h"

/* Feed `in' in chunks of `chunk' bytes; return bytes used, content in `out'. */
static size_t run_reader(enum smtp_bare_lf_policy policy, const char *in, size_t len, size_t chunk,
                         struct collected *out, struct smtp_data_reader *rd)
{
    size_t off = 0;

    smtp_data_init(rd, policy);
    out->len = 0;
    while (off < len && !rd->done) {
        size_t n = len - off < chunk ? len - off : chunk;

        off += smtp_data_feed(rd, in + off, n, collect, out);
    }
    return off;
}

START_TEST(test_simple_message_and_pipelined_rest)
{
    const char in[] = "Subject: x\r\n\r\nhello\r\n.\r\nQUIT\r\n";
    struct smtp_data_reader rd;
    struct collected out;
    size_t used = run_reader(SMTP_BARE_LF_NORMALIZE, in, strlen(in), 4096, &out, &rd);

    ck_assert_int_eq(rd.done, 1);
    ck_assert_uint_eq(used, strlen(in) - strlen("QUIT\r\n"));
    ck_assert_uint_eq(out.len, strlen("Subject: x\r\n\r\nhello\r\n"));
    ck_assert(memcmp(out.buf, "Subject: x\r\n\r\nhello\r\n", out.len) == 0);
    ck_assert_uint_eq(rd.content_bytes, out.len);
}
END_TEST

START_TEST(test_empty_message)
{
    struct smtp_data_reader rd;
    struct collected out;

    run_reader(SMTP_BARE_LF_STRICT, ".\r\n", 3, 4096, &out, &rd);
    ck_assert_int_eq(rd.done, 1);
    ck_assert_uint_eq(out.len, 0);
}
END_TEST

START_TEST(test_unstuffing)
{
    const char in[] = "..leading\r\n...\r\n.x\r\nmid.dle\r\n..\r\n.\r\n";
    const char want[] = ".leading\r\n..\r\nx\r\nmid.dle\r\n.\r\n";
    struct smtp_data_reader rd;
    struct collected out;

    run_reader(SMTP_BARE_LF_STRICT, in, strlen(in), 4096, &out, &rd);
    ck_assert_int_eq(rd.done, 1);
    ck_assert_uint_eq(out.len, strlen(want));
    ck_assert(memcmp(out.buf, want, out.len) == 0);
    ck_assert_ptr_null(smtp_data_reject(&rd));
}
END_TEST

/*
 * The nine smuggling endings of hannob/smtpsmug. Under strict and normalize
 * none of them ends DATA: the real end comes later and the reader consumes
 * everything up to it, so a smuggled second transaction is content.
 */
static const char *const smuggle_endings[] = {
    "\n.\n", "\r.\r", "\r.\n", "\n.\r", "\n.\r\n", "\r\n.\n", "\r.\r\n", "\r\n.\r", "\r\n\0.\r\n",
};
#define N_SMUGGLE (int)(sizeof(smuggle_endings) / sizeof(smuggle_endings[0]))

static size_t build_smuggle(int i, char *buf)
{
    const char *ending = smuggle_endings[i];
    size_t ending_len = i == 8 ? 6 : strlen(ending);
    const char head[] = "Subject: a\r\n\r\nbody";
    const char tail[] = "MAIL FROM:<evil@x>\r\nRCPT TO:<v@y>\r\nDATA\r\nsmuggled\r\n.\r\n";
    size_t len = 0;

    memcpy(buf, head, strlen(head));
    len += strlen(head);
    memcpy(buf + len, ending, ending_len);
    len += ending_len;
    memcpy(buf + len, tail, strlen(tail));
    len += strlen(tail);
    return len;
}

static void check_smuggle(enum smtp_bare_lf_policy policy, int i, size_t chunk)
{
    char in[256];
    size_t len = build_smuggle(i, in);
    struct smtp_data_reader rd;
    struct collected out;
    size_t used = run_reader(policy, in, len, chunk, &out, &rd);

    ck_assert_msg(rd.done, "ending %d: message never ended", i);
    ck_assert_msg(used == len, "ending %d (policy %s, chunk %zu): ended after %zu of %zu bytes", i,
                  smtp_data_bare_lf_name(policy), chunk, used, len);
    ck_assert_msg(memmem(out.buf, out.len, "MAIL FROM:<evil@x>", 18) != NULL,
                  "ending %d: smuggled text not kept as content", i);
}

START_TEST(test_smuggling_strict)
{
    check_smuggle(SMTP_BARE_LF_STRICT, _i, 4096);
    check_smuggle(SMTP_BARE_LF_STRICT, _i, 1);
}
END_TEST

START_TEST(test_smuggling_normalize)
{
    check_smuggle(SMTP_BARE_LF_NORMALIZE, _i, 4096);
    check_smuggle(SMTP_BARE_LF_NORMALIZE, _i, 1);
}
END_TEST

/* Strict rejects every ending that carries a bare CR or LF; the NUL one is clean. */
START_TEST(test_strict_rejects_bare_line_ends)
{
    char in[256];
    size_t len = build_smuggle(_i, in);
    struct smtp_data_reader rd;
    struct collected out;

    run_reader(SMTP_BARE_LF_STRICT, in, len, 4096, &out, &rd);
    if (_i == 8)
        ck_assert_ptr_null(smtp_data_reject(&rd));
    else
        ck_assert_msg(smtp_data_reject(&rd) != NULL, "ending %d not rejected", _i);
}
END_TEST

/* Lenient, like OpenSMTPD, ends at "\n.\n", "\n.\r\n" and "\r\n.\n", at nothing else. */
START_TEST(test_lenient_endings)
{
    char in[256];
    size_t len = build_smuggle(_i, in);
    struct smtp_data_reader rd;
    struct collected out;
    size_t used = run_reader(SMTP_BARE_LF_LENIENT, in, len, 4096, &out, &rd);
    int ends_early = strcmp(smuggle_endings[_i], "\n.\n") == 0 ||
                     strcmp(smuggle_endings[_i], "\n.\r\n") == 0 ||
                     strcmp(smuggle_endings[_i], "\r\n.\n") == 0;

    ck_assert_int_eq(rd.done, 1);
    ck_assert_msg((used < len) == ends_early, "ending %d: used %zu of %zu", _i, used, len);
}
END_TEST

START_TEST(test_normalize_stores_crlf)
{
    const char in[] = "a\nb\r\n.\r\n";
    struct smtp_data_reader rd;
    struct collected out;

    run_reader(SMTP_BARE_LF_NORMALIZE, in, strlen(in), 4096, &out, &rd);
    ck_assert_uint_eq(out.len, 6);
    ck_assert(memcmp(out.buf, "a\r\nb\r\n", 6) == 0);
    ck_assert_int_eq(rd.bare_lf_seen, 1);
    ck_assert_ptr_null(smtp_data_reject(&rd));
}
END_TEST

/* The data-rate budget grows with content received: 1 s per min_rate bytes. */
START_TEST(test_time_left_grows_with_content)
{
    const char in[] = "0123456789\r\n"; /* 12 content bytes, no end yet */
    struct smtp_data_reader rd;
    struct collected out;

    run_reader(SMTP_BARE_LF_NORMALIZE, in, strlen(in), 4096, &out, &rd);
    ck_assert_uint_eq(rd.content_bytes, 12);
    /* timeout 2 s + 12 bytes at 4 B/s = 5 s allowed */
    ck_assert_double_eq_tol(smtp_data_time_left(&rd, 2, 4, 0), 5, 1e-9);
    ck_assert_double_eq_tol(smtp_data_time_left(&rd, 2, 4, 4.5), 0.5, 1e-9);
    ck_assert(smtp_data_time_left(&rd, 2, 4, 5.5) < 0);
    smtp_data_init(&rd, SMTP_BARE_LF_NORMALIZE);
    ck_assert(smtp_data_time_left(&rd, 2, 4, 2.5) < 0); /* nothing sent: only the timeout */
}
END_TEST

/* Content with every awkward line start survives stuff -> read unchanged. */
START_TEST(test_stuff_round_trip)
{
    static const char *const payloads[] = {
        ".foo\r\n.\r\nbar\r\n",    ".", "..\r\n...\r\n", "line without end", "\r\n.\r\n.\r\n",
        "a\nb\rc\r\n.d\n.\n\r.\r", "",
    };
    static const char *const normalized[] = {
        ".foo\r\n.\r\nbar\r\n",
        ".\r\n",
        "..\r\n...\r\n",
        "line without end\r\n",
        "\r\n.\r\n.\r\n",
        "a\r\nb\r\nc\r\n.d\r\n.\r\n\r\n.\r\n",
        "",
    };

    for (size_t i = 0; i < sizeof(payloads) / sizeof(payloads[0]); i++) {
        struct smtp_stuffer st;
        char wire[512];
        size_t len;
        struct smtp_data_reader rd;
        struct collected out;

        smtp_stuff_init(&st);
        len = smtp_stuff(&st, payloads[i], strlen(payloads[i]), wire);
        len += smtp_stuff_finish(&st, wire + len);
        ck_assert_ptr_null(memchr(wire, 0, len));
        for (size_t j = 0; j < len; j++) {
            if (wire[j] == '\n')
                ck_assert_msg(j > 0 && wire[j - 1] == '\r', "payload %zu: bare LF", i);
            if (wire[j] == '\r')
                ck_assert_msg(j + 1 < len && wire[j + 1] == '\n', "payload %zu: bare CR", i);
        }
        for (size_t chunk = 1; chunk <= 4096; chunk *= 4096) {
            size_t used = run_reader(SMTP_BARE_LF_STRICT, wire, len, chunk, &out, &rd);

            ck_assert_uint_eq(used, len);
            ck_assert_int_eq(rd.done, 1);
            ck_assert_ptr_null(smtp_data_reject(&rd));
            ck_assert_msg(out.len == strlen(normalized[i]) &&
                              memcmp(out.buf, normalized[i], out.len) == 0,
                          "payload %zu did not round-trip", i);
        }
    }
}
END_TEST

/* A CR at the end of one piece and LF at the start of the next is one line end. */
START_TEST(test_stuff_split_crlf)
{
    struct smtp_stuffer st;
    char wire[64];
    size_t len;

    smtp_stuff_init(&st);
    len = smtp_stuff(&st, "a\r", 2, wire);
    len += smtp_stuff(&st, "\n.b", 3, wire + len);
    len += smtp_stuff_finish(&st, wire + len);
    ck_assert_uint_eq(len, strlen("a\r\n..b\r\n.\r\n"));
    ck_assert(memcmp(wire, "a\r\n..b\r\n.\r\n", len) == 0);
}
END_TEST

/* The rule of smtp_stuff.h, a byte at a time: the oracle for the test below. */
static size_t stuff_by_the_rule(const char *in, size_t len, char *out)
{
    size_t n = 0;
    int at_line_start = 1;

    for (size_t i = 0; i < len; i++) {
        if (in[i] == '\r' || in[i] == '\n') {
            if (in[i] == '\r' && i + 1 < len && in[i + 1] == '\n')
                i++;
            out[n++] = '\r';
            out[n++] = '\n';
            at_line_start = 1;
            continue;
        }
        if (at_line_start && in[i] == '.')
            out[n++] = '.';
        out[n++] = in[i];
        at_line_start = 0;
    }
    if (!at_line_start) {
        out[n++] = '\r';
        out[n++] = '\n';
    }
    memcpy(out + n, ".\r\n", 3);
    return n + 3;
}

/*
 * Random text of runs, dots, CRs and LFs, fed in random pieces (a CR LF
 * split across two, a dot first in a piece), comes out as the rule says.
 */
START_TEST(test_stuff_random_pieces)
{
    static const char alphabet[] = "ab.\r\nxyz";
    unsigned long seed = 12345;

    for (int round = 0; round < 2000; round++) {
        char in[300], want[700], got[700];
        size_t len, want_len, got_len = 0, off = 0;
        struct smtp_stuffer st;

        seed = seed * 6364136223846793005UL + 1442695040888963407UL;
        len = (seed >> 33) % sizeof(in);
        for (size_t i = 0; i < len; i++) {
            seed = seed * 6364136223846793005UL + 1442695040888963407UL;
            /* mostly letters, so that runs are long enough to matter */
            in[i] = (seed >> 40) % 4 ? 'q' : alphabet[(seed >> 33) % (sizeof(alphabet) - 1)];
        }
        want_len = stuff_by_the_rule(in, len, want);
        smtp_stuff_init(&st);
        while (off < len) {
            size_t piece;

            seed = seed * 6364136223846793005UL + 1442695040888963407UL;
            piece = 1 + (seed >> 33) % 40;
            if (piece > len - off)
                piece = len - off;
            got_len += smtp_stuff(&st, in + off, piece, got + got_len);
            off += piece;
        }
        got_len += smtp_stuff_finish(&st, got + got_len);
        ck_assert_msg(got_len == want_len && memcmp(got, want, got_len) == 0,
                      "round %d: %zu bytes stuffed wrong", round, len);
    }
}
END_TEST

int main(void)
{
    const TTest *const reader[] = {test_simple_message_and_pipelined_rest,
                                   test_empty_message,
                                   test_unstuffing,
                                   test_normalize_stores_crlf,
                                   test_time_left_grows_with_content,
                                   NULL};
    const TTest *const smuggling[] = {NULL};
    const TTest *const stuffing[] = {test_stuff_round_trip, test_stuff_split_crlf,
                                     test_stuff_random_pieces, NULL};
    Suite *s = suite_create("smtp_data");
    TCase *tc;

    check_add_tcase(s, "reader", reader);
    tc = check_add_tcase(s, "smuggling", smuggling);
    tcase_add_loop_test(tc, test_smuggling_strict, 0, N_SMUGGLE);
    tcase_add_loop_test(tc, test_smuggling_normalize, 0, N_SMUGGLE);
    tcase_add_loop_test(tc, test_strict_rejects_bare_line_ends, 0, N_SMUGGLE);
    tcase_add_loop_test(tc, test_lenient_endings, 0, N_SMUGGLE);
    check_add_tcase(s, "stuffing", stuffing);
    return check_run_suite(s);
}
