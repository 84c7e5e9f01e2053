/*
 * sweep_search - which offered rates `spoolsim sweep' tries, and whether
 * a step held. Pure: no I/O, no clock; sweep.c measures, this decides.
 *
 * A step holds when the relay kept up with it: it delivered at least
 * SWEEP_DELIVERED_MIN of the offered rate over the measured window, its
 * queue did not grow (by more than SWEEP_GROWTH_SLACK messages, or
 * SWEEP_GROWTH_FRACTION of what was offered in the window, whichever is
 * more: a queue of a busy relay moves by what is in flight), no message
 * failed, and the client's p99 from the intended send time stayed within
 * the SLO. The first rule broken is the step's reason.
 *
 * The search, given a list: every rate, in the order given; the knee is
 * the highest rate that held below the lowest that did not (so a noisy
 * pass above a failure does not count). Automatic: from `start', times
 * `factor' until a step fails, then bisection between the highest rate
 * that held and the lowest that failed, until they are within
 * `tolerance' of the failed one (relative), or `max_steps' steps ran.
 */
#ifndef SPOOLSIM_SWEEP_SEARCH_H
#define SPOOLSIM_SWEEP_SEARCH_H

#include <stddef.h>

#define SWEEP_DELIVERED_MIN 0.99
#define SWEEP_GROWTH_SLACK 5.0
#define SWEEP_GROWTH_FRACTION 0.01
#define SWEEP_MAX_RATES 64

/* What one step measured, as the verdict needs it. */
struct sweep_measure {
    double offered_per_s;   /* the rate asked for */
    double delivered_per_s; /* over the window: the sink's, or the target's acceptance */
    double window_s;
    int queue_known; /* 0 when there is no spool to look at (--target) */
    double queue_start, queue_end;
    double p99_s;    /* the client's, from the intended send time */
    double failures; /* the client's failed messages in the window */
};

enum sweep_reason {
    SWEEP_HELD = 0,
    SWEEP_FELL_BEHIND, /* delivered < 99 % of offered */
    SWEEP_QUEUE_GREW,
    SWEEP_FAILURES,
    SWEEP_SLO, /* p99 over the SLO */
};

/* The verdict on one step against the SLO (seconds). */
enum sweep_reason sweep_search_judge(const struct sweep_measure *m, double slo_s);

/* Why, in a few words ("held", "delivered 93.1 % of offered", ...), in out. */
void sweep_search_reason_text(enum sweep_reason r, const struct sweep_measure *m, double slo_s,
                              char *out, size_t len);

/* The queue's growth per second over the window; 0 when unknown. */
double sweep_search_growth_per_s(const struct sweep_measure *m);

struct sweep_search {
    /* the plan */
    const double *rates; /* a list (n_rates > 0), or NULL: automatic */
    size_t n_rates;
    double start, factor, tolerance;
    unsigned max_steps;
    /* what ran so far */
    unsigned steps;
    double tried[SWEEP_MAX_RATES];
    int held[SWEEP_MAX_RATES];
};

void sweep_search_init_list(struct sweep_search *s, const double *rates, size_t n);
/* max_steps at most SWEEP_MAX_RATES. */
void sweep_search_init_auto(struct sweep_search *s, double start, double factor, double tolerance,
                            unsigned max_steps);

/* The next rate to try, or 0 when the search is done. */
double sweep_search_next(const struct sweep_search *s);

/* The step at rate ran: it held or not. */
void sweep_search_record(struct sweep_search *s, double rate, int held);

/* The knee: the highest rate that held below every failure (0: none held). */
double sweep_search_knee(const struct sweep_search *s);

/* The lowest rate that failed above the knee (0: none failed). */
double sweep_search_broke(const struct sweep_search *s);

/* Parse "100,200,400" (each positive, ascending not required) into v; count, or -1. */
int sweep_search_parse_rates(const char *text, double *v, size_t max);

#endif
