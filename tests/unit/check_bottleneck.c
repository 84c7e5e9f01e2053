/*
 * check_bottleneck - the verdict on what limited a run, and the parsers of
 * the kernel's usage files it is fed from.
 */
#include "config.h"

#include <check.h>
#include <string.h>

#include "bottleneck.h"
#include "check_main.h"
#include "procfs.h"
#include "sysusage.h"

static void machine(struct utilization *u, double cpu, double disk, double serial)
{
    bottleneck_utilization_init(u);
    u->cores = 2;
    u->machine_busy = cpu;
    u->disk_busy = disk;
    u->serial_busy = serial;
    u->serial_name = "the queue manager";
    bottleneck_utilization_add(u, "relay", 0.96);
    bottleneck_utilization_add(u, "source", 0.44);
    bottleneck_utilization_add(u, "sink", 0.16);
}

/*
 * The verdict on machine()'s figures (fsync_p50_ms < 0: unknown): `want' is
 * the whole line, or with `start' only its beginning.
 */
static const struct verdict_case {
    double cpu, disk, serial, fsync_p50_ms;
    const char *want;
    int start;
} verdict_cases[] = {
    {0.97, -1, 0.30, -1,
     "limited by CPU: 2 of 2 cores 97 % busy (relay 48 %, source 22 %, sink 8 %)", 0},
    {0.40, 0.99, 0.50, 2.9,
     "limited by the disk: 99 % busy, fsync p50 2.90 ms (CPU 40 % of 2 cores)", 0},
    /* The queue manager waits on the disk: it is the limit as long as it is as busy. */
    {0.35, 0.93, 0.96, -1,
     "limited by the queue manager: its thread 96 % busy (disk 93 %, CPU 35 %)", 0},
    /* CPU saturated and the serial stage close behind */
    {0.99, -1, 0.95, -1, "limited by the queue manager", 1},
    {0.99, -1, 0.91, -1, "limited by CPU", 1}, /* CPU clearly ahead */
    {0.86, 0.30, 0.20, -1,
     "close to the CPU limit: 2 cores 86 % busy (relay 48 %, source 22 %, sink 8 %)", 0},
    {0.50, 0.84, 0.20, -1, "close to the disk's limit: 84 % busy (CPU 50 % of 2 cores)", 0},
    {0.50, 0.30, 0.85, -1,
     "close to the limit of the queue manager: its thread 85 % busy (CPU 50 %)", 0},
    {0.30, -1, 0.10, -1,
     "not saturated: CPU 30 % of 2 cores (relay 48 %, source 22 %, sink 8 %), no disk (not a "
     "block device): the offered load or the clients' round trips set the rate",
     0},
};

START_TEST(test_verdict)
{
    struct utilization u;
    char line[600];

    for (size_t i = 0; i < sizeof(verdict_cases) / sizeof(verdict_cases[0]); i++) {
        const struct verdict_case *c = &verdict_cases[i];

        machine(&u, c->cpu, c->disk, c->serial);
        u.fsync_p50_ms = c->fsync_p50_ms;
        bottleneck_verdict(&u, line, sizeof(line));
        if (c->start)
            ck_assert_msg(strncmp(line, c->want, strlen(c->want)) == 0, "case %zu: %s", i, line);
        else
            ck_assert_msg(strcmp(line, c->want) == 0, "case %zu: %s", i, line);
    }
}
END_TEST

/*
 * The harness verdict with fixed figures. The base: a 2-core machine at
 * 2000 msgs/s, the relay 300 us, the source 200 us, the sink 80 us per
 * message; each case changes some of it. `want' is the whole line (""
 * for no warning), or, with `part', a piece of it.
 */
struct harness_case {
    const char *what;
    double busy;
    unsigned threads, cores;
    double rate, relay_us, source_us, sink_us; /* 0: the base's; sink < 0: no sink */
    const char *want;
    int part;
};

#define MORE_THREADS "; try --harness-threads 2"
#define ELSEWHERE "; run smtp-source and smtp-sink on other hosts (docs/multi-host.md)"
#define ONE_CORE(who, need, us)                                                                    \
    "the harness is the limit: " who " needs " need " of the 1 core its 1 thread can use (" us     \
    " us per message at 2000 msgs/s)"

