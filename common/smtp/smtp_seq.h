/*
 * smtp_seq - RFC 5321 command sequencing for an SMTP server (no I/O).
 *
 * smtp_seq_check() says whether a verb may come now: NULL if so, or the
 * 503 reply to send. smtp_seq_commit() records a verb the server answered
 * positively (it is not called after a rejection, so a refused RCPT does
 * not open the way to DATA).
 *
 * A session may send MAIL without HELO, as Postfix's smtpd and smtp-sink
 * allow, except after STARTTLS: TLS resets the session and a new EHLO is
 * then required (docs/security.md item 2).
 */
#ifndef SPOOLSIM_SMTP_SEQ_H
#define SPOOLSIM_SMTP_SEQ_H

#include "smtp_cmd.h"

struct smtp_seq {
    int helo_seen;
    int helo_required;
    int in_mail;
    unsigned rcpt_count;
    int tls_active;
};

void smtp_seq_init(struct smtp_seq *seq);
const char *smtp_seq_check(const struct smtp_seq *seq, enum smtp_verb verb);
void smtp_seq_commit(struct smtp_seq *seq, enum smtp_verb verb);

/* The transaction ended: after DATA's final reply, or a failed DATA. */
void smtp_seq_end_transaction(struct smtp_seq *seq);

/* TLS is up: forget everything the client said before (RFC 3207 4.2). */
void smtp_seq_tls_started(struct smtp_seq *seq);

#endif
