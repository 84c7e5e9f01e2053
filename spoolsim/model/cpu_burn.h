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

#include <stdatomic.h>
#include <stdint.h>

/* This thread's CPU time in nanoseconds (CLOCK_THREAD_CPUTIME_ID). */
uint64_t cpu_burn_thread_ns(void);

/*
 * Spin until this thread's CPU clock reads `end' (cpu_burn_thread_ns()),
 * or until `*stop' (where stop is not NULL) is set: it is looked at
 * every few microseconds, so that a program that stops is not held by a
 * burn of seconds. `speed' is cpu_burn_speed()'s figure, or 0
 * when not known: it sizes the first step, so that a burn of a few
 * microseconds is not overshot by a whole step. A caller that burns several
 * amounts in a row burns to a running end, so that the overshoots do not add up.
 */
void cpu_burn_until(uint64_t end, double speed, const atomic_int *stop);

/*
 * Iterations of the burn loop per microsecond of CPU: the best of several
 * short runs, since a run can only be slowed (by a sibling hyperthread, a
 * cold cache, a frequency step), never sped up, by what else the machine does.
 */
double cpu_burn_speed(void);

#endif