static const struct harness_case harness_cases[] = {
    {"the source 0.4 core, the relay 0.6, the machine half idle", 0.55, 1, 0, 0, 0, 0, 0, "", 0},
    {"busy, but the relay takes more than the harness", 0.95, 1, 0, 0, 0, 0, 0, "", 0},
    {"just under 80 % of a core", 0.50, 1, 0, 0, 0, 399, 0, "", 0},
    {"nothing carried: nothing to say", 0.95, 1, 0, -1, 0, 1e6, 0, "", 0},
    {"the source at 0.9 of its one core, a core to spare: more threads", 0.75, 1, 0, 0, 0, 450, 0,
     ONE_CORE("smtp-source", "0.90", "450") MORE_THREADS, 0},
    {"exactly 80 % counts", 0.75, 1, 0, 0, 0, 400, 0, "smtp-source needs 0.80 of the 1 core", 1},
    {"the sink, when it is the one at its limit", 0.75, 1, 0, 0, 0, 0, 500,
     ONE_CORE("smtp-sink", "1.00", "500") MORE_THREADS, 0},
    {"the machine already full: threads would take the relay's cores", 0.97, 1, 0, 0, 0, 450, 0,
     ONE_CORE("smtp-source", "0.90", "450") ELSEWHERE, 0},
    {"two threads on two cores: 0.9 of a core is no limit", 0.75, 2, 0, 0, 0, 450, 0, "", 0},
    {"1.7 of 2 cores is, and no core is left to give", 0.75, 2, 0, 0, 0, 850, 0,
     "the harness is the limit: smtp-source needs 1.70 of the 2 cores its 2 threads can use (850 "
     "us per message at 2000 msgs/s)" ELSEWHERE,
     0},
    {"more threads than cores: the cores are the bound", 0.75, 4, 0, 0, 0, 850, 0,
     "1.70 of the 2 cores its 4 threads", 1},
    {"on 8 cores, doubling the threads is the advice", 0.30, 2, 8, 0, 0, 850, 0,
     "try --harness-threads 4", 1},
    {"and never beyond the cores", 0.30, 6, 8, 0, 0, 2500, 0, "try --harness-threads 8", 1},
    {"neither at its limit, together more of a busy machine than the relay", 0.92, 1, 0, 0, 400,
     320, 150,
     "the harness is the limit: smtp-source and smtp-sink take 51 % of the machine's busy CPU, "
     "the relay 43 % (2 cores 92 % busy)" ELSEWHERE,
     0},
    {"the same shares with idle cores limit nothing", 0.70, 1, 0, 0, 400, 320, 150, "", 0},
    {"nor with the machine's busy time unknown", -1, 1, 0, 0, 400, 320, 150, "", 0},
    {"no sink (--discard): the source alone", 0.92, 1, 0, 0, 0, 350, -1,
     "take 38 % of the machine's busy CPU, the relay 33 %", 1},
};

START_TEST(test_harness)
{
    const struct harness_case *c = &harness_cases[_i];
    struct harness_usage h = {
        .cores = c->cores ? c->cores : 2,
        .machine_busy = c->busy,
        .rate = c->rate < 0 ? 0
                : c->rate   ? c->rate
                            : 2000,
        .relay_s = (c->relay_us ? c->relay_us : 300) / 1e6,
        .source_s = (c->source_us ? c->source_us : 200) / 1e6,
        .sink_s = c->sink_us < 0 ? -1 : (c->sink_us ? c->sink_us : 80) / 1e6,
        .threads = c->threads,
    };
    char line[600] = "junk";
    int got = bottleneck_harness_verdict(&h, line, sizeof(line));

    ck_assert_msg(got == (c->want[0] != 0), "%s: returned %d, \"%s\"", c->what, got, line);
    if (c->part)
        ck_assert_msg(strstr(line, c->want) != NULL, "%s: \"%s\"", c->what, line);
    else
        ck_assert_msg(strcmp(line, c->want) == 0, "%s: \"%s\"", c->what, line);
}
END_TEST

START_TEST(test_parsers)
{
    uint64_t busy, total, ticks;
    char comm[32];
    struct disk_counters d;

    ck_assert_int_eq(
        procfs_stat_cpu("cpu  100 5 50 800 40 3 2 0 0 0\ncpu0 1 2 3 4\n", &busy, &total), 0);
    ck_assert_uint_eq(total, 1000);
    ck_assert_uint_eq(busy, 160);
    ck_assert_int_eq(procfs_stat_cpu("intr 1 2 3", &busy, &total), -1);
    /* A command name with spaces and parentheses: the last ')' ends it. */
    ck_assert_int_eq(procfs_pid_stat("42 (jbd2/loop0-8) S 2 0 0 0 -1 69238880 0 0 0 0 "
                                     "17 25 0 0 20 0 1 0 100 0 0",
                                     comm, sizeof(comm), &ticks),
                     0);
    ck_assert_str_eq(comm, "jbd2/loop0-8");
    ck_assert_uint_eq(ticks, 42);
    ck_assert_int_eq(
        procfs_pid_stat("7 (a (b) c) R 1 1 1 0 -1 0 0 0 0 0 3 4 0 0", comm, sizeof(comm), &ticks),
        0);
    ck_assert_str_eq(comm, "a (b) c");
    ck_assert_uint_eq(ticks, 7);
    ck_assert_int_eq(procfs_pid_stat("garbage", comm, sizeof(comm), &ticks), -1);
    ck_assert_int_eq(procfs_disk_stat("  10 0 80 5 200 0 1600 300 0 450 305 0 0 0 0 77 12\n", &d),
                     0);
    ck_assert_uint_eq(d.reads, 10);
    ck_assert_uint_eq(d.writes, 200);
    ck_assert_uint_eq(d.busy_ms, 450);
    ck_assert_uint_eq(d.flushes, 77);
    ck_assert_int_eq(procfs_disk_stat("1 2 3", &d), -1);
    ck_assert(procfs_storage_thread("jbd2/vda1-8"));
    ck_assert(procfs_storage_thread("kworker/u4:2-ext4-rsv-conversion"));
    ck_assert(!procfs_storage_thread("smtpd"));
}
END_TEST

int main(void)
{
    const TTest *const tests[] = {test_verdict, test_parsers, NULL};

    return check_run_loop("bottleneck", 0, tests, test_harness, CHECK_ROWS(harness_cases));
}
