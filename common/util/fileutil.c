/*
 * fileutil - small file-system chores the programs share; see fileutil.h.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileutil.h"
#include "xalloc.h"

char *fileutil_read_all(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "r");
    char *text = NULL;
    size_t used = 0, cap = 0, n;

    if (fp == NULL)
        return NULL;
    /* Read until EOF: /proc files report a size of 0. */
    do {
        if (cap - used < 4096) {
            cap = cap ? 2 * cap : 16384;
            text = xrealloc(text, cap);
        }
        n = fread(text + used, 1, cap - used - 1, fp);
        used += n;
    } while (n > 0);
    if (ferror(fp)) {
        fclose(fp);
        free(text);
        return NULL;
    }
    fclose(fp);
    text[used] = 0;
    if (len)
        *len = used;
    return text;
}

char *fileutil_read_fd(int fd, size_t max, size_t *len)
{
    char *text = NULL;
    size_t used = 0, cap = 0;
    ssize_t n;

    for (;;) {
        if (cap - used < 2) {
            /* room for max + 1 bytes: one more than max says the file is larger */
            cap = cap ? 2 * cap : 16384;
            if (max < SIZE_MAX - 2 && cap > max + 2)
                cap = max + 2;
            text = xrealloc(text, cap);
        }
        n = read(fd, text + used, cap - used - 1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        used += (size_t)n;
        if (used > max) {
            n = -1;
            errno = EFBIG;
            break;
        }
    }
    if (n < 0) {
        int saved = errno;

        free(text);
        errno = saved;
        return NULL;
    }
    text[used] = 0;
    if (len)
        *len = used;
    return text;
}

int fileutil_write_all(int fd, const void *buf, size_t n, size_t piece, uint64_t *calls,
                       uint64_t *bytes)
{
    const char *p = buf;

    while (n > 0) {
        ssize_t done = write(fd, p, piece && n > piece ? piece : n);

        if (done < 0 && errno == EINTR)
            continue;
        if (done <= 0) {
            if (done == 0)
                errno = EIO;
            return -1;
        }
        if (calls)
            (*calls)++;
        if (bytes)
            *bytes += (uint64_t)done;
        p += done;
        n -= (size_t)done;
    }
    return 0;
}

/* What the symbolic link at path names, as a path from here (malloc'd), or NULL. */
static char *link_target(const char *path)
{
    char target[PATH_MAX], *out;
    const char *slash = strrchr(path, '/');
    ssize_t n = readlink(path, target, sizeof(target) - 1);
    size_t dir_len;

    if (n < 0)
        return NULL;
    target[n] = 0;
    dir_len = slash && target[0] != '/' ? (size_t)(slash - path) + 1 : 0;
    out = xmalloc(dir_len + (size_t)n + 1);
    memcpy(out, path, dir_len); /* a relative target is relative to the link's directory */
    memcpy(out + dir_len, target, (size_t)n + 1);
    return out;
}

static int write_whole(const char *path, const void *doc, size_t len, int depth);

/* A symbolic link stays one: its target, existing or not yet, is what is replaced. */
static int write_through(const char *path, const void *doc, size_t len, int depth)
{
    char *target = realpath(path, NULL);
    int status, saved;

    if (target == NULL && depth < 8)
        target = link_target(path);
    if (target == NULL) {
        errno = ELOOP;
        return -1;
    }
    status = write_whole(target, doc, len, depth + 1);
    saved = errno;
    free(target);
    errno = saved;
    return status;
}

int fileutil_write_whole(const char *path, const void *doc, size_t len)
{
    return write_whole(path, doc, len, 0);
}

static int write_whole(const char *path, const void *doc, size_t len, int depth)
{
    size_t n;
    char *tmp;
    mode_t mask;
    struct stat st;
    int fd, saved;

    if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
        return write_through(path, doc, len, depth);
    n = strlen(path);
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
        if ((fd = open(path, O_WRONLY | O_NOCTTY)) < 0)
            return -1;
        if (fileutil_write_all(fd, doc, len, 0, NULL, NULL) != 0) {
            saved = errno;
            close(fd);
            errno = saved;
            return -1;
        }
        return close(fd);
    }
    tmp = xmalloc(n + 8);
    mask = umask(0);
    umask(mask);
    memcpy(tmp, path, n);
    memcpy(tmp + n, ".XXXXXX", 8);
    if ((fd = mkstemp(tmp)) < 0) {
        free(tmp);
        return -1;
    }
    if (fchmod(fd, 0666 & ~mask) != 0 || fileutil_write_all(fd, doc, len, 0, NULL, NULL) != 0 ||
        close(fd) != 0 || rename(tmp, path) != 0) {
        saved = errno;
        close(fd); /* EBADF after a close that failed: harmless */
        unlink(tmp);
        free(tmp);
        errno = saved;
        return -1;
    }
    free(tmp);
    return 0;
}

