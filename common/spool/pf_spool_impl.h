/*
 * pf_spool_impl - what pf_spool.c (the tree) and pf_spool_file.c (the
 * message files) share and no caller may use: the queue table's lookup and
 * the one way a name inside a queue is built. Private to common/spool's
 * pf_spool*.c; the contract is pf_spool.h.
 */
#ifndef SPOOLSIM_PF_SPOOL_IMPL_H
#define SPOOLSIM_PF_SPOOL_IMPL_H

#include <stddef.h>

#include "pf_spool.h"

#define WRITE_PIECE 4096 /* Postfix's VSTREAM buffer: one write per 4 KiB */

/* The queue's index in the spool's table (and in queue_fd[]), or -1 if no queue has that name. */
int pf_spool_queue_index(const char *queue);

/*
 * A name inside queue `qi' (hash directories included) as a descriptor and a
 * name from it; ENAMETOOLONG if it does not fit. `rel' is not checked: callers
 * pass a name they built, never one from outside (pf_spool_locate() checks those).
 */
int pf_spool_in_queue(const struct pf_spool *sp, int qi, const char *rel, int *at, char *name,
                      size_t len, size_t *rel_off);

#endif
