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

/*
 * A stream put in place whole at its close, or not at all: /dev/full
 * refuses it (ENOSPC, exit non-zero in the programs), a missing directory
 * too, and the earlier file stays as it was, with no temporary file left.
 * A symbolic link stays a link, to the new text.
 */
START_TEST(test_stream)
{
    struct fileutil_output out;
    char dir[256], path[300], link[300];
    FILE *fp;

    ck_assert_int_eq(fileutil_private_dir(dir, sizeof(dir), fileutil_tmp_dir(), "check"), 0);
    snprintf(path, sizeof(path), "%s/r.json", dir);
    ck_assert_ptr_nonnull(fp = fileutil_output_open(&out, path));
    fputs("old\n", fp);
    ck_assert_int_eq(fileutil_output_close(&out), 0);
    assert_file(path, "old\n");

    ck_assert_ptr_nonnull(fp = fileutil_output_open(&out, "/dev/full"));
    fputs(doc, fp);
    errno = 0;
    ck_assert_int_eq(fileutil_output_close(&out), -1);
    ck_assert_int_eq(errno, ENOSPC);

    snprintf(link, sizeof(link), "%s/no/r.json", dir);
    ck_assert_ptr_nonnull(fp = fileutil_output_open(&out, link));
    fputs(doc, fp);
    ck_assert_int_eq(fileutil_output_close(&out), -1);
    assert_file(path, "old\n");

    snprintf(link, sizeof(link), "%s/link.json", dir);
    ck_assert_int_eq(symlink("r.json", link), 0);
    ck_assert_int_eq(fileutil_write_output(link, doc, strlen(doc)), 0);
    assert_file(path, doc);
    ck_assert_int_eq(fileutil_output_forget(link), 0); /* a link is the user's: kept */
    assert_file(link, doc);
    /* a link to a file not there yet: made, the link kept */
    snprintf(link, sizeof(link), "%s/new-link.json", dir);
    ck_assert_int_eq(symlink("new.json", link), 0);
    ck_assert_int_eq(fileutil_write_output(link, doc, strlen(doc)), 0);
    snprintf(path, sizeof(path), "%s/new.json", dir);
    assert_file(path, doc);
    snprintf(path, sizeof(path), "%s/r.json", dir);
    /* a link to itself: ELOOP, not a loop without end */
    snprintf(link, sizeof(link), "%s/loop.json", dir);
    ck_assert_int_eq(symlink("loop.json", link), 0);
    errno = 0;
    ck_assert_int_eq(fileutil_write_output(link, doc, strlen(doc)), -1);
    ck_assert_int_eq(errno, ELOOP);

    /* the earlier result goes at the start of a run; "-", NULL and devices stay */
    ck_assert_int_eq(fileutil_output_forget(path), 0);
    ck_assert_int_eq(access(path, F_OK), -1);
    ck_assert_int_eq(fileutil_output_forget(path), 0); /* none: nothing to do */
    ck_assert_int_eq(fileutil_output_forget("-"), 0);
    ck_assert_int_eq(fileutil_output_forget(NULL), 0);
    ck_assert_int_eq(fileutil_output_forget("/dev/null"), 0);
    ck_assert_int_eq(access("/dev/null", F_OK), 0);
    fileutil_tree_remove(dir);
}
END_TEST

int main(void)
{
    const TTest *const tests[] = {test_file, test_stdout, test_stream, NULL};

    return check_run_tests("fileutil_output", tests);
}
