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
void relay_smtpd_close_all(struct relay_loop *loop);
void relay_smtpd_free_all(struct relay *r); /* every loop's, once they have ended */
void relay_smtpd_build_ehlo(struct relay *r);

#endif
