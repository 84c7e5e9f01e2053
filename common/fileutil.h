/*
 * fileutil - small file-system chores the programs share.
 *
 * file_read_all() reads a whole (small) file, /proc files included, as a
 * NUL-terminated string; write_all() writes a buffer whole, in the
 * write(2) calls a simulated MTA would make; tree_remove() removes a
 * directory tree without following symbolic links, as the tools do with
 * the private directories they make for a run.
 */
#ifndef SPOOLSIM_FILEUTIL_H
#define SPOOLSIM_FILEUTIL_H

#include <stddef.h>
#include <stdint.h>

/* The file's contents (malloc'd, NUL-terminated) and its length in *len; NULL if unreadable. */
char *file_read_all(const char *path, size_t *len);

/*
 * Write all n bytes at buf to fd, in calls of at most `piece' bytes (0:
 * whatever the kernel takes), again after EINTR or a short write. 0, or
 * -1 with errno set (EIO for a write that wrote nothing). *calls and
 * *bytes, where not NULL, grow by the calls that wrote and the bytes they
 * wrote, also when a later call fails: a simulator counts what it did.
 */
int write_all(int fd, const void *buf, size_t n, size_t piece, uint64_t *calls, uint64_t *bytes);

/* Remove `path' and everything under it; what cannot be removed stays. */
void tree_remove(const char *path);

#endif
