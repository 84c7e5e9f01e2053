/*
 * relay_bounce - the bounce service: a notification made from a message's
 * bounce or defer log and posted as a new queue file.
 */
#ifndef SPOOLSIM_RELAY_BOUNCE_H
#define SPOOLSIM_RELAY_BOUNCE_H

struct relay_msg;

/*
 * relay_bounce.c, on a cleanup thread: m->flush's log becomes a
 * notification in incoming/ (its ID in m->dsn_id) and is removed. Sets
 * m->job_status: one of these, or -1 with m->job_errno (and the log kept).
 */
#define RELAY_BOUNCE_SENDER 0     /* to the original's sender */
#define RELAY_BOUNCE_POSTMASTER 1 /* a double bounce, to --bounce-to-postmaster */
#define RELAY_BOUNCE_DISCARDED 2  /* nobody to tell; m->job_err says why */
void relay_bounce_flush_work(struct relay_msg *m);

#endif
