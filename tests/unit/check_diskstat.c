/*
 * Unit tests: the block device's own counts over a run (diskstat.h): the
 * stat file parsed (procfs_disk_stat(), the kernel's
 * Documentation/block/stat.rst: 11, 15 or 17 fields), two snapshots'
 * difference, the figures per message, the report's line and note, the
 * JSON object and reading it back, ab's sum of runs; and whether a device
 * holds more than the spool (procfs_device_shared(), from mountinfo).
 */
#include "config.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "check_memfile.h"
#include "diskstat.h"
#include "json.h"
#include "json_read.h"
#include "procfs.h"

/* reads 100, 800 sectors; writes 2000, 160000 sectors; busy 450 ms; 3 discards; 1250 flushes */
static const char line17[] = "     100        0      800       50     2000      300   160000    "
                             "9000        0      450     9050        3        0       64        "
                             "2     1250      400\n";
static const char line15[] = "100 0 800 50 2000 300 160000 9000 0 450 9050 3 0 64 2\n";
static const char line11[] = "100 0 800 50 2000 300 160000 9000 0 450 9050\n";

/* Every counter of got is want's. */
static void same(const struct disk_counters *got, const struct disk_counters *want)
{
    ck_assert(memcmp(got, want, sizeof(*got)) == 0);
}

START_TEST(test_parse)
{
    struct disk_counters d;

    ck_assert_int_eq(procfs_disk_stat(line17, &d), 0);
    same(&d, &(struct disk_counters){.reads = 100,
                                     .read_sectors = 800,
                                     .writes = 2000,
                                     .write_sectors = 160000,
                                     .busy_ms = 450,
                                     .discards = 3,
                                     .discard_sectors = 64,
                                     .flushes = 1250,
                                     .has_discards = 1,
                                     .has_flushes = 1});
    /* older kernels: no flushes (before 5.5), no discards either (before 4.18) */
    ck_assert_int_eq(procfs_disk_stat(line15, &d), 0);
    ck_assert(d.has_discards && !d.has_flushes);
    ck_assert_uint_eq(d.flushes, 0);
    ck_assert_uint_eq(d.discard_sectors, 64);
    ck_assert_int_eq(procfs_disk_stat(line11, &d), 0);
    ck_assert(!d.has_discards && !d.has_flushes);
    ck_assert_uint_eq(d.write_sectors, 160000);
    ck_assert_int_eq(procfs_disk_stat("1 2 3 4 5 6 7 8 9 10\n", &d), -1);
    ck_assert_int_eq(procfs_disk_stat("", &d), -1);
    ck_assert_int_eq(procfs_disk_stat("vda 1 2 3 4 5 6 7 8 9 10 11\n", &d), -1);
}
END_TEST

static void counters(struct disk_counters *d, const char *line)
{
    ck_assert_int_eq(procfs_disk_stat(line, d), 0);
}

START_TEST(test_delta)
{
    struct disk_counters a, b, d;

    counters(&a, "10 0 80 5 1000 0 8000 300 0 100 400 1 0 8 1 500 10\n");
    counters(&b, "12 0 96 6 1400 0 9600 330 0 150 480 4 0 72 2 700 12\n");
    ck_assert_int_eq(diskstat_delta(&a, &b, &d), 0);
    same(&d, &(struct disk_counters){.reads = 2,
                                     .read_sectors = 16,
                                     .writes = 400,
                                     .write_sectors = 1600,
                                     .busy_ms = 50,
                                     .discards = 3,
                                     .discard_sectors = 64,
                                     .flushes = 200,
                                     .has_discards = 1,
                                     .has_flushes = 1});
    /* a counter that went back: another device under the number, no difference */
    ck_assert_int_eq(diskstat_delta(&b, &a, &d), -1);
    ck_assert_uint_eq(d.writes, 0);
    /* flushes counted in only one of the two: not counted */
    counters(&a, "10 0 80 5 1000 0 8000 300 0 100 400 1 0 8 1\n");
    ck_assert_int_eq(diskstat_delta(&a, &b, &d), 0);
    ck_assert(!d.has_flushes && d.flushes == 0);
}
END_TEST

