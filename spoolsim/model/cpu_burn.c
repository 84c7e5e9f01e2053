/*
 * cpu_burn - spend CPU time on real work; see cpu_burn.h.
 */
#include "config.h"

#include <stdatomic.h>
#include <time.h>

#include "cpu_burn.h"

#define CHUNK 4096 /* iterations between looks at the clock: a few microseconds */
/*
 * The speed is the loop's alone: reading a thread's CPU clock is a system
 * call (no vDSO for it), which costs 0.1 us on one machine and several on
 * another (mitigations, a hypervisor, bench/syscall-tax.py). Looked at every
 * CHUNK iterations it was 2 % of the figure, and a third of it with system
 * calls 20 times dearer; every SPEED_CHUNK it is a few thousandths at most.
 */
#define SPEED_CHUNK (64 * CHUNK)
#define SPEED_RUNS 15
#define SPEED_RUN_NS 10000000ULL /* 10 ms of CPU per run */

uint64_t cpu_burn_thread_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/*
 * A xorshift step per iteration: cheap, dependent on the one before (so it
 * cannot be vectorised away), and kept alive through an atomic sink (the
 * burning threads store to it at once: a plain variable would be a race).
 */
static uint64_t spin(uint64_t x, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
    }
    return x;
}

static _Atomic uint64_t sink;

/*
 * Steps are sized to what is left, at the pace measured so far (the first
 * from `speed'): whole CHUNKs overshot by half a chunk on average, a tenth
 * more than asked for with a dozen burns a message (it_relay_model). What
 * remains is a look or two at the clock.
 */
void cpu_burn_until(uint64_t end, double speed, const atomic_int *stop)
{
    uint64_t start = cpu_burn_thread_ns(), now = start, done = 0, x = 88172645463325252ULL;
    double first = speed > 0 ? (double)(end > now ? end - now : 0) * speed / 1000.0 : CHUNK;
    unsigned step = first < CHUNK ? (unsigned)first + 1 : CHUNK;

    while (now < end) {
        if (stop && atomic_load_explicit(stop, memory_order_relaxed))
            break;
        x = spin(x, step);
        done += step;
        now = cpu_burn_thread_ns();
        if (now < end) {
            double left = (double)(end - now) * (double)done / (double)(now - start + 1);

            step = left < CHUNK ? (unsigned)left + 1 : CHUNK;
        }
    }
    atomic_store_explicit(&sink, x, memory_order_relaxed);
}

double cpu_burn_speed(void)
{
    double best = 0;
    uint64_t x = 88172645463325252ULL;

    for (int r = 0; r < SPEED_RUNS; r++) {
        uint64_t start = cpu_burn_thread_ns(), now, iterations = 0;
        double speed;

        do {
            x = spin(x, SPEED_CHUNK);
            iterations += SPEED_CHUNK;
            now = cpu_burn_thread_ns();
        } while (now - start < SPEED_RUN_NS);
        speed = (double)iterations / ((double)(now - start) / 1000.0);
        if (speed > best)
            best = speed;
    }
    atomic_store_explicit(&sink, x, memory_order_relaxed);
    return best;
}
