/*
 * check_bottleneck - the verdict on what limited a run, and the parsers of
 * the kernel's usage files it is fed from.
 */
#include "config.h"

#include <check.h>
#include <string.h>

#include "bottleneck.h"
#include "check_main.h"
#include "sysusage.h"

static void machine(struct utilization *u, double cpu, double disk, double serial)
{
    utilization_init(u);
    u->cores = 2;
    u->machine_busy = cpu;
    u->disk_busy = disk;
    u->serial_busy = serial;
    u->serial_name = "the queue manager";
    utilization_add(u, "relay", 0.96);
    utilization_add(u, "source", 0.44);
    utilization_add(u, "sink", 0.16);
}

START_TEST(test_cpu_bound)
{
    struct utilization u;
    char line[600];

    machine(&u, 0.97, -1, 0.30);
    bottleneck_verdict(&u, line, sizeof(line));
    ck_assert_str_eq(line,
                     "limited by CPU: 2 of 2 cores 97 % busy (relay 48 %, source 22 %, sink 8 %)");
}
END_TEST

START_TEST(test_disk_bound)
{
    struct utilization u;
    char line[600];

    machine(&u, 0.40, 0.99, 0.50);
    u.fsync_p50_ms = 2.9;
    bottleneck_verdict(&u, line, sizeof(line));
    ck_assert_str_eq(line,
                     "limited by the disk: 99 % busy, fsync p50 2.90 ms (CPU 40 % of 2 cores)");
}
END_TEST

/* The queue manager waits on the disk: it is the limit as long as it is as busy. */
START_TEST(test_serial_bound)
{
    struct utilization u;
    char line[600];

    machine(&u, 0.35, 0.93, 0.96);
    bottleneck_verdict(&u, line, sizeof(line));
    ck_assert_str_eq(line,
                     "limited by the queue manager: its thread 96 % busy (disk 93 %, CPU 35 %)");
    machine(&u, 0.99, -1, 0.95); /* CPU saturated and the serial stage close behind */
    bottleneck_verdict(&u, line, sizeof(line));
    ck_assert(strncmp(line, "limited by the queue manager", 28) == 0);
    machine(&u, 0.99, -1, 0.91); /* CPU clearly ahead */
    bottleneck_verdict(&u, line, sizeof(line));
    ck_assert(strncmp(line, "limited by CPU", 14) == 0);
}
END_TEST

START_TEST(test_near)
{
    struct utilization u;
    char line[600];

    machine(&u, 0.86, 0.30, 0.20);
    bottleneck_verdict(&u, line, sizeof(line));
    ck_assert_str_eq(line, "close to the CPU limit: 2 cores 86 % busy (relay 48 %, source 22 %, "
                           "sink 8 %)");
    machine(&u, 0.50, 0.84, 0.20);
    bottleneck_verdict(&u, line, sizeof(line));
    ck_assert_str_eq(line, "close to the disk's limit: 84 % busy (CPU 50 % of 2 cores)");
    machine(&u, 0.50, 0.30, 0.85);
    bottleneck_verdict(&u, line, sizeof(line));
    ck_assert_str_eq(line,
                     "close to the limit of the queue manager: its thread 85 % busy (CPU 50 %)");
}
END_TEST

START_TEST(test_not_saturated)
{
    struct utilization u;
    char line[600];

    machine(&u, 0.30, -1, 0.10);
    bottleneck_verdict(&u, line, sizeof(line));
    ck_assert_str_eq(line,
                     "not saturated: CPU 30 % of 2 cores (relay 48 %, source 22 %, sink 8 %), "
                     "no disk (not a block device): the offered load or the clients' round "
                     "trips set the rate");
}
END_TEST

/* A 2-core machine at 2000 msgs/s: relay 300 us, source 200 us, sink 80 us per message. */
static void harness(struct harness_usage *h, double busy, unsigned threads)
{
    memset(h, 0, sizeof(*h));
    h->cores = 2;
    h->machine_busy = busy;
    h->rate = 2000;
    h->relay_s = 300e-6;
    h->source_s = 200e-6;
    h->sink_s = 80e-6;
    h->threads = threads;
}

