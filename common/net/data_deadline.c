/*
 * data_deadline - a minimum data rate for a server's DATA phase; see data_deadline.h.
 */
#include "config.h"

#include "clock.h"
#include "data_deadline.h"

static double seconds_left(const struct data_deadline *dl)
{
    double spent = (double)(clock_now_ns() - dl->start_ns) / 1e9;

    return smtp_data_time_left(dl->data, dl->timeout, dl->min_rate, spent);
}

static void arm(struct data_deadline *dl, double left)
{
    struct timeval tv;

    tv = clock_timeval(left); /* a past deadline, left < 0, fires at once */
    evtimer_add(dl->timer, &tv);
}

static void on_timer(evutil_socket_t fd, short what, void *arg)
{
    struct data_deadline *dl = arg;
    double left = seconds_left(dl);

    (void)fd;
    (void)what;
    if (left > 0)
        arm(dl, left); /* text arrived meanwhile: the budget grew */
    else
        dl->expired(dl->ctx);
}

void data_deadline_init(struct data_deadline *dl, struct event_base *base, double timeout,
                        double min_rate, void (*expired)(void *ctx), void *ctx)
{
    dl->base = base;
    dl->timer = NULL;
    dl->data = NULL;
    dl->timeout = timeout;
    dl->min_rate = min_rate;
    dl->start_ns = 0;
    dl->expired = expired;
    dl->ctx = ctx;
}

void data_deadline_start(struct data_deadline *dl, const struct smtp_data_reader *data)
{
    if (dl->min_rate <= 0)
        return;
    if (dl->timer == NULL)
        dl->timer = evtimer_new(dl->base, on_timer, dl);
    dl->data = data;
    dl->start_ns = clock_now_ns();
    arm(dl, seconds_left(dl));
}

void data_deadline_stop(struct data_deadline *dl)
{
    if (dl->timer)
        evtimer_del(dl->timer);
}

void data_deadline_free(struct data_deadline *dl)
{
    if (dl->timer)
        event_free(dl->timer);
    dl->timer = NULL;
}
