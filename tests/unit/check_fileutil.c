/*
 * check_fileutil - fileutil_write_all(): every byte written, in the pieces asked
 * for, and counted as the simulators count their system calls; and
 * fileutil_read_fd()'s bound.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

/* An empty file at DIR/NAME with mode `mode'; its resolved path in out. */
static void make_file(const char *dir, const char *name, mode_t mode, char *out, size_t len)
{
    char path[PATH_MAX];
    int fd;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    ck_assert_int_ge(fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode), 0);
    close(fd);
    ck_assert_int_eq(chmod(path, mode), 0); /* whatever the umask */
    ck_assert_ptr_nonnull(realpath(path, out));
    ck_assert_uint_lt(strlen(out), len);
}

/* fileutil_path_each() callback: counts the directories it is shown, stops at "stop". */
static int count_dirs(const char *dir, size_t dir_len, void *ctx)
{
    unsigned *n = ctx;

    (*n)++;
    return dir_len == 4 && memcmp(dir, "stop", 4) == 0 ? 0 : -1;
}

/*
 * How spoolsim finds itself where the system cannot say: argv[0] as the
 * shell found it, a path if it holds a slash, else the first executable
 * file of that name in PATH.
 */
START_TEST(test_program_path)
{
    char top[512], a[600], b[600], path[1300], out[PATH_MAX], link[700], small[8];
    char prog_a[PATH_MAX], prog_b[PATH_MAX], noexec[PATH_MAX];
    unsigned n = 0;

    ck_assert_int_eq(fileutil_private_dir(top, sizeof(top), fileutil_tmp_dir(), "check"), 0);
    snprintf(a, sizeof(a), "%s/a", top);
    snprintf(b, sizeof(b), "%s/b", top);
    ck_assert_int_eq(mkdir(a, 0700), 0);
    ck_assert_int_eq(mkdir(b, 0700), 0);
    make_file(a, "notmine", 0600, noexec, sizeof(noexec));
    make_file(b, "notmine", 0700, prog_b, sizeof(prog_b));
    make_file(b, "prog", 0700, prog_a, sizeof(prog_a)); /* only in b for now */
    snprintf(link, sizeof(link), "%s/dir", a);
    ck_assert_int_eq(mkdir(link, 0700), 0);
    snprintf(link, sizeof(link), "%s/dir", b);
    ck_assert_int_eq(mkdir(link, 0700), 0);

    /* The first directory with an executable file of the name: not a's unexecutable one. */
    snprintf(path, sizeof(path), "::%s:%s", a, b);
    ck_assert_int_eq(fileutil_program_path("notmine", path, out, sizeof(out)), 0);
    ck_assert_str_eq(out, prog_b);
    ck_assert_int_eq(fileutil_program_path("prog", path, out, sizeof(out)), 0);
    ck_assert_str_eq(out, prog_a);
    make_file(a, "prog", 0755, prog_a, sizeof(prog_a));
    ck_assert_int_eq(fileutil_program_path("prog", path, out, sizeof(out)), 0);
    ck_assert_str_eq(out, prog_a); /* now a's, which comes first */
    /* A directory of the name is not a program; nor is anything outside PATH. */
    ck_assert_int_eq(fileutil_program_path("dir", path, out, sizeof(out)), -1);
    ck_assert_int_eq(fileutil_program_path("nosuch", path, out, sizeof(out)), -1);
    ck_assert_int_eq(fileutil_program_path("prog", NULL, out, sizeof(out)), -1);
    ck_assert_int_eq(fileutil_program_path("prog", "", out, sizeof(out)), -1);
    ck_assert_int_eq(fileutil_program_path("", path, out, sizeof(out)), -1);
    ck_assert_int_eq(fileutil_program_path(NULL, path, out, sizeof(out)), -1);

    /* With a slash, argv[0] is the path (resolved), and PATH is not looked at. */
    snprintf(link, sizeof(link), "%s/../b/./notmine", a);
    ck_assert_int_eq(fileutil_program_path(link, "", out, sizeof(out)), 0);
    ck_assert_str_eq(out, prog_b);
    snprintf(link, sizeof(link), "%s/link", a);
    ck_assert_int_eq(symlink(prog_b, link), 0);
    ck_assert_int_eq(fileutil_program_path(link, path, out, sizeof(out)), 0);
    ck_assert_str_eq(out, prog_b); /* no symbolic link in it, as the system says it */
    ck_assert_int_eq(fileutil_program_path("link", path, out, sizeof(out)), 0);
    ck_assert_str_eq(out, prog_b);
    snprintf(link, sizeof(link), "%s/nosuch", a);
    ck_assert_int_eq(fileutil_program_path(link, path, out, sizeof(out)), -1);
    /* What does not fit is not cut. */
    ck_assert_int_eq(fileutil_program_path("prog", path, small, sizeof(small)), -1);

    /* Every entry, in order, the empty ones skipped, until one says stop. */
    ck_assert_int_eq(fileutil_path_each("x::y:stop:z", count_dirs, &n), 0);
    ck_assert_uint_eq(n, 3);
    n = 0;
    ck_assert_int_eq(fileutil_path_each(":x:", count_dirs, &n), -1);
    ck_assert_uint_eq(n, 1);
    fileutil_tree_remove(top);
}
END_TEST

