/*
 * checksum - a 64-bit FNV-1a content checksum, and a message's key for
 * the message logs.
 *
 * smtp-source and smtp-sink both log a size and this checksum per message
 * over the un-stuffed content, so a test can prove every message arrived
 * exactly once and intact. It is for matching, not for security.
 *
 * Both take them through a content_sum, which leaves out the Received:
 * header fields at the top of the message (each with its continuation
 * lines): a relay between them adds its trace header, as every MTA does,
 * and the message must keep its key. Only a Received: field before any
 * other line is left out; one further down, or in the body, counts.
 */
#ifndef SPOOLSIM_CHECKSUM_H
#define SPOOLSIM_CHECKSUM_H

#include <stddef.h>
#include <stdint.h>

#define CHECKSUM_INIT 0xcbf29ce484222325ULL

uint64_t checksum_update(uint64_t sum, const void *data, size_t len);

#define CONTENT_SUM_NAME "received:" /* the field left out, matched without case */

struct content_sum {
    uint64_t size, sum; /* of what is kept */
    int state;
    unsigned held; /* bytes of a field name still undecided */
    char hold[sizeof(CONTENT_SUM_NAME) - 1];
};

/* Told of each piece of content kept, in order (e.g. to find the Message-ID in). */
typedef void content_sum_keep(void *arg, const char *piece, size_t len);

void checksum_content_init(struct content_sum *cs);

/* The next `len' bytes of content, in pieces of any size; `keep' may be NULL. */
void checksum_content_update(struct content_sum *cs, const void *data, size_t len,
                             content_sum_keep *keep, void *arg);

/* The end of the content: what was held undecided is kept. */
void checksum_content_end(struct content_sum *cs, content_sum_keep *keep, void *arg);

#endif
