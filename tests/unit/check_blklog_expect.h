/*
 * check_blklog_expect - what the unit tests of the parsers into a struct
 * blklog (blklog's own format, dm-log-writes') expect of a parse.
 *
 * check_blklog_records(): the log holds n records, cut short or not.
 * check_blklog_refused(): parse (blklog_parse()'s signature: dmlog's tests
 * wrap theirs) refuses the len bytes at b with an error that names `what'.
 * The messages name the case, since a failure's line is this header's.
 */
#ifndef SPOOLSIM_CHECK_BLKLOG_EXPECT_H
#define SPOOLSIM_CHECK_BLKLOG_EXPECT_H

#include <check.h>
#include <string.h>

#include "blklog.h"

typedef int check_blklog_parser(const unsigned char *b, size_t len, struct blklog *l, char *err,
                                size_t errlen);

static inline void check_blklog_records(const struct blklog *l, size_t n, int truncated)
{
    ck_assert_msg(l->n == n && l->truncated == truncated,
                  "%zu records (truncated %d), not %zu (truncated %d)", l->n, l->truncated, n,
                  truncated);
}

static inline void check_blklog_refused(check_blklog_parser *parse, const unsigned char *b,
                                        size_t len, const char *what)
{
    struct blklog l;
    char err[128] = "";

    blklog_init(&l);
    ck_assert_msg(parse(b, len, &l, err, sizeof(err)) == -1, "accepted, not \"%s\"", what);
    ck_assert_msg(strstr(err, what) != NULL, "error \"%s\" lacks \"%s\"", err, what);
    blklog_free(&l);
}

#endif
