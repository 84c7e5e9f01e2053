/*
 * sink_dump - write received transactions to files (-d and -D).
 *
 * A dump is the transaction's envelope as X- headers (X-Client-Addr,
 * X-Client-Proto, X-Helo-Args, X-Mail-Args, one X-Rcpt-Args per
 * recipient), a Received: header, then the message content exactly as it
 * was received after dot-unstuffing, CR LF line ends included, so a test
 * can compare it byte for byte with what the client meant to send.
 *
 * -d writes one file per message, named by strftime(template) plus a
 * random hex suffix, creating directories as needed; the file of a
 * rejected message is removed. -D appends every accepted message to one
 * file; each message is held in memory until its end so that concurrent
 * sessions never interleave.
 */
#ifndef SPOOLSIM_SINK_DUMP_H
#define SPOOLSIM_SINK_DUMP_H

#include <stddef.h>
#include <stdint.h>

struct sink_dump_envelope {
    const char *client_addr;
    const char *proto;
    const char *helo;
    const char *mail;
    const char *const *rcpts;
    unsigned rcpt_count;
    const char *hostname;
    uint64_t id;
    const char *start_string; /* -S, may be NULL */
};

struct sink_dump; /* one message being dumped */

/* Begin a dump; NULL (with a warning logged) when the file cannot be made. */
struct sink_dump *sink_dump_begin(const char *template, const char *append_file,
                                  const struct sink_dump_envelope *env, uint64_t random);
void sink_dump_write(struct sink_dump *dump, const char *buf, size_t len);
/* Keep (accepted) or discard (rejected) the dump; frees it. 0 or -1. */
int sink_dump_end(struct sink_dump *dump, int keep);

#endif
