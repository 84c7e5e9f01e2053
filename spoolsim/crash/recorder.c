/*
 * spoolsim-recorder - a recording block device without device-mapper:
 * serve one image file through FUSE and log, in order, every write and
 * every flush that reaches it (blklog.h has the format), for spoolsim
 * crash to replay to any point.
 *
 * How writes and flushes get here, and why the log means what
 * dm-log-writes' does (everything logged before a flush record had
 * completed before that flush, and is durable after it):
 *
 * - spoolsim crash puts a loop device on MOUNTPOINT/image with direct I/O
 *   on (losetup --direct-io=on, checked in /sys/block/loopN/loop/dio), so
 *   the loop device keeps no page cache of its own: each block write is a
 *   direct write of the FUSE file, and completes when this daemon replies.
 * - The file is opened direct_io (FOPEN_DIRECT_IO, and the kernel's
 *   writeback cache is off): FUSE keeps no page cache either, and every
 *   write is a FUSE_WRITE request here, at most max_write bytes each (a
 *   bigger block write arrives as several, none covered by a flush until
 *   all are done, which is what "no torn sectors" allows).
 * - The loop device declares a volatile write cache without FUA, so the
 *   block layer turns a filesystem's preflush and FUA into REQ_OP_FLUSH
 *   requests, which the loop device passes on as vfs_fsync() of the file:
 *   a FUSE_FSYNC request here. A filesystem issues a flush only once the
 *   writes it must cover have completed (there are no ordered barriers
 *   since Linux 2.6.37), and a write completes only when we have replied.
 * - This daemon runs single-threaded: it takes one request at a time, logs
 *   it, and replies. So a write the flush covers was logged before the
 *   flush record; a write still in flight when the flush was issued may be
 *   logged on either side of it, and the replayer treats one logged after
 *   it as not covered, the pessimistic reading.
 *
 * A close of the file (FUSE_FLUSH) is no durability request and is not
 * logged. The image itself is written as well, so that reads see the
 * writes; it is never synced, since the host does not crash.
 *
 * SIGTERM, SIGHUP or an unmount of MOUNTPOINT ends the daemon: it unmounts
 * and closes the log. SIGINT is ignored, so that a Ctrl-C at the terminal
 * does not pull the device from under a mounted loop device: spoolsim
 * crash takes its own apart in order and unmounts this last.
 *
 * For testing the checker, SPOOLSIM_RECORDER_BREAK makes the log lie:
 * "drop-flush" leaves every flush out; "delay-write" logs the last write
 * before each flush only after the flush that follows it (a write
 * reordered across two flushes). A checker that finds no loss with either
 * is blind.
 */
#include "config.h"

#define FUSE_USE_VERSION 31

#include <errno.h>
#include <fcntl.h>
#include <fuse.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "blklog.h"
#include "clock.h"
#include "msg.h"
#include "xalloc.h"

#define IMAGE_NAME "image"
#define IMAGE_PATH "/" IMAGE_NAME

enum recorder_break { BREAK_NONE, BREAK_DROP_FLUSH, BREAK_DELAY_WRITE };

/* A write the broken recorder has not logged yet. */
struct held_write {
    unsigned char *data;
    uint64_t offset, length;
};

struct recorder {
    int image_fd;
    uint64_t image_size;
    FILE *log;
    const char *log_path;
    int log_failed;
    enum recorder_break brk;
    struct held_write last;  /* delay-write: the newest write, not yet logged */
    struct held_write carry; /* delay-write: held at the last flush, logged after the next */
    uint64_t writes, flushes;
};

static struct recorder *rec_of(void)
{
    return fuse_get_context()->private_data;
}

static void log_bytes(struct recorder *r, const void *p, size_t n)
{
    if (!r->log_failed && fwrite(p, 1, n, r->log) != n) {
        r->log_failed = 1;
        msg_warn("cannot write the log %s: %s", r->log_path, strerror(errno));
    }
}

static void log_write(struct recorder *r, uint64_t offset, const void *data, uint64_t length)
{
    unsigned char head[BLKLOG_HEAD_LEN];

    blklog_head_encode(head, BLKLOG_WRITE, clock_now_ns(), offset, length);
    log_bytes(r, head, sizeof(head));
    log_bytes(r, data, (size_t)length);
}

static void log_flush(struct recorder *r)
{
    unsigned char head[BLKLOG_HEAD_LEN];

    blklog_head_encode(head, BLKLOG_FLUSH, clock_now_ns(), 0, 0);
    log_bytes(r, head, sizeof(head));
}

static void held_log(struct recorder *r, struct held_write *h)
{
    if (h->data == NULL)
        return;
    log_write(r, h->offset, h->data, h->length);
    free(h->data);
    memset(h, 0, sizeof(*h));
}