/* A run of 200 messages: 1600 sectors (800 KiB) in 400 writes, 250 flushes, on vda. */
static void measured(struct diskstat *ds)
{
    memset(ds, 0, sizeof(*ds));
    ds->state = DISKSTAT_MEASURED;
    snprintf(ds->device, sizeof(ds->device), "vda");
    snprintf(ds->fstype, sizeof(ds->fstype), "ext4");
    ds->shared = 0;
    ds->delta.writes = 400;
    ds->delta.write_sectors = 1600;
    ds->delta.reads = 2;
    ds->delta.read_sectors = 16;
    ds->delta.flushes = 250;
    ds->delta.has_flushes = 1;
    ds->delta.has_discards = 1;
    ds->delta.busy_ms = 1500;
    ds->messages = 200;
}

START_TEST(test_per_message)
{
    struct diskstat ds;
    struct diskstat_per p;

    measured(&ds);
    diskstat_per_message(&ds, &p);
    ck_assert_double_eq_tol(p.bytes_written, 1600.0 * 512 / 200, 1e-9);
    ck_assert_double_eq_tol(p.write_ios, 2.0, 1e-9);
    ck_assert_double_eq_tol(p.flushes, 1.25, 1e-9);
    ck_assert_double_eq_tol(p.bytes_read, 16.0 * 512 / 200, 1e-9);
    ck_assert_double_eq_tol(p.read_ios, 0.01, 1e-9);
    ck_assert_double_eq_tol(p.discards, 0, 1e-9);
    ds.delta.has_flushes = 0;
    diskstat_per_message(&ds, &p);
    ck_assert(p.flushes < 0);
    ds.messages = 0; /* nothing to divide by: unknown, not infinite */
    diskstat_per_message(&ds, &p);
    ck_assert(p.bytes_written < 0 && p.write_ios < 0);
    measured(&ds);
    ds.state = DISKSTAT_NO_DEVICE;
    diskstat_per_message(&ds, &p);
    ck_assert(p.bytes_written < 0 && p.read_ios < 0);
}
END_TEST

START_TEST(test_bytes)
{
    static const struct {
        double bytes;
        const char *want;
    } cases[] = {
        {0, "0 B"},
        {1023, "1023 B"},
        {44134.4, "43.1 KiB"},
        {1.5 * 1024 * 1024, "1.50 MiB"},
        {3.0 * 1024 * 1024 * 1024, "3.00 GiB"},
    };
    char buf[32];

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        diskstat_bytes(cases[i].bytes, buf, sizeof(buf));
        ck_assert_str_eq(buf, cases[i].want);
    }
}
END_TEST

START_TEST(test_line)
{
    struct diskstat ds;
    char line[400], note[400];

    measured(&ds);
    diskstat_line(&ds, line, sizeof(line));
    ck_assert_str_eq(line, "vda: 4.0 KiB written, 2.00 write I/Os, 1.25 flushes per message; "
                           "41 B read, 0.01 read I/Os (the whole device's counts)");
    ck_assert_ptr_null(diskstat_note(&ds, note, sizeof(note)));
    ds.partition = 1;
    snprintf(ds.device, sizeof(ds.device), "vda1");
    ds.delta.has_flushes = 0;
    ds.delta.discards = 100;
    diskstat_line(&ds, line, sizeof(line));
    ck_assert_str_eq(line, "vda1: 4.0 KiB written, 2.00 write I/Os per message; 41 B read, "
                           "0.01 read I/Os, 0.50 discards (the partition's counts; flushes not "
                           "counted by this system)");
    ds.shared = 1;
    snprintf(ds.shared_with, sizeof(ds.shared_with), "/");
    ck_assert_ptr_eq(diskstat_note(&ds, note, sizeof(note)), note);
    ck_assert_str_eq(note, "vda1 holds the root file system: every writer on the system counts, "
                           "not the spool alone");
    snprintf(ds.shared_with, sizeof(ds.shared_with), "/var/log");
    diskstat_note(&ds, note, sizeof(note));
    ck_assert_str_eq(note, "vda1 is mounted on /var/log too: writers there count as well, not the "
                           "spool alone");
    ds.messages = 0;
    diskstat_line(&ds, line, sizeof(line));
    ck_assert_str_eq(line, "vda1: no messages to count per (the partition's counts)");

    memset(&ds, 0, sizeof(ds));
    ds.state = DISKSTAT_NO_DEVICE;
    snprintf(ds.fstype, sizeof(ds.fstype), "tmpfs");
    diskstat_line(&ds, line, sizeof(line));
    ck_assert_str_eq(line, "no block device (tmpfs)");
    ds.shared = 1; /* no device, no note */
    ck_assert_ptr_null(diskstat_note(&ds, note, sizeof(note)));
    ds.state = DISKSTAT_UNREADABLE;
    snprintf(ds.device, sizeof(ds.device), "loop3");
    diskstat_line(&ds, line, sizeof(line));
    ck_assert_str_eq(line, "loop3: its counts could not be read");
    ds.state = DISKSTAT_NOT_MEASURED;
    diskstat_line(&ds, line, sizeof(line));
    ck_assert_str_eq(line, "not measured");
}
END_TEST

