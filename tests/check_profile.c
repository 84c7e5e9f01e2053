/*
 * Unit tests: spool profiles. Each profile's success path, counted from
 * its table, must match the comparison table of docs/spool-profiles.md A.6;
 * sync policies must change the syncs and nothing else; path templates
 * must expand as documented and refuse what they cannot expand.
 */
#include "config.h"

#include <check.h>
#include <string.h>

#include "check_main.h"
#include "profile.h"

/* Accept + deliver for one recipient, as A.6 counts a message's life. */
static void life(const char *name, enum profile_sync sync, struct profile_counts *c)
{
    const struct profile *p = profile_find(name);
    struct profile_counts a, d;

    ck_assert_ptr_nonnull(p);
    profile_count(p, PHASE_ACCEPT, 1, sync, &a);
    profile_count(p, PHASE_DELIVER, 1, sync, &d);
    for (int k = 0; k < OP_KIND_COUNT; k++)
        c->op[k] = a.op[k] + d.op[k];
}

START_TEST(test_sendmail)
{
    struct profile_counts c, before;

    life("sendmail", PROFILE_SYNC_AS_PROFILE, &c);
    ck_assert_uint_eq(c.op[OP_CREATE], 2);
    ck_assert_uint_eq(c.op[OP_FSYNC], 2);
    ck_assert_uint_eq(c.op[OP_FSYNC_DIR], 0);
    ck_assert_uint_eq(c.op[OP_RENAME] + c.op[OP_LINK], 0);
    ck_assert_uint_eq(c.op[OP_UNLINK], 2);
    profile_count(profile_find("sendmail"), PHASE_ACCEPT, 1, PROFILE_SYNC_AS_PROFILE, &before);
    ck_assert_uint_eq(before.op[OP_FSYNC], 2); /* both before the 250 */
    /* each deferral: +1 create (tf), +2 fsync, +1 rename, +1 directory fsync */
    profile_count(profile_find("sendmail"), PHASE_DEFER, 1, PROFILE_SYNC_AS_PROFILE, &c);
    ck_assert_uint_eq(c.op[OP_CREATE], 1);
    ck_assert_uint_eq(c.op[OP_FSYNC], 2);
    ck_assert_uint_eq(c.op[OP_RENAME], 1);
    ck_assert_uint_eq(c.op[OP_FSYNC_DIR], 1);
}
END_TEST

START_TEST(test_qmail)
{
    struct profile_counts c, before;

    life("qmail", PROFILE_SYNC_AS_PROFILE, &c);
    ck_assert_uint_eq(c.op[OP_CREATE], 4);
    ck_assert_uint_eq(c.op[OP_LINK], 2);
    ck_assert_uint_eq(c.op[OP_RENAME], 0);
    ck_assert_uint_eq(c.op[OP_FSYNC], 4);
    ck_assert_uint_eq(c.op[OP_FSYNC_DIR], 0);
    ck_assert_uint_eq(c.op[OP_UNLINK], 6);
    ck_assert_uint_eq(c.op[OP_PROBE], 4);
    ck_assert_uint_eq(c.op[OP_PWRITE], 1); /* the D */
    profile_count(profile_find("qmail"), PHASE_ACCEPT, 1, PROFILE_SYNC_AS_PROFILE, &before);
    ck_assert_uint_eq(before.op[OP_FSYNC], 2);
    /* a D per recipient */
    profile_count(profile_find("qmail"), PHASE_DELIVER, 3, PROFILE_SYNC_AS_PROFILE, &c);
    ck_assert_uint_eq(c.op[OP_PWRITE], 3);
}
END_TEST

START_TEST(test_exim)
{
    struct profile_counts c, before;

    life("exim", PROFILE_SYNC_AS_PROFILE, &c);
    ck_assert_uint_eq(c.op[OP_CREATE] + c.op[OP_APPEND], 4);
    ck_assert_uint_eq(c.op[OP_FSYNC] + c.op[OP_FDATASYNC] + c.op[OP_FSYNC_DIR], 5);
    ck_assert_uint_eq(c.op[OP_RENAME], 1);
    ck_assert_uint_eq(c.op[OP_UNLINK], 4);
    profile_count(profile_find("exim"), PHASE_ACCEPT, 1, PROFILE_SYNC_AS_PROFILE, &before);
    ck_assert_uint_eq(before.op[OP_FSYNC], 2);
    ck_assert_uint_eq(before.op[OP_FDATASYNC], 1);
    ck_assert_uint_eq(before.op[OP_FSYNC_DIR], 1);
    /* deferral: a new -H by temp file, rename and directory fsync */
    profile_count(profile_find("exim"), PHASE_DEFER, 1, PROFILE_SYNC_AS_PROFILE, &c);
    ck_assert_uint_eq(c.op[OP_RENAME], 1);
    ck_assert_uint_eq(c.op[OP_FSYNC_DIR], 1);
}
END_TEST