static void *rec_init(struct fuse_conn_info *conn, struct fuse_config *cfg)
{
    /* No page cache in the kernel: every write a request, in order. */
    cfg->direct_io = 1;
    cfg->kernel_cache = 0;
    cfg->attr_timeout = 0;
    cfg->entry_timeout = 0;
    conn->want &= ~FUSE_CAP_WRITEBACK_CACHE;
    return fuse_get_context()->private_data;
}

static int rec_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
    struct recorder *r = rec_of();

    (void)fi;
    memset(st, 0, sizeof(*st));
    if (strcmp(path, "/") == 0) {
        st->st_mode = S_IFDIR | 0700;
        st->st_nlink = 2;
    } else if (strcmp(path, IMAGE_PATH) == 0) {
        st->st_mode = S_IFREG | 0600;
        st->st_nlink = 1;
        st->st_size = (off_t)r->image_size;
        st->st_blksize = 4096;
        st->st_blocks = (blkcnt_t)(r->image_size / 512);
    } else {
        return -ENOENT;
    }
    return 0;
}

static int rec_readdir(const char *path, void *buf, fuse_fill_dir_t fill, off_t off,
                       struct fuse_file_info *fi, enum fuse_readdir_flags flags)
{
    (void)off;
    (void)fi;
    (void)flags;
    if (strcmp(path, "/") != 0)
        return -ENOTDIR;
    fill(buf, ".", NULL, 0, 0);
    fill(buf, "..", NULL, 0, 0);
    fill(buf, IMAGE_NAME, NULL, 0, 0);
    return 0;
}

static int rec_open(const char *path, struct fuse_file_info *fi)
{
    if (strcmp(path, IMAGE_PATH) != 0)
        return -ENOENT;
    fi->direct_io = 1;
    fi->keep_cache = 0;
    return 0;
}

static int rec_read(const char *path, char *buf, size_t size, off_t off, struct fuse_file_info *fi)
{
    struct recorder *r = rec_of();
    ssize_t n;

    (void)path;
    (void)fi;
    if (off < 0 || (uint64_t)off >= r->image_size)
        return 0;
    if (size > r->image_size - (uint64_t)off)
        size = (size_t)(r->image_size - (uint64_t)off);
    n = pread(r->image_fd, buf, size, off);
    return n < 0 ? -errno : (int)n;
}

static int rec_write(const char *path, const char *buf, size_t size, off_t off,
                     struct fuse_file_info *fi)
{
    struct recorder *r = rec_of();
    size_t done = 0;

    (void)path;
    (void)fi;
    if (off < 0 || (uint64_t)off > r->image_size || size > r->image_size - (uint64_t)off)
        return -ENOSPC; /* a block device does not grow */
    while (done < size) {
        ssize_t n = pwrite(r->image_fd, buf + done, size - done, off + (off_t)done);

        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return n < 0 ? -errno : -EIO;
        done += (size_t)n;
    }
    if (size == 0)
        return 0;
    r->writes++;
    if (r->brk == BREAK_DELAY_WRITE) {
        held_log(r, &r->last);
        r->last.data = xmalloc(size);
        memcpy(r->last.data, buf, size);
        r->last.offset = (uint64_t)off;
        r->last.length = size;
    } else {
        log_write(r, (uint64_t)off, buf, size);
    }
    return (int)size;
}

static int rec_fsync(const char *path, int datasync, struct fuse_file_info *fi)
{
    struct recorder *r = rec_of();

    (void)path;
    (void)datasync;
    (void)fi;
    r->flushes++;
    switch (r->brk) {
    case BREAK_DROP_FLUSH:
        break;
    case BREAK_DELAY_WRITE: {
        struct held_write moved = r->last;

        memset(&r->last, 0, sizeof(r->last));
        log_flush(r);
        held_log(r, &r->carry); /* held at the flush before: now after two */
        r->carry = moved;
        break;
    }
    default:
        log_flush(r);
    }
    return r->log_failed ? -EIO : 0;
}

static int rec_flush(const char *path, struct fuse_file_info *fi)
{
    (void)path;
    (void)fi;
    return 0; /* a close, not a request for durability */
}

static int rec_truncate(const char *path, off_t size, struct fuse_file_info *fi)
{
    struct recorder *r = rec_of();

    (void)path;
    (void)fi;
    return (uint64_t)size == r->image_size ? 0 : -EPERM;
}

static const struct fuse_operations rec_ops = {
    .init = rec_init,
    .getattr = rec_getattr,
    .readdir = rec_readdir,
    .open = rec_open,
    .read = rec_read,
    .write = rec_write,
    .fsync = rec_fsync,
    .flush = rec_flush,
    .truncate = rec_truncate,
};

