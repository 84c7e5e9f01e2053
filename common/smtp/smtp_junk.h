/*
 * smtp_junk - commands that achieve nothing, counted as Postfix's smtpd
 * counts them (no I/O).
 *
 * HELO, EHLO and LHLO, RSET, NOOP, VRFY and HELP, and a RCPT refused for
 * the recipient limit, can be repeated forever: each gets its reply and no
 * mail moves. Postfix's smtpd lets smtpd_junk_command_limit (100) of them
 * pass and counts each one after that as an error, so that its hard error
 * limit ends the session; a message accepted starts the count again. Both
 * servers here do the same with --junk-limit (docs/security.md item 11):
 * smtp_junk_command() says whether a command is one error more.
 *
 * A server calls smtp_junk_count() itself for a command of its own that
 * achieves nothing (smtp-sink's AUTH, XCLIENT and XFORWARD).
 */
#ifndef SPOOLSIM_SMTP_JUNK_H
#define SPOOLSIM_SMTP_JUNK_H

#include "smtp_cmd.h"

struct smtp_junk {
    unsigned limit; /* junk commands that pass; 0: no limit */
    unsigned count; /* since the session's start or its last accepted message */
};

void smtp_junk_init(struct smtp_junk *j, unsigned limit);

/* 1 for the verbs that move no transaction on, however often they come. */
int smtp_junk_verb(enum smtp_verb verb);

/* One junk command more: 1 when it is past the limit, and so an error. */
int smtp_junk_count(struct smtp_junk *j);

/*
 * A command the server is about to answer, `over_rcpt_limit' when it is a
 * RCPT that gets 452 for the recipient limit: 1 when it counts as an error.
 */
int smtp_junk_command(struct smtp_junk *j, enum smtp_verb verb, int over_rcpt_limit);

/* A message was accepted: the client did something, its junk is forgiven. */
void smtp_junk_accepted(struct smtp_junk *j);

#endif
