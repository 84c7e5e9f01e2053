/*
 * fdlimit - the file descriptors a program may open; see fdlimit.h.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <sys/resource.h>

#include "fdlimit.h"
#include "msg.h"

static uint64_t from_rlim(rlim_t v)
{
    return v == RLIM_INFINITY ? FDLIMIT_UNLIMITED : (uint64_t)v;
}

int fdlimit_raise(uint64_t *soft, uint64_t *hard)
{
    struct rlimit rl;

    *soft = *hard = FDLIMIT_UNLIMITED;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
        return -1;
    *soft = from_rlim(rl.rlim_cur);
    *hard = from_rlim(rl.rlim_max);
    if (rl.rlim_cur == rl.rlim_max)
        return 0;
    rl.rlim_cur = rl.rlim_max;
    if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
        return -1;
    *soft = *hard;
    return 0;
}

int fdlimit_check(uint64_t need, uint64_t soft, uint64_t hard, const char *what, char *msg,
                  size_t len)
{
    char hard_text[32];

    if (need <= soft)
        return 1;
    if (hard == FDLIMIT_UNLIMITED)
        snprintf(hard_text, sizeof(hard_text), "unlimited");
    else
        snprintf(hard_text, sizeof(hard_text), "%" PRIu64, hard);
    snprintf(msg, len,
             "%s needs about %" PRIu64 " file descriptors, and this process may open %" PRIu64
             " (ulimit -n; the hard limit is %s): raise the hard limit (ulimit -Hn, as root; "
             "LimitNOFILE= for a service), or give fewer",
             what, need, soft, hard_text);
    return 0;
}

void fdlimit_need(uint64_t need, const char *what)
{
    uint64_t soft, hard;
    char msg[400];

    fdlimit_raise(&soft, &hard); /* where it cannot, the limits as they are say what is short */
    if (!fdlimit_check(need, soft, hard, what, msg, sizeof(msg)))
        msg_usage("%s", msg);
}