static void usage(FILE *fp)
{
    fprintf(fp, "Usage: spoolsim-recorder IMAGE LOG MOUNTPOINT\n"
                "\n"
                "Serve the file IMAGE as MOUNTPOINT/image through FUSE, opened direct_io, and\n"
                "log to LOG every write (offset, length, data) and every flush (fsync) that\n"
                "reaches it, in order, each with its CLOCK_MONOTONIC time. Put a loop device\n"
                "with direct I/O on the image (losetup --direct-io=on) and the log holds what\n"
                "the filesystem on it asked of the disk. spoolsim crash runs it; see\n"
                "spoolsim-recorder(1).\n"
                "\n"
                "  -h, --help      this text\n"
                "  --version       the version\n"
                "\n"
                "SIGTERM or unmounting MOUNTPOINT stops it; SIGINT is ignored.\n");
}

static enum recorder_break break_mode(void)
{
    const char *b = getenv("SPOOLSIM_RECORDER_BREAK");

    if (b == NULL || *b == '\0')
        return BREAK_NONE;
    if (strcmp(b, "drop-flush") == 0)
        return BREAK_DROP_FLUSH;
    if (strcmp(b, "delay-write") == 0)
        return BREAK_DELAY_WRITE;
    msg_usage("bad SPOOLSIM_RECORDER_BREAK \"%s\" (drop-flush or delay-write)", b);
}

int main(int argc, char **argv)
{
    struct recorder r;
    unsigned char header[BLKLOG_HEADER_LEN];
    struct stat sb;
    struct fuse_args args = FUSE_ARGS_INIT(0, NULL);
    struct fuse *fuse;
    int status = 0, log_fd;

    msg_init("spoolsim-recorder");
    if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        usage(stdout);
        return 0;
    }
    if (argc == 2 && strcmp(argv[1], "--version") == 0) {
        printf("spoolsim-recorder %s\n", PACKAGE_VERSION);
        return 0;
    }
    if (argc != 4)
        msg_usage("want IMAGE LOG MOUNTPOINT (see --help)");
    memset(&r, 0, sizeof(r));
    r.brk = break_mode();
    r.log_path = argv[2];
    r.image_fd = open(argv[1], O_RDWR | O_CLOEXEC | O_NOFOLLOW);
    if (r.image_fd < 0 || fstat(r.image_fd, &sb) != 0)
        msg_usage("cannot open the image %s: %s", argv[1], strerror(errno));
    if (!S_ISREG(sb.st_mode) || sb.st_size <= 0)
        msg_usage("the image %s is not a regular file with data", argv[1]);
    r.image_size = (uint64_t)sb.st_size;
    /* a new file, only ours (it holds the image's data): never another run's log */
    log_fd = open(argv[2], O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
    r.log = log_fd >= 0 ? fdopen(log_fd, "w") : NULL;
    if (r.log == NULL)
        msg_usage("cannot make the log %s: %s", argv[2], strerror(errno));
    setvbuf(r.log, NULL, _IOFBF, 1 << 20);
    blklog_header_encode(header, r.image_size);
    log_bytes(&r, header, sizeof(header));

    if (fuse_opt_add_arg(&args, argv[0]) != 0 ||
        fuse_opt_add_arg(&args, "-ofsname=spoolsim-recorder,subtype=spoolsim") != 0)
        msg_fatal("out of memory");
    fuse = fuse_new(&args, &rec_ops, sizeof(rec_ops), &r);
    if (fuse == NULL)
        msg_fatal("cannot set up FUSE");
    if (fuse_mount(fuse, argv[3]) != 0)
        msg_fatal("cannot mount %s (is /dev/fuse there, and are we root?)", argv[3]);
    if (fuse_set_signal_handlers(fuse_get_session(fuse)) != 0)
        msg_fatal("cannot set the signal handlers");
    signal(SIGINT, SIG_IGN); /* the parent takes the device apart first */
    if (fuse_loop(fuse) != 0)
        status = 1;
    fuse_remove_signal_handlers(fuse_get_session(fuse));
    fuse_unmount(fuse);
    fuse_destroy(fuse);
    fuse_opt_free_args(&args);

    held_log(&r, &r.carry);
    held_log(&r, &r.last);
    if (fclose(r.log) != 0 || r.log_failed) {
        msg_warn("the log %s is incomplete", r.log_path);
        status = 1;
    }
    close(r.image_fd);
    if (msg_verbose())
        msg_info("%llu writes, %llu flushes", (unsigned long long)r.writes,
                 (unsigned long long)r.flushes);
    return status;
}
