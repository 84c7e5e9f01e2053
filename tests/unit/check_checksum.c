/*
 * check_checksum - the message logs' key: FNV-1a over the content less
 * the Received: fields at its top, the same in pieces of any size.
 */
#include "config.h"

#include <check.h>
#include <string.h>

#include "check_main.h"
#include "checksum.h"

struct kept {
    char text[512];
    size_t len;
};

static void keep(void *arg, const char *piece, size_t len)
{
    struct kept *k = arg;

    ck_assert_uint_le(k->len + len, sizeof(k->text) - 1);
    memcpy(k->text + k->len, piece, len);
    k->len += len;
    k->text[k->len] = 0;
}

/* `text' in pieces of `step' bytes: what is kept, and its size and sum. */
static void sum_in_steps(const char *text, size_t step, struct content_sum *cs, struct kept *k)
{
    size_t len = strlen(text);

    memset(k, 0, sizeof(*k));
    checksum_content_init(cs);
    for (size_t off = 0; off < len; off += step)
        checksum_content_update(cs, text + off, len - off < step ? len - off : step, keep, k);
    checksum_content_end(cs, keep, k);
}

/* What of `text' the sum keeps is `want', and its size and sum are that text's. */
static void assert_kept(const char *text, const char *want)
{
    struct content_sum cs;
    struct kept k;

    for (size_t step = 1; step <= strlen(text) + 1; step++) {
        sum_in_steps(text, step, &cs, &k);
        ck_assert_str_eq(k.text, want);
        ck_assert_uint_eq(cs.size, strlen(want));
        ck_assert_uint_eq(cs.sum, checksum_update(CHECKSUM_INIT, want, strlen(want)));
    }
}

START_TEST(test_fnv)
{
    /* FNV-1a's published test values */
    ck_assert_uint_eq(checksum_update(CHECKSUM_INIT, "", 0), 0xcbf29ce484222325ULL);
    ck_assert_uint_eq(checksum_update(CHECKSUM_INIT, "a", 1), 0xaf63dc4c8601ec8cULL);
    ck_assert_uint_eq(checksum_update(CHECKSUM_INIT, "foobar", 6), 0x85944171f73967e8ULL);
}
END_TEST

START_TEST(test_no_trace)
{
    assert_kept("", "");
    assert_kept("From: a\r\n\r\nbody\r\n", "From: a\r\n\r\nbody\r\n");
    assert_kept("Rec", "Rec"); /* held, then kept at the end */
    assert_kept("Receive", "Receive");
    assert_kept("\r\nReceived: body\r\n", "\r\nReceived: body\r\n");
}
END_TEST

START_TEST(test_trace_left_out)
{
    assert_kept("Received: from a\r\n\tby b; date\r\nFrom: x\r\n\r\nbody\r\n",
                "From: x\r\n\r\nbody\r\n");
    /* several, any case, LF lines, folded with spaces */
    assert_kept("Received: a\nRECEIVED: b\n  c\nreceived: d\nSubject: s\n\nbody\n",
                "Subject: s\n\nbody\n");
    /* only at the top: one after another field counts, as one in the body */
    assert_kept("Received: a\r\nFrom: x\r\nReceived: b\r\n\r\nReceived: c\r\n",
                "From: x\r\nReceived: b\r\n\r\nReceived: c\r\n");
    /* look-alikes count */
    assert_kept("Received-SPF: pass\r\n\r\n", "Received-SPF: pass\r\n\r\n");
    assert_kept("Received: a\r\nReceivedX: b\r\n", "ReceivedX: b\r\n");
    /* a message of trace fields only */
    assert_kept("Received: a\r\nReceived: b\r\n", "");
    /* a folded line at the top is no continuation of anything */
    assert_kept(" Received: a\r\n", " Received: a\r\n");
}
END_TEST

int main(void)
{
    const TTest *const tests[] = {test_fnv, test_no_trace, test_trace_left_out, NULL};

    return check_run_tests("checksum", tests);
}
