/*
 * check_fileutil_output - fileutil_write_output(): "-" is standard output,
 * any other name a file written whole.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_main.h"
#include "fileutil.h"

static const char doc[] = "{\"a\": 1}\n";

static void assert_file(const char *path, const char *want)
{
    char *got = fileutil_read_all(path, NULL);

    ck_assert_ptr_nonnull(got);
    ck_assert_str_eq(got, want);
    free(got);
}

START_TEST(test_file)
{
    char dir[256], path[300];

    ck_assert_int_eq(fileutil_private_dir(dir, sizeof(dir), fileutil_tmp_dir(), "check"), 0);
    snprintf(path, sizeof(path), "%s/out.json", dir);
    ck_assert_int_eq(fileutil_write_output(path, doc, strlen(doc)), 0);
    assert_file(path, doc);
    /* only "-" itself is standard output: a file named - in a directory is a file */
    snprintf(path, sizeof(path), "%s/-", dir);
    ck_assert_int_eq(fileutil_write_output(path, doc, strlen(doc)), 0);
    assert_file(path, doc);
    snprintf(path, sizeof(path), "%s/no/such/dir", dir);
    errno = 0;
    ck_assert_int_eq(fileutil_write_output(path, doc, strlen(doc)), -1);
    ck_assert_int_eq(errno, ENOENT);
    fileutil_tree_remove(dir);
}
END_TEST

START_TEST(test_stdout)
{
    char dir[256], path[300];
    int fd;

    ck_assert_int_eq(fileutil_private_dir(dir, sizeof(dir), fileutil_tmp_dir(), "check"), 0);
    snprintf(path, sizeof(path), "%s/stdout", dir);
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(dup2(fd, STDOUT_FILENO), STDOUT_FILENO); /* this test's own process */
    close(fd);
    ck_assert_int_eq(fileutil_write_output("-", doc, strlen(doc)), 0);
    assert_file(path, doc); /* there already: it was flushed */
    fileutil_tree_remove(dir);
}
END_TEST

int main(void)
{
    const TTest *const tests[] = {test_file, test_stdout, NULL};

    return check_run_tests("fileutil_output", tests);
}
