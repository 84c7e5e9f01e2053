/*
 * crash_tally - one crash point's count; see crash_tally.h.
 */
#include "config.h"

#include <string.h>

#include "crash_tally.h"

static void add_before(struct msglog_set *to, const struct msglog_set *from, uint64_t t_ns)
{
    for (size_t i = 0; i < from->n; i++)
        if (from->v[i].mono_ns < t_ns)
            msglog_set_add(to, &from->v[i]);
}

static void tally(const struct msglog_set *acked, const struct msglog_set *sunk,
                  const struct msglog_set *recovered, uint64_t t_ns,
                  void (*compare)(struct msglog_set *, struct msglog_set *,
                                  struct msglog_compare *),
                  struct crash_tally *out)
{
    struct msglog_set owed, found;
    struct msglog_compare c;

    memset(out, 0, sizeof(*out));
    msglog_set_init(&owed);
    msglog_set_init(&found);
    add_before(&owed, acked, t_ns);
    add_before(&found, sunk, t_ns);
    out->delivered = found.n;
    for (size_t i = 0; i < recovered->n; i++)
        msglog_set_add(&found, &recovered->v[i]);
    out->recovered = recovered->n;
    compare(&owed, &found, &c);
    out->owed = owed.n;
    out->lost = c.lost;
    out->duplicated = c.duplicated;
    msglog_set_free(&owed);
    msglog_set_free(&found);
}

void crash_tally_point(const struct msglog_set *acked, const struct msglog_set *sunk,
                       const struct msglog_set *recovered, uint64_t t_ns, struct crash_tally *out)
{
    tally(acked, sunk, recovered, t_ns, msglog_compare, out);
}

void crash_tally_point_ids(const struct msglog_set *acked, const struct msglog_set *sunk,
                           const struct msglog_set *recovered, uint64_t t_ns,
                           struct crash_tally *out)
{
    tally(acked, sunk, recovered, t_ns, msglog_compare_ids, out);
}
