/*
 * check_spool_backend - which backend serves which profile, and how each
 * counts its system calls for the report.
 */
#include "config.h"

#include <check.h>
#include <string.h>

#include "check_main.h"
#include "spool_backend.h"

START_TEST(test_choice)
{
    static const char *const tables[] = {"sendmail", "qmail", "exim", "opensmtpd", "exim-4.98"};
    const struct profile *pf = profile_find("postfix"), *null = profile_find("null");

    ck_assert_ptr_eq(spool_backend_of(pf), &spool_postfix);
    ck_assert_str_eq(spool_backend_of(pf)->name, "postfix");
    ck_assert_ptr_eq(spool_backend_of(null), &spool_null);
    ck_assert_int_eq(spool_null.no_io, 1);
    ck_assert_int_eq(spool_table.no_io, 0);
    ck_assert_int_eq(spool_postfix.no_io, 0);
    for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++) {
        const struct profile *p = profile_find(tables[i]);

        ck_assert_msg(p != NULL, "%s", tables[i]);
        ck_assert_ptr_eq(spool_backend_of(p), &spool_table);
    }
    /* every profile names its backend: none is left to a default */
    for (size_t i = 0; profile_at(i) != NULL; i++)
        ck_assert_msg(spool_backend_of(profile_at(i)) != NULL, "%s", profile_at(i)->name);
    /* every phase has its function: a caller never checks for NULL */
    for (int k = 0; k < PHASE_COUNT; k++) {
        ck_assert_ptr_nonnull(spool_postfix.phase[k]);
        ck_assert_ptr_nonnull(spool_table.phase[k]);
        ck_assert_ptr_nonnull(spool_null.phase[k]);
    }
}
END_TEST

/* b's totals of pf_spool's counters s with every table counter at `each'. */
static void totals_of(const struct spool_backend *b, uint64_t each, const struct pf_spool_stats *s,
                      struct spool_op_totals *t)
{
    uint64_t ops[OP_KIND_COUNT];

    for (int k = 0; k < OP_KIND_COUNT; k++)
        ops[k] = each;
    b->totals(ops, s, t);
}

START_TEST(test_postfix_totals)
{
    struct pf_spool_stats s = {0};
    struct spool_op_totals t;

    s.creates = 1;
    s.writes = 2;
    s.fsyncs = 3;
    s.renames = 4;
    s.unlinks = 5;
    s.probes = 6;
    s.stat_probes = 7;
    s.chmods = 8;
    s.utimes = 9;
    s.mkdirs = 10;
    s.locks = 11;
    /* the table counters are ignored: pf_spool counts its own calls */
    totals_of(&spool_postfix, 1000, &s, &t);
    ck_assert_uint_eq(t.creates, 1);
    ck_assert_uint_eq(t.writes, 2);
    ck_assert_uint_eq(t.fsyncs, 3);
    ck_assert_uint_eq(t.fdatasyncs, 0);
    ck_assert_uint_eq(t.dir_fsyncs, 0);
    ck_assert_uint_eq(t.stats, 7);
    ck_assert_uint_eq(t.locks, 11);
    ck_assert_uint_eq(t.links, 0);
    ck_assert_uint_eq(spool_backend_syncs(&t), 3);
    ck_assert_uint_eq(spool_backend_metadata(&t), 1 + 4 + 5 + 6 + 7 + 8 + 9 + 10);
}
END_TEST

START_TEST(test_table_totals)
{
    uint64_t ops[OP_KIND_COUNT] = {0};
    struct pf_spool_stats s = {0};
    struct spool_op_totals t;

    s.fsyncs = 1000; /* pf_spool's counters are not the table's */
    ops[OP_CREATE] = 2;
    ops[OP_APPEND] = 3;
    ops[OP_WRITE] = 4;
    ops[OP_PWRITE] = 1;
    ops[OP_FSYNC] = 6;
    ops[OP_FDATASYNC] = 7;
    ops[OP_FSYNC_DIR] = 8;
    ops[OP_LINK] = 9;
    ops[OP_RMDIR] = 10;
    ops[OP_LOCK] = 11;
    ops[OP_READDIR] = 12; /* neither a sync nor a change: not counted */
    spool_table.totals(ops, &s, &t);
    ck_assert_uint_eq(t.creates, 5);
    ck_assert_uint_eq(t.writes, 5);
    ck_assert_uint_eq(spool_backend_syncs(&t), 6 + 7 + 8);
    ck_assert_uint_eq(spool_backend_metadata(&t), 5 + 9 + 10);
    ck_assert_uint_eq(t.locks, 11);
}
END_TEST

START_TEST(test_queues)
{
    const struct profile *pf = profile_find("postfix"), *exim = profile_find("exim");
    const char *const *q = spool_postfix.queues(pf);

    ck_assert_str_eq(q[0], "incoming");
    ck_assert_str_eq(q[1], "active");
    ck_assert_str_eq(q[2], "deferred");
    ck_assert_ptr_null(q[3]);
    ck_assert_ptr_null(spool_postfix.lasting(pf));
    ck_assert_ptr_eq(spool_table.queues(exim), exim->dirs);
    ck_assert_ptr_eq(spool_table.lasting(exim), exim->files);
    ck_assert_ptr_nonnull(exim->files);                             /* its hints databases stay */
    ck_assert_ptr_null(spool_null.queues(profile_find("null"))[0]); /* nothing queued on disk */
}
END_TEST

START_TEST(test_null_totals)
{
    struct pf_spool_stats s = {0};
    struct spool_op_totals t;

    s.fsyncs = 5;
    totals_of(&spool_null, 5, &s, &t);
    ck_assert_uint_eq(spool_backend_syncs(&t), 0);
    ck_assert_uint_eq(spool_backend_metadata(&t), 0);
    ck_assert_uint_eq(t.writes, 0);
}
END_TEST

int main(void)
{
    const TTest *const tests[] = {test_choice,      test_postfix_totals, test_table_totals,
                                  test_null_totals, test_queues,         NULL};

    return check_run_tests("spool_backend", tests);
}
