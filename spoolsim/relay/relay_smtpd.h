/*
 * relay_smtpd - the relay's SMTP server side: a loop's client sessions, on
 * its thread; a message is received, handed to the cleanup side and
 * answered 250 once its commit is durable.
 */
#ifndef SPOOLSIM_RELAY_SMTPD_H
#define SPOOLSIM_RELAY_SMTPD_H

#include <sys/socket.h>

struct relay;
struct relay_loop;
struct relay_msg;
struct relay_session;

void relay_smtpd_accept(struct relay_loop *loop, int fd, const struct sockaddr *addr);
/* The cleanup thread has committed (or failed to commit) the client's message. */
void relay_smtpd_committed(struct relay_session *s, struct relay_msg *m);
/* A cleanup thread has opened or written the client's file (m->job_status says how it went). */
void relay_smtpd_streamed(struct relay_session *s, struct relay_msg *m);
void relay_smtpd_close_all(struct relay_loop *loop);
void relay_smtpd_free_all(struct relay *r); /* every loop's, once they have ended */
void relay_smtpd_build_ehlo(struct relay *r);

#endif
