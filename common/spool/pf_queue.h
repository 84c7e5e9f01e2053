/*
 * pf_queue - Postfix queue IDs and queue directory names (no I/O).
 *
 * Short IDs (Postfix's default) are the 5 upper-case hex digits of the
 * microseconds at creation followed by the file's inode number in hex;
 * long IDs (enable_long_queue_ids) are the seconds in base 52 (at least 6
 * characters), the microseconds in base 52 (4 characters), 'z', and the
 * inode in base 51. Hashed queues (deferred and defer by default, one
 * level deep) put a file in a subdirectory named after the first hex digit
 * of its microseconds, for both forms. See docs/spool-profiles.md A.1.1.
 */
#ifndef SPOOLSIM_PF_QUEUE_H
#define SPOOLSIM_PF_QUEUE_H

#include <stddef.h>
#include <stdint.h>

#define PF_QUEUE_ID_MAX 48

/*
 * The queue directories of a Postfix spool, as Postfix's mail_queue.h
 * names them: every program names a queue through these, never a string
 * of its own. incoming/ to active/ to deferred/ are a message's queue
 * file; defer/ and bounce/ its per-recipient logs (hashed as deferred/);
 * corrupt/ the files found damaged; the others exist for Postfix's tools.
 */
#define PF_QUEUE_INCOMING "incoming"
#define PF_QUEUE_ACTIVE "active"
#define PF_QUEUE_DEFERRED "deferred"
#define PF_QUEUE_DEFER "defer"
#define PF_QUEUE_BOUNCE "bounce"
#define PF_QUEUE_TRACE "trace"
#define PF_QUEUE_HOLD "hold"
#define PF_QUEUE_MAILDROP "maildrop"
#define PF_QUEUE_CORRUPT "corrupt"
#define PF_QUEUE_FLUSH "flush"
#define PF_QUEUE_SAVED "saved"

void pf_queue_id_short(char *out, size_t len, unsigned long usec, unsigned long inode);
void pf_queue_id_long(char *out, size_t len, unsigned long sec, unsigned long usec,
                      unsigned long inode);

/* 1 if `id' is a valid queue ID (alnum or '_', 1..PF_QUEUE_ID_MAX-1 chars), else 0. */
int pf_queue_id_ok(const char *id);

/*
 * The hash subdirectory of `id' for a hashed queue, `depth' levels deep
 * ("A" or "A/B"), from the hex form of its microseconds; -1 for a
 * malformed ID.
 */
int pf_queue_hash(const char *id, int depth, char *out, size_t len);

/*
 * The spool's layout file (spoolsim.layout): Postfix keeps its hash depth
 * in main.cf, the relay in its spool, so that a run with another
 * --hash-depth is refused rather than blind to the deferred mail. Lines of
 * "name value"; '#' starts a comment. pf_queue_layout_format() writes the
 * text (0, or -1 if `len' is too small); pf_queue_layout_parse() reads it:
 * 0 and *depth, or -1 and the reason in err.
 */
#define PF_QUEUE_LAYOUT_FILE "spoolsim.layout"
#define PF_QUEUE_LAYOUT_MAX 4096  /* a longer file is no layout file */
#define PF_QUEUE_HASH_DEPTH_MAX 5 /* the hex digits of the microseconds */
int pf_queue_layout_format(int depth, char *out, size_t len);
int pf_queue_layout_parse(const char *text, size_t len, int *depth, char *err, size_t errlen);

#endif
