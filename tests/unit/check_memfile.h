/*
 * check_memfile - a stream into memory, for the unit tests that read back
 * what a function printed: check_memfile_open() gives the stream,
 * check_memfile_text() closes it, checks that nothing failed, and returns
 * the text (malloc'd; the caller frees it).
 */
#ifndef SPOOLSIM_CHECK_MEMFILE_H
#define SPOOLSIM_CHECK_MEMFILE_H

#include <check.h>
#include <stdio.h>

struct check_memfile {
    char *text;
    size_t len;
    FILE *fp;
};

static inline FILE *check_memfile_open(struct check_memfile *m)
{
    m->text = NULL;
    m->len = 0;
    m->fp = open_memstream(&m->text, &m->len);
    ck_assert_ptr_nonnull(m->fp);
    return m->fp;
}

static inline char *check_memfile_text(struct check_memfile *m)
{
    ck_assert_int_eq(fclose(m->fp), 0);
    return m->text;
}

#endif
