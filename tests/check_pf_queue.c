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
    char dir[8];

    ck_assert_int_eq(pf_queue_hash("5361932", 1, dir, sizeof(dir)), 0);
    ck_assert_str_eq(dir, "5");
    ck_assert_int_eq(pf_queue_hash("5361932", 2, dir, sizeof(dir)), 0);
    ck_assert_str_eq(dir, "5/3");
    /* long ID: usec 912642 = 0xDED02 */
    ck_assert_int_eq(pf_queue_hash("4SqTFD6TVpz4w4n", 1, dir, sizeof(dir)), 0);
    ck_assert_str_eq(dir, "D");
    ck_assert_int_eq(pf_queue_hash("4SqTFD6TVpz4w4n", 0, dir, sizeof(dir)), 0);
    ck_assert_str_eq(dir, "");
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

int main(void)
{
    Suite *s = suite_create("pf_queue");
    TCase *tc = tcase_create("ids");

    tcase_add_test(tc, test_short_ids);
    tcase_add_test(tc, test_long_ids);
    tcase_add_test(tc, test_hash);
    tcase_add_test(tc, test_id_ok);
    suite_add_tcase(s, tc);
    return check_run_suite(s);
}
