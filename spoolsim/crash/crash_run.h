/*
 * crash_run - what spoolsim crash does on the stack of devices
 * (crash_stack.h): the load, then the check of the crash points.
 *
 * crash_run_load(): smtp-sink as the next hop, `spoolsim relay' with its
 * spool on the recorded image, smtp-source's load until it ends; both
 * peers log every message with its CLOCK_MONOTONIC time, the recorder's
 * clock. Then the recording is stopped (crash_stack_stop_recording()).
 *
 * crash_run_check(): the recorder's log read (blklog.h, dmlog.h), the
 * crash points planned (crash_plan.h), each checked (crash_point.h) and
 * tallied against the peers' logs (crash_tally.h) into rep, which the
 * caller has zeroed and crash_report_free()s.
 *
 * A failure of either ends the run through crash_stack_fail(), an
 * interrupt during the load through crash_stack_finish(); an interrupt
 * during the check makes crash_run_check() return early, with the points
 * checked so far in rep.
 */
#ifndef SPOOLSIM_CRASH_RUN_H
#define SPOOLSIM_CRASH_RUN_H

#include "crash_report.h"
#include "crash_stack.h"

void crash_run_load(struct crash *c);
void crash_run_check(struct crash *c, struct crash_report *rep);

#endif
