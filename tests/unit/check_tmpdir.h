/*
 * check_tmpdir - a private directory under /tmp for the unit tests that
 * write files, and its removal with all it holds.
 */
#ifndef SPOOLSIM_CHECK_TMPDIR_H
#define SPOOLSIM_CHECK_TMPDIR_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK_TMPDIR_MAX 64

/* A new directory /tmp/NAME.XXXXXX: its path in dir. */
static inline void check_tmpdir_make(char dir[CHECK_TMPDIR_MAX], const char *name)
{
    snprintf(dir, CHECK_TMPDIR_MAX, "/tmp/%s.XXXXXX", name);
    ck_assert_ptr_nonnull(mkdtemp(dir));
}

static inline void check_tmpdir_remove(const char *dir)
{
    char cmd[CHECK_TMPDIR_MAX + 16];

    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
}

#endif
