/*
 * relay_deliver - the relay's delivery agents: SMTP to the next hop
 * (relay_smtp.c) and the local next hops, discard and maildir:DIR
 * (relay_local.c). The queue manager knows an agent only as the struct
 * relay_agent that relay.c chose for --next-hop (r->agent): when messages
 * are ready it calls the agent's deliver_ready(), which takes them
 * (relay_qmgr_next_ready()) as its limits allow and ends each delivery
 * with relay_attempt_delivered(m) on loop 0, the one completion.
 */
#ifndef SPOOLSIM_RELAY_DELIVER_H
#define SPOOLSIM_RELAY_DELIVER_H

#include <stddef.h>

struct relay;

struct relay_agent {
    const char *name;
    /* On loop 0: start delivering the ready messages its limits allow. */
    void (*deliver_ready)(struct relay *r);
};

/* SMTP: as many at once as the connection limits allow, on every loop. */
extern const struct relay_agent relay_smtp_agent;
int relay_smtp_init(struct relay *r, char *err, size_t errlen);
void relay_smtp_close_all(struct relay *r); /* every loop's, once they have ended */

/* discard and maildir:DIR: every ready message at once (maildir's on the cleanup threads). */
extern const struct relay_agent relay_local_agent;
int relay_local_init(struct relay *r, char *err, size_t errlen);

#endif
