/*
 * fileutil - small file-system chores the programs share.
 *
 * fileutil_read_all() reads a whole (small) file, /proc files included, as a
 * NUL-terminated string, and fileutil_read_fd() an open one, up to a bound; fileutil_write_all()
 * writes a buffer whole, in the write(2) calls a simulated MTA would make; fileutil_write_whole()
 * puts a document in place whole or not at all; fileutil_private_dir() makes the private directory
 * a run works in, and fileutil_tree_remove() removes it (or any tree) without following symbolic
 * links; fileutil_path_each() and fileutil_program_path() look for a program as the shell does, in
 * PATH.
 */
#ifndef SPOOLSIM_FILEUTIL_H
#define SPOOLSIM_FILEUTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The file's contents (malloc'd, NUL-terminated) and its length in *len; NULL if unreadable. */
char *fileutil_read_all(const char *path, size_t *len);

/*
 * What is left to read from fd, to its end, if that is at most `max'
 * bytes (malloc'd, NUL-terminated, its length in *len where not NULL):
 * NULL with errno EFBIG past max (a device that never ends, such as
 * /dev/zero, costs max bytes, not all memory), or the read's errno. For
 * a descriptor opened O_NONBLOCK, EAGAIN is such an error.
 */
char *fileutil_read_fd(int fd, size_t max, size_t *len);

/*
 * Write all n bytes at buf to fd, in calls of at most `piece' bytes (0:
 * whatever the kernel takes), again after EINTR or a short write. 0, or
 * -1 with errno set (EIO for a write that wrote nothing). *calls and
 * *bytes, where not NULL, grow by the calls that wrote and the bytes they
 * wrote, also when a later call fails: a simulator counts what it did.
 */
int fileutil_write_all(int fd, const void *buf, size_t n, size_t piece, uint64_t *calls,
                       uint64_t *bytes);

/*
 * The len bytes at doc as the file at path, whole or not at all: written
 * to a temporary file beside it and renamed over it, so that a full disk
 * or a crash leaves the previous file (or none), never half of one. The
 * new file is as readable as the umask allows (mkstemp makes it 0600). A
 * path that is a device or a FIFO (/dev/null, /dev/stdout, a pipe) is
 * written in place: a rename would replace the node itself; for a
 * symbolic link, its target is replaced. 0, or -1
 * with errno set and no temporary file left.
 */
int fileutil_write_whole(const char *path, const void *doc, size_t len);

/*
 * The same for an output named on the command line, where "-" means
 * standard output: written there and flushed (a stream has no file to
 * replace whole). 0, or -1 with errno set.
 */
int fileutil_write_output(const char *path, const void *doc, size_t len);

/*
 * A result written as a stream and put in place whole: fileutil_output_open()
 * gives a stream in memory for path; fileutil_output_close() closes it and,
 * if every write to it worked, puts the text at path with
 * fileutil_write_output(). A run that dies before the close leaves path
 * as it was. open: the stream, or NULL with errno; close: 0, or -1 with
 * errno (the path as it was).
 */
struct fileutil_output {
    const char *path;
    FILE *fp;
    char *doc; /* set by the stream when it is closed */
    size_t len;
};
FILE *fileutil_output_open(struct fileutil_output *o, const char *path);
int fileutil_output_close(struct fileutil_output *o);

/*
 * Remove a regular file at path, a result an earlier run left, at the
 * start of a run: a run that ends without a result (interrupted, killed)
 * must not leave the earlier one to be read as its own. "-", NULL, a
 * symbolic link, a device or a FIFO are left alone. 0, or -1 with errno.
 */
int fileutil_output_forget(const char *path);

/* $TMPDIR if it is set and not empty, else /tmp. */
const char *fileutil_tmp_dir(void);

/*
 * Make PARENT/spoolsim-TAG.XXXXXX, a new directory that only its owner
 * may enter (mkdtemp), its path in out. 0, or -1 with errno set:
 * ENAMETOOLONG if the path does not fit in len, ENOENT if PARENT is ""
 * (which would put it in the root).
 */
int fileutil_private_dir(char *out, size_t len, const char *parent, const char *tag);

/* Remove `path' and everything under it; what cannot be removed stays. */
void fileutil_tree_remove(const char *path);

/*
 * Each directory of `path' (a PATH value, colon-separated; may be NULL)
 * in turn, as try(dir, dir_len, ctx), until one returns 0: 0 then, -1 if
 * none did. An empty entry means the current directory to the shell, which
 * is no place to look for an installed program: it is skipped.
 */
int fileutil_path_each(const char *path, int (*try)(const char *dir, size_t dir_len, void *ctx),
                       void *ctx);

/*
 * The program that argv0 started, as the shell found it, in out: argv0
 * itself if it holds a slash, else the first executable file of that name
 * in a directory of `path' (fileutil_path_each()); resolved by realpath(),
 * so absolute and with no symbolic link in it. 0, or -1 if there is none
 * or it does not fit in len. Only as true as argv0: whoever starts a
 * program chooses it, so this is where the system cannot say.
 */
int fileutil_program_path(const char *argv0, const char *path, char *out, size_t len);

#endif
