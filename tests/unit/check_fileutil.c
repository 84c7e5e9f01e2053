/*
 * check_fileutil - fileutil_write_all(): every byte written, in the pieces asked
 * for, and counted as the simulators count their system calls.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_main.h"
#include "fileutil.h"

/* A file unlinked at once: the test leaves nothing behind. */
static int scratch(void)
{
    char path[] = "/tmp/check_fileutil.XXXXXX";
    int fd = mkstemp(path);

    ck_assert_int_ge(fd, 0);
    unlink(path);
    return fd;
}

static void assert_contents(int fd, const char *want, size_t n)
{
    char *got = malloc(n + 1);

    ck_assert_ptr_nonnull(got);
    ck_assert_int_eq(pread(fd, got, n + 1, 0), (ssize_t)n);
    ck_assert(memcmp(got, want, n) == 0);
    free(got);
}

START_TEST(test_pieces)
{
    static char text[10000];
    uint64_t calls = 5, bytes = 7; /* added to, not set */
    int fd = scratch();

    for (size_t i = 0; i < sizeof(text); i++)
        text[i] = (char)('a' + i % 26);
    ck_assert_int_eq(fileutil_write_all(fd, text, sizeof(text), 4096, &calls, &bytes), 0);
    ck_assert_uint_eq(calls, 5 + 3); /* 4096 + 4096 + 1808 */
    ck_assert_uint_eq(bytes, 7 + sizeof(text));
    assert_contents(fd, text, sizeof(text));
    close(fd);
}
END_TEST

START_TEST(test_one_call)
{
    uint64_t calls = 0;
    int fd = scratch();

    ck_assert_int_eq(fileutil_write_all(fd, "hello, world\n", 13, 0, &calls, NULL), 0);
    ck_assert_uint_eq(calls, 1);
    ck_assert_int_eq(fileutil_write_all(fd, "", 0, 0, &calls, NULL), 0);
    ck_assert_uint_eq(calls, 1); /* nothing to write: no call */
    assert_contents(fd, "hello, world\n", 13);
    close(fd);
}
END_TEST

START_TEST(test_failure)
{
    uint64_t calls = 0, bytes = 0;
    int fd = open("/dev/full", O_WRONLY);

    ck_assert_int_eq(fileutil_write_all(-1, "x", 1, 0, &calls, &bytes), -1);
    ck_assert_int_eq(errno, EBADF);
    if (fd >= 0) {
        ck_assert_int_eq(fileutil_write_all(fd, "abc", 3, 1, &calls, &bytes), -1);
        ck_assert_int_eq(errno, ENOSPC);
        close(fd);
    }
    ck_assert_uint_eq(calls, 0);
    ck_assert_uint_eq(bytes, 0);
}
END_TEST

int main(void)
{
    const TTest *const tests[] = {test_pieces, test_one_call, test_failure, NULL};

    return check_run_tests("fileutil", tests);
}
