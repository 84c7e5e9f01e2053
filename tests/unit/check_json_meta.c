/*
 * Unit tests: json_meta, the header of every JSON result: the /proc
 * parsers, the date, and the keys it writes (read back with json_read).
 */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "check_json_text.h"
#include "json_meta.h"
#include "json_read.h"
#include "procfs.h"

START_TEST(test_cpu_model)
{
    static const char x86[] = "processor\t: 0\n"
                              "vendor_id\t: GenuineIntel\n"
                              "model\t\t: 85\n"
                              "model name\t: Intel(R) Xeon(R) Gold 6230 CPU @ 2.10GHz  \n"
                              "processor\t: 1\n"
                              "model name\t: another one\n";
    static const char arm[] = "processor\t: 0\nBogoMIPS\t: 108.00\n\nHardware\t: BCM2835\n"
                              "Model\t\t: Raspberry Pi 4 Model B Rev 1.4\n";
    char out[256];

    ck_assert_int_eq(procfs_cpu_model(x86, out, sizeof(out)), 0);
    ck_assert_str_eq(out, "Intel(R) Xeon(R) Gold 6230 CPU @ 2.10GHz");
    /* "model" is not "model name": the x86 line is found, not the number */
    ck_assert_int_eq(procfs_cpu_model(arm, out, sizeof(out)), 0);
    ck_assert_str_eq(out, "Raspberry Pi 4 Model B Rev 1.4");
    ck_assert_int_eq(procfs_cpu_model("processor : 0\nflags : fpu\n", out, sizeof(out)), -1);
    ck_assert_str_eq(out, "");
    ck_assert_int_eq(procfs_cpu_model("", out, sizeof(out)), -1);
    ck_assert_int_eq(procfs_cpu_model("model name\t:\n", out, sizeof(out)), -1);
    /* cut to fit */
    ck_assert_int_eq(procfs_cpu_model(x86, out, 6), 0);
    ck_assert_str_eq(out, "Intel");
}
END_TEST

START_TEST(test_mem_total)
{
    uint64_t b = 7;

    ck_assert_int_eq(procfs_mem_total("MemTotal:       24684092 kB\nMemFree: 1 kB\n", &b), 0);
    ck_assert_uint_eq(b, 24684092ULL * 1024);
    ck_assert_int_eq(procfs_mem_total("MemFree: 1 kB\nMemTotal: 2 kB", &b), 0);
    ck_assert_uint_eq(b, 2048);
    b = 7;
    ck_assert_int_eq(procfs_mem_total("MemFree: 1 kB\n", &b), -1);
    ck_assert_int_eq(procfs_mem_total("MemTotal: lots\n", &b), -1);
    ck_assert_int_eq(procfs_mem_total("MemTotal: 12 MB\n", &b), -1);
    ck_assert_int_eq(procfs_mem_total("MemTotalX: 12 kB\n", &b), -1);
    ck_assert_uint_eq(b, 7);
}
END_TEST

START_TEST(test_date)
{
    char out[64];

    json_meta_date(0, out, sizeof(out));
    ck_assert_str_eq(out, "1970-01-01T00:00:00Z");
    json_meta_date(1796113833, out, sizeof(out));
    ck_assert_str_eq(out, "2026-12-01T08:30:33Z");
}
END_TEST

static void string_is(const char *text, const char *path, const char *want)
{
    char got[256];

    ck_assert_msg(json_read_string(text, path, got, sizeof(got)) == 0, "no string at %s", path);
    ck_assert_str_eq(got, want);
}

static void number_is(const char *text, const char *path, double want)
{
    double got;

    ck_assert_msg(json_read_number(text, path, &got) == 0, "no number at %s", path);
    ck_assert_double_eq(got, want);
}

/* Write a header into a memory stream; the text, which the caller frees. */
static char *header(const struct json_run *run, const struct json_host *host, const char *spool,
                    const struct fsinfo *fs)
{
    struct json_text t;
    struct json_writer *w = json_text_begin(&t);

    json_meta_write_with(w, run, host, 0);
    if (spool)
        json_meta_write_spool(w, "spool", spool, fs);
    return json_text_end(&t);
}

START_TEST(test_header)
{
    char *argv[] = {"bench", "-m", "5", "--spool", "/var/tmp"};
    struct json_run run = {"spoolsim bench", "spoolsim", 5, argv};
    struct json_host host = {"box", "Linux 6.1.0", "x86_64", "A CPU", 2, 4096};
    struct fsinfo fs = {"/", "ext4", "/dev/vda", "rw,relatime"};
    char *text = header(&run, &host, "/var/tmp/s", &fs), s[256];

    number_is(text, "schema_version", JSON_SCHEMA_VERSION);
    string_is(text, "program", "spoolsim bench");
    string_is(text, "version", json_meta_version());
    ck_assert_int_gt(strlen(json_meta_version()), 0);
    string_is(text, "command_line.0", "spoolsim");
    string_is(text, "command_line.1", "bench");
    string_is(text, "command_line.5", "/var/tmp");
    ck_assert_int_eq(json_read_string(text, "command_line.6", s, sizeof(s)), -1);
    string_is(text, "date", "1970-01-01T00:00:00Z");
    string_is(text, "host.name", "box");
    string_is(text, "host.kernel", "Linux 6.1.0");
    string_is(text, "host.cpu_model", "A CPU");
    number_is(text, "host.cpus", 2);
    number_is(text, "host.memory_bytes", 4096);
    string_is(text, "spool.path", "/var/tmp/s");
    string_is(text, "spool.device", "/dev/vda");
    string_is(text, "spool.filesystem", "ext4");
    string_is(text, "spool.mount_options", "rw,relatime");
    free(text);
}
END_TEST

/* What is not known is null, not "": a reader can tell the two apart. */
START_TEST(test_header_unknowns)
{
    struct json_run run = {"smtp-sink", NULL, 0, NULL};
    struct json_host host;
    struct fsinfo fs;
    char *text, s[64];

    memset(&host, 0, sizeof(host));
    memset(&fs, 0, sizeof(fs));
    text = header(&run, &host, "/x", &fs);
    ck_assert_ptr_nonnull(strstr(text, "\"command_line\": []"));
    ck_assert_ptr_nonnull(strstr(text, "\"name\": null"));
    ck_assert_ptr_nonnull(strstr(text, "\"filesystem\": null"));
    ck_assert_int_eq(json_read_string(text, "spool.device", s, sizeof(s)), -1);
    free(text);
}
END_TEST

/* The host of this machine: whatever it is, it has a name, a kernel and a CPU. */
START_TEST(test_host_lookup)
{
    struct json_host h;

    json_meta_host_lookup(&h);
    ck_assert_int_gt(strlen(h.name), 0);
    ck_assert_int_gt(strlen(h.kernel), 0);
    ck_assert_int_ge(h.cpus, 1);
    ck_assert_uint_gt(h.memory_bytes, 0);
}
END_TEST

int main(void)
{
    const TTest *const tests[] = {test_cpu_model,       test_mem_total,   test_date, test_header,
                                  test_header_unknowns, test_host_lookup, NULL};

    return check_run_tests("json_meta", tests);
}