static char *to_json(const struct diskstat *ds)
{
    struct check_memfile m;
    struct json_writer w;

    json_init(&w, check_memfile_open(&m));
    json_begin_object(&w, NULL);
    diskstat_write_json(&w, "disk", ds);
    json_end_object(&w);
    ck_assert_int_eq(json_finish(&w), 0);
    return check_memfile_text(&m);
}

static double number(const char *text, const char *path)
{
    double v = -12345;

    ck_assert_msg(json_read_number(text, path, &v) == 0, "%s: no number in\n%s", path, text);
    return v;
}

static void has_string(const char *text, const char *path, const char *want)
{
    char s[256];

    ck_assert_msg(json_read_string(text, path, s, sizeof(s)) == 0, "%s: no string", path);
    ck_assert_str_eq(s, want);
}

static int is_null(const char *text, const char *path)
{
    double v;
    char s[8];

    return json_read_number(text, path, &v) != 0 && json_read_string(text, path, s, 8) != 0;
}

START_TEST(test_json)
{
    struct diskstat ds, back;
    char *text, s[128];

    measured(&ds);
    ds.shared = 1;
    snprintf(ds.shared_with, sizeof(ds.shared_with), "/");
    text = to_json(&ds);
    has_string(text, "disk.state", "measured");
    has_string(text, "disk.device", "vda");
    ck_assert_double_eq(number(text, "disk.bytes_written"), 1600 * 512);
    ck_assert_double_eq(number(text, "disk.write_ios"), 400);
    ck_assert_double_eq(number(text, "disk.flushes"), 250);
    ck_assert_double_eq(number(text, "disk.discards"), 0);
    ck_assert_double_eq(number(text, "disk.messages"), 200);
    ck_assert_double_eq_tol(number(text, "disk.busy_s"), 1.5, 1e-9);
    ck_assert_double_eq_tol(number(text, "disk.per_message.flushes"), 1.25, 1e-9);
    ck_assert_double_eq_tol(number(text, "disk.per_message.bytes_written"), 4096, 1e-9);
    ck_assert(is_null(text, "disk.runs")); /* one run's object has none */
    ck_assert_int_eq(json_read_string(text, "disk.note", s, sizeof(s)), 0);
    ck_assert(strstr(s, "root file system") != NULL);
    ck_assert_int_eq(diskstat_read_json(text, "disk", &back), 0);
    ck_assert_int_eq(back.state, DISKSTAT_MEASURED);
    ck_assert_str_eq(back.device, "vda");
    ck_assert_int_eq(back.shared, 1);
    ck_assert_str_eq(back.shared_with, "/");
    ck_assert_int_eq(back.partition, 0);
    ck_assert(memcmp(&back.delta, &ds.delta, sizeof(ds.delta)) == 0);
    ck_assert_double_eq(back.messages, 200);
    free(text);

    /* tmpfs: said, and every count null */
    memset(&ds, 0, sizeof(ds));
    ds.state = DISKSTAT_NO_DEVICE;
    ds.shared = -1;
    ds.messages = 10;
    snprintf(ds.fstype, sizeof(ds.fstype), "tmpfs");
    text = to_json(&ds);
    has_string(text, "disk.note", "no block device (tmpfs)");
    has_string(text, "disk.state", "no_block_device");
    ck_assert(is_null(text, "disk.device"));
    ck_assert(is_null(text, "disk.shared"));
    ck_assert(is_null(text, "disk.bytes_written"));
    ck_assert(is_null(text, "disk.flushes"));
    ck_assert(is_null(text, "disk.busy_s"));
    ck_assert(is_null(text, "disk.per_message.bytes_written"));
    ck_assert_int_eq(diskstat_read_json(text, "disk", &back), 0);
    ck_assert_int_eq(back.state, DISKSTAT_NO_DEVICE);
    ck_assert_str_eq(back.fstype, "tmpfs");
    free(text);

    /* a kernel that counts no flushes: null, not 0 */
    measured(&ds);
    ds.delta.has_flushes = 0;
    text = to_json(&ds);
    ck_assert(is_null(text, "disk.flushes"));
    ck_assert(is_null(text, "disk.per_message.flushes"));
    ck_assert_int_eq(diskstat_read_json(text, "disk", &back), 0);
    ck_assert(!back.delta.has_flushes);
    free(text);

    /* a result without the object (postmark's, an older one) */
    ck_assert_int_eq(diskstat_read_json("{\"delivered\": 5}", "disk", &back), -1);
    ck_assert_int_eq(back.state, DISKSTAT_NOT_MEASURED);
}
END_TEST

