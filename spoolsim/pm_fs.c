/*
 * pm_fs - the file system backend of spoolsim postmark; see pm_fs.h.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "msg.h"
#include "pm_fs.h"
#include "xalloc.h"

static const char *const sync_names[] = {"none", "fsync", "fdatasync", "osync"};

const char *pm_sync_name(enum pm_sync sync)
{
    return sync_names[sync];
}

int pm_sync_parse(const char *name, enum pm_sync *sync)
{
    for (int i = 0; i < 4; i++) {
        if (strcmp(name, sync_names[i]) == 0) {
            *sync = (enum pm_sync)i;
            return 0;
        }
    }
    return -1;
}

void pm_fs_init(struct pm_fs *fs, const struct pm_config *cfg, enum pm_sync sync, int dirsync)
{
    memset(fs, 0, sizeof(*fs));
    fs->buffered = cfg->buffered;
    fs->read_block = cfg->read_block;
    fs->write_block = cfg->write_block;
    fs->sync = sync;
    fs->dirsync = dirsync;
    fs->show_progress = 1;
    fs->progress_fp = stdout;
    fs->read_buf = xmalloc(cfg->read_block);
    fs->append_fd = -1;
}

void pm_fs_free(struct pm_fs *fs)
{
    free(fs->read_buf);
    free(fs->append_path);
}

/* The directory holding `path', fsynced so that a create or unlink is durable. */
static int sync_dir(const char *path)
{
    char *copy = xstrdup(path);
    int fd = open(dirname(copy), O_RDONLY | O_DIRECTORY);
    int status = fd >= 0 && fsync(fd) == 0 ? 0 : -1;

    if (fd >= 0)
        close(fd);
    free(copy);
    return status;
}

static int sync_fd(const struct pm_fs *fs, int fd)
{
    if (fs->sync == PM_SYNC_FSYNC)
        return fsync(fd);
    if (fs->sync == PM_SYNC_FDATASYNC)
        return fdatasync(fd);
    return 0;
}

/* Write `size' bytes of `data' in write-block pieces, as PostMark does. */
static int write_blocks(struct pm_fs *fs, FILE *fp, int fd, const char *data, uint32_t size)
{
    uint32_t block = fs->write_block;
    uint32_t full = size / block, rest = size % block;

    for (uint32_t i = 0; i < full; i++) {
        if (fp ? fwrite(data, 1, block, fp) != block : write(fd, data, block) != (ssize_t)block)
            return -1;
    }
    if (fp ? fwrite(data, 1, rest, fp) != rest : write(fd, data, rest) != (ssize_t)rest)
        return -1;
    return 0;
}

/* Flush, sync as asked, close: every error counts. */
static int finish_file(struct pm_fs *fs, FILE *fp, int fd)
{
    int status = 0;

    if (fp) {
        if (fflush(fp) != 0 || sync_fd(fs, fileno(fp)) != 0)
            status = -1;
        if (fclose(fp) != 0)
            status = -1;
    } else {
        if (sync_fd(fs, fd) != 0)
            status = -1;
        if (close(fd) != 0)
            status = -1;
    }
    return status;
}

static int open_flags_sync(const struct pm_fs *fs)
{
    return fs->sync == PM_SYNC_OSYNC ? O_SYNC : 0;
}

static int fs_create(void *ctx, const char *path, const char *data, uint32_t size)
{
    struct pm_fs *fs = ctx;
    FILE *fp = NULL;
    int fd = -1;

    if (fs->buffered && fs->sync != PM_SYNC_OSYNC)
        fp = fopen(path, "w"); /* as PostMark: no fdopen, so no extra fcntl */
    else if (fs->buffered)
        fp = (fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_SYNC, 0666)) >= 0 ? fdopen(fd, "w")
                                                                                 : NULL;
    else
        fd = open(path, O_RDWR | O_CREAT | open_flags_sync(fs), 0644);
    if (fs->buffered ? fp == NULL : fd < 0) {
        fprintf(stderr, "Error: cannot open '%s' for writing\n", path);
        if (fd >= 0)
            close(fd);
        return -1;
    }
    if (write_blocks(fs, fp, fd, data, size) != 0 || finish_file(fs, fp, fd) != 0 ||
        (fs->dirsync && sync_dir(path) != 0)) {
        fprintf(stderr, "Error: cannot write '%s': %s\n", path, strerror(errno));
        return -1;
    }
    return 0;
}

