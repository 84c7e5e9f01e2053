/*
 * crash_walk - read a mounted crash image's spool into a scan tree
 * (crash_scan.h), for the scanners to judge.
 *
 * Every regular file under the spool directory, to a depth of 4, with its
 * bytes; nothing else. It follows no symbolic link (the image is what a
 * crash left, and a repair may have put anything there), opens each
 * directory and file below one it has opened itself (openat, O_NOFOLLOW),
 * and keeps a file too large to be a queue file (over 64 MiB) or one it
 * cannot read as unreadable (data NULL), which no scanner takes as whole.
 */
#ifndef SPOOLSIM_CRASH_WALK_H
#define SPOOLSIM_CRASH_WALK_H

#include <stddef.h>

#include "crash_scan.h"

/* 0 (t holds the files, sorted), 1 if dir does not exist, -1 with err. */
int crash_walk(const char *dir, struct scan_tree *t, char *err, size_t errlen);

#endif
