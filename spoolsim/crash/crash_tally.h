/*
 * crash_tally - what one crash point cost in acknowledged mail (no I/O).
 *
 * At a point whose cut came at time t (crash_plan.h): the messages owed
 * are those whose 250 smtp-source read before t; those the sink had
 * accepted before t are delivered whatever the spool lost; the rest must
 * be among the messages recovered from the crash image. Messages are
 * matched on Message-ID, size and checksum (msglog.h), so a damaged copy
 * is no copy. Of the owed messages, `lost' are neither delivered nor
 * recovered; `duplicated' counts the extra copies of an owed message
 * that was both delivered and recovered (a re-delivery, which is allowed).
 *
 * crash_tally_point_ids() matches on the Message-ID alone, for a real
 * MTA (spoolsim crash --mta): it adds headers of its own (Received:), so
 * what reaches the sink has another size and checksum than what was sent.
 *
 * The times are the messages' mono_ns fields (CLOCK_MONOTONIC, the
 * recorder's clock). smtp-source reads a 250 a little after the relay sent
 * it, so a 250 sent just before t but read after it is not owed at this
 * point: the count errs towards owing less, never more.
 */
#ifndef SPOOLSIM_CRASH_TALLY_H
#define SPOOLSIM_CRASH_TALLY_H

#include <stddef.h>
#include <stdint.h>

#include "msglog.h"

struct crash_tally {
    size_t owed, delivered, recovered, lost, duplicated;
};

void crash_tally_point(const struct msglog_set *acked, const struct msglog_set *sunk,
                       const struct msglog_set *recovered, uint64_t t_ns, struct crash_tally *out);
void crash_tally_point_ids(const struct msglog_set *acked, const struct msglog_set *sunk,
                           const struct msglog_set *recovered, uint64_t t_ns,
                           struct crash_tally *out);

#endif
