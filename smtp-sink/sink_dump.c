/*
 * sink_dump - write received transactions to files; see sink_dump.h.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "msg.h"
#include "sink_dump.h"
#include "xalloc.h"

struct sink_dump {
    FILE *fp;   /* -d: the message's own file; -D: a memory stream */
    char *path; /* -d */
    char *mem;  /* -D: memory stream contents */
    size_t mem_len;
    char *append_file;
    int failed;
};

/* Create the directories of `path' (not its last component). */
static int make_parent_dirs(char *path)
{
    for (char *slash = strchr(path + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
        *slash = 0;
        if (mkdir(path, 0755) != 0 && errno != EEXIST) {
            *slash = '/';
            return -1;
        }
        *slash = '/';
    }
    return 0;
}

static void write_envelope(FILE *fp, const struct sink_dump_envelope *env)
{
    char date[64];
    time_t now = time(NULL);
    struct tm tm;

    if (env->start_string)
        fputs(env->start_string, fp);
    fprintf(fp, "X-Client-Addr: %s\n", env->client_addr);
    fprintf(fp, "X-Client-Proto: %s\n", env->proto);
    fprintf(fp, "X-Helo-Args: %s\n", env->helo ? env->helo : "");
    fprintf(fp, "X-Mail-Args: %s\n", env->mail ? env->mail : "");
    for (unsigned i = 0; i < env->rcpt_count; i++)
        fprintf(fp, "X-Rcpt-Args: %s\n", env->rcpts[i]);
    localtime_r(&now, &tm);
    strftime(date, sizeof(date), "%a, %d %b %Y %H:%M:%S %z", &tm);
    fprintf(fp, "Received: from %s ([%s])\n\tby %s (smtp-sink) with %s id %08llX;\n\t%s\n",
            env->helo ? env->helo : "unknown", env->client_addr, env->hostname, env->proto,
            (unsigned long long)env->id, date);
}

struct sink_dump *sink_dump_begin(const char *template, const char *append_file,
                                  const struct sink_dump_envelope *env, uint64_t random)
{
    struct sink_dump *dump = xcalloc(1, sizeof(*dump));

    if (template) {
        char name[4096];
        time_t now = time(NULL);
        struct tm tm;
        size_t len;
        int fd;

        localtime_r(&now, &tm);
        len = strftime(name, sizeof(name) - 20, template, &tm);
        if (len == 0 && *template) {
            msg_warn("dump template \"%s\" expands to nothing", template);
            free(dump);
            return NULL;
        }
        snprintf(name + len, sizeof(name) - len, "%08llx",
                 (unsigned long long)(random & 0xffffffffULL));
        dump->path = xstrdup(name);
        if (make_parent_dirs(dump->path) != 0 ||
            (fd = open(dump->path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644)) < 0 ||
            (dump->fp = fdopen(fd, "w")) == NULL) {
            msg_warn("cannot create dump file %s: %s", dump->path, strerror(errno));
            free(dump->path);
            free(dump);
            return NULL;
        }
    } else {
        dump->append_file = xstrdup(append_file);
        dump->fp = open_memstream(&dump->mem, &dump->mem_len);
        if (dump->fp == NULL)
            msg_fatal("open_memstream: %s", strerror(errno));
    }
    write_envelope(dump->fp, env);
    return dump;
}

void sink_dump_write(struct sink_dump *dump, const char *buf, size_t len)
{
    if (!dump->failed && fwrite(buf, 1, len, dump->fp) != len)
        dump->failed = 1;
}

static int append_whole(const char *path, const char *buf, size_t len)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    ssize_t n;

    if (fd < 0)
        return -1;
    /* One write with O_APPEND: messages from concurrent sessions stay whole. */
    while (len > 0 && (n = write(fd, buf, len)) > 0) {
        buf += n;
        len -= (size_t)n;
    }
    if (close(fd) != 0 || len > 0)
        return -1;
    return 0;
}

int sink_dump_end(struct sink_dump *dump, int keep)
{
    int status = 0;

    if (fclose(dump->fp) != 0)
        dump->failed = 1;
    if (dump->path) {
        if (dump->failed && keep)
            msg_warn("write error on dump file %s: %s", dump->path, strerror(errno));
        if ((!keep || dump->failed) && unlink(dump->path) != 0)
            msg_warn("cannot remove dump file %s: %s", dump->path, strerror(errno));
        status = dump->failed ? -1 : 0;
    } else if (keep) {
        if (dump->failed || append_whole(dump->append_file, dump->mem, dump->mem_len) != 0) {
            msg_warn("cannot append to dump file %s: %s", dump->append_file, strerror(errno));
            status = -1;
        }
    }
    free(dump->path);
    free(dump->mem);
    free(dump->append_file);
    free(dump);
    return status;
}