START_TEST(test_add)
{
    struct diskstat one, sum;
    char line[400];

    memset(&sum, 0, sizeof(sum));
    measured(&one);
    diskstat_add(&sum, &one);
    one.shared = 1;
    snprintf(one.shared_with, sizeof(one.shared_with), "/");
    diskstat_add(&sum, &one);
    ck_assert_uint_eq(sum.runs, 2);
    ck_assert_int_eq(sum.state, DISKSTAT_MEASURED);
    ck_assert_uint_eq(sum.delta.writes, 800);
    ck_assert_uint_eq(sum.delta.flushes, 500);
    ck_assert_double_eq(sum.messages, 400);
    ck_assert_int_eq(sum.shared, 1);
    diskstat_line(&sum, line, sizeof(line));
    ck_assert_str_eq(line, "vda: 4.0 KiB written, 2.00 write I/Os, 1.25 flushes per message; "
                           "41 B read, 0.01 read I/Os (the whole device's counts, 2 runs)");
    /* a run without counts: the sum has none either, and says why */
    one.state = DISKSTAT_UNREADABLE;
    diskstat_add(&sum, &one);
    ck_assert_int_eq(sum.state, DISKSTAT_UNREADABLE);
    ck_assert_uint_eq(sum.runs, 3);
    ck_assert_double_eq(sum.messages, 600);
    measured(&one);
    diskstat_add(&sum, &one);
    ck_assert_int_eq(sum.state, DISKSTAT_UNREADABLE);
    ck_assert_uint_eq(sum.runs, 4);
    /* two devices: no one device's sum */
    memset(&sum, 0, sizeof(sum));
    diskstat_add(&sum, &one);
    snprintf(one.device, sizeof(one.device), "loop0");
    diskstat_add(&sum, &one);
    ck_assert_int_eq(sum.state, DISKSTAT_UNREADABLE);
    ck_assert_str_eq(sum.device, "runs on vda and loop0");
}
END_TEST

START_TEST(test_shared)
{
    static const char mounts[] = "22 1 254:1 / / rw,relatime - ext4 /dev/vda1 rw\n"
                                 "23 22 254:2 / /srv rw,relatime - xfs /dev/vda2 rw\n"
                                 "24 22 7:0 / /mnt/spool rw,relatime - ext4 /dev/loop0 rw\n"
                                 "25 22 0:30 / /tmp rw - tmpfs tmpfs rw\n"
                                 "26 22 254:2 /a /mnt/my\\040bind rw,relatime - xfs /dev/vda2 rw\n";
    char other[64] = "junk";

    ck_assert_int_eq(procfs_device_shared(mounts, "7:0", "/mnt/spool", other, sizeof(other)), 0);
    ck_assert_str_eq(other, "");
    ck_assert_int_eq(procfs_device_shared(mounts, "254:2", "/srv", other, sizeof(other)), 1);
    ck_assert_str_eq(other, "/mnt/my bind");
    ck_assert_int_eq(procfs_device_shared(mounts, "254:1", "/", other, sizeof(other)), 1);
    ck_assert_str_eq(other, "/");
    ck_assert_int_eq(procfs_device_shared(mounts, "8:0", "/x", other, sizeof(other)), -1);
    /* "7:0" is not a prefix match of "7:01" */
    ck_assert_int_eq(procfs_device_shared("24 22 7:01 / /m rw - ext4 /dev/x rw\n", "7:0", "/n",
                                          other, sizeof(other)),
                     -1);
}
END_TEST

int main(void)
{
    const TTest *const tests[] = {test_parse, test_delta, test_per_message, test_bytes, test_line,
                                  test_json,  test_add,   test_shared,      NULL};

    return check_run_tests("diskstat", tests);
}
