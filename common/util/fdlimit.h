/*
 * fdlimit - the file descriptors a program may open (RLIMIT_NOFILE).
 *
 * A program with a socket per session (smtp-source, smtp-sink, the relay,
 * and bench for its children) raises its soft limit to the hard one at
 * start, fdlimit_raise(): a shell's default soft limit, often 1024, is
 * what an unprivileged process may raise itself, and more sessions than it
 * allows fail to connect (EMFILE) one after another at full speed, counted
 * as failed messages with the cause never shown. What still does not fit
 * is said before the run, fdlimit_check() (pure), naming the count needed
 * and both limits.
 */
#ifndef SPOOLSIM_FDLIMIT_H
#define SPOOLSIM_FDLIMIT_H

#include <stddef.h>
#include <stdint.h>

/* A limit the system does not set (RLIM_INFINITY). */
#define FDLIMIT_UNLIMITED UINT64_MAX

/*
 * Descriptors a program holds besides its sessions' sockets: standard
 * streams, logs and reports, each event loop's epoll and wake-up pipe, the
 * resolver, TLS's random device.
 */
#define FDLIMIT_RESERVE 64

/*
 * Raise the soft limit to the hard one; the limits after it in *soft and
 * *hard. 0, or -1 with errno when they cannot be read or the raise was
 * refused (then *soft and *hard are what they were, or FDLIMIT_UNLIMITED
 * when unknown).
 */
int fdlimit_raise(uint64_t *soft, uint64_t *hard);

/*
 * Whether `need' descriptors fit under the soft limit: 1, or 0 with the
 * sentence that says so in msg (len bytes), `what' being what needs them:
 * "-s 2000 needs about 2064 file descriptors, and this process may open
 * 1024 (ulimit -n; the hard limit is 1024): raise the hard limit (ulimit
 * -Hn, as root; LimitNOFILE= for a service), or give fewer".
 */
int fdlimit_check(uint64_t need, uint64_t soft, uint64_t hard, const char *what, char *msg,
                  size_t len);

/*
 * fdlimit_raise(), then fdlimit_check() of need: what does not fit is a
 * usage error (msg_usage(), exit 2) with that sentence, before the run.
 */
void fdlimit_need(uint64_t need, const char *what);

#endif
