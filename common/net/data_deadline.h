/*
 * data_deadline - a minimum data rate for a server's DATA phase.
 *
 * Postfix's smtpd_min_data_rate: DATA may last the idle timeout plus one
 * second for every `min_rate' bytes of content received, so a client that
 * trickles a byte at a time cannot hold a session (docs/security.md item 8).
 * The timer re-checks when due, as the budget grows while text arrives,
 * and calls `expired' once the client has fallen behind. With min_rate 0
 * there is no deadline and start does nothing.
 */
#ifndef SPOOLSIM_DATA_DEADLINE_H
#define SPOOLSIM_DATA_DEADLINE_H

#include <event2/event.h>
#include <stdint.h>

#include "smtp_data.h"

struct data_deadline {
    struct event_base *base;
    struct event *timer; /* made when first needed */
    const struct smtp_data_reader *data;
    double timeout, min_rate;
    uint64_t start_ns;
    void (*expired)(void *ctx);
    void *ctx;
};

void data_deadline_init(struct data_deadline *dl, struct event_base *base, double timeout,
                        double min_rate, void (*expired)(void *ctx), void *ctx);
/* At the start of DATA; `data' is the session's reader, counting the content. */
void data_deadline_start(struct data_deadline *dl, const struct smtp_data_reader *data);
void data_deadline_stop(struct data_deadline *dl);
void data_deadline_free(struct data_deadline *dl);

#endif