int fileutil_write_output(const char *path, const void *doc, size_t len)
{
    if (strcmp(path, "-") != 0)
        return fileutil_write_whole(path, doc, len);
    if (fwrite(doc, 1, len, stdout) != len || fflush(stdout) != 0)
        return -1;
    return 0;
}

FILE *fileutil_output_open(struct fileutil_output *o, const char *path)
{
    o->path = path;
    o->doc = NULL;
    o->len = 0;
    o->fp = open_memstream(&o->doc, &o->len);
    return o->fp;
}

int fileutil_output_close(struct fileutil_output *o)
{
    int status = ferror(o->fp) ? -1 : 0, saved;

    if (fclose(o->fp) != 0 || status != 0) {
        status = -1;
        errno = ENOMEM; /* a stream in memory fails only for want of it */
    }
    o->fp = NULL;
    if (status == 0)
        status = fileutil_write_output(o->path, o->doc, o->len);
    saved = errno;
    free(o->doc);
    o->doc = NULL;
    errno = saved;
    return status;
}

int fileutil_output_forget(const char *path)
{
    struct stat st;

    if (path == NULL || strcmp(path, "-") == 0)
        return 0;
    if (lstat(path, &st) != 0)
        return errno == ENOENT ? 0 : -1;
    if (!S_ISREG(st.st_mode))
        return 0;
    return unlink(path);
}

const char *fileutil_tmp_dir(void)
{
    const char *tmp = getenv("TMPDIR");

    return tmp && *tmp ? tmp : "/tmp";
}

int fileutil_private_dir(char *out, size_t len, const char *parent, const char *tag)
{
    int n;

    if (parent[0] == 0) { /* no directory, not the root that "/spoolsim-..." would be */
        if (len)
            out[0] = 0;
        errno = ENOENT;
        return -1;
    }
    n = snprintf(out, len, "%s/spoolsim-%s.XXXXXX", parent, tag);

    if (n < 0 || (size_t)n >= len) {
        if (len)
            out[0] = 0;
        errno = ENAMETOOLONG;
        return -1;
    }
    if (mkdtemp(out) == NULL) {
        int saved = errno;

        out[0] = 0;
        errno = saved;
        return -1;
    }
    return 0;
}

static int remove_entry(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
    (void)sb;
    (void)ftw;
    if (type == FTW_DP)
        rmdir(path);
    else
        unlink(path);
    return 0;
}

void fileutil_tree_remove(const char *path)
{
    if (path[0])
        nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

int fileutil_path_each(const char *path, int (*try)(const char *dir, size_t dir_len, void *ctx),
                       void *ctx)
{
    const char *dir, *end;

    for (dir = path; dir && *dir; dir = *end ? end + 1 : end) {
        end = strchr(dir, ':');
        if (end == NULL)
            end = dir + strlen(dir);
        if (end > dir && try(dir, (size_t)(end - dir), ctx) == 0)
            return 0;
    }
    return -1;
}

/* What program_in() looks for, and where it puts what it found. */
struct program_search {
    const char *name;
    char found[PATH_MAX];
};

/* DIR/NAME, if it is an executable regular file. */
static int program_in(const char *dir, size_t dir_len, void *ctx)
{
    struct program_search *s = ctx;
    struct stat sb;
    int n = snprintf(s->found, sizeof(s->found), "%.*s/%s", (int)dir_len, dir, s->name);

    return n > 0 && (size_t)n < sizeof(s->found) && stat(s->found, &sb) == 0 &&
                   S_ISREG(sb.st_mode) && access(s->found, X_OK) == 0
               ? 0
               : -1;
}

int fileutil_program_path(const char *argv0, const char *path, char *out, size_t len)
{
    struct program_search s = {.name = argv0};
    char resolved[PATH_MAX];

    if (argv0 == NULL || argv0[0] == 0)
        return -1;
    if (strchr(argv0, '/') != NULL) {
        if (strlen(argv0) >= sizeof(s.found))
            return -1;
        memcpy(s.found, argv0, strlen(argv0) + 1);
    } else if (fileutil_path_each(path, program_in, &s) != 0)
        return -1;
    if (realpath(s.found, resolved) == NULL || strlen(resolved) >= len)
        return -1;
    memcpy(out, resolved, strlen(resolved) + 1);
    return 0;
}
