/*
 * Unit tests: pf_spool, the Postfix-style queue on disk, in a temporary
 * directory: the life of one message, and failures that must leave
 * nothing behind.
 */
#include "config.h"

#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pf_spool.h"
#include "check_main.h"

static char spool_dir[64];

static void make_tmp(void)
{
    snprintf(spool_dir, sizeof(spool_dir), "/tmp/pfspool.XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(spool_dir));
}

static void remove_tmp(void)
{
    char cmd[128];

    snprintf(cmd, sizeof(cmd), "rm -rf %s", spool_dir);
    ck_assert_int_eq(system(cmd), 0);
}

static int count_entries(const char *queue)
{
    char path[128];
    DIR *d;
    struct dirent *e;
    int n = 0;

    snprintf(path, sizeof(path), "%s/q/%s", spool_dir, queue);
    if ((d = opendir(path)) == NULL)
        return -1;
    while ((e = readdir(d)) != NULL)
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

static void message(struct pf_qfile *q)
{
    static const char *const rcpts[] = {"a@example.org", "b@example.org"};
    const char content[] = "Subject: spool\r\n\r\nbody\r\n";

    pf_qfile_init(q);
    pf_qfile_begin(q, 1700000000, 1, "s@example.org", NULL, "127.0.0.1", "h");
    pf_qfile_content(q, content, strlen(content));
    pf_qfile_finish(q, rcpts, 2);
}

START_TEST(test_life_of_a_message)
{
    struct pf_spool sp = {0};
    struct pf_spool_stats st = {0};
    struct pf_qfile q;
    char err[256], id[PF_QUEUE_ID_MAX], path[256], byte;
    struct stat sb;
    int fd;

    make_tmp();
    snprintf(path, sizeof(path), "%s/q", spool_dir);
    ck_assert_int_eq(pf_spool_open(&sp, path, err, sizeof(err)), 0);
    sp.hash_depth = 1;
    ck_assert_int_eq(count_entries("deferred"), 0);
    message(&q);
    ck_assert_int_eq(pf_spool_enqueue(&sp, &q, id, sizeof(id), &st), 0);
    ck_assert(pf_queue_id_ok(id));
    /* Exactly one file in incoming/, named by its ID, complete (0700), whole. */
    ck_assert_int_eq(count_entries("incoming"), 1);
    ck_assert_int_eq(pf_spool_path(&sp, "incoming", id, path, sizeof(path)), 0);
    ck_assert_int_eq(stat(path, &sb), 0);
    ck_assert_uint_eq(sb.st_mode & 07777, 0700);
    ck_assert_uint_eq((size_t)sb.st_size, q.len);
    ck_assert_uint_eq(st.creates, 1);
    ck_assert_uint_eq(st.renames, 1);
    ck_assert_uint_eq(st.probes, 3);
    ck_assert_uint_eq(st.chmods, 1);
    ck_assert_uint_eq(st.fsyncs, 1);
    /* The queue manager's side. */
    ck_assert_int_eq(pf_spool_activate(&sp, id, 0, &st), 0);
    ck_assert_int_eq(count_entries("incoming"), 0);
    ck_assert_int_eq(count_entries("active"), 1);
    ck_assert_int_eq(pf_spool_mark_done(&sp, id, q.rcpt_offsets[1], &st), 0);
    ck_assert_int_eq(pf_spool_path(&sp, "active", id, path, sizeof(path)), 0);
    fd = open(path, O_RDONLY);
    ck_assert_int_eq(pread(fd, &byte, 1, (off_t)q.rcpt_offsets[1]), 1);
    ck_assert_int_eq(byte, 'D');
    ck_assert_int_eq(pread(fd, &byte, 1, (off_t)q.rcpt_offsets[0]), 1);
    ck_assert_int_eq(byte, 'R');
    close(fd);
    ck_assert_int_eq(pf_spool_remove(&sp, id, &st), 0);
    ck_assert_int_eq(count_entries("active"), 0);
    ck_assert_uint_eq(st.renames, 2);
    ck_assert_uint_eq(st.unlinks, 1);
    pf_qfile_free(&q);
    pf_spool_close(&sp);
    remove_tmp();
}
END_TEST

/* Hashed queues: deferred/ and defer/ get a subdirectory per first hex digit. */
START_TEST(test_paths)
{
    struct pf_spool sp = {0};
    char path[256];

    sp.dir = "/s";
    sp.hash_depth = 1;
    ck_assert_int_eq(pf_spool_path(&sp, "deferred", "5361932", path, sizeof(path)), 0);
    ck_assert_str_eq(path, "/s/deferred/5/5361932");
    ck_assert_int_eq(pf_spool_path(&sp, "defer", "4SqTFD6TVpz4w4n", path, sizeof(path)), 0);
    ck_assert_str_eq(path, "/s/defer/D/4SqTFD6TVpz4w4n");
    ck_assert_int_eq(pf_spool_path(&sp, "incoming", "5361932", path, sizeof(path)), 0);
    ck_assert_str_eq(path, "/s/incoming/5361932");
    ck_assert_int_eq(pf_spool_path(&sp, "active", "../../etc", path, sizeof(path)), -1);
    sp.hash_depth = 0;
    ck_assert_int_eq(pf_spool_path(&sp, "deferred", "5361932", path, sizeof(path)), 0);
    ck_assert_str_eq(path, "/s/deferred/5361932");
}
END_TEST

/* A failed enqueue leaves no file: here incoming/ vanished under the spool. */
START_TEST(test_failure_leaves_nothing)
{
    struct pf_spool sp = {0};
    struct pf_spool_stats st = {0};
    struct pf_qfile q;
    char err[256], id[PF_QUEUE_ID_MAX], path[256];

    make_tmp();
    snprintf(path, sizeof(path), "%s/q", spool_dir);
    ck_assert_int_eq(pf_spool_open(&sp, path, err, sizeof(err)), 0);
    snprintf(path, sizeof(path), "%s/q/incoming", spool_dir);
    ck_assert_int_eq(rmdir(path), 0);
    message(&q);
    ck_assert_int_eq(pf_spool_enqueue(&sp, &q, id, sizeof(id), &st), -1);
    ck_assert_int_eq(errno, ENOENT);
    ck_assert_int_eq(count_entries("incoming"), -1);
    ck_assert_int_eq(count_entries("active"), 0);
    pf_qfile_free(&q);
    pf_spool_close(&sp);
    remove_tmp();
}
END_TEST

START_TEST(test_unusable_directory)
{
    struct pf_spool sp = {0};
    char err[256];

    ck_assert_int_eq(pf_spool_open(&sp, "/nonexistent/spoolsim/spool", err, sizeof(err)), -1);
    ck_assert_ptr_nonnull(strstr(err, "/nonexistent/spoolsim/spool"));
    pf_spool_close(&sp);
    ck_assert_int_eq(pf_spool_open(&sp, "/dev/null", err, sizeof(err)), -1);
    ck_assert_ptr_nonnull(strstr(err, "/dev/null"));
    pf_spool_close(&sp);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("pf_spool");
    TCase *tc = tcase_create("spool");

    tcase_add_test(tc, test_life_of_a_message);
    tcase_add_test(tc, test_paths);
    tcase_add_test(tc, test_failure_leaves_nothing);
    tcase_add_test(tc, test_unusable_directory);
    suite_add_tcase(s, tc);
    return check_run_suite(s);
}
