/*
 * machine_cost - what kinds of system work cost; see machine_cost.h.
 */
#include "config.h"

#include <stdio.h>

#include "machine_cost.h"

const char *const machine_cost_names[MACHINE_COST_KINDS] = {
    "burn_speed", "syscall_ns", "round_trip_us", "spawn_us", "fault_ns"};

static const char *const kind_words[MACHINE_COST_KINDS] = {
    "integer work", "system call", "process round trip", "spawn", "page fault"};

double machine_cost_get(const struct machine_cost *c, int kind)
{
    const double v[MACHINE_COST_KINDS] = {c->burn_speed, c->syscall_ns, c->round_trip_us,
                                          c->spawn_us, c->fault_ns};

    return kind >= 0 && kind < MACHINE_COST_KINDS ? v[kind] : 0;
}

void machine_cost_set(struct machine_cost *c, int kind, double value)
{
    double *v[MACHINE_COST_KINDS] = {&c->burn_speed, &c->syscall_ns, &c->round_trip_us,
                                     &c->spawn_us, &c->fault_ns};

    if (kind >= 0 && kind < MACHINE_COST_KINDS)
        *v[kind] = value;
}

void machine_cost_keep_best(struct machine_cost *best, const struct machine_cost *more)
{
    for (int k = 0; k < MACHINE_COST_KINDS; k++) {
        double b = machine_cost_get(best, k), m = machine_cost_get(more, k);
        int better = k == 0 ? m > b : m < b; /* burn_speed is a speed, the others are costs */

        if (m > 0 && (!(b > 0) || better))
            machine_cost_set(best, k, m);
    }
}

void machine_cost_json(const struct machine_cost *c, struct json_writer *w, const char *name)
{
    json_begin_object(w, name);
    for (int k = 0; k < MACHINE_COST_KINDS; k++)
        json_double(w, machine_cost_names[k], machine_cost_get(c, k));
    json_end_object(w);
}

/* here/there for one kind, > 1 meaning slower here; 0 when either side lacks it. */
static double ratio(const struct machine_cost *here, const struct machine_cost *there, int kind)
{
    double h = machine_cost_get(here, kind), t = machine_cost_get(there, kind);

    if (!(h > 0) || !(t > 0))
        return 0;
    return kind == 0 ? t / h : h / t; /* burn_speed is a speed, the others are costs */
}

void machine_cost_compare(const struct machine_cost *here, const struct machine_cost *there,
                          char *out, size_t len)
{
    int order[MACHINE_COST_KINDS], n = 0;
    size_t used = 0;

    for (int k = 0; k < MACHINE_COST_KINDS; k++)
        if (ratio(here, there, k) > 0)
            order[n++] = k;
    for (int i = 1; i < n; i++) /* largest ratio first: the few kinds need no qsort */
        for (int j = i; j > 0 && ratio(here, there, order[j]) > ratio(here, there, order[j - 1]);
             j--) {
            int t = order[j];

            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    if (len)
        out[0] = 0;
    for (int i = 0; i < n && used < len; i++) {
        int w = snprintf(out + used, len - used, "%s%s %.1fx", i ? ", " : "", kind_words[order[i]],
                         ratio(here, there, order[i]));

        if (w < 0)
            break;
        used += (size_t)w;
    }
}

double machine_cost_worst_ratio(const struct machine_cost *here, const struct machine_cost *there)
{
    double worst = 0;

    for (int k = 0; k < MACHINE_COST_KINDS; k++) {
        double r = ratio(here, there, k);

        if (r > worst)
            worst = r;
    }
    return worst;
}

#define SPAWN_KIND 3 /* in machine_cost_names */

int machine_cost_agree(const struct machine_cost *here, const struct machine_cost *there, char *why,
                       size_t len)
{
    size_t used = 0;
    int agree = 1;

    if (len)
        why[0] = 0;
    for (int k = 0; k < MACHINE_COST_KINDS; k++) {
        double r = ratio(here, there, k);

        if (k == SPAWN_KIND || r == 0 ||
            (r <= MACHINE_COST_TOLERANCE && r >= 1 / MACHINE_COST_TOLERANCE))
            continue;
        agree = 0;
        if (used < len) {
            int w =
                snprintf(why + used, len - used, "%s%s %.1fx", used ? ", " : "", kind_words[k], r);

            used += w > 0 ? (size_t)w : 0;
        }
    }
    return agree;
}
