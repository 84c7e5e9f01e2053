/*
 * cpu_burn - spend a given amount of this thread's CPU time on real work.
 *
 * The relay's cost model (cost_model.h) makes it spend the CPU a real MTA
 * spends per message, on the thread that plays the MTA's process. The work
 * is an integer loop, not a sleep: it occupies a core, so it contends with
 * the kernel's journal threads, the load generator and the other stages
 * exactly as the real processes do. The amount is measured on the thread's
 * own CPU clock, so time the thread spends preempted does not count.
 *
 * cpu_burn_speed() is the reference speed: loop iterations per microsecond
 * of CPU on this machine. A model measured on one CPU is carried to another
 * by the ratio of their speeds.
 */
#ifndef SPOOLSIM_CPU_BURN_H
#define SPOOLSIM_CPU_BURN_H

#include <stdint.h>

/* This thread's CPU time in nanoseconds (CLOCK_THREAD_CPUTIME_ID). */
uint64_t cpu_burn_thread_ns(void);

/* Spin until this thread has used `ns' more nanoseconds of CPU. */
void cpu_burn_ns(uint64_t ns);

/*
 * Iterations of the burn loop per microsecond of CPU: the best of several
 * short runs, since a run can only be slowed (by a sibling hyperthread, a
 * cold cache, a frequency step), never sped up, by what else the machine does.
 */
double cpu_burn_speed(void);

#endif