/* fileutil_read_fd(): what is left, to the end, up to a bound; one byte more is EFBIG. */
START_TEST(test_read_fd)
{
    int fd = scratch(), zero;
    size_t len = 99;
    char *text;

    ck_assert_int_eq(fileutil_write_all(fd, "0123456789", 10, 0, NULL, NULL), 0);
    ck_assert_int_eq(lseek(fd, 0, SEEK_SET), 0);
    text = fileutil_read_fd(fd, 10, &len);
    ck_assert_ptr_nonnull(text);
    ck_assert_str_eq(text, "0123456789");
    ck_assert_uint_eq(len, 10);
    free(text);
    ck_assert_int_eq(lseek(fd, 2, SEEK_SET), 2);
    errno = 0;
    ck_assert_ptr_null(fileutil_read_fd(fd, 7, &len));
    ck_assert_int_eq(errno, EFBIG);
    ck_assert_int_eq(lseek(fd, 10, SEEK_SET), 10);
    text = fileutil_read_fd(fd, 0, NULL); /* nothing left: an empty string */
    ck_assert_ptr_nonnull(text);
    ck_assert_str_eq(text, "");
    free(text);
    close(fd);
    /* a file without end costs the bound, not all memory */
    zero = open("/dev/zero", O_RDONLY);
    ck_assert_int_ge(zero, 0);
    errno = 0;
    ck_assert_ptr_null(fileutil_read_fd(zero, 100000, NULL));
    ck_assert_int_eq(errno, EFBIG);
    close(zero);
    ck_assert_ptr_null(fileutil_read_fd(-1, 10, NULL));
    ck_assert_int_eq(errno, EBADF);
}
END_TEST

/*
 * An empty parent is no directory: "" + "/spoolsim-..." would be a
 * directory in the root (issue 35), so it is ENOENT, and nothing is made.
 */
START_TEST(test_private_dir_empty)
{
    char out[256];
    int made;

    errno = 0;
    made = fileutil_private_dir(out, sizeof(out), "", "check-empty");
    if (made == 0) /* the defect: clean up what it made in / before failing */
        rmdir(out);
    ck_assert_int_eq(made, -1);
    ck_assert_int_eq(errno, ENOENT);
    ck_assert_str_eq(out, "");
}
END_TEST

int main(void)
{
    const TTest *const tests[] = {
        test_pieces,  test_one_call,          test_failure, test_program_path,
        test_read_fd, test_private_dir_empty, NULL};

    return check_run_tests("fileutil", tests);
}
