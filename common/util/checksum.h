/*
 * checksum - a 64-bit FNV-1a content checksum.
 *
 * smtp-source and smtp-sink both log it per message over the un-stuffed
 * content, so a test can prove every message arrived exactly once and
 * intact. It is for matching, not for security.
 */
#ifndef SPOOLSIM_CHECKSUM_H
#define SPOOLSIM_CHECKSUM_H

#include <stddef.h>
#include <stdint.h>

#define CHECKSUM_INIT 0xcbf29ce484222325ULL

uint64_t checksum_update(uint64_t sum, const void *data, size_t len);

#endif
