/*
 * retry_policy - when a deferred message is tried again (no I/O).
 *
 * The relay's one answer, as Postfix's qmgr keeps its own in one place:
 * the wait before the next attempt doubles from --min-backoff with each
 * attempt made, up to --max-backoff; a deferred queue file is stamped
 * with the time it is due (its mtime, as Postfix's qmgr reads it), and a
 * relay that restarts waits from that stamp, never longer than the
 * longest back-off (a stamp far ahead is a clock that moved). A file step
 * that fails for a passing reason (a full disk) backs off the same way,
 * counted by its failures in a row.
 */
#ifndef SPOOLSIM_RETRY_POLICY_H
#define SPOOLSIM_RETRY_POLICY_H

#include <stdint.h>

struct retry_policy {
    uint64_t min_ns, max_ns; /* --min-backoff, --max-backoff; min_ns <= max_ns */
};

/* The wait after `attempts' attempts (0 and 1 alike: the first wait is min_ns). */
uint64_t retry_policy_backoff_ns(const struct retry_policy *p, unsigned attempts);

/* The stamp of a file deferred at now_s that waits wait_ns: when it is due, in whole seconds. */
long retry_policy_due_s(long now_s, uint64_t wait_ns);

/* At a restart: the wait until a deferred file's stamp, 0 when due, at most max_ns. */
uint64_t retry_policy_wait_until_ns(const struct retry_policy *p, long due_s, long now_s);

#endif
