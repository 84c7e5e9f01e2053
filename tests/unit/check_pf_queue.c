/*
 * Unit tests: pf_queue, Postfix queue IDs and hashed directory names.
 */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "pf_queue.h"
#include "check_main.h"

START_TEST(test_short_ids)
{
    char id[PF_QUEUE_ID_MAX];

    /* docs/postfix-observed.md 5.1: usec 0x53619, inode 0x32 */
    pf_queue_id_short(id, sizeof(id), 0x53619, 0x32);
    ck_assert_str_eq(id, "5361932");
    /* small microseconds keep their 5 digits */
    pf_queue_id_short(id, sizeof(id), 0x12, 0xABCDEF);
    ck_assert_str_eq(id, "00012ABCDEF");
}
END_TEST

/* Real long IDs: Postfix's test-queue-file18, and one seen on this machine. */
START_TEST(test_long_ids)
{
    char id[PF_QUEUE_ID_MAX];

    pf_queue_id_long(id, sizeof(id), 1702409344UL, 912642UL, 655697UL);
    ck_assert_str_eq(id, "4SqTFD6TVpz4w4n");
    pf_queue_id_long(id, sizeof(id), 1795975348UL, 353905UL, 1L << 20);
    ck_assert(strncmp(id, "4jcw3S2Vssz", 11) == 0);
    ck_assert_ptr_null(strchr(id + 11, 'z')); /* base 51 never uses 'z' */
    /* padding: small values still give 6 + 4 characters before 'z' */
    pf_queue_id_long(id, sizeof(id), 1, 2, 0);
    ck_assert_str_eq(id, "000001"
                         "0002"
                         "z"
                         "0");
}
END_TEST

START_TEST(test_hash)
{
    char dir[8], id[32];

    ck_assert_int_eq(pf_queue_hash("5361932", 1, dir, sizeof(dir)), 0);
    ck_assert_str_eq(dir, "5");
    ck_assert_int_eq(pf_queue_hash("5361932", 2, dir, sizeof(dir)), 0);
    ck_assert_str_eq(dir, "5/3");
    /* long ID: usec 912642 = 0xDED02 */
    ck_assert_int_eq(pf_queue_hash("4SqTFD6TVpz4w4n", 1, dir, sizeof(dir)), 0);
    ck_assert_str_eq(dir, "D");
    ck_assert_int_eq(pf_queue_hash("4SqTFD6TVpz4w4n", 0, dir, sizeof(dir)), 0);
    ck_assert_str_eq(dir, "");
    /* a 'z' among the seconds' digits is not the separator (it was taken for it: -1) */
    pf_queue_id_long(id, sizeof(id), 51, 912642, 7);
    ck_assert_str_eq(id, "00000z6TVpz7");
    ck_assert_int_eq(pf_queue_hash(id, 1, dir, sizeof(dir)), 0);
    ck_assert_str_eq(dir, "D");
    ck_assert_int_eq(pf_queue_hash("../etc", 1, dir, sizeof(dir)), -1);
    ck_assert_int_eq(pf_queue_hash("12", 1, dir, sizeof(dir)), -1);
    ck_assert_int_eq(pf_queue_hash("4S!TFD6TVpz4w4n", 1, dir, sizeof(dir)), -1);
}
END_TEST

START_TEST(test_id_ok)
{
    ck_assert(pf_queue_id_ok("5361932"));
    ck_assert(pf_queue_id_ok("4SqTFD6TVpz4w4n"));
    ck_assert(pf_queue_id_ok("a_b"));
    ck_assert(!pf_queue_id_ok(""));
    ck_assert(!pf_queue_id_ok("a/b"));
    ck_assert(!pf_queue_id_ok("."));
    ck_assert(!pf_queue_id_ok("0123456789012345678901234567890123456789012345678"));
}
END_TEST

/* The layout file: what the relay writes it reads back, and nothing else passes. */
START_TEST(test_layout_round_trip)
{
    char text[256], err[128];
    int depth;

    for (int d = 0; d <= PF_QUEUE_HASH_DEPTH_MAX; d++) {
        ck_assert_int_eq(pf_queue_layout_format(d, text, sizeof(text)), 0);
        depth = -1;
        ck_assert_int_eq(pf_queue_layout_parse(text, strlen(text), &depth, err, sizeof(err)), 0);
        ck_assert_int_eq(depth, d);
    }
    ck_assert_int_eq(pf_queue_layout_format(1, text, 10), -1);
    /* comments, blank lines, no last line end, spaces around */
    ck_assert_int_eq(
        pf_queue_layout_parse("# c\n\n  hash_depth   3  # three\n", 29, &depth, err, sizeof(err)),
        0);
    ck_assert_int_eq(depth, 3);
    ck_assert_int_eq(pf_queue_layout_parse("hash_depth 0", 12, &depth, err, sizeof(err)), 0);
    ck_assert_int_eq(depth, 0);
}
END_TEST

START_TEST(test_layout_refused)
{
    static const struct {
        const char *text, *why;
    } bad[] = {
        {"", "no hash_depth"},
        {"# nothing\n", "no hash_depth"},
        {"hash_queues deferred defer\n", "no hash_depth"},
        {"hash_depth\n", "needs one number"},
        {"hash_depth 1 2\n", "needs one number"},
        {"hash_depth x\n", "bad hash_depth"},
        {"hash_depth 1x\n", "bad hash_depth"},
        {"hash_depth -1\n", "bad hash_depth"},
        {"hash_depth 6\n", "bad hash_depth"},
        {"hash_depth 1\nhash_queues deferred\n", "hash_queues"},
        {"hash_depth 1\nhash_queues deferred defer bounce\n", "hash_queues"},
        {"hash_depth 1\nhash_queues incoming defer\n", "hash_queues"},
        {"hash_depth 1\ndepth 2\n", "unknown setting \"depth\""},
    };
    char err[128], nul[] = "hash_depth 1\n\0x\n", longline[300];
    int depth;

    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        err[0] = 0;
        ck_assert_msg(
            pf_queue_layout_parse(bad[i].text, strlen(bad[i].text), &depth, err, sizeof(err)) == -1,
            "accepted: %s", bad[i].text);
        ck_assert_msg(strstr(err, bad[i].why) != NULL, "%s: \"%s\" does not say %s", bad[i].text,
                      err, bad[i].why);
    }
    ck_assert_int_eq(pf_queue_layout_parse(nul, sizeof(nul) - 1, &depth, err, sizeof(err)), -1);
    ck_assert_ptr_nonnull(strstr(err, "NUL"));
    memset(longline, 'a', sizeof(longline));
    ck_assert_int_eq(pf_queue_layout_parse(longline, sizeof(longline), &depth, err, sizeof(err)),
                     -1);
    ck_assert_ptr_nonnull(strstr(err, "too long"));
}
END_TEST

int main(void)
{
    const TTest *const ids[] = {test_short_ids, test_long_ids, test_hash, test_id_ok, NULL};
    const TTest *const layout[] = {test_layout_round_trip, test_layout_refused, NULL};
    Suite *s = suite_create("pf_queue");

    check_add_tcase(s, "ids", ids);
    check_add_tcase(s, "layout", layout);
    return check_run_suite(s);
}
