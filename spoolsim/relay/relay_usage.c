/*
 * relay_usage - utilization over the busy window; see relay_usage.h.
 */
#include "config.h"

#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "clock.h"
#include "platform.h"
#include "relay_private.h"
#include "relay_stats.h"
#include "relay_usage.h"
#include "sysusage.h"

#define MARK_GAP_NS (100 * CLOCK_NS_PER_MS)

void relay_usage_init(struct relay *r)
{
    r->has_disk = platform_disk_of(r->spool.dir, r->disk_id, sizeof(r->disk_id)) == 0;
    sysusage_find_kthreads(&r->kthreads);
}

static void on_mark_timer(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    relay_stats_sample(arg);
}

void relay_usage_mark(struct relay *r)
{
    const struct relay_stats *st = &r->stats;
    uint64_t age;
    struct timeval tv;

    if (st->sample_count == 0 ||
        (age = clock_now_ns() - st->samples[st->sample_count - 1].sys.t_ns) >= MARK_GAP_NS) {
        relay_stats_sample(r);
        return;
    }
    /* Too soon for another look at the system: take it once the gap has passed. */
    if (r->usage_timer == NULL)
        r->usage_timer = evtimer_new(r->base, on_mark_timer, r);
    if (evtimer_pending(r->usage_timer, NULL))
        return;
    tv = clock_timeval_ns(MARK_GAP_NS - age);
    evtimer_add(r->usage_timer, &tv);
}

void relay_usage_free(struct relay *r)
{
    if (r->usage_timer)
        event_free(r->usage_timer);
    r->usage_timer = NULL;
}

/* The sample nearest to `t' (the marks are taken just after the events they mark). */
static size_t nearest(const struct relay_stats *st, uint64_t t)
{
    size_t best = 0;

    for (size_t i = 1; i < st->sample_count; i++) {
        uint64_t d =
            st->samples[i].sys.t_ns > t ? st->samples[i].sys.t_ns - t : t - st->samples[i].sys.t_ns;
        uint64_t e = st->samples[best].sys.t_ns > t ? st->samples[best].sys.t_ns - t
                                                    : t - st->samples[best].sys.t_ns;
        if (d < e)
            best = i;
    }
    return best;
}

int relay_usage_busy(const struct relay *r, struct utilization *u, double *qmgr_busy,
                     double *loop_busy)
{
    const struct relay_stats *st = &r->stats;
    const struct relay_sample *a, *b;
    size_t ia, ib;
    uint64_t from, to;
    double dt, hz = (double)platform_ticks_per_second(), total;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);

    bottleneck_utilization_init(u);
    if (st->sample_count < 2)
        return -1;
    if (relay_stats_busy_span(r, &from, &to) == 0) {
        ia = nearest(st, from);
        ib = nearest(st, to);
    } else
        ia = 0, ib = st->sample_count - 1;
    if (ib <= ia)
        return -1;
    a = &st->samples[ia];
    b = &st->samples[ib];
    dt = (double)(b->sys.t_ns - a->sys.t_ns) / 1e9;
    if (dt <= 0 || !a->sys.has_cpu || !b->sys.has_cpu)
        return -1; /* no machine CPU: the shares would be wrong, not unknown */
    u->cores = cores > 0 ? (unsigned)cores : 1;
    total = (double)(b->sys.cpu_total_ticks - a->sys.cpu_total_ticks);
    u->machine_busy =
        total > 0 ? (double)(b->sys.cpu_busy_ticks - a->sys.cpu_busy_ticks) / total : 0;
    {
        double relay = (double)(b->self_cpu_ns - a->self_cpu_ns) / 1e9 / dt;
        /* a sum over the kernel threads alive at each sample: one that exits takes its
         * ticks out of the later sum, which can then be the smaller (an unsigned
         * difference gave "kernel storage threads -2147483648 %") */
        double kernel = b->sys.kernel_ticks > a->sys.kernel_ticks
                            ? (double)(b->sys.kernel_ticks - a->sys.kernel_ticks) / hz / dt
                            : 0;
        double others = u->machine_busy * u->cores - relay - kernel;

        bottleneck_utilization_add(u, "relay", relay);
        bottleneck_utilization_add(u, "kernel storage threads", kernel);
        bottleneck_utilization_add(u, "everything else", others > 0 ? others : 0);
    }
    if (r->has_disk && a->sys.has_disk && b->sys.has_disk)
        u->disk_busy = (double)(b->sys.disk.busy_ms - a->sys.disk.busy_ms) / 1e3 / dt;
    if (r->qmgr != r->cleanup) {
        u->serial_busy = (double)(b->qmgr_busy_ns - a->qmgr_busy_ns) / 1e9 / dt;
        u->serial_name = "the queue manager";
    }
    {
        /*
         * Loop 0 never blocks: its CPU is its busy time, and it can be the
         * wall as the queue manager can (then --threads helps, while the
         * loop's sessions are what fills it).
         */
        double loop = (double)(b->loop_cpu_ns - a->loop_cpu_ns) / 1e9 / dt;

        if (loop_busy)
            *loop_busy = loop > 1 ? 1 : loop;
        if (qmgr_busy)
            *qmgr_busy = u->serial_busy > 1 ? 1 : u->serial_busy;
        if (loop > u->serial_busy) {
            u->serial_busy = loop;
            u->serial_name = r->loop_count > 1 ? "the first event loop" : "the event loop";
        }
    }
    if (u->disk_busy > 1)
        u->disk_busy = 1;
    if (u->serial_busy > 1)
        u->serial_busy = 1;
    return 0;
}

int relay_usage_window(const struct relay *r, struct utilization *u)
{
    return relay_usage_busy(r, u, NULL, NULL);
}

void relay_usage_json(const struct relay *r, struct json_writer *w)
{
    struct utilization u;
    char verdict[600];
    double qmgr_busy = -1, loop_busy = -1;

    if (relay_usage_busy(r, &u, &qmgr_busy, &loop_busy) != 0) {
        json_string(w, "utilization", NULL);
        return;
    }
    bottleneck_verdict(&u, verdict, sizeof(verdict));
    json_begin_object(w, "utilization");
    json_uint(w, "cores", u.cores);
    json_double(w, "machine_busy", u.machine_busy);
    for (unsigned i = 0; i < u.part_count; i++) {
        char key[64];
        size_t k = 0;

        for (const char *p = u.parts[i].name; *p && k + 8 < sizeof(key); p++)
            key[k++] = *p == ' ' ? '_' : *p;
        memcpy(key + k, "_cores", 7);
        json_double(w, key, u.parts[i].cores);
    }
    if (u.disk_busy >= 0)
        json_double(w, "disk_busy", u.disk_busy);
    else
        json_string(w, "disk_busy", NULL);
    if (qmgr_busy >= 0)
        json_double(w, "qmgr_busy", qmgr_busy);
    json_double(w, "loop_busy", loop_busy);
    json_string(w, "bottleneck", verdict);
    json_end_object(w);
}