START_TEST(test_harness_fine)
{
    struct harness_usage h;
    char line[600] = "junk";

    /* 0.4 of a core for the source, 0.6 for the relay, the machine half idle */
    harness(&h, 0.55, 1);
    ck_assert_int_eq(harness_verdict(&h, line, sizeof(line)), 0);
    ck_assert_str_eq(line, "");
    /* busy, but the relay takes more than the harness: the relay is the limit */
    harness(&h, 0.95, 1);
    ck_assert_int_eq(harness_verdict(&h, line, sizeof(line)), 0);
    /* just under 80 % of a core */
    harness(&h, 0.50, 1);
    h.source_s = 399e-6;
    ck_assert_int_eq(harness_verdict(&h, line, sizeof(line)), 0);
    /* nothing carried: nothing to say */
    harness(&h, 0.95, 1);
    h.rate = 0;
    h.source_s = 1;
    ck_assert_int_eq(harness_verdict(&h, line, sizeof(line)), 0);
    ck_assert_str_eq(line, "");
}
END_TEST

START_TEST(test_harness_one_core)
{
    struct harness_usage h;
    char line[600];

    /* the source needs 0.9 of its one core with a core to spare: more threads */
    harness(&h, 0.75, 1);
    h.source_s = 450e-6;
    ck_assert_int_eq(harness_verdict(&h, line, sizeof(line)), 1);
    ck_assert_str_eq(line, "the harness is the limit: smtp-source needs 0.90 of the 1 core its 1 "
                           "thread can use (450 us per message at 2000 msgs/s); try "
                           "--harness-threads 2");
    /* exactly 80 % counts */
    h.source_s = 400e-6;
    ck_assert_int_eq(harness_verdict(&h, line, sizeof(line)), 1);
    /* the sink, when it is the one at its limit */
    harness(&h, 0.75, 1);
    h.sink_s = 500e-6;
    ck_assert_int_eq(harness_verdict(&h, line, sizeof(line)), 1);
    ck_assert_str_eq(line, "the harness is the limit: smtp-sink needs 1.00 of the 1 core its 1 "
                           "thread can use (500 us per message at 2000 msgs/s); try "
                           "--harness-threads 2");
    /* the machine already full: threads would take the relay's cores */
    harness(&h, 0.97, 1);
    h.source_s = 450e-6;
    ck_assert_int_eq(harness_verdict(&h, line, sizeof(line)), 1);
    ck_assert_str_eq(line, "the harness is the limit: smtp-source needs 0.90 of the 1 core its 1 "
                           "thread can use (450 us per message at 2000 msgs/s); run smtp-source "
                           "and smtp-sink on other hosts (docs/multi-host.md)");
}
END_TEST

START_TEST(test_harness_threads)
{
    struct harness_usage h;
    char line[600];

    /* two threads on two cores: 0.9 of a core is no limit any more */
    harness(&h, 0.75, 2);
    h.source_s = 450e-6;
    ck_assert_int_eq(harness_verdict(&h, line, sizeof(line)), 0);
    /* 1.7 of 2 cores is, and there are no more cores to give it */
    h.source_s = 850e-6;
    ck_assert_int_eq(harness_verdict(&h, line, sizeof(line)), 1);
    ck_assert_str_eq(line, "the harness is the limit: smtp-source needs 1.70 of the 2 cores its 2 "
                           "threads can use (850 us per message at 2000 msgs/s); run smtp-source "
                           "and smtp-sink on other hosts (docs/multi-host.md)");
    /* more threads than cores: the cores are the bound; on 8 cores, doubling is the advice */
    harness(&h, 0.75, 4);
    h.source_s = 850e-6;
    ck_assert_int_eq(harness_verdict(&h, line, sizeof(line)), 1);
    ck_assert(strstr(line, "1.70 of the 2 cores its 4 threads") != NULL);
    harness(&h, 0.30, 2);
    h.cores = 8;
    h.source_s = 850e-6;
    ck_assert_int_eq(harness_verdict(&h, line, sizeof(line)), 1);
    ck_assert(strstr(line, "try --harness-threads 4") != NULL);
    h.threads = 6;
    h.source_s = 2500e-6;
    ck_assert_int_eq(harness_verdict(&h, line, sizeof(line)), 1);
    ck_assert(strstr(line, "try --harness-threads 8") != NULL);
}
END_TEST

