/*
 * crash_mta - `spoolsim crash --mta postfix': the real MTA where the relay
 * was, and its own restart judging every crash point.
 *
 * The MTA is the one `spoolsim bench --mta' runs (bench_mta.h):
 * bench/mta-serve.sh, Debian's package fetched by scripts/fetch-peer.sh,
 * a private loopback-only instance with its own configuration, never
 * installed; its daemons are crash's children, in crash's mount
 * namespace and tied to it (platform.h), so that they see the recorded
 * image and end with it.
 *
 * The contract:
 * - crash_mta_check_options(): --mta's usage errors (exit 2), said before
 *   anything is made: an MTA not supported yet (exim, opensmtpd and
 *   sendmail by name) or unknown, and the relay's options (--profile other
 *   than the MTA's, --sync, --model), which a real MTA does not take. The
 *   profile becomes the MTA's: its restart is what --mta replaces.
 * - crash_mta_ready(): the script found, and the work directory's parent
 *   passable by the MTA's unprivileged daemons; exit 2 naming what lacks.
 * - crash_mta_start(): the load's MTA, its queue at SPOOL, relaying to the
 *   sink: its port, or -1 with its reason said (the caller exits 3).
 * - crash_mta_restart(): at one crash point, on the repaired and mounted
 *   image: a fresh smtp-sink, then the MTA started on the spool as the cut
 *   left it, told to deliver everything now (and again every 5 s), and
 *   waited for until its own listing of the queue is empty or
 *   CRASH_MTA_DRAIN_SECONDS pass, then stopped; what reached the sink is r->recovered, the queue
 * files the MTA set aside as corrupt (Postfix's corrupt/) are r->corrupt, and a queue that did not
 * empty says so in r->note. An MTA that will not start on the spool the cut left has refused it:
 * r->refused, its reason in r->note, nothing recovered (it started on the image before the cut).
 * 0, or -1 with err when the sink failed or the MTA's script could not be run (the run cannot
 * complete). A spool the cut never made durable holds nothing: the MTA is not started.
 * - crash_mta_stop(): the restart's children stopped (an interrupt): the
 *   MTA through its script, which stops what is left of it; safe to call
 *   twice. Nothing of the MTA runs once it returns, so the image unmounts.
 */
#ifndef SPOOLSIM_CRASH_MTA_H
#define SPOOLSIM_CRASH_MTA_H

#include <limits.h>
#include <stddef.h>

#include "crash.h"
#include "crash_point.h"
#include "drive.h"

/* How long a restarted MTA may take to deliver what it recovered. */
#define CRASH_MTA_DRAIN_SECONDS 60

struct crash_mta {
    const struct drive *d;
    const char *name; /* "postfix" */
    char script[PATH_MAX], sink_path[PATH_MAX];
    struct drive_child sink, mta;
};

void crash_mta_check_options(struct crash_options *o);
void crash_mta_ready(struct crash_mta *m, const struct drive *d, const char *mta,
                     const char *parent, const char *sink_path);
int crash_mta_start(struct crash_mta *m, struct drive_child *c, const char *spool, int sink_port);
int crash_mta_restart(struct crash_mta *m, const char *spool, struct crash_result *r, char *err,
                      size_t errlen);
void crash_mta_stop(struct crash_mta *m);

#endif
