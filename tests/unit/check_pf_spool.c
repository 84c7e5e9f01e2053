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
#include <pwd.h>
#include <sys/file.h>
#include <unistd.h>

#include "pf_spool.h"
#include "check_main.h"
#include "check_tmpdir.h"

static char spool_dir[CHECK_TMPDIR_MAX];

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

/* A new spool in a new spool_dir, spool_dir/q, hash depth `depth', opened in sp. */
static void new_spool(struct pf_spool *sp, int depth)
{
    char err[256], path[256];

    check_tmpdir_make(spool_dir, "pfspool");
    snprintf(path, sizeof(path), "%s/q", spool_dir);
    sp->hash_depth = depth;
    ck_assert_msg(pf_spool_open(sp, path, err, sizeof(err)) == 0, "%s", err);
}

/* Closes what new_spool() opened and removes spool_dir with all it holds. */
static void spool_gone(struct pf_spool *sp)
{
    pf_spool_close(sp);
    check_tmpdir_remove(spool_dir);
}

/* A new spool with one message (message()) moved to active/; one_gone() removes it all. */
struct one_active {
    struct pf_spool sp;
    struct pf_spool_stats st;
    struct pf_qfile q;
    char id[PF_QUEUE_ID_MAX];
};

static void one_active(struct one_active *o, int depth)
{
    new_spool(&o->sp, depth);
    message(&o->q);
    ck_assert_int_eq(pf_spool_file_enqueue(&o->sp, &o->q, o->id, sizeof(o->id), &o->st), 0);
    ck_assert_int_eq(pf_spool_file_activate(&o->sp, o->id, 0, &o->st), 0);
}

static void one_gone(struct one_active *o)
{
    pf_qfile_free(&o->q);
    spool_gone(&o->sp);
}

START_TEST(test_life_of_a_message)
{
    struct pf_spool sp = {0};
    struct pf_spool_stats st = {0};
    struct pf_qfile q;
    char id[PF_QUEUE_ID_MAX], path[256], byte;
    struct stat sb;
    int fd;

    new_spool(&sp, 1);
    ck_assert_int_eq(count_entries("deferred"), 0);
    message(&q);
    ck_assert_int_eq(pf_spool_file_enqueue(&sp, &q, id, sizeof(id), &st), 0);
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
    ck_assert_int_eq(pf_spool_file_activate(&sp, id, 0, &st), 0);
    ck_assert_int_eq(count_entries("incoming"), 0);
    ck_assert_int_eq(count_entries("active"), 1);
    ck_assert_int_eq(pf_spool_file_mark_done(&sp, id, q.rcpt_offsets[1], &st), 0);
    ck_assert_int_eq(pf_spool_path(&sp, "active", id, path, sizeof(path)), 0);
    fd = open(path, O_RDONLY);
    ck_assert_int_eq(pread(fd, &byte, 1, (off_t)q.rcpt_offsets[1]), 1);
    ck_assert_int_eq(byte, 'D');
    ck_assert_int_eq(pread(fd, &byte, 1, (off_t)q.rcpt_offsets[0]), 1);
    ck_assert_int_eq(byte, 'R');
    close(fd);
    ck_assert_int_eq(pf_spool_file_remove(&sp, id, &st), 0);
    ck_assert_int_eq(count_entries("active"), 0);
    ck_assert_uint_eq(st.renames, 2);
    ck_assert_uint_eq(st.unlinks, 1);
    pf_qfile_free(&q);
    spool_gone(&sp);
}
END_TEST

/*
 * A message written as it arrives: the file exists (0600, by its ID) from
 * the create on, gets 4 KiB writes however the text is cut, and ends the
 * same file with the same system calls as pf_spool_file_enqueue() makes.
 */
