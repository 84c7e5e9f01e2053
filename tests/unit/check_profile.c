/*
 * Unit tests: spool profiles. Each profile's success path, counted from
 * its table, must be what the MTA was traced doing (Sendmail, Exim,
 * OpenSMTPD; tests/it/it_profile_daemons.sh runs the daemons) or what its
 * source says (qmail); every table must open and close its files in order;
 * sync policies must change the syncs and nothing else; path templates
 * must expand as documented and refuse what they cannot expand; an
 * envelope write must read back whole for its message only, and every
 * table's must be large enough to be one.
 */
#include "config.h"

#include <check.h>
#include <stdint.h>
#include <string.h>

#include "check_main.h"
#include "profile.h"
#include "spool_envelope.h"

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

/* Sendmail 8.17.1.9 as traced: tests/it/it_profile_daemons.sh checks these against the daemon. */
START_TEST(test_sendmail)
{
    struct profile_counts c, before;

    life("sendmail", PROFILE_SYNC_AS_PROFILE, &c);
    ck_assert_uint_eq(c.op[OP_CREATE], 2);
    ck_assert_uint_eq(c.op[OP_OPEN], 1); /* df again, read-only, for the delivery */
    ck_assert_uint_eq(c.op[OP_FSYNC], 2);
    ck_assert_uint_eq(c.op[OP_LOCK], 2);
    ck_assert_uint_eq(c.op[OP_FSYNC_DIR], 2); /* after each unlink: RequiresDirfsync */
    ck_assert_uint_eq(c.op[OP_RENAME] + c.op[OP_LINK], 0);
    ck_assert_uint_eq(c.op[OP_UNLINK], 2);
    ck_assert_uint_eq(c.op[OP_PROBE], 4); /* the xf transcript; df, qf, xf of the unused envelope */
    ck_assert_uint_eq(c.op[OP_STAT], 6);
    profile_count(profile_find("sendmail"), PHASE_ACCEPT, 1, PROFILE_SYNC_AS_PROFILE, &before);
    ck_assert_uint_eq(before.op[OP_FSYNC], 2); /* both before the 250 */
    ck_assert_uint_eq(before.op[OP_FSYNC_DIR], 0);
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

/* Exim 4.96 as traced, with its hints databases. */
START_TEST(test_exim)
{
    struct profile_counts c, before;

    life("exim", PROFILE_SYNC_AS_PROFILE, &c);
    ck_assert_uint_eq(c.op[OP_CREATE], 3);    /* -D, hdr, -J */
    ck_assert_uint_eq(c.op[OP_APPEND], 3);    /* msglog twice, wait db */
    ck_assert_uint_eq(c.op[OP_OPEN], 7);      /* -D twice, -H, 3 lock files, wait db */
    ck_assert_uint_eq(c.op[OP_FSYNC], 3);     /* -D, -H, -J */
    ck_assert_uint_eq(c.op[OP_FDATASYNC], 0); /* 4.98's */
    ck_assert_uint_eq(c.op[OP_FSYNC_DIR], 1); /* input/, the commit */
    ck_assert_uint_eq(c.op[OP_LOCK], 5);      /* -D twice, 3 lock files */
    ck_assert_uint_eq(c.op[OP_FCHMOD], 4);
    ck_assert_uint_eq(c.op[OP_FCHOWN], 4);
    ck_assert_uint_eq(c.op[OP_STAT], 7); /* -J, 3 DB_CONFIG, 3 databases */
    ck_assert_uint_eq(c.op[OP_WRITE], 6);
    ck_assert_uint_eq(c.op[OP_RENAME], 1);
    ck_assert_uint_eq(c.op[OP_UNLINK], 4);
    profile_count(profile_find("exim"), PHASE_ACCEPT, 1, PROFILE_SYNC_AS_PROFILE, &before);
    ck_assert_uint_eq(before.op[OP_FSYNC], 2);
    ck_assert_uint_eq(before.op[OP_FSYNC_DIR], 1);
    /* a journal line and its fsync per recipient, a message-log line per recipient */
    profile_count(profile_find("exim"), PHASE_DELIVER, 3, PROFILE_SYNC_AS_PROFILE, &c);
    ck_assert_uint_eq(c.op[OP_FSYNC], 3);
    ck_assert_uint_eq(c.op[OP_WRITE], 6);
    /* deferral: a new -H by temp file, rename and directory fsync */
    profile_count(profile_find("exim"), PHASE_DEFER, 1, PROFILE_SYNC_AS_PROFILE, &c);
    ck_assert_uint_eq(c.op[OP_RENAME], 1);
    ck_assert_uint_eq(c.op[OP_FSYNC_DIR], 1);
}
END_TEST

/* Exim 4.98: 4.96 and one fdatasync of -D before the 250; nothing else differs. */
START_TEST(test_exim_498)
{
    const struct profile *old = profile_find("exim"), *new = profile_find("exim-4.98");

    ck_assert_ptr_nonnull(new);
    ck_assert_ptr_ne(strstr(old->summary, "4.96"), NULL);
    ck_assert_ptr_ne(strstr(new->summary, "4.98"), NULL);
    for (int ph = 0; ph < PHASE_COUNT; ph++) {
        struct profile_counts a, b;

        profile_count(old, (enum profile_phase)ph, 1, PROFILE_SYNC_AS_PROFILE, &a);
        profile_count(new, (enum profile_phase)ph, 1, PROFILE_SYNC_AS_PROFILE, &b);
        for (int k = 0; k < OP_KIND_COUNT; k++)
            ck_assert_uint_eq(b.op[k], a.op[k] + (ph == PHASE_ACCEPT && k == OP_FDATASYNC));
    }
}
END_TEST

/* OpenSMTPD 6.8.0p2 as traced, on a warm spool. */
START_TEST(test_opensmtpd)
{
    const struct profile *p = profile_find("opensmtpd");
    struct profile_counts c;

    life("opensmtpd", PROFILE_SYNC_AS_PROFILE, &c);
    ck_assert_uint_eq(c.op[OP_MKDIR], 1); /* incoming/ID: the buckets exist */
    ck_assert_uint_eq(c.op[OP_RMDIR], 1);
    ck_assert_uint_eq(c.op[OP_CREATE], 2);
    ck_assert_uint_eq(c.op[OP_OPEN], 1); /* the message, for the mta process */
    ck_assert_uint_eq(c.op[OP_FSYNC] + c.op[OP_FDATASYNC] + c.op[OP_FSYNC_DIR], 0);
    ck_assert_uint_eq(c.op[OP_RENAME], 2);
    ck_assert_uint_eq(c.op[OP_UNLINK], 2);
    ck_assert_uint_eq(c.op[OP_PROBE], 1); /* temporary/ID after the commit */
    ck_assert_uint_eq(c.op[OP_STAT], 5);
    ck_assert_uint_eq(c.op[OP_READDIR], 1);
    ck_assert_ptr_nonnull(p->buckets);
    ck_assert_str_eq(p->buckets[0], "queue");
    /* an envelope per recipient */
    profile_count(p, PHASE_ACCEPT, 3, PROFILE_SYNC_AS_PROFILE, &c);
    ck_assert_uint_eq(c.op[OP_CREATE], 4);
    /* the only fsync of the backend: an envelope rewrite on deferral */
    profile_count(p, PHASE_DEFER, 1, PROFILE_SYNC_AS_PROFILE, &c);
    ck_assert_uint_eq(c.op[OP_FSYNC], 1);
    ck_assert_uint_eq(c.op[OP_RENAME], 1);
}
END_TEST

/* Every table opens, uses and closes its files in order, for 1 recipient and for 2. */
START_TEST(test_tables_balanced)
{
    const struct profile *p;
    char err[256];

    for (size_t i = 0; (p = profile_at(i)) != NULL; i++) {
        err[0] = 0;
        ck_assert_msg(profile_check(p, err, sizeof(err)) == 0, "%s", err);
    }
}
END_TEST

/* And the check finds what it is for. */
START_TEST(test_check_refuses)
{
    static const struct profile_op leaks[] = {
        {OP_CREATE, "a", NULL, 0600, 0, 0},
        {OP_WRITE, NULL, NULL, 10, 0, 0},
    };
    static const struct profile_op no_file[] = {
        {OP_FSYNC, NULL, NULL, 0, 0, 1},
    };
    static const struct profile_op twice[] = {
        {OP_OPEN, "a", NULL, 0, 0, 0},
        {OP_OPEN, "b", NULL, 0, 0, 0},
        {OP_CLOSE, NULL, NULL, 0, 0, 0},
    };
    /* opened per recipient, closed once: fine for one recipient, not for two */
    static const struct profile_op per_rcpt[] = {
        {OP_CREATE, "e{r}", NULL, 0600, OP_PER_RCPT, 0},
        {OP_CLOSE, NULL, NULL, 0, 0, 0},
    };
    static const struct profile_op bad_slot[] = {
        {OP_OPEN, "a", NULL, 0, 0, PROFILE_SLOTS},
    };
    const struct profile_op *tables[] = {leaks, no_file, twice, per_rcpt, bad_slot};
    const size_t lens[] = {2, 1, 3, 2, 1};
    const char *why[] = {"left open", "no file open", "already open", "2 recipients",
                         "no such slot"};
    char err[256];

    for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++) {
        struct profile p = {
            .name = "bad", .phase = {tables[i], NULL, NULL}, .phase_len = {lens[i], 0, 0}};

        ck_assert_int_eq(profile_check(&p, err, sizeof(err)), -1);
        ck_assert_msg(strstr(err, why[i]) != NULL, "%s: %s", why[i], err);
    }
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
    ck_assert_uint_eq(data.op[OP_FDATASYNC], 3);
    ck_assert_uint_eq(data.op[OP_FSYNC_DIR], 1);
    ck_assert_uint_eq(full.op[OP_FSYNC], 3);
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
    ck_assert_int_eq(pf->backend, PROFILE_BACKEND_POSTFIX); /* the relay's code, not a table */
    ck_assert_ptr_nonnull(null);
    ck_assert_int_eq(null->backend, PROFILE_BACKEND_NULL);
    ck_assert_ptr_null(profile_find("smail"));
    ck_assert_int_eq(profile_sync_parse("fdatasync", &sync), 0);
    ck_assert_int_eq(sync, PROFILE_SYNC_FDATASYNC);
    ck_assert_int_eq(profile_sync_parse("sometimes", &sync), -1);
}
END_TEST