/* Neither at its own limit, but together more of a busy machine than the relay. */
START_TEST(test_harness_share)
{
    struct harness_usage h;
    char line[600];

    harness(&h, 0.92, 1);
    h.source_s = 320e-6; /* 0.64 core */
    h.sink_s = 150e-6;   /* 0.30 core */
    h.relay_s = 400e-6;  /* 0.80 core */
    ck_assert_int_eq(harness_verdict(&h, line, sizeof(line)), 1);
    ck_assert_str_eq(line, "the harness is the limit: smtp-source and smtp-sink take 51 % of the "
                           "machine's busy CPU, the relay 43 % (2 cores 92 % busy); run "
                           "smtp-source and smtp-sink on other hosts (docs/multi-host.md)");
    /* the same shares on a machine with idle cores limit nothing */
    h.machine_busy = 0.70;
    ck_assert_int_eq(harness_verdict(&h, line, sizeof(line)), 0);
    /* nor when the machine's busy time is unknown */
    h.machine_busy = -1;
    ck_assert_int_eq(harness_verdict(&h, line, sizeof(line)), 0);
    /* no sink (--discard): the source alone */
    harness(&h, 0.92, 1);
    h.sink_s = -1;
    h.source_s = 350e-6;
    ck_assert_int_eq(harness_verdict(&h, line, sizeof(line)), 1);
    ck_assert(strstr(line, "take 38 % of the machine's busy CPU, the relay 33 %") != NULL);
}
END_TEST

START_TEST(test_parsers)
{
    uint64_t busy, total, ticks;
    char comm[32];
    struct disk_counters d;

    ck_assert_int_eq(
        sysusage_parse_cpu("cpu  100 5 50 800 40 3 2 0 0 0\ncpu0 1 2 3 4\n", &busy, &total), 0);
    ck_assert_uint_eq(total, 1000);
    ck_assert_uint_eq(busy, 160);
    ck_assert_int_eq(sysusage_parse_cpu("intr 1 2 3", &busy, &total), -1);
    /* A command name with spaces and parentheses: the last ')' ends it. */
    ck_assert_int_eq(sysusage_parse_pid_stat("42 (jbd2/loop0-8) S 2 0 0 0 -1 69238880 0 0 0 0 "
                                             "17 25 0 0 20 0 1 0 100 0 0",
                                             comm, sizeof(comm), &ticks),
                     0);
    ck_assert_str_eq(comm, "jbd2/loop0-8");
    ck_assert_uint_eq(ticks, 42);
    ck_assert_int_eq(sysusage_parse_pid_stat("7 (a (b) c) R 1 1 1 0 -1 0 0 0 0 0 3 4 0 0", comm,
                                             sizeof(comm), &ticks),
                     0);
    ck_assert_str_eq(comm, "a (b) c");
    ck_assert_uint_eq(ticks, 7);
    ck_assert_int_eq(sysusage_parse_pid_stat("garbage", comm, sizeof(comm), &ticks), -1);
    ck_assert_int_eq(
        sysusage_parse_disk("  10 0 80 5 200 0 1600 300 0 450 305 0 0 0 0 77 12\n", &d), 0);
    ck_assert_uint_eq(d.reads, 10);
    ck_assert_uint_eq(d.writes, 200);
    ck_assert_uint_eq(d.busy_ms, 450);
    ck_assert_uint_eq(d.flushes, 77);
    ck_assert_int_eq(sysusage_parse_disk("1 2 3", &d), -1);
    ck_assert(sysusage_storage_thread("jbd2/vda1-8"));
    ck_assert(sysusage_storage_thread("kworker/u4:2-ext4-rsv-conversion"));
    ck_assert(!sysusage_storage_thread("smtpd"));
}
END_TEST

static Suite *bottleneck_suite(void)
{
    Suite *s = suite_create("bottleneck");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, test_cpu_bound);
    tcase_add_test(tc, test_disk_bound);
    tcase_add_test(tc, test_serial_bound);
    tcase_add_test(tc, test_near);
    tcase_add_test(tc, test_not_saturated);
    tcase_add_test(tc, test_harness_fine);
    tcase_add_test(tc, test_harness_one_core);
    tcase_add_test(tc, test_harness_threads);
    tcase_add_test(tc, test_harness_share);
    tcase_add_test(tc, test_parsers);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return check_run_suite(bottleneck_suite());
}
