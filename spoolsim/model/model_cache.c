/*
 * model_cache - this machine's cost model file; see model_cache.h.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model_cache.h"
#include "msg.h"

/* Lower-case letters, digits and dots; every other run of bytes one '-'. */
static size_t slug(const char *in, char *out, size_t used, size_t len)
{
    int dash = used > 0;

    for (const unsigned char *p = (const unsigned char *)in; *p && used + 1 < len; p++) {
        if (isalnum(*p) || *p == '.') {
            if (dash && used > 0 && used + 2 < len)
                out[used++] = '-';
            dash = 0;
            out[used++] = (char)tolower(*p);
        } else {
            dash = 1;
        }
    }
    out[used < len ? used : len - 1] = 0;
    return used;
}

void model_cache_key(const struct cost_machine *mc, char *out, size_t len)
{
    char cpus[32];
    size_t used;

    if (len == 0)
        return;
    out[0] = 0;
    used = slug(mc->cpu_model[0] ? mc->cpu_model : "unknown-cpu", out, 0, len);
    snprintf(cpus, sizeof(cpus), "%ldcpus", mc->cpus);
    used = slug(cpus, out, used, len);
    slug(mc->kernel[0] ? mc->kernel : "unknown-kernel", out, used, len);
}

int model_cache_dir(char *out, size_t len)
{
    const char *env;
    int n;

    if ((env = getenv("SPOOLSIM_CACHE_DIR")) != NULL && env[0])
        n = snprintf(out, len, "%s", env);
    else if ((env = getenv("XDG_CACHE_HOME")) != NULL && env[0] == '/')
        n = snprintf(out, len, "%s/spoolsim", env);
    else if ((env = getenv("HOME")) != NULL && env[0] == '/')
        n = snprintf(out, len, "%s/.cache/spoolsim", env);
    else
        return -1;
    return n > 0 && (size_t)n < len ? 0 : -1;
}

void model_cache_system_dir(char *out, size_t len)
{
    const char *env = getenv("SPOOLSIM_SYSTEM_CACHE");

    snprintf(out, len, "%s", env && env[0] == '/' ? env : MODEL_CACHE_SYSTEM_DIR);
}

int model_cache_home(uid_t euid, char *out, size_t len, int *system)
{
    const char *env = getenv("SPOOLSIM_CACHE_DIR");
    int machine = euid == 0 && !(env && env[0]);

    if (system)
        *system = machine;
    if (!machine)
        return model_cache_dir(out, len);
    model_cache_system_dir(out, len);
    return 0;
}

int model_cache_file(const char *dir, const char *mta, const struct cost_machine *here, char *out,
                     size_t len)
{
    char key[400];
    int n;

    model_cache_key(here, key, sizeof(key));
    n = snprintf(out, len, "%s/%s-model-%s.json", dir, mta, key);
    return n > 0 && (size_t)n < len ? 0 : -1;
}

int model_cache_path(const char *mta, const struct cost_machine *here, char *out, size_t len)
{
    char dir[4096];

    if (model_cache_home(geteuid(), dir, sizeof(dir), NULL) != 0)
        return -1;
    return model_cache_file(dir, mta, here, out, len);
}

static const char *kind_of(mode_t mode)
{
    if (S_ISDIR(mode))
        return "a directory";
    if (S_ISFIFO(mode))
        return "a FIFO";
    if (S_ISCHR(mode))
        return "a character device";
    if (S_ISBLK(mode))
        return "a block device";
    if (S_ISSOCK(mode))
        return "a socket";
    if (S_ISLNK(mode))
        return "a symbolic link";
    return S_ISREG(mode) ? "a regular file" : "a special file";
}

