/*
 * sweep_search - the steps of `spoolsim sweep' and their verdicts; see sweep_search.h.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sweep_search.h"

static double allowed_growth(const struct sweep_measure *m)
{
    double fraction = SWEEP_GROWTH_FRACTION * m->offered_per_s * m->window_s;

    return fraction > SWEEP_GROWTH_SLACK ? fraction : SWEEP_GROWTH_SLACK;
}

enum sweep_reason sweep_search_judge(const struct sweep_measure *m, double slo_s)
{
    if (m->delivered_per_s < SWEEP_DELIVERED_MIN * m->offered_per_s)
        return SWEEP_FELL_BEHIND;
    if (m->queue_known && m->queue_end - m->queue_start > allowed_growth(m))
        return SWEEP_QUEUE_GREW;
    if (m->failures > 0)
        return SWEEP_FAILURES;
    if (m->p99_s > slo_s)
        return SWEEP_SLO;
    return SWEEP_HELD;
}

double sweep_search_growth_per_s(const struct sweep_measure *m)
{
    if (!m->queue_known || m->window_s <= 0)
        return 0;
    return (m->queue_end - m->queue_start) / m->window_s;
}

void sweep_search_reason_text(enum sweep_reason r, const struct sweep_measure *m, double slo_s,
                              char *out, size_t len)
{
    switch (r) {
    case SWEEP_HELD:
        snprintf(out, len, "held");
        break;
    case SWEEP_FELL_BEHIND:
        snprintf(out, len, "delivered %.1f %% of offered (under %.0f %%)",
                 m->offered_per_s > 0 ? 100 * m->delivered_per_s / m->offered_per_s : 0,
                 100 * SWEEP_DELIVERED_MIN);
        break;
    case SWEEP_QUEUE_GREW:
        snprintf(out, len, "the queue grew from %.0f to %.0f (%.1f/s)", m->queue_start,
                 m->queue_end, sweep_search_growth_per_s(m));
        break;
    case SWEEP_FAILURES:
        snprintf(out, len, "%.0f message%s failed", m->failures, m->failures == 1 ? "" : "s");
        break;
    case SWEEP_SLO:
        snprintf(out, len, "p99 %.0f ms over the SLO of %.0f ms", m->p99_s * 1e3, slo_s * 1e3);
        break;
    }
}

void sweep_search_init_list(struct sweep_search *s, const double *rates, size_t n)
{
    memset(s, 0, sizeof(*s));
    s->rates = rates;
    s->n_rates = n < SWEEP_MAX_RATES ? n : SWEEP_MAX_RATES;
    s->max_steps = (unsigned)s->n_rates;
}

void sweep_search_init_auto(struct sweep_search *s, double start, double factor, double tolerance,
                            unsigned max_steps)
{
    memset(s, 0, sizeof(*s));
    s->start = start;
    s->factor = factor;
    s->tolerance = tolerance;
    s->max_steps = max_steps < SWEEP_MAX_RATES ? max_steps : SWEEP_MAX_RATES;
}

double sweep_search_broke(const struct sweep_search *s)
{
    double low = 0;

    for (unsigned i = 0; i < s->steps; i++)
        if (!s->held[i] && (low == 0 || s->tried[i] < low))
            low = s->tried[i];
    return low;
}

double sweep_search_knee(const struct sweep_search *s)
{
    double broke = sweep_search_broke(s), knee = 0;

    for (unsigned i = 0; i < s->steps; i++)
        if (s->held[i] && (broke == 0 || s->tried[i] < broke) && s->tried[i] > knee)
            knee = s->tried[i];
    return knee;
}

double sweep_search_next(const struct sweep_search *s)
{
    double knee, broke;

    if (s->steps >= s->max_steps)
        return 0;
    if (s->rates)
        return s->rates[s->steps];
    if (s->steps == 0)
        return s->start;
    knee = sweep_search_knee(s);
    broke = sweep_search_broke(s);
    if (broke == 0)
        return knee * s->factor; /* still growing: every step so far held */
    if (broke - knee <= s->tolerance * broke)
        return 0;
    return (knee + broke) / 2;
}

void sweep_search_record(struct sweep_search *s, double rate, int held)
{
    if (s->steps >= SWEEP_MAX_RATES)
        return;
    s->tried[s->steps] = rate;
    s->held[s->steps] = held;
    s->steps++;
}

int sweep_search_parse_rates(const char *text, double *v, size_t max)
{
    const char *p = text;
    size_t n = 0;

    if (*p == 0)
        return -1;
    for (;;) {
        char *end;
        double r = strtod(p, &end);

        if (end == p || !(r > 0) || r > 1e7 || n == max)
            return -1;
        v[n++] = r;
        if (*end == 0)
            return (int)n;
        if (*end != ',')
            return -1;
        p = end + 1;
    }
}
