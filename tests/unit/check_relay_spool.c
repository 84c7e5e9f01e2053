/*
 * check_relay_spool - which of the relay's spool backends keeps which
 * profile's messages, what each table says it is, and its pure steps:
 * the sync policy's name, a due retry, a retry that must read again.
 */
#include "config.h"

#include <check.h>
#include <string.h>

#include "check_main.h"
#include "relay_private.h"
#include "relay_spool.h"

START_TEST(test_choice)
{
    size_t n = 0;

    ck_assert_ptr_eq(relay_spool_of(profile_find("postfix")), &relay_spool_postfix);
    for (size_t i = 0; profile_at(i) != NULL; i++, n++) {
        const struct profile *p = profile_at(i);
        const struct relay_spool *b = relay_spool_of(p);

        ck_assert_msg(b != NULL, "%s has no relay backend", p->name);
        if (strcmp(p->name, "postfix") != 0)
            ck_assert_msg(b == &relay_spool_runner, "%s: %s", p->name, b->name);
    }
    ck_assert_uint_ge(n, 7); /* postfix, sendmail, qmail, exim, exim-4.98, opensmtpd, null */
    ck_assert_str_eq(relay_spool_postfix.name, "postfix");
    ck_assert_str_eq(relay_spool_runner.name, "runner");
}
END_TEST

/* Whatever a backend can be asked for is there: the queue manager never checks for NULL. */
static void check_complete(const struct relay_spool *b)
{
    ck_assert_ptr_nonnull(b->open);
    ck_assert_ptr_nonnull(b->recover);
    ck_assert_ptr_nonnull(b->close);
    ck_assert_ptr_nonnull(b->sync_name);
    ck_assert_ptr_nonnull(b->profile_ops);
    ck_assert_ptr_nonnull(b->assign_id);
    ck_assert_ptr_nonnull(b->commit);
    ck_assert_ptr_nonnull(b->committed);
    ck_assert_ptr_nonnull(b->record);
    ck_assert_ptr_nonnull(b->retire);
    ck_assert_ptr_nonnull(b->park);
    ck_assert_ptr_nonnull(b->retry);
    ck_assert_ptr_nonnull(b->must_reread);
    if (b->streams) {
        ck_assert_ptr_nonnull(b->stream_open);
        ck_assert_ptr_nonnull(b->stream_write);
        ck_assert_ptr_nonnull(b->stream_abort);
    }
}

/*
 * What each backend's table says it is: postfix sends messages to incoming/ and reads files back
 * (it has those steps), streams, sends notices and syncs as it goes; the runner, another MTA's
 * profile, takes the whole message at once and sends no notices.
 */
static const struct {
    const struct relay_spool *b;
    int reads_back, streams, bounces, fsyncs_live;
} tables[] = {
    {&relay_spool_postfix, 1, 1, 1, 1},
    {&relay_spool_runner, 0, 0, 0, 0},
};

START_TEST(test_tables)
{
    const struct relay_spool *b = tables[_i].b;

    check_complete(b);
    if (tables[_i].reads_back) {
        ck_assert_ptr_nonnull(b->activate);
        ck_assert_ptr_nonnull(b->reread);
    }
    ck_assert_msg(b->streams == tables[_i].streams && b->bounces == tables[_i].bounces &&
                      b->fsyncs_live == tables[_i].fsyncs_live,
                  "%s: streams %d, bounces %d, fsyncs_live %d", b->name, b->streams, b->bounces,
                  b->fsyncs_live);
}
END_TEST

START_TEST(test_sync_name)
{
    struct relay_options o;

    memset(&o, 0, sizeof(o));
    o.sync = PF_SYNC_FDATASYNC; /* not given: a profile syncs as its MTA does */
    ck_assert_str_eq(relay_spool_postfix.sync_name(&o), "fdatasync");
    ck_assert_str_eq(relay_spool_runner.sync_name(&o), "profile");
    o.sync_given = 1;
    o.sync = PF_SYNC_NONE;
    ck_assert_str_eq(relay_spool_postfix.sync_name(&o), "none");
    ck_assert_str_eq(relay_spool_runner.sync_name(&o), "none");
}
END_TEST

START_TEST(test_retry)
{
    struct pf_qfile_rcpt rcpts[4] = {{0}};
    enum relay_rcpt_result results[4] = {RCPT_SENT, RCPT_DEFERRED, RCPT_BOUNCED, RCPT_DEFERRED};
    struct relay_msg m;

    memset(&m, 0, sizeof(m));
    m.view.rcpts = rcpts;
    m.view.rcpt_count = 4;
    m.view.rcpt_pending = 4;
    m.results = results;
    m.t_active = 42;
    /* kept in memory: the finished recipients are done, the others tried again */
    ck_assert_int_eq(relay_spool_runner.retry(&m), RELAY_NEXT_READY);
    ck_assert_uint_eq(m.view.rcpt_pending, 2);
    ck_assert_int_eq(rcpts[0].done, 1);
    ck_assert_int_eq(rcpts[1].done, 0);
    ck_assert_int_eq(rcpts[2].done, 1);
    ck_assert_int_eq(rcpts[3].done, 0);
    for (int i = 0; i < 4; i++)
        ck_assert_int_eq(results[i], RCPT_UNTRIED);
    ck_assert_uint_eq(m.t_active, 0);
    /* postfix reads the file again from deferred/, D marks and all */
    ck_assert_int_eq(relay_spool_postfix.retry(&m), RELAY_NEXT_ACTIVATE);
}
END_TEST

START_TEST(test_must_reread)
{
    enum relay_rcpt_result results[2] = {RCPT_SENT, RCPT_SENT};
    char file[] = "x";
    struct relay_msg m;

    memset(&m, 0, sizeof(m));
    m.view.rcpt_count = 2;
    m.results = results;
    /* never read: its reading failed */
    ck_assert_int_eq(relay_spool_postfix.must_reread(&m), 1);
    m.file = file;
    /* read and all sent: only the removal failed, which is tried again as it is */
    ck_assert_int_eq(relay_spool_postfix.must_reread(&m), 0);
    /* its move to deferred/ failed: a new attempt reads the file again */
    results[1] = RCPT_DEFERRED;
    ck_assert_int_eq(relay_spool_postfix.must_reread(&m), 1);
    ck_assert_int_eq(relay_spool_runner.must_reread(&m), 0);
}
END_TEST

int main(void)
{
    const TTest *const tests[] = {test_choice, test_sync_name, test_retry, test_must_reread, NULL};

    return check_run_loop("relay_spool", 0, tests, test_tables, CHECK_ROWS(tables));
}