static int fs_append_open(void *ctx, const char *path)
{
    struct pm_fs *fs = ctx;
    int fd = -1;

    fs->append_fp = NULL;
    if (fs->buffered && fs->sync != PM_SYNC_OSYNC)
        fs->append_fp = fopen(path, "a");
    else
        fd = open(path,
                  (fs->buffered ? O_WRONLY | O_CREAT : O_RDWR) | O_APPEND | open_flags_sync(fs),
                  0666);
    if (fs->buffered && fd >= 0 && (fs->append_fp = fdopen(fd, "a")) == NULL) {
        close(fd);
        fd = -1;
    }
    if (fs->buffered ? fs->append_fp == NULL : fd < 0) {
        fprintf(stderr, "Error: cannot open '%s' for append\n", path);
        return -1;
    }
    fs->append_fd = fd;
    free(fs->append_path);
    fs->append_path = xstrdup(path);
    return 0;
}

static int fs_append_write(void *ctx, const char *data, uint32_t size)
{
    struct pm_fs *fs = ctx;
    int status = write_blocks(fs, fs->append_fp, fs->append_fd, data, size);

    if (finish_file(fs, fs->append_fp, fs->append_fd) != 0)
        status = -1;
    fs->append_fp = NULL;
    fs->append_fd = -1;
    if (status != 0)
        fprintf(stderr, "Error: cannot append to '%s': %s\n", fs->append_path, strerror(errno));
    return status;
}

static int fs_read(void *ctx, const char *path, uint32_t size)
{
    struct pm_fs *fs = ctx;
    uint32_t block = fs->read_block, full = size / block, rest = size % block;
    FILE *fp = fs->buffered ? fopen(path, "r") : NULL;
    int fd = fs->buffered ? -1 : open(path, O_RDONLY);
    int status = 0;

    if (fs->buffered ? fp == NULL : fd < 0) {
        fprintf(stderr, "Error: cannot open '%s' for reading\n", path);
        return -1;
    }
    for (uint32_t i = 0; i <= full && status == 0; i++) {
        uint32_t n = i < full ? block : rest;

        if (fp ? fread(fs->read_buf, 1, n, fp) != n : read(fd, fs->read_buf, n) != (ssize_t)n)
            status = -1;
    }
    if (fp)
        fclose(fp);
    else
        close(fd);
    if (status != 0)
        fprintf(stderr, "Error: short read on '%s'\n", path);
    return status;
}

static int fs_remove(void *ctx, const char *path)
{
    struct pm_fs *fs = ctx;

    if (remove(path) != 0) {
        fprintf(stderr, "Error: Cannot delete '%s'\n", path);
        return -1;
    }
    if (fs->dirsync && sync_dir(path) != 0) {
        fprintf(stderr, "Error: cannot sync the directory of '%s': %s\n", path, strerror(errno));
        return -1;
    }
    return 0;
}

static int fs_mkdir(void *ctx, const char *path)
{
    (void)ctx;
    /* PostMark ignores mkdir errors: an existing directory is fine. */
    return mkdir(path, 0700) == 0 || errno == EEXIST ? 0 : -1;
}

static int fs_rmdir(void *ctx, const char *path)
{
    (void)ctx;
    return rmdir(path) == 0 ? 0 : -1;
}

static void fs_progress(void *ctx, const char *text)
{
    struct pm_fs *fs = ctx;

    if (!fs->show_progress)
        return;
    fputs(text, fs->progress_fp);
    fflush(fs->progress_fp);
}

const struct pm_ops pm_fs_ops = {
    fs_create, fs_append_open, fs_append_write, fs_read, fs_remove, fs_mkdir, fs_rmdir, fs_progress,
};
