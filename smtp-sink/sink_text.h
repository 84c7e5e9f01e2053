/*
 * sink_text - the texts smtp-sink sends, and the one it looks for (no I/O).
 *
 * The greeting and EHLO replies are built once from the options. -E needs
 * the enhanced status code ("2.1.0 ") found in a reply so it can be left
 * out. The message log wants the Message-ID header out of the first bytes
 * of a message.
 */
#ifndef SPOOLSIM_SINK_TEXT_H
#define SPOOLSIM_SINK_TEXT_H

#include <stddef.h>
#include <stdint.h>

#include "sink_options.h"

/* "220 host ESMTP" (or LMTP, SMTP, the PIX banner); malloc'ed, no CR LF. */
char *sink_text_greeting(const struct sink_options *opts);

/* The whole multi-line EHLO reply with its CR LFs; malloc'ed. */
char *sink_text_ehlo(const struct sink_options *opts, int offer_starttls);

/* Length of "d.d.d " after the code of `reply' ("250 2.1.0 Ok" -> 6), or 0. */
size_t sink_text_enhanced_len(const char *reply);

/*
 * The reply code at the start of `reply', as atoi() reads it: the
 * counters take it for every reply, and a plain "NNN " needs no strtol.
 */
int sink_text_code(const char *reply);

/*
 * "250 2.0.0 Ok: queued as " and `id' in upper-case hex, at least 8 digits
 * (Postfix's format), into buf (room for SINK_TEXT_QUEUED_MAX); returns
 * the length. It is said once a message: no printf.
 */
#define SINK_TEXT_QUEUED_MAX 48
size_t sink_text_queued(char *buf, uint64_t id);

/* The Message-ID header's value in the header bytes `buf', or "-". */
void sink_text_message_id(const char *buf, size_t len, char *out, size_t outlen);

#endif