int model_cache_trust(const struct stat *st, enum model_cache_node node, uid_t euid, int system,
                      char *why, size_t len)
{
    if (node == MODEL_CACHE_FILE) {
        if (!S_ISREG(st->st_mode))
            return msg_set_error(why, len, "%s, not a regular file", kind_of(st->st_mode));
        if (st->st_size > MODEL_CACHE_FILE_MAX)
            return msg_set_error(why, len, "%lld bytes, more than a model's %d at most",
                                 (long long)st->st_size, MODEL_CACHE_FILE_MAX);
    } else if (!S_ISDIR(st->st_mode)) {
        return msg_set_error(why, len, "%s, not a directory", kind_of(st->st_mode));
    }
    if (euid != 0 && !system)
        return 0; /* a user's own cache is the user's business */
    if (st->st_uid != 0)
        return msg_set_error(why, len, "owned by uid %lu, not by root", (unsigned long)st->st_uid);
    /* in a sticky directory nobody else can rename or remove what root made */
    if (node == MODEL_CACHE_PARENT && (st->st_mode & S_ISVTX))
        return 0;
    if (st->st_mode & S_IWOTH)
        return msg_set_error(why, len, "writable by every user (mode %04o)",
                             (unsigned)(st->st_mode & 07777));
    if (st->st_mode & S_IWGRP)
        return msg_set_error(why, len, "writable by its group, gid %lu (mode %04o)",
                             (unsigned long)st->st_gid, (unsigned)(st->st_mode & 07777));
    return 0;
}

/*
 * dir with no symbolic link left (realpath), in real, and it and every
 * directory above it judged for root: 0, or -1 and why, naming the one.
 */
static int check_chain(const char *dir, char *real, char *why, size_t len)
{
    char at[PATH_MAX], reason[200];
    struct stat st;
    enum model_cache_node node = MODEL_CACHE_DIR;
    char *slash;

    if (realpath(dir, real) == NULL) {
        int saved = errno;

        msg_set_error(why, len, "%s: %s", dir, strerror(saved));
        errno = saved;
        return -1;
    }
    snprintf(at, sizeof(at), "%s", real);
    for (;;) {
        if (lstat(at, &st) != 0)
            return msg_set_error(why, len, "%s: %s", at, strerror(errno));
        if (model_cache_trust(&st, node, 0, 1, reason, sizeof(reason)) != 0) {
            msg_set_error(why, len, "%s%s is %s",
                          node == MODEL_CACHE_DIR ? "" : "the directory above, ", at, reason);
            errno = EACCES; /* not ENOENT: there is something, and it is not root's alone */
            return -1;
        }
        if (strcmp(at, "/") == 0)
            return 0;
        slash = strrchr(at, '/');
        slash[slash == at ? 1 : 0] = 0;
        node = MODEL_CACHE_PARENT;
    }
}

int model_cache_check_dir(const char *dir, char *why, size_t len)
{
    char real[PATH_MAX];

    return check_chain(dir, real, why, len);
}

int model_cache_open(const char *path, int system, char *why, size_t len)
{
    char dir[PATH_MAX], real[PATH_MAX], file[PATH_MAX + 256], reason[200];
    const char *slash = strrchr(path, '/'), *name = slash ? slash + 1 : path;
    uid_t euid = geteuid();
    struct stat st;
    int fd;

    if (len)
        why[0] = 0;
    if (lstat(path, &st) != 0) {
        if (errno != ENOENT && errno != ENOTDIR)
            msg_set_error(why, len, "%s", strerror(errno));
        return -1;
    }
    snprintf(file, sizeof(file), "%s", path);
    if (euid == 0 || system) {
        snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
        if (slash == path)
            snprintf(dir, sizeof(dir), "/");
        if (check_chain(dir, real, reason, sizeof(reason)) != 0)
            return msg_set_error(why, len, "its place is not root's alone: %s", reason);
        /* the checked directories, not the path's links, which another could change */
        snprintf(file, sizeof(file), "%s/%s", strcmp(real, "/") == 0 ? "" : real, name);
    }
    if ((fd = open(file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)) < 0)
        return msg_set_error(why, len, "%s",
                             errno == ELOOP ? "it is a symbolic link, which a cache never holds"
                                            : strerror(errno));
    if (fstat(fd, &st) != 0) {
        msg_set_error(why, len, "%s", strerror(errno));
        close(fd);
        return -1;
    }
    if (model_cache_trust(&st, MODEL_CACHE_FILE, euid, system, reason, sizeof(reason)) != 0) {
        close(fd);
        return msg_set_error(why, len, "it is %s", reason);
    }
    return fd;
}
