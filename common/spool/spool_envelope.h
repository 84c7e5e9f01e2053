/*
 * spool_envelope - the bytes a table profile writes where its MTA writes
 * an envelope (no I/O).
 *
 * Sendmail's qf, Exim's -H and -J, qmail's intd, info and remote files,
 * OpenSMTPD's envelopes: the table profiles write the number of bytes the
 * daemon was traced writing there (profile.c), not the daemon's format.
 * What they write is a chunk that says which message it belongs to and
 * where it ends, so that a crash test can tell, as the MTA at its restart
 * would, whether the file is there whole and is this message's and not
 * the stale blocks of another's:
 *
 *     T<id>:<n>:----...----\n        exactly n bytes
 *
 * The first byte is T (to do) or D (done: qmail's mark, written in place
 * by the deliver phase's pwrite). A file is a run of such chunks (Exim's
 * -H is written in two, its journal one per recipient). A chunk for n too
 * small to hold its head is n bytes of '-' and never reads as whole; no
 * table writes one (tests/unit/check_profile.c).
 */
#ifndef SPOOLSIM_SPOOL_ENVELOPE_H
#define SPOOLSIM_SPOOL_ENVELOPE_H

#include <stddef.h>
#include <stdint.h>

/* The chunk for message id, n bytes, into buf (n bytes, no NUL added). */
void spool_envelope_fill(char *buf, size_t n, uint64_t id);

/* The smallest n whose chunk holds its head for message id. */
size_t spool_envelope_min(uint64_t id);

struct spool_envelope_view {
    unsigned chunks; /* whole chunks of message id, in order */
    int first_done;  /* the first chunk's mark is D */
};

/*
 * Whether buf (len bytes, a file's content) is a run of one or more whole
 * chunks of message id and nothing else: 1 and v filled, else 0.
 */
int spool_envelope_read(const char *buf, size_t len, uint64_t id, struct spool_envelope_view *v);

#endif
