/*
 * machine_probe - what this machine is and what work costs on it; see machine_probe.h.
 *
 * Each benchmark times many small samples one by one and keeps their lower
 * quartile: on a machine that other programs share, a sample is slowed
 * when the partner process waits for a core or a timer interrupt lands in
 * it, never sped up, and the lower quartile is what the work itself costs
 * while staying clear of a lucky outlier. Totals over a whole run (a mean)
 * were seen to change 5 times with the load of the machine; the quartile
 * by a few tens of per cent.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cpu_burn.h"
#include "json_meta.h"
#include "machine_probe.h"

#define MAX_SAMPLES 1000

struct samples {
    double v[MAX_SAMPLES];
    unsigned n;
};

static double now_ns(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static void add(struct samples *s, double start, unsigned count)
{
    if (s->n < MAX_SAMPLES)
        s->v[s->n++] = (now_ns() - start) / count;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

static double lower_quartile(struct samples *s)
{
    qsort(s->v, s->n, sizeof(s->v[0]), by_value);
    return s->n ? s->v[s->n / 4] : 0;
}

static double measure_syscall_ns(struct samples *s)
{
    s->n = 0;
    for (int r = 0; r < 200; r++) {
        double start = now_ns();

        /* getppid: no libc cache, no argument checking, nothing to do in the kernel */
        for (int i = 0; i < 100; i++)
            (void)getppid();
        add(s, start, 100);
    }
    return lower_quartile(s);
}

/*
 * Both processes on the CPU this one runs on: a round trip is then two
 * switches between address spaces and four system calls, what a machine
 * charges for IPC, and not how long a wake-up waits for the other CPU,
 * which follows the machine's load (40 us against 10 us pinned, on one
 * machine with two busy loops beside it).
 */
static int measure_round_trip_us(struct samples *s, double *out, char *err, size_t errlen)
{
    int sv[2];
    pid_t pid;
    char c = 'x';
    int ok = 1, pinned = 0, cpu = sched_getcpu();
    cpu_set_t was, one;

    if (cpu >= 0 && sched_getaffinity(0, sizeof(was), &was) == 0) {
        CPU_ZERO(&one);
        CPU_SET(cpu, &one);
        pinned = sched_setaffinity(0, sizeof(one), &one) == 0;
    }
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) {
        snprintf(err, errlen, "socketpair: %s", strerror(errno));
        if (pinned)
            sched_setaffinity(0, sizeof(was), &was);
        return -1;
    }
    if ((pid = fork()) < 0) {
        snprintf(err, errlen, "fork: %s", strerror(errno));
        close(sv[0]);
        close(sv[1]);
        if (pinned)
            sched_setaffinity(0, sizeof(was), &was);
        return -1;
    }
    if (pid == 0) {
        close(sv[0]);
        while (read(sv[1], &c, 1) == 1 && write(sv[1], &c, 1) == 1)
            ;
        _exit(0);
    }
    close(sv[1]);
    s->n = 0;
    for (int i = 0; i < MAX_SAMPLES && ok; i++) {
        double start = now_ns();

        ok = write(sv[0], &c, 1) == 1 && read(sv[0], &c, 1) == 1;
        add(s, start, 1);
    }
    close(sv[0]); /* the partner reads end-of-file and exits */
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
        ;
    if (pinned)
        sched_setaffinity(0, sizeof(was), &was);
    if (!ok) {
        snprintf(err, errlen, "round trip to a child process failed");
        return -1;
    }
    *out = lower_quartile(s) / 1000.0;
    return 0;
}

static int spawn_once(const char *self)
{
    int status;
    pid_t pid = fork();

    if (pid < 0)
        return -1;
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);

        if (null >= 0) {
            dup2(null, STDOUT_FILENO);
            dup2(null, STDERR_FILENO);
        }
        execl(self, self, "--version", (char *)NULL);
        _exit(127);
    }
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

static int measure_spawn_us(struct samples *s, const char *self, double *out, char *err,
                            size_t errlen)
{
    s->n = 0;
    for (int i = 0; i < 24; i++) {
        double start = now_ns();

        if (spawn_once(self) != 0) {
            snprintf(err, errlen, "cannot run %s --version", self);
            return -1;
        }
        add(s, start, 1);
    }
    *out = lower_quartile(s) / 1000.0;
    return 0;
}

static int measure_fault_ns(struct samples *s, double *out, char *err, size_t errlen)
{
    const size_t page = (size_t)sysconf(_SC_PAGESIZE), pages = 2048, batch = 16;
    volatile char *mem =
        mmap(NULL, page * pages, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

    if (mem == MAP_FAILED) {
        snprintf(err, errlen, "mmap: %s", strerror(errno));
        return -1;
    }
    s->n = 0;
    for (size_t first = 0; first < pages; first += batch) {
        double start = now_ns();

        for (size_t i = first; i < first + batch; i++)
            mem[i * page] = 1;
        add(s, start, (unsigned)batch);
    }
    munmap((void *)mem, page * pages);
    *out = lower_quartile(s);
    return 0;
}

int machine_probe_costs(const char *self, struct machine_cost *c, char *err, size_t errlen)
{
    struct samples *s = malloc(sizeof(*s));
    int rc = -1;

    memset(c, 0, sizeof(*c));
    if (s == NULL) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    c->burn_speed = cpu_burn_speed();
    c->syscall_ns = measure_syscall_ns(s);
    if (measure_round_trip_us(s, &c->round_trip_us, err, errlen) == 0 &&
        measure_spawn_us(s, self, &c->spawn_us, err, errlen) == 0 &&
        measure_fault_ns(s, &c->fault_ns, err, errlen) == 0)
        rc = 0;
    free(s);
    return rc;
}

int machine_probe_costs_more(const char *self, int rounds, struct machine_cost *c, char *err,
                             size_t errlen)
{
    for (int r = 0; r < rounds; r++) {
        const struct timespec pause = {0, MACHINE_PROBE_PAUSE_MS * 1000000L};
        struct machine_cost more;

        if (c->syscall_ns > 0)
            while (nanosleep(&pause, NULL) != 0 && errno == EINTR)
                ;
        if (machine_probe_costs(self, &more, err, errlen) != 0)
            return -1;
        machine_cost_keep_best(c, &more);
    }
    return 0;
}

void machine_probe_identity(struct cost_machine *mc)
{
    struct json_host host;

    json_meta_host_lookup(&host);
    memset(mc, 0, sizeof(*mc));
    snprintf(mc->cpu_model, sizeof(mc->cpu_model), "%.159s", host.cpu_model);
    mc->cpus = host.cpus;
    snprintf(mc->kernel, sizeof(mc->kernel), "%.95s", host.kernel);
}
