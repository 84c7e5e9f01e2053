/*
 * check_collect - a content callback (smtp_data's) that keeps what it is
 * given, for the unit tests that read back a message's text. Overflowing
 * the buffer fails the test rather than cutting the text.
 */
#ifndef SPOOLSIM_CHECK_COLLECT_H
#define SPOOLSIM_CHECK_COLLECT_H

#include <check.h>
#include <string.h>

struct collected {
    char buf[8192];
    size_t len;
};

static inline void collect(void *ctx, const char *p, size_t n)
{
    struct collected *c = ctx;

    ck_assert_uint_le(c->len + n, sizeof(c->buf));
    memcpy(c->buf + c->len, p, n);
    c->len += n;
}

#endif
