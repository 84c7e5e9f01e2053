/*
 * fileutil - small file-system chores the programs share.
 *
 * file_read_all() reads a whole (small) file, /proc files included, as a
 * NUL-terminated string; tree_remove() removes a directory tree without
 * following symbolic links, as the tools do with the private directories
 * they make for a run.
 */
#ifndef SPOOLSIM_FILEUTIL_H
#define SPOOLSIM_FILEUTIL_H

#include <stddef.h>

/* The file's contents (malloc'd, NUL-terminated) and its length in *len; NULL if unreadable. */
char *file_read_all(const char *path, size_t *len);

/* Remove `path' and everything under it; what cannot be removed stays. */
void tree_remove(const char *path);

#endif