START_TEST(test_opensmtpd)
{
    struct profile_counts c;

    life("opensmtpd", PROFILE_SYNC_AS_PROFILE, &c);
    ck_assert_uint_eq(c.op[OP_MKDIR], 1);
    ck_assert_uint_eq(c.op[OP_CREATE], 2);
    ck_assert_uint_eq(c.op[OP_FSYNC] + c.op[OP_FDATASYNC] + c.op[OP_FSYNC_DIR], 0);
    ck_assert_uint_eq(c.op[OP_RENAME], 2);
    ck_assert_uint_eq(c.op[OP_UNLINK], 2);
    ck_assert_uint_eq(c.op[OP_RMDIR], 1);
    ck_assert_uint_eq(c.op[OP_STAT], 2);
    /* the only fsync of the backend: an envelope rewrite on deferral */
    profile_count(profile_find("opensmtpd"), PHASE_DEFER, 1, PROFILE_SYNC_AS_PROFILE, &c);
    ck_assert_uint_eq(c.op[OP_FSYNC], 1);
    ck_assert_uint_eq(c.op[OP_RENAME], 1);
}
END_TEST

START_TEST(test_sync_policies)
{
    struct profile_counts as, none, data, full;

    life("exim", PROFILE_SYNC_AS_PROFILE, &as);
    life("exim", PROFILE_SYNC_NONE, &none);
    life("exim", PROFILE_SYNC_FDATASYNC, &data);
    life("exim", PROFILE_SYNC_FSYNC, &full);
    ck_assert_uint_eq(none.op[OP_FSYNC] + none.op[OP_FDATASYNC] + none.op[OP_FSYNC_DIR], 0);
    ck_assert_uint_eq(data.op[OP_FSYNC], 0);
    ck_assert_uint_eq(data.op[OP_FDATASYNC], 4);
    ck_assert_uint_eq(data.op[OP_FSYNC_DIR], 1);
    ck_assert_uint_eq(full.op[OP_FSYNC], 4);
    ck_assert_uint_eq(full.op[OP_FDATASYNC], 0);
    /* nothing but the syncs changes */
    for (int k = 0; k < OP_KIND_COUNT; k++) {
        if (k == OP_FSYNC || k == OP_FDATASYNC || k == OP_FSYNC_DIR)
            continue;
        ck_assert_uint_eq(as.op[k], none.op[k]);
        ck_assert_uint_eq(as.op[k], data.op[k]);
    }
}
END_TEST

START_TEST(test_special_profiles)
{
    const struct profile *pf = profile_find("postfix"), *null = profile_find("null");
    enum profile_sync sync;

    ck_assert_ptr_nonnull(pf);
    ck_assert_int_eq(pf->builtin_postfix, 1); /* the relay's code, not a table */
    ck_assert_ptr_nonnull(null);
    ck_assert_int_eq(null->no_io, 1);
    ck_assert_ptr_null(profile_find("smail"));
    ck_assert_int_eq(profile_sync_parse("fdatasync", &sync), 0);
    ck_assert_int_eq(sync, PROFILE_SYNC_FDATASYNC);
    ck_assert_int_eq(profile_sync_parse("sometimes", &sync), -1);
}
END_TEST

START_TEST(test_expand)
{
    char out[64];

    ck_assert_int_eq(profile_expand("mess/{h23}/{id}", 47, 3, 0, out, sizeof(out)), 0);
    ck_assert_str_eq(out, "mess/1/47");
    ck_assert_int_eq(profile_expand("pid/{w}.{id}.1", 9, 3, 0, out, sizeof(out)), 0);
    ck_assert_str_eq(out, "pid/3.9.1");
    ck_assert_int_eq(profile_expand("q/{hh}/{id}{r}", 5, 0, 2, out, sizeof(out)), 0);
    ck_assert_uint_eq(strlen(out), strlen("q/xx/52"));
    ck_assert_int_eq(profile_expand("{nope}", 1, 0, 0, out, sizeof(out)), -1);
    ck_assert_int_eq(profile_expand("{id", 1, 0, 0, out, sizeof(out)), -1);
    ck_assert_int_eq(profile_expand("abcdefgh{id}", 123456789, 0, 0, out, 12), -1);
}
END_TEST

static Suite *profile_suite(void)
{
    Suite *s = suite_create("profile");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, test_sendmail);
    tcase_add_test(tc, test_qmail);
    tcase_add_test(tc, test_exim);
    tcase_add_test(tc, test_opensmtpd);
    tcase_add_test(tc, test_sync_policies);
    tcase_add_test(tc, test_special_profiles);
    tcase_add_test(tc, test_expand);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return check_run_suite(profile_suite());
}