START_TEST(test_streamed)
{
    struct pf_spool sp = {0};
    struct pf_spool_stats st = {0}, whole_st = {0};
    struct pf_spool_file f;
    struct pf_qfile q;
    char id[PF_QUEUE_ID_MAX], id2[PF_QUEUE_ID_MAX], path[256], size_record[PF_SIZE_RECORD_LEN];
    char *text = malloc(50000), *back = malloc(60000);
    struct stat sb;
    int fd;

    for (size_t i = 0; i < 50000; i++)
        text[i] = i % 80 == 79 ? '\n' : 'q';
    new_spool(&sp, 0);
    pf_qfile_init(&q);
    pf_qfile_begin(&q, 1700000000, 1, "s@example.org", NULL, "127.0.0.1", "h");
    pf_qfile_content(&q, text, 50000);
    pf_qfile_finish(&q, (const char *const[]){"a@example.org"}, 1);

    ck_assert_int_eq(pf_spool_file_create(&sp, &f, id, sizeof(id), &st), 0);
    ck_assert_int_eq(pf_spool_path(&sp, "incoming", id, path, sizeof(path)), 0);
    ck_assert_int_eq(stat(path, &sb), 0);
    ck_assert_uint_eq(sb.st_mode & 07777, 0600);
    ck_assert_int_eq(sb.st_size, 0);
    for (size_t off = 0; off < q.len; off += 1000)
        ck_assert_int_eq(
            pf_spool_file_append(&f, q.buf + off, off + 1000 < q.len ? 1000 : q.len - off, &st), 0);
    ck_assert_uint_eq(st.writes, q.len / 4096); /* the rest waits in the buffer */
    ck_assert_int_eq(stat(path, &sb), 0);
    ck_assert_int_eq(sb.st_size, (off_t)(q.len / 4096 * 4096));
    pf_qfile_size_record(&q, size_record);
    ck_assert_int_eq(pf_spool_file_commit(&sp, &f, size_record, &st), 0);
    ck_assert_int_eq(f.fd, -1);
    ck_assert_int_eq(stat(path, &sb), 0);
    ck_assert_uint_eq(sb.st_mode & 07777, 0700);
    fd = open(path, O_RDONLY);
    ck_assert_int_eq(read(fd, back, 60000), (ssize_t)q.len);
    close(fd);
    ck_assert(memcmp(back, q.buf, q.len) == 0);

    ck_assert_int_eq(pf_spool_file_enqueue(&sp, &q, id2, sizeof(id2), &whole_st), 0);
    ck_assert(memcmp(&st, &whole_st, sizeof(st)) == 0);

    /* Abandoned: nothing stays. */
    ck_assert_int_eq(count_entries("incoming"), 2);
    ck_assert_int_eq(pf_spool_file_create(&sp, &f, id, sizeof(id), &st), 0);
    ck_assert_int_eq(pf_spool_file_append(&f, q.buf, 9000, &st), 0);
    ck_assert_int_eq(count_entries("incoming"), 3);
    pf_spool_file_abort(&f);
    ck_assert_int_eq(f.fd, -1);
    ck_assert_int_eq(count_entries("incoming"), 2);
    pf_spool_file_abort(&f); /* twice is once */
    free(text);
    free(back);
    pf_qfile_free(&q);
    spool_gone(&sp);
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

/*
 * qmgr's scan of incoming/: the files marked complete go to active/, one
 * still being written (0600) stays, and no more than the room left in the
 * active queue; the activation of a message the scan took finds it in
 * active/, but only on a spool that scans.
 */
START_TEST(test_scan_incoming)
{
    struct pf_spool sp = {0};
    struct pf_spool_stats st = {0};
    struct pf_spool_file open_file;
    struct pf_qfile q;
    char id1[PF_QUEUE_ID_MAX], id2[PF_QUEUE_ID_MAX], id3[PF_QUEUE_ID_MAX];

    new_spool(&sp, 1);
    message(&q);
    ck_assert_int_eq(pf_spool_file_enqueue(&sp, &q, id1, sizeof(id1), &st), 0);
    ck_assert_int_eq(pf_spool_file_enqueue(&sp, &q, id2, sizeof(id2), &st), 0);
    ck_assert_int_eq(pf_spool_file_create(&sp, &open_file, id3, sizeof(id3), &st), 0);
    ck_assert_int_eq(count_entries("incoming"), 3);
    memset(&st, 0, sizeof(st));
    ck_assert_int_eq(pf_spool_scan_incoming(&sp, 0, &st), 0); /* a full active queue */
    ck_assert_int_eq(pf_spool_scan_incoming(&sp, 1, &st), 1);
    ck_assert_int_eq(count_entries("active"), 1);
    ck_assert_int_eq(pf_spool_scan_incoming(&sp, 10, &st), 1); /* the other one */
    ck_assert_uint_eq(st.renames, 2);
    ck_assert_uint_eq(st.scans, 3);
    ck_assert_uint_eq(st.scan_moves, 2);
    ck_assert_int_eq(count_entries("incoming"), 1);
    ck_assert_int_eq(count_entries("active"), 2);
    /* without the scan, a message missing from incoming/ is an error, as before */
    ck_assert_int_eq(pf_spool_file_activate(&sp, id1, 0, &st), -1);
    ck_assert_int_eq(errno, ENOENT);
    sp.scan_incoming = 1;
    ck_assert_int_eq(pf_spool_file_activate(&sp, id1, 0, &st), 1); /* the scan took it */
    ck_assert_int_eq(pf_spool_file_activate(&sp, id2, 0, &st), 1);
    ck_assert_uint_eq(st.renames, 2);                               /* the scan's: none again */
    ck_assert_int_eq(pf_spool_file_activate(&sp, id3, 0, &st), -1); /* 0600: not complete */
    pf_spool_file_abort(&open_file);
    pf_qfile_free(&q);
    spool_gone(&sp);
}
END_TEST

/* A failed enqueue leaves no file: here incoming/ vanished under the spool. */
START_TEST(test_failure_leaves_nothing)
{
    struct pf_spool sp = {0};
    struct pf_spool_stats st = {0};
    struct pf_qfile q;
    char id[PF_QUEUE_ID_MAX], path[256];

    new_spool(&sp, 0);
    snprintf(path, sizeof(path), "%s/q/incoming", spool_dir);
    ck_assert_int_eq(rmdir(path), 0);
    message(&q);
    ck_assert_int_eq(pf_spool_file_enqueue(&sp, &q, id, sizeof(id), &st), -1);
    ck_assert_int_eq(errno, ENOENT);
    ck_assert_int_eq(count_entries("incoming"), -1);
    ck_assert_int_eq(count_entries("active"), 0);
    pf_qfile_free(&q);
    spool_gone(&sp);
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

/* A spool made by pf_spool_open() (hash depth 1) in spool_dir/q; `path' gets its name. */
static void made_spool(char *path, size_t len)
{
    struct pf_spool sp = {0};

    new_spool(&sp, 1);
    snprintf(path, len, "%s", sp.dir);
    pf_spool_close(&sp);
}

/* pf_spool_open() on `path' with hash depth `depth' fails, saying each of the two texts. */
static void refused(const char *path, int depth, const char *what, const char *why)
{
    struct pf_spool sp = {0};
    char err[512] = "";

    sp.hash_depth = depth;
    ck_assert_msg(pf_spool_open(&sp, path, err, sizeof(err)) == -1, "%s accepted", path);
    ck_assert_msg(strstr(err, what) && strstr(err, why), "\"%s\" does not say %s and %s", err, what,
                  why);
    ck_assert_int_eq(sp.opened, 0);
    pf_spool_close(&sp);
}

static void write_file(const char *path, const char *text)
{
    FILE *fp = fopen(path, "w");

    ck_assert_ptr_nonnull(fp);
    ck_assert_int_ge(fputs(text, fp), 0);
    ck_assert_int_eq(fclose(fp), 0);
}

static int same_text(const char *path, const char *text)
{
    char buf[256] = "";
    FILE *fp = fopen(path, "r");
    size_t n;

    if (fp == NULL)
        return 0;
    n = fread(buf, 1, sizeof(buf) - 1, fp);
    buf[n] = 0;
    fclose(fp);
    return strcmp(buf, text) == 0;
}

/* The spool or any queue a symbolic link: refused, and nothing is made where it points. */
START_TEST(test_refuses_links)
{
    static const char *const queues[] = {"incoming", "active", "deferred", "defer", "corrupt"};
    char path[256], queue[300], target[300], aside[300];

    made_spool(path, sizeof(path));
    snprintf(target, sizeof(target), "%s/elsewhere", spool_dir);
    snprintf(aside, sizeof(aside), "%s/aside", spool_dir);
    ck_assert_int_eq(mkdir(target, 0700), 0);
    for (size_t i = 0; i < sizeof(queues) / sizeof(queues[0]); i++) {
        snprintf(queue, sizeof(queue), "%s/%s", path, queues[i]);
        ck_assert_int_eq(rename(queue, aside), 0);
        ck_assert_int_eq(symlink(target, queue), 0);
        refused(path, 1, queue, "symbolic link");
        ck_assert_int_eq(unlink(queue), 0);
        ck_assert_int_eq(rename(aside, queue), 0);
    }
    snprintf(queue, sizeof(queue), "%s/link", spool_dir);
    ck_assert_int_eq(symlink(path, queue), 0);
    refused(queue, 1, queue, "symbolic link");
    ck_assert_int_eq(rmdir(target), 0); /* empty: nothing was made there */
    check_tmpdir_remove(spool_dir);
}
END_TEST

START_TEST(test_refuses_writable)
{
    char path[256], queue[300];

    made_spool(path, sizeof(path));
    snprintf(queue, sizeof(queue), "%s/bounce", path);
    ck_assert_int_eq(chmod(queue, 0720), 0);
    refused(path, 1, queue, "mode 0720");
    ck_assert_int_eq(chmod(queue, 0702), 0);
    refused(path, 1, queue, "writable by its group or by others");
    ck_assert_int_eq(chmod(queue, 0500), 0);
    refused(path, 1, queue, "needs read, write and search");
    ck_assert_int_eq(chmod(queue, 0700), 0);
    ck_assert_int_eq(chmod(path, 01777), 0);
    refused(path, 1, path, "mode 1777");
    ck_assert_int_eq(chmod(path, 0700), 0);
    check_tmpdir_remove(spool_dir);
}
END_TEST

/* The owner must be the user the relay runs as: here another user is expected. */
START_TEST(test_refuses_other_owner)
{
    struct pf_spool sp = {0};
    char path[256], err[512];

    made_spool(path, sizeof(path));
    sp.hash_depth = 1;
    sp.owner_set = 1;
    sp.owner_uid = geteuid() + 4242;
    sp.owner_gid = getegid();
    snprintf(sp.owner_name, sizeof(sp.owner_name), "someone");
    ck_assert_int_eq(pf_spool_open(&sp, path, err, sizeof(err)), -1);
    ck_assert_msg(strstr(err, path) && strstr(err, "is owned by") && strstr(err, "uid"), "%s", err);
    pf_spool_close(&sp);
    check_tmpdir_remove(spool_dir);
}
END_TEST

/* A hash directory that is a link, or writable by others: refused before anything is moved. */
START_TEST(test_refuses_bad_hash_dir)
{
    char path[256], dir[300], target[300];

    made_spool(path, sizeof(path));
    snprintf(target, sizeof(target), "%s/elsewhere", spool_dir);
    ck_assert_int_eq(mkdir(target, 0700), 0);
    snprintf(dir, sizeof(dir), "%s/deferred/A", path);
    ck_assert_int_eq(symlink(target, dir), 0);
    refused(path, 1, dir, "symbolic link where a hash directory belongs");
    ck_assert_int_eq(unlink(dir), 0);
    snprintf(dir, sizeof(dir), "%s/defer/B", path);
    ck_assert_int_eq(mkdir(dir, 0777), 0);
    ck_assert_int_eq(chmod(dir, 0777), 0);
    refused(path, 1, dir, "mode 0777");
    check_tmpdir_remove(spool_dir);
}
END_TEST

/* --hash-depth 2: a deferral and its log make both levels (issue 12: only one was made). */
START_TEST(test_hash_depth_two)
{
    struct one_active o = {0};
    char path[256];
    struct stat sb;

    one_active(&o, 2);
    ck_assert_int_eq(pf_spool_file_log_append(&o.sp, "defer", o.id, "reason=x\n\n", &o.st), 0);
    ck_assert_int_eq(pf_spool_file_defer(&o.sp, o.id, 1700000000, &o.st), 0);
    ck_assert_uint_eq(o.st.mkdirs, 4);
    ck_assert_int_eq(pf_spool_path(&o.sp, "deferred", o.id, path, sizeof(path)), 0);
    ck_assert_msg(stat(path, &sb) == 0, "%s: %s", path, strerror(errno));
    ck_assert_int_eq((long)sb.st_mtime, 1700000000);
    ck_assert_int_eq(pf_spool_path(&o.sp, "defer", o.id, path, sizeof(path)), 0);
    ck_assert_msg(stat(path, &sb) == 0, "%s: %s", path, strerror(errno));
    ck_assert(pf_spool_file_log_exists(&o.sp, "defer", o.id, &o.st));
    /* and back, as a retry does */
    ck_assert_int_eq(pf_spool_file_activate(&o.sp, o.id, 1, &o.st), 0);
    ck_assert_int_eq(pf_spool_file_remove(&o.sp, o.id, &o.st), 0);
    one_gone(&o);
}
END_TEST

/* The hash depth is the spool's: recorded, checked; without the file, the mail shows it. */
START_TEST(test_layout)
{
    struct one_active o = {0};
    char err[256], path[256], layout[300];

    one_active(&o, 1);
    snprintf(path, sizeof(path), "%s", o.sp.dir);
    snprintf(layout, sizeof(layout), "%s/spoolsim.layout", path);
    ck_assert_int_eq(access(layout, R_OK), 0);
    refused(path, 2, layout, "--hash-depth 1, and this run asks for --hash-depth 2");
    refused(path, 0, layout, "--hash-depth 0");
    /* the message deferred one level deep, and the layout file lost */
    ck_assert_int_eq(pf_spool_file_defer(&o.sp, o.id, 1700000000, &o.st), 0);
    pf_spool_close(&o.sp);
    ck_assert_int_eq(unlink(layout), 0);
    refused(path, 2, "/deferred holds mail hashed 1 level deep", "--hash-depth 1");
    ck_assert_int_eq(access(layout, F_OK), -1);
    refused(path, 0, "hashed 1 level deep", "no spoolsim.layout");
    o.sp.hash_depth = 1;
    ck_assert_int_eq(pf_spool_open(&o.sp, path, err, sizeof(err)), 0);
    pf_spool_close(&o.sp);
    ck_assert_int_eq(access(layout, R_OK), 0);
    /* damage is refused, not rewritten */
    write_file(layout, "hash_depth 1\nhash_depth_of_something 2\n");
    refused(path, 1, layout, "unknown setting");
    ck_assert(same_text(layout, "hash_depth 1\nhash_depth_of_something 2\n"));
    ck_assert_int_eq(unlink(layout), 0);
    ck_assert_int_eq(symlink("/etc/passwd", layout), 0);
    refused(path, 1, layout, "symbolic link");
    one_gone(&o);
}
END_TEST

/* A file over the bound is not read: EFBIG, its size, no buffer. */
START_TEST(test_read_bound)
{
    struct one_active o = {0};
    char path[256], *buf;
    size_t len;

    one_active(&o, 1);
    o.sp.max_file = o.q.len - 1;
    ck_assert_int_eq(pf_spool_file_read(&o.sp, o.id, &buf, &len, &o.st), -1);
    ck_assert_int_eq(errno, EFBIG);
    ck_assert_ptr_null(buf);
    ck_assert_uint_eq(len, o.q.len);
    ck_assert_uint_eq(o.st.locks, 0); /* not even locked */
    o.sp.max_file = o.q.len;
    ck_assert_int_eq(pf_spool_file_read(&o.sp, o.id, &buf, &len, &o.st), 0);
    ck_assert_uint_eq(len, o.q.len);
    ck_assert_int_eq(memcmp(buf, o.q.buf, 4), 0);
    free(buf);
    /* a symbolic link in active/ is not followed */
    ck_assert_int_eq(pf_spool_path(&o.sp, "active", o.id, path, sizeof(path)), 0);
    ck_assert_int_eq(unlink(path), 0);
    ck_assert_int_eq(symlink("/etc/passwd", path), 0);
    ck_assert_int_eq(pf_spool_file_read(&o.sp, o.id, &buf, &len, &o.st), -1);
    ck_assert_int_eq(errno, ELOOP);
    ck_assert_int_eq(pf_spool_file_mark_done(&o.sp, o.id, 0, &o.st), -1);
    ck_assert_int_eq(errno, ELOOP);
    one_gone(&o);
}
END_TEST

/*
 * pf_spool_file_load(): the file read and parsed (whole, or its envelope
 * alone past the window), a damaged one -2 with its reason and no buffer,
 * a missing one -1.
 */
START_TEST(test_load)
{
    struct one_active o = {0};
    struct pf_qfile_view v;
    char path[256], err[200] = "", *buf;
    size_t len;

    one_active(&o, 1);
    ck_assert_int_eq(
        pf_spool_file_load(&o.sp, o.id, SIZE_MAX, &buf, &len, &v, err, sizeof(err), &o.st), 0);
    ck_assert_uint_eq(len, o.q.len);
    ck_assert_uint_eq(v.rcpt_count, 2);
    ck_assert_int_eq(v.content_unread, 0);
    pf_qfile_view_free(&v);
    free(buf);
    ck_assert_int_eq(pf_spool_file_load(&o.sp, o.id, PF_SIZE_RECORD_LEN, &buf, &len, &v, err,
                                        sizeof(err), &o.st),
                     0);
    ck_assert_uint_eq(v.rcpt_count, 2);
    ck_assert_int_eq(v.content_unread, 1);
    pf_qfile_view_free(&v);
    free(buf);
    ck_assert_int_eq(pf_spool_path(&o.sp, "active", o.id, path, sizeof(path)), 0);
    write_file(path, "not a queue file");
    ck_assert_int_eq(
        pf_spool_file_load(&o.sp, o.id, SIZE_MAX, &buf, &len, &v, err, sizeof(err), &o.st), -2);
    ck_assert_ptr_null(buf);
    ck_assert_str_ne(err, "");
    ck_assert_int_eq(unlink(path), 0);
    ck_assert_int_eq(
        pf_spool_file_load(&o.sp, o.id, SIZE_MAX, &buf, &len, &v, err, sizeof(err), &o.st), -1);
    ck_assert_int_eq(errno, ENOENT);
    ck_assert_ptr_null(buf);
    one_gone(&o);
}
END_TEST

START_TEST(test_lock)
{
    struct pf_spool sp = {0};
    char path[256], pidfile[300], victim[300], err[512], text[32];
    int fd;

    made_spool(path, sizeof(path));
    sp.dir = path;
    snprintf(pidfile, sizeof(pidfile), "%s/pid/relay.pid", path);
    fd = pf_spool_lock(&sp, err, sizeof(err));
    ck_assert_msg(fd >= 0, "%s", err);
    snprintf(text, sizeof(text), "%ld\n", (long)getpid());
    ck_assert(same_text(pidfile, text));
    ck_assert_int_eq(pf_spool_lock(&sp, err, sizeof(err)), -1);
    text[strcspn(text, "\n")] = 0;
    ck_assert_msg(strstr(err, "in use by another relay") && strstr(err, text), "%s", err);
    close(fd);
    /* a link, soft or hard, in place of the pid file: refused, the target untouched */
    snprintf(victim, sizeof(victim), "%s/victim", spool_dir);
    write_file(victim, "precious");
    ck_assert_int_eq(unlink(pidfile), 0);
    ck_assert_int_eq(symlink(victim, pidfile), 0);
    ck_assert_int_eq(pf_spool_lock(&sp, err, sizeof(err)), -1);
    ck_assert_msg(strstr(err, pidfile) && strstr(err, "symbolic link"), "%s", err);
    ck_assert(same_text(victim, "precious"));
    ck_assert_int_eq(unlink(pidfile), 0);
    ck_assert_int_eq(link(victim, pidfile), 0);
    ck_assert_int_eq(pf_spool_lock(&sp, err, sizeof(err)), -1);
    ck_assert_msg(strstr(err, pidfile) && strstr(err, "2 hard links"), "%s", err);
    ck_assert(same_text(victim, "precious"));
    check_tmpdir_remove(spool_dir);
}
END_TEST

/* Recovery never follows a link inside a queue: the entry is skipped, its target kept. */
static void count_found(void *ctx, const char *queue, const char *id, long mtime)
{
    (void)queue;
    (void)id;
    (void)mtime;
    ++*(int *)ctx;
}

START_TEST(test_recover_skips_links)
{
    struct pf_spool sp = {0};
    struct pf_recovery rec;
    char path[256], entry[300], victim[300], err[256];
    int found = 0;

    made_spool(path, sizeof(path));
    snprintf(victim, sizeof(victim), "%s/victim", spool_dir);
    write_file(victim, "precious");
    ck_assert_int_eq(chmod(victim, 0644), 0); /* no 0700 mark: recovery removes such files */
    snprintf(entry, sizeof(entry), "%s/incoming/ABCDEF12", path);
    ck_assert_int_eq(symlink(victim, entry), 0);
    snprintf(entry, sizeof(entry), "%s/active/ABCDEF34", path);
    ck_assert_int_eq(symlink(victim, entry), 0);
    sp.hash_depth = 1;
    ck_assert_int_eq(pf_spool_open(&sp, path, err, sizeof(err)), 0);
    ck_assert_int_eq(pf_recover_spool(&sp, count_found, &found, &rec, err, sizeof(err)), 0);
    ck_assert_int_eq(found, 0);
    ck_assert_uint_eq(rec.incomplete + rec.requeued, 0);
    ck_assert(same_text(victim, "precious"));
    pf_spool_close(&sp);
    check_tmpdir_remove(spool_dir);
}
END_TEST

/* Recovery's rule, entry by entry: only incoming/'s unmarked files go, nothing odd is touched. */
START_TEST(test_recover_verdict)
{
    static const struct {
        const char *queue, *name;
        mode_t mode;
        int placed;
        enum pf_recover_verdict v;
        const char *why; /* a word of the reason, for SKIP */
    } cases[] = {
        {"incoming", "ABCDEF12", S_IFREG | 0700, 1, PF_RECOVER_KEEP, NULL},
        {"incoming", "ABCDEF12", S_IFREG | 0600, 1, PF_RECOVER_REMOVE, NULL},
        {"incoming", "ABCDEF12", S_IFREG | 0500, 1, PF_RECOVER_MARK, NULL},
        {"incoming", "123456.789", S_IFREG | 0600, 1, PF_RECOVER_REMOVE, NULL},
        {"incoming", "123456.789.7f3a", S_IFREG | 0600, 1, PF_RECOVER_REMOVE, NULL},
        {"incoming", "123456.789", S_IFREG | 0700, 1, PF_RECOVER_SKIP, "queue ID"},
        {"incoming", "123456.789.x", S_IFREG | 0600, 1, PF_RECOVER_SKIP, "queue ID"},
        {"incoming", "notes", S_IFREG | 0644, 1, PF_RECOVER_SKIP, "queue ID"},
        {"incoming", "ABCDE", S_IFREG | 0600, 1, PF_RECOVER_SKIP, "queue ID"},
        {"incoming", "ABCDEF12", S_IFLNK | 0777, 1, PF_RECOVER_SKIP, "symbolic link"},
        {"incoming", "ABCDEF12", S_IFDIR | 0700, 1, PF_RECOVER_SKIP, "regular"},
        {"active", "ABCDEF12", S_IFREG | 0700, 1, PF_RECOVER_KEEP, NULL},
        {"active", "ABCDEF12", S_IFREG | 0644, 1, PF_RECOVER_MARK, NULL},
        {"active", "123456.789", S_IFREG | 0600, 1, PF_RECOVER_SKIP, "queue ID"},
        {"deferred", "ABCDEF12", S_IFREG | 0700, 1, PF_RECOVER_KEEP, NULL},
        {"deferred", "ABCDEF12", S_IFREG | 0600, 1, PF_RECOVER_MARK, NULL},
        {"deferred", "ABCDEF12", S_IFREG | 0000, 1, PF_RECOVER_MARK, NULL},
        {"deferred", "ABCDEF12", S_IFREG | 0700, 0, PF_RECOVER_SKIP, "where"},
        {"deferred", "README", S_IFREG | 0600, 0, PF_RECOVER_SKIP, "queue ID"},
        {"deferred", "README.txt", S_IFREG | 0700, 0, PF_RECOVER_SKIP, "queue ID"},
        {"deferred", "ABCDEF12", S_IFLNK | 0777, 1, PF_RECOVER_SKIP, "symbolic link"},
        {"deferred", "ABCDEF12", S_IFIFO | 0600, 1, PF_RECOVER_SKIP, "regular"},
        {"defer", "ABCDEF12", S_IFREG | 0600, 1, PF_RECOVER_KEEP, NULL},
        {"bounce", "ABCDEF12", S_IFREG | 0600, 0, PF_RECOVER_SKIP, "where"},
        {"bounce", "core", S_IFREG | 0600, 1, PF_RECOVER_SKIP, "queue ID"},
    };
    char long_id[PF_QUEUE_ID_MAX];
    const char *why;

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        enum pf_recover_verdict v =
            pf_recover_verdict(cases[i].queue, cases[i].name, cases[i].mode, cases[i].placed, &why);

        ck_assert_msg(v == cases[i].v, "%s/%s %o: %d", cases[i].queue, cases[i].name,
                      (unsigned)cases[i].mode, (int)v);
        if (cases[i].why)
            ck_assert_msg(why && strstr(why, cases[i].why), "%s/%s: %s", cases[i].queue,
                          cases[i].name, why ? why : "(none)");
    }
    /* A long queue ID is one too; its inode starts after the last 'z'. */
    pf_queue_id_long(long_id, sizeof(long_id), 1700000000, 123456, 98765);
    ck_assert_int_eq(pf_recover_verdict("deferred", long_id, S_IFREG | 0600, 1, &why),
                     PF_RECOVER_MARK);
    ck_assert_int_eq(pf_recover_verdict("incoming", long_id, S_IFREG | 0600, 1, &why),
                     PF_RECOVER_REMOVE);
    ck_assert_int_eq(pf_recover_verdict("incoming", "BCDFGHJKLMNzX", S_IFREG | 0600, 1, &why),
                     PF_RECOVER_REMOVE);
    ck_assert_int_eq(pf_recover_verdict("deferred", "BCDFGHzz", S_IFREG | 0700, 1, &why),
                     PF_RECOVER_SKIP);
}
END_TEST

/* A deferred file that lost its mark, even every permission: marked again and reported. */
START_TEST(test_recover_marks_again)
{
    struct one_active o = {0};
    struct pf_recovery rec;
    char path[256], err[256];
    struct stat sb;
    int found = 0;

    one_active(&o, 1);
    ck_assert_int_eq(pf_spool_file_defer(&o.sp, o.id, 1700000000, &o.st), 0);
    ck_assert_int_eq(pf_spool_path(&o.sp, "deferred", o.id, path, sizeof(path)), 0);
    ck_assert_int_eq(chmod(path, 0), 0);
    ck_assert_int_eq(pf_recover_spool(&o.sp, count_found, &found, &rec, err, sizeof(err)), 0);
    ck_assert_int_eq(found, 1);
    ck_assert_uint_eq(rec.found_deferred, 1);
    ck_assert_uint_eq(rec.marked, 1);
    ck_assert_uint_eq(rec.incomplete + rec.skipped, 0);
    ck_assert_int_eq(stat(path, &sb), 0);
    ck_assert_uint_eq(sb.st_mode & 07777, 0700);
    ck_assert_int_eq(pf_spool_file_activate(&o.sp, o.id, 1, &o.st), 0);
    one_gone(&o);
}
END_TEST

/* As root (in the forked test process): become nobody for good. */
START_TEST(test_drop_privileges)
{
    struct pf_spool sp = {0};
    struct passwd *pw = getpwnam("nobody");
    char err[256];
    gid_t groups[4];

    if (geteuid() != 0 || pw == NULL) {
        fprintf(stderr, "SKIP drop-privileges check: needs root and a user nobody\n");
        return;
    }
    ck_assert_int_eq(pf_spool_set_user(&sp, "root", err, sizeof(err)), -1);
    ck_assert_ptr_nonnull(strstr(err, "privileged user ID"));
    ck_assert_int_eq(pf_spool_set_user(&sp, "no-such-user-spoolsim", err, sizeof(err)), -1);
    ck_assert_ptr_nonnull(strstr(err, "unknown user"));
    ck_assert_int_eq(pf_spool_drop_privileges(&sp, err, sizeof(err)), 0); /* no -u: nothing */
    ck_assert_int_eq(geteuid(), 0);
    ck_assert_int_eq(pf_spool_set_user(&sp, "nobody", err, sizeof(err)), 0);
    ck_assert_msg(pf_spool_drop_privileges(&sp, err, sizeof(err)) == 0, "%s", err);
    ck_assert_int_eq(getuid(), pw->pw_uid);
    ck_assert_int_eq(geteuid(), pw->pw_uid);
    ck_assert_int_eq(getegid(), pw->pw_gid);
    ck_assert_int_eq(getgroups(4, groups), 1);
    ck_assert_int_eq(groups[0], pw->pw_gid);
    ck_assert_int_eq(setuid(0), -1);
}
END_TEST

int main(void)
{
    const TTest *const spool[] = {test_life_of_a_message,
                                  test_paths,
                                  test_streamed,
                                  test_scan_incoming,
                                  test_failure_leaves_nothing,
                                  test_unusable_directory,
                                  NULL};
    const TTest *const security[] = {test_refuses_links,
                                     test_refuses_writable,
                                     test_refuses_other_owner,
                                     test_refuses_bad_hash_dir,
                                     test_lock,
                                     test_recover_skips_links,
                                     test_recover_verdict,
                                     test_recover_marks_again,
                                     test_drop_privileges,
                                     NULL};
    const TTest *const layout[] = {test_hash_depth_two, test_layout, test_read_bound, test_load,
                                   NULL};
    Suite *s = suite_create("pf_spool");

    check_add_tcase(s, "spool", spool);
    check_add_tcase(s, "security", security);
    check_add_tcase(s, "layout", layout);
    return check_run_suite(s);
}
