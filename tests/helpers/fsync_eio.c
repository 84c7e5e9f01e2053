/*
 * fsync_eio - a test's LD_PRELOAD shim: the sync of a chosen file fails.
 *
 * fsync() and fdatasync() of a regular file whose first MiB holds the
 * text in $FSYNC_EIO_MARK do their work, and then return -1 with EIO.
 * That is what a disk says when it cannot tell what it wrote: the file
 * may be on it whole (here it is, the worst case for a server that then
 * answers 4xx). Any other descriptor, and every call without the
 * variable, goes straight to the C library. Built by the test that uses
 * it (tests/it/it_relay_diskerr.sh):
 *
 *     cc -shared -fPIC -o fsync_eio.so fsync_eio.c -ldl
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef int sync_fn(int fd);

/* 1 if fd is a regular file whose first MiB holds the mark. */
static int marked(int fd)
{
    const char *mark = getenv("FSYNC_EIO_MARK");
    size_t cap = 1 << 20;
    struct stat sb;
    ssize_t n;
    char *buf;
    int found;

    if (mark == NULL || *mark == 0 || fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode))
        return 0;
    if ((buf = malloc(cap)) == NULL) /* each call its own: the caller's threads sync at once */
        return 0;
    /* pread: the caller's offset stays where it was */
    n = pread(fd, buf, cap, 0);
    found = n > 0 && memmem(buf, (size_t)n, mark, strlen(mark)) != NULL;
    free(buf);
    return found;
}

static int sync_then_fail(const char *name, int fd)
{
    sync_fn *real = (sync_fn *)dlsym(RTLD_NEXT, name);
    int status, saved;

    if (real == NULL) {
        errno = ENOSYS;
        return -1;
    }
    status = real(fd);
    saved = errno;
    if (status == 0 && marked(fd)) {
        errno = EIO;
        return -1;
    }
    errno = saved;
    return status;
}

int fsync(int fd)
{
    return sync_then_fail("fsync", fd);
}

int fdatasync(int fd)
{
    return sync_then_fail("fdatasync", fd);
}