/*
 * The table is the profiles' one home: each row is whole (a name, what it
 * models, where it commits, whose spool: an MTA unless it does no file
 * work) and named once, and the list every --help says is its names in
 * its order, "a, b, ... y or z", which a --help wraps without breaking a name.
 */
START_TEST(test_registry)
{
    char names[PROFILE_NAMES_MAX], want[PROFILE_NAMES_MAX] = "", help[4096];
    const struct profile *p;
    size_t n = 0;
    FILE *fp;

    while (profile_at(n) != NULL)
        n++;
    ck_assert_uint_ge(n, 2);
    for (size_t i = 0; (p = profile_at(i)) != NULL; i++) {
        ck_assert_ptr_nonnull(p->name);
        ck_assert_uint_gt(strlen(p->summary), 0);
        ck_assert_uint_gt(strlen(p->commit_marker), 0);
        ck_assert_msg((p->mta == NULL) == (p->backend == PROFILE_BACKEND_NULL), "%s", p->name);
        ck_assert_ptr_eq(profile_find(p->name), p); /* the first of its name: named once */
        ck_assert_str_eq(profile_option(p->name), p->name);
        strcat(want, i == 0 ? "" : i + 1 == n ? " or " : ", ");
        strcat(want, p->name);
    }
    ck_assert_str_eq(profile_find("exim-4.98")->mta, "exim");
    profile_names(names, sizeof(names));
    ck_assert_str_eq(names, want);
    ck_assert_str_eq(names, "postfix, sendmail, qmail, exim, exim-4.98, opensmtpd or null");
    profile_names(names, 10); /* too small: cut, still a string */
    ck_assert_uint_eq(strlen(names), 9);

    fp = fmemopen(help, sizeof(help), "w");
    ck_assert_ptr_nonnull(fp);
    profile_help(fp, "--profile NAME", "the spool: ", " (postfix)", 21);
    fclose(fp);
    ck_assert_msg(strncmp(help, "  --profile NAME        the spool: postfix, ", 43) == 0, "%s",
                  help);
    for (size_t i = 0; (p = profile_at(i)) != NULL; i++) {
        char word[64];

        snprintf(word, sizeof(word), " %s", p->name);
        ck_assert_msg(strstr(help, word) != NULL, "%s in %s", p->name, help);
    }
    for (char *line = help, *end; (end = strchr(line, '\n')) != NULL; line = end + 1)
        ck_assert_int_le(end - line, 79);
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

START_TEST(test_envelope)
{
    struct spool_envelope_view v;
    char buf[200], zero[80] = {0};

    spool_envelope_fill(buf, 80, 1234567);
    spool_envelope_fill(buf + 80, 40, 1234567);
    ck_assert_int_eq(spool_envelope_read(buf, 80, 1234567, &v), 1);
    ck_assert_uint_eq(v.chunks, 1);
    ck_assert_int_eq(v.first_done, 0);
    ck_assert_int_eq(spool_envelope_read(buf, 120, 1234567, &v), 1);
    ck_assert_uint_eq(v.chunks, 2);
    /* another message's, cut short, cut long, zeros, empty */
    ck_assert_int_eq(spool_envelope_read(buf, 80, 1234568, &v), 0);
    ck_assert_int_eq(spool_envelope_read(buf, 79, 1234567, &v), 0);
    ck_assert_int_eq(spool_envelope_read(buf, 100, 1234567, &v), 0);
    ck_assert_int_eq(spool_envelope_read(zero, 80, 1234567, &v), 0);
    ck_assert_int_eq(spool_envelope_read(buf, 0, 1234567, &v), 0);
    /* a block of zeros inside the padding */
    buf[40] = '\0';
    ck_assert_int_eq(spool_envelope_read(buf, 80, 1234567, &v), 0);
    buf[40] = '-';
    /* qmail's done mark, written in place */
    buf[0] = 'D';
    ck_assert_int_eq(spool_envelope_read(buf, 120, 1234567, &v), 1);
    ck_assert_int_eq(v.first_done, 1);
    /* too small for its head: filler, never whole */
    spool_envelope_fill(buf, 8, 1234567);
    ck_assert_int_eq(spool_envelope_read(buf, 8, 1234567, &v), 0);
}
END_TEST

/* Every envelope write of every table holds a whole chunk for the largest message number. */
START_TEST(test_envelope_sizes)
{
    const struct profile *p;

    for (size_t i = 0; (p = profile_at(i)) != NULL; i++)
        for (int ph = 0; ph < PHASE_COUNT; ph++)
            for (size_t k = 0; k < p->phase_len[ph]; k++) {
                const struct profile_op *op = &p->phase[ph][k];

                if (op->kind == OP_WRITE && op->arg > 0)
                    ck_assert_uint_ge(op->arg, spool_envelope_min(UINT64_MAX));
            }
}
END_TEST

int main(void)
{
    const TTest *const tests[] = {test_sendmail,
                                  test_qmail,
                                  test_exim,
                                  test_exim_498,
                                  test_opensmtpd,
                                  test_tables_balanced,
                                  test_check_refuses,
                                  test_sync_policies,
                                  test_special_profiles,
                                  test_registry,
                                  test_expand,
                                  test_envelope,
                                  test_envelope_sizes,
                                  NULL};

    return check_run_tests("profile", tests);
}
