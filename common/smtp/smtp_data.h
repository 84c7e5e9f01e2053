/*
 * smtp_data - read SMTP DATA content: end-of-data and dot-unstuffing (no I/O).
 *
 * SYNOPSIS
 *	smtp_data_init(&rd, SMTP_BARE_LF_NORMALIZE);
 *	used = smtp_data_feed(&rd, buf, len, emit, ctx);
 *	if (rd.done) ... the message ended after `used' bytes
 *
 * DESCRIPTION
 *	The reader is fed raw bytes as they arrive, in chunks of any size,
 *	and hands the un-stuffed content to `emit' in runs. It stops right
 *	after the end-of-data line so that pipelined commands behind it stay
 *	in the caller's buffer.
 *
 *	Only CR LF "." CR LF ends the message (the start of DATA counts as a
 *	CR LF), except under the lenient policy. The bare-LF policies
 *	(docs/security.md item 3):
 *
 *	strict	bare LF and bare CR are content; the message is read to the
 *		real end and smtp_data_reject() then says it must get a 550.
 *	normalize  a bare LF ends a content line and is stored as CR LF,
 *		but "." after a bare LF never ends the message (Postfix 3.9
 *		smtpd_forbid_bare_newline = normalize).
 *	lenient	lines end at LF with an optional CR, so "\n.\n",
 *		"\n.\r\n" and "\r\n.\n" end the message, as OpenSMTPD does. For testing
 *		clients against such servers only: it is open to smuggling.
 */
#ifndef SPOOLSIM_SMTP_DATA_H
#define SPOOLSIM_SMTP_DATA_H

#include <stddef.h>
#include <stdint.h>

enum smtp_bare_lf_policy { SMTP_BARE_LF_STRICT, SMTP_BARE_LF_NORMALIZE, SMTP_BARE_LF_LENIENT };

typedef void (*smtp_data_emit_fn)(void *ctx, const char *buf, size_t len);

struct smtp_data_reader {
    enum smtp_bare_lf_policy policy;
    int state;
    int after_bare_lf; /* the current line began after a bare LF */
    int done;
    int bare_lf_seen;
    int bare_cr_seen;
    uint64_t content_bytes; /* un-stuffed bytes emitted so far */
};

void smtp_data_init(struct smtp_data_reader *rd, enum smtp_bare_lf_policy policy);
size_t smtp_data_feed(struct smtp_data_reader *rd, const char *in, size_t len,
                      smtp_data_emit_fn emit, void *ctx);

/* NULL if the message may be accepted, else the reply the policy demands. */
const char *smtp_data_reject(const struct smtp_data_reader *rd);

/*
 * A minimum data rate (Postfix's smtpd_min_data_rate): DATA may last the
 * idle timeout plus one second per min_rate content bytes received. The
 * seconds left of that budget after `spent' seconds; negative once over.
 */
double smtp_data_time_left(const struct smtp_data_reader *rd, double timeout, double min_rate,
                           double spent);

int smtp_data_bare_lf_parse(const char *name, enum smtp_bare_lf_policy *policy);
const char *smtp_data_bare_lf_name(enum smtp_bare_lf_policy policy);

#endif
