/*
 * relay_deliver - the relay's delivery agents: SMTP to the next hop
 * (relay_smtp.c) and the local next hops, discard and maildir:DIR
 * (relay_local.c). Each delivers m, then calls relay_attempt_delivered(m)
 * on loop 0.
 */
#ifndef SPOOLSIM_RELAY_DELIVER_H
#define SPOOLSIM_RELAY_DELIVER_H

#include <stddef.h>

struct relay;
struct relay_msg;

int relay_smtp_init(struct relay *r, char *err, size_t errlen);
/* On loop 0: start what the connection limits allow, on every loop. */
void relay_smtp_deliver(struct relay *r);
void relay_smtp_close_all(struct relay *r); /* every loop's, once they have ended */
void relay_local_deliver(struct relay *r, struct relay_msg *m);
int relay_local_init(struct relay *r, char *err, size_t errlen);

#endif
