/*
 * pm_fs - the file system backend of spoolsim postmark; see pm_fs.h.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileutil.h"
#include "clock.h"
#include "interrupt.h"
#include "msg.h"
#include "names.h"
#include "pm_fs.h"
#include "xalloc.h"

#define PM_FS_BUFFER 4096

static const char *const sync_names[] = {"none", "fsync", "fdatasync", "osync"};

const char *pm_fs_sync_name(enum pm_sync sync)
{
    return sync_names[sync];
}

int pm_fs_sync_parse(const char *name, enum pm_sync *sync)
{
    int i = names_index(sync_names, sizeof(sync_names) / sizeof(sync_names[0]), name);

    if (i < 0)
        return -1;
    *sync = (enum pm_sync)i;
    return 0;
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
    /* Buffered reads go 4 KiB at a time whatever the read block size is. */
    fs->read_buf =
        xmalloc(!cfg->buffered && cfg->read_block > PM_FS_BUFFER ? cfg->read_block : PM_FS_BUFFER);
    fs->stage = xmalloc(PM_FS_BUFFER);
    fs->append_fd = -1;
}

void pm_fs_free(struct pm_fs *fs)
{
    free(fs->read_buf);
    free(fs->stage);
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

/*
 * Buffered mode does what PostMark's stdio did, one write(2) per 4 KiB
 * (st_blksize on tmpfs and ext4), but with a staging buffer of our own:
 * stdio adds an fstat per open and an lseek per append that are not part
 * of the workload. Unbuffered mode writes each write-block piece itself.
 * PostMark writes `size' bytes as write-block pieces, each from the
 * buffer's start.
 */
static int write_blocks(struct pm_fs *fs, int fd, const char *data, uint32_t size)
{
    uint32_t block = fs->write_block;
    size_t staged = 0;

    while (size > 0) {
        uint32_t piece = size < block ? size : block;

        size -= piece;
        if (!fs->buffered) {
            if (fileutil_write_all(fd, data, piece, 0, NULL, NULL) != 0)
                return -1;
            continue;
        }
        for (uint32_t off = 0; off < piece;) {
            size_t n = piece - off < PM_FS_BUFFER - staged ? piece - off : PM_FS_BUFFER - staged;

            memcpy(fs->stage + staged, data + off, n);
            staged += n;
            off += (uint32_t)n;
            if (staged == PM_FS_BUFFER) {
                if (fileutil_write_all(fd, fs->stage, staged, 0, NULL, NULL) != 0)
                    return -1;
                staged = 0;
            }
        }
    }
    return staged ? fileutil_write_all(fd, fs->stage, staged, 0, NULL, NULL) : 0;
}

/* Sync as asked, close: every error counts. */
static int finish_file(struct pm_fs *fs, int fd)
{
    int status = 0;

    if (fs->sync == PM_SYNC_FSYNC && fsync(fd) != 0)
        status = -1;
    if (fs->sync == PM_SYNC_FDATASYNC && fdatasync(fd) != 0)
        status = -1;
    if (close(fd) != 0)
        status = -1;
    return status;
}

static int open_flags_sync(const struct pm_fs *fs)
{
    return fs->sync == PM_SYNC_OSYNC ? O_SYNC : 0;
}

static int fs_create(void *ctx, const char *path, const char *data, uint32_t size)
{
    struct pm_fs *fs = ctx;
    int fd = fs->buffered ? open(path, O_WRONLY | O_CREAT | O_TRUNC | open_flags_sync(fs), 0666)
                          : open(path, O_RDWR | O_CREAT | open_flags_sync(fs), 0644);

    if (fd < 0) {
        fprintf(stderr, "Error: cannot open '%s' for writing\n", path);
        return -1;
    }
    if (write_blocks(fs, fd, data, size) != 0) {
        fprintf(stderr, "Error: cannot write '%s': %s\n", path, strerror(errno));
        close(fd);
        return -1;
    }
    if (finish_file(fs, fd) != 0 || (fs->dirsync && sync_dir(path) != 0)) {
        fprintf(stderr, "Error: cannot sync or close '%s': %s\n", path, strerror(errno));
        return -1;
    }
    return 0;
}

static int fs_append_open(void *ctx, const char *path)
{
    struct pm_fs *fs = ctx;
    int fd = open(
        path, (fs->buffered ? O_WRONLY | O_CREAT : O_RDWR) | O_APPEND | open_flags_sync(fs), 0666);

    if (fd < 0) {
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
    int status = write_blocks(fs, fs->append_fd, data, size);

    if (finish_file(fs, fs->append_fd) != 0)
        status = -1;
    fs->append_fd = -1;
    if (status != 0)
        fprintf(stderr, "Error: cannot append to '%s': %s\n", fs->append_path, strerror(errno));
    return status;
}

static int fs_read(void *ctx, const char *path, uint32_t size)
{
    struct pm_fs *fs = ctx;
    size_t piece = fs->buffered ? PM_FS_BUFFER : fs->read_block;
    int fd = open(path, O_RDONLY);
    uint64_t left = size;
    int status = 0;

    if (fd < 0) {
        fprintf(stderr, "Error: cannot open '%s' for reading\n", path);
        return -1;
    }
    /* Read the recorded size, in 4 KiB (buffered) or read-block pieces. */
    while (left > 0) {
        size_t want = left < piece ? (size_t)left : piece;
        ssize_t got = read(fd, fs->read_buf, want);

        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0) {
            status = -1;
            break;
        }
        left -= (uint64_t)got;
    }
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
    /* Nobody reading the progress (`| head'): stop as if interrupted. */
    if (fflush(fs->progress_fp) != 0 && errno == EPIPE)
        interrupt_note(SIGPIPE);
}

/* Once a second at most: the phase's count, and its ETA at the pace so far. */
static void fs_count(void *ctx, const char *phase, uint32_t done, uint32_t total)
{
    struct pm_fs *fs = ctx;
    uint64_t now;
    struct progress_stats ps = {.label = "postmark", .done = done, .total = total};

    if (fs->status == NULL || !progress_out_on(fs->status))
        return;
    now = clock_now_ns();
    if (fs->status_start_ns == 0) {
        fs->status_start_ns = now;
        fs->status_next_ns = now + CLOCK_NS_PER_SEC;
    }
    if (phase != fs->status_phase) {
        fs->status_phase = phase;
        fs->status_phase_ns = now;
    }
    if (now < fs->status_next_ns)
        return;
    fs->status_next_ns += CLOCK_NS_PER_SEC;
    if (fs->status_next_ns <= now)
        fs->status_next_ns = now + CLOCK_NS_PER_SEC;
    ps.elapsed_s = (double)(now - fs->status_start_ns) / 1e9;
    ps.eta_s = progress_eta_count((double)(now - fs->status_phase_ns) / 1e9, done, total);
    ps.count_noun = phase;
    progress_out_stats(fs->status, &ps);
}

static int fs_stop(void *ctx)
{
    (void)ctx;
    return interrupt_signal() != 0;
}

const struct pm_ops pm_fs_ops = {
    fs_create, fs_append_open, fs_append_write, fs_read, fs_remove,
    fs_mkdir,  fs_rmdir,       fs_progress,     fs_stop, fs_count,
};
