/*
 * bench_drain - when `spoolsim bench' may call the relay's queue empty.
 *
 * The relay's queue is empty when no message file is left in its spool.
 * Where the files live depends on the profile: Postfix's incoming/,
 * active/ and deferred/, and for another MTA's profile every directory
 * that profile makes (mqueue/ for Sendmail, qmail's todo/, mess/, info/,
 * remote/..., Exim's input/ and msglog/, OpenSMTPD's queue/...). The
 * relay's own lock file (pid/relay.pid) is no message, nor are the files a
 * profile keeps for good (its `files': Exim's hints databases and locks). A profile that
 * keeps nothing on disk (null) holds its queue in memory only: there the
 * queue is empty once the sink has logged as many messages as the client
 * saw acknowledged. The counts of lines in the two message logs are kept
 * between calls, so a poll reads only what was added since the last.
 */
#ifndef SPOOLSIM_BENCH_DRAIN_H
#define SPOOLSIM_BENCH_DRAIN_H

#include <stddef.h>
#include <sys/types.h>

#include "profile.h"

/* The lines of a file that grows, counted as it grows. */
struct line_tally {
    off_t offset;
    size_t lines;
};

struct bench_drain {
    const struct profile *profile;
    const char *spool;
    const char *sent_log; /* the client's message log: what was acknowledged */
    const char *sink_log; /* the sink's, or NULL when there is no sink (--discard) */
    struct line_tally sent, received;
};

void bench_drain_init(struct bench_drain *d, const struct profile *p, const char *spool,
                      const char *sent_log, const char *sink_log);

/* How much is still queued (0: the queue is empty): files, or messages for the null profile. */
size_t bench_drain_pending(struct bench_drain *d);

/* Count the lines added to path since the last call (a missing file has none); the total. */
size_t bench_drain_tally_update(struct line_tally *t, const char *path);

#endif
