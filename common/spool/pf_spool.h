/*
 * pf_spool - a Postfix-style queue on disk, one system call at a time.
 *
 * pf_spool_file_enqueue() is what Postfix's cleanup does to accept a
 * message (docs/spool-profiles.md A.1.3, docs/postfix-observed.md 5.2):
 * create a temporary file in incoming/ (O_EXCL, 0600), take the queue ID
 * from the time and the inode, rename the file to it, probe for stale
 * defer/bounce/trace logs (expected ENOENT), write the records in 4 KiB
 * pieces, rewrite the C record in place, fchmod 0700 (the "complete"
 * mark), sync as the policy says, close. Only after it returns 0 may a
 * server answer 250. On any failure the file is removed: no partial queue
 * file stays behind, and errno tells why (ENOSPC and EDQUOT mean "452
 * 4.3.1"). A failure after the mark (the sync's EIO, which may come with
 * the file on disk whole) takes the mark off and removes the file, and
 * syncs that before it returns, so that no restart delivers a message
 * whose client was told 4xx (docs/spool-profiles.md E.1); only a file
 * system that takes no write at all can keep it, and pf_spool_file says so.
 *
 * The queue manager's side moves files between queues, marks delivered
 * recipients with a one-byte pwrite, and unlinks. Everything here blocks;
 * the relay calls it from its I/O threads, never from the event loop.
 *
 * The spool is no way into the host. pf_spool_open() checks the spool and
 * every queue directory as Postfix has its queue kept: real directories,
 * not symbolic links, owned by the user the relay runs as, not writable by
 * group or others; it refuses anything else, naming the path and the
 * fault, before it has changed anything. From then on every file is
 * opened, renamed and removed relative to the queue directories'
 * descriptors, never following a symbolic link in the last component.
 * The hash directories in between are checked at the start too; after
 * it only the owner (the relay) or root can put anything in a queue.
 * pf_spool_lock() opens pid/relay.pid the same way, and
 * pf_spool_drop_privileges() then makes the process the spool's owner
 * (-u USER, Postfix's mail_owner).
 *
 * A spool description that pf_spool_open() has not opened (a benchmark's
 * runner, which sets only dir) works by path, as a tool on its own
 * private directory.
 *
 * One contract, three files, each function named for its own: pf_spool.c
 * the tree (pf_spool_*: open, lock, locate, privileges), pf_spool_file.c a
 * message's files (pf_spool_file_*: create to remove, logs, done marks),
 * pf_recover.c recovery after a crash (pf_recover_*).
 */
#ifndef SPOOLSIM_PF_SPOOL_H
#define SPOOLSIM_PF_SPOOL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "pf_qfile.h"
#include "pf_queue.h"

enum pf_sync { PF_SYNC_FSYNC, PF_SYNC_FDATASYNC, PF_SYNC_NONE };

#define PF_SPOOL_QUEUES 11

struct pf_spool {
    char *dir;
    int long_ids;
    int hash_depth; /* for deferred/ and defer/ (Postfix: 1); recorded in the spool */
    enum pf_sync sync;
    uint64_t max_file; /* pf_spool_file_read() takes no longer file (EFBIG); 0: no bound */
    /* pf_spool_scan_incoming() may move files on behind their writer's back (the relay's
     * SPOOLSIM_QMGR_SCAN): activation and withdrawal look for them in active/ too */
    int scan_incoming;

    /* The spool's owner, whom the relay runs as: pf_spool_set_user(), else the process's. */
    int owner_set;
    uid_t owner_uid;
    gid_t owner_gid;
    char owner_name[64];

    /* pf_spool_open(): the spool and its queues, opened without following links */
    int opened;
    int dir_fd;
    int queue_fd[PF_SPOOL_QUEUES];
    /* in new files' temporary names; read once, as Postfix's var_pid, not a getpid() a file */
    long pid;
};

/* Counters a caller may keep per thread and add up. */
struct pf_spool_stats {
    uint64_t creates, renames, unlinks, probes, fsyncs, chmods, writes, bytes, utimes, mkdirs;
    uint64_t stat_probes, locks;
    uint64_t scans, scan_moves; /* pf_spool_scan_incoming(): its passes, the files they moved */
};

void pf_spool_stats_add(struct pf_spool_stats *to, const struct pf_spool_stats *from);

/*
 * The spool belongs to `user' and the relay will run as `user' (-u): what
 * pf_spool_open() makes is chown'ed to the user, what it finds must be the
 * user's. -1 and a reason for an unknown user, a privileged one (uid or
 * gid 0, as Postfix refuses for mail_owner), or another user than the
 * process's when the process is not root.
 */
int pf_spool_set_user(struct pf_spool *sp, const char *user, char *err, size_t errlen);

/*
 * Make `dir' and its queue subdirectories (0700, the owner's) if missing,
 * check them all and the hash directories of deferred/ and defer/, open
 * them, and check the layout (the hash depth) against spoolsim.layout, or
 * record it there: without the file, the depth of the deferred mail found
 * must be sp->hash_depth. -1 and a message naming the path if anything is
 * wrong, and then nothing is left open.
 */
int pf_spool_open(struct pf_spool *sp, const char *dir, char *err, size_t errlen);
void pf_spool_close(struct pf_spool *sp);

/*
 * One relay per spool: pid/ (made, or checked as a queue is) and
 * pid/relay.pid, opened without following a link, a regular file with
 * one link and the spool owner's, locked and given our PID. Needs only
 * sp->dir (and the owner), so it serves every --profile. Returns the
 * descriptor to hold until exit, or -1 and a message.
 */
int pf_spool_lock(const struct pf_spool *sp, char *err, size_t errlen);

/*
 * Become the spool's owner for good (setgroups, setgid, setuid, each
 * checked, then a check that root cannot be had back), as Postfix's
 * processes become mail_owner once what needs root is done. Nothing to do
 * without pf_spool_set_user(). -1 and a message on any failure.
 */
int pf_spool_drop_privileges(const struct pf_spool *sp, char *err, size_t errlen);

int pf_spool_file_enqueue(const struct pf_spool *sp, const struct pf_qfile *q, char *id,
                          size_t idlen, struct pf_spool_stats *st);

/*
 * pf_spool_file_enqueue() in steps, for a message written as it arrives, as
 * Postfix's cleanup writes it: pf_spool_file_create() makes the file in
 * incoming/ (0600, renamed to its queue ID, the stale logs probed) when
 * smtpd opens its stream at the first accepted RCPT; pf_spool_file_append()
 * goes through a 4 KiB buffer as cleanup's VSTREAM does, so the writes
 * are the same 4 KiB pieces however the text is cut; pf_spool_file_commit()
 * writes what is left, rewrites the C record, marks the file complete,
 * syncs and closes. A step that fails has removed the file (errno says
 * why); pf_spool_file_abort() removes it too, for a message that will not be
 * finished (RSET, a lost client, a 552). Each blocks: pool threads only.
 */
struct pf_spool_file {
    int fd;   /* -1: none open */
    int left; /* after a failed commit: the file may still be on disk, marked complete */
    int at;   /* the name's directory (AT_FDCWD for a spool by path) */
    char name[4096];
    char buf[4096]; /* Postfix's VSTREAM buffer */
    size_t buf_len;
};

int pf_spool_file_create(const struct pf_spool *sp, struct pf_spool_file *f, char *id, size_t idlen,
                         struct pf_spool_stats *st);
int pf_spool_file_append(struct pf_spool_file *f, const char *data, size_t len,
                         struct pf_spool_stats *st);
int pf_spool_file_commit(const struct pf_spool *sp, struct pf_spool_file *f,
                         const char size_record[PF_SIZE_RECORD_LEN], struct pf_spool_stats *st);
void pf_spool_file_abort(struct pf_spool_file *f);

/*
 * The commit of a message kept in a pf_qfile (pf_qfile_finish() made its
 * end records): what q's buffer still holds goes through
 * pf_spool_file_append(), then pf_spool_file_commit() with q's C record.
 * pf_spool_file_enqueue() is pf_spool_file_create() and this; the relay,
 * which has appended the text as it came, ends with this too, so that
 * both make the same calls. A failure has removed the file, as there.
 */
int pf_spool_file_commit_qfile(const struct pf_spool *sp, struct pf_spool_file *f,
                               const struct pf_qfile *q, struct pf_spool_stats *st);

/*
 * Postfix's qmgr's scan of incoming/: every regular file there marked
 * complete (0700) moved to active/, whether or not its writer's fsync has
 * returned (cleanup marks before it syncs, and qmgr is another process),
 * up to `room' of them: qmgr stops feeding when its active queue is full.
 * The number moved, or -1 when incoming/ cannot be read.
 */
int pf_spool_scan_incoming(const struct pf_spool *sp, unsigned room, struct pf_spool_stats *st);

/*
 * incoming/ID (or deferred/X/ID with from_deferred) -> active/ID, if lstat
 * shows it 0700: 0. On a spool that scans, 1 when a scan had moved it
 * already; -1 and errno on failure (EAGAIN: not marked complete).
 */
int pf_spool_file_activate(const struct pf_spool *sp, const char *id, int from_deferred,
                           struct pf_spool_stats *st);

/*
 * Read active/ID whole into a malloc'd buffer, under an exclusive flock as
 * qmgr takes. A file over sp->max_file is not read (EFBIG, and *len is
 * then its size), nor one that is not a regular file (EINVAL) or is a
 * symbolic link (ELOOP).
 */
int pf_spool_file_read(const struct pf_spool *sp, const char *id, char **buf, size_t *len,
                       struct pf_spool_stats *st);

/*
 * pf_spool_file_read() for a file that may hold a large message: one no longer
 * than `window' is read whole (*gap 0), as before; of a longer one only
 * the envelope, the bytes before the content section and those after it
 * (*gap the content's length, pf_qfile_read_envelope()), as Postfix's qmgr
 * seeks over the content. The same lock, bounds and errors.
 */
int pf_spool_file_read_envelope(const struct pf_spool *sp, const char *id, size_t window,
                                char **buf, size_t *len, uint64_t *gap, struct pf_spool_stats *st);

/*
 * The queue manager's reading of active/ID after its activation:
 * pf_spool_file_read_envelope() within `window' (SIZE_MAX: the whole
 * file), then pf_qfile_read_envelope() of what it read. 0, with the file
 * in *buf (malloc'd, *len bytes) and *view into it (pf_qfile_view_free());
 * -1 and errno when the reading failed (*len is the file's size for
 * EFBIG), and *buf is NULL; -2 for a damaged file, the reason in err,
 * *buf freed and NULL. What to do with a damaged file is the caller's.
 */
int pf_spool_file_load(const struct pf_spool *sp, const char *id, size_t window, char **buf,
                       size_t *len, struct pf_qfile_view *view, char *err, size_t errlen,
                       struct pf_spool_stats *st);

/*
 * The content of active/ID in windows, as Postfix's delivery agents read
 * it through a VSTREAM: opened again (never through a link, a regular
 * file within the bound), under a shared lock, from `start' to `end' (the
 * view's content_start and content_end), at most `window' bytes held.
 * Take records from buf[pos, len), which starts at file offset at + pos,
 * with pf_qfile_content_piece(), advancing pos; _fill() keeps what was
 * not taken and reads on. Open and fill give 0; -1 with errno for a
 * failed system call (the file may be fine); -2 for damage, named in
 * `damage' (a file shorter than its content, a record longer than a
 * window). Blocking: pool threads only. Close it in any case.
 */
struct pf_spool_reader {
    int fd;
    uint64_t at, next, end; /* the file offsets of buf[0], of the next read, of X */
    char *buf;
    size_t cap, len, pos;
    const char *damage;
};
int pf_spool_file_reader_open(const struct pf_spool *sp, const char *id, uint64_t start,
                              uint64_t end, size_t window, struct pf_spool_reader *rd,
                              struct pf_spool_stats *st);
int pf_spool_file_reader_fill(struct pf_spool_reader *rd);
void pf_spool_file_reader_close(struct pf_spool_reader *rd);

/*
 * The content of active/ID as text with CR LF line ends (as
 * pf_qfile_content_text() makes it), through a reader of `window' bytes:
 * `each' gets each window's text, and stops the reading by returning
 * non-zero. 0 at the end, 1 when `each' stopped it; -1 (errno) or -2 as
 * the reader, with the reason in `why'. Blocking: pool threads only.
 */
typedef int pf_spool_text_fn(void *ctx, const char *text, size_t len);
int pf_spool_file_content_each(const struct pf_spool *sp, const char *id,
                               const struct pf_qfile_view *v, size_t window, pf_spool_text_fn *each,
                               void *ctx, char *why, size_t whylen, struct pf_spool_stats *st);

/*
 * A deferral as Postfix's qmgr makes it: the next retry time becomes the
 * file's mtime, then active/ID -> deferred/X/ID (X made on first use).
 */
int pf_spool_file_defer(const struct pf_spool *sp, const char *id, long retry_sec,
                        struct pf_spool_stats *st);

/*
 * Append `text' to the per-message log `log' ("defer" or "bounce") and
 * sync it, as Postfix's bounce service does: open O_APPEND (making the hash
 * directory on first use), write, fsync, close.
 */
int pf_spool_file_log_append(const struct pf_spool *sp, const char *log, const char *id,
                             const char *text, struct pf_spool_stats *st);

/* Remove a per-message log; a missing one is no error (and counts as a probe). */
int pf_spool_file_log_remove(const struct pf_spool *sp, const char *log, const char *id,
                             struct pf_spool_stats *st);

/* 1 if the per-message log exists (a stat, as qmgr's look at bounce/ID), else 0. */
int pf_spool_file_log_exists(const struct pf_spool *sp, const char *log, const char *id,
                             struct pf_spool_stats *st);

/* 1 and its size if the per-message log exists (the same stat), else 0. */
int pf_spool_file_log_stat(const struct pf_spool *sp, const char *log, const char *id, off_t *size,
                           struct pf_spool_stats *st);

/*
 * Read the per-message log whole into a malloc'd, NUL-terminated buffer,
 * as the bounce service reads it to make a notification: open read-only
 * (never following a link), read, close. EINVAL for what is not a regular
 * file, EFBIG for one over sp->max_file.
 */
int pf_spool_file_log_read(const struct pf_spool *sp, const char *log, const char *id, char **buf,
                           size_t *len, struct pf_spool_stats *st);

/* queue/ID -> corrupt/ID: a file the queue manager cannot read is kept, not delivered. */
int pf_spool_file_corrupt(const struct pf_spool *sp, const char *queue, const char *id);

/* Overwrite the R of recipient record at `offset' with D, in active/ID. */
int pf_spool_file_mark_done(const struct pf_spool *sp, const char *id, size_t offset,
                            struct pf_spool_stats *st);

/* unlink active/ID */
int pf_spool_file_remove(const struct pf_spool *sp, const char *id, struct pf_spool_stats *st);

/*
 * Where ID of `queue' is: *at, the queue's descriptor, and `name' relative
 * to it, hash directories included ("A/ID"); *rel_off (if not NULL) is
 * where the part inside the queue starts in `name' (0 unless the spool
 * was not opened, when *at is AT_FDCWD and `name' the whole path). -1 with
 * EINVAL for an unknown queue or a malformed ID.
 */
int pf_spool_locate(const struct pf_spool *sp, const char *queue, const char *id, int *at,
                    char *name, size_t len, size_t *rel_off);

/* The descriptor of `queue' of an opened spool, else -1. */
int pf_spool_queue_fd(const struct pf_spool *sp, const char *queue);

/* The path of ID in `queue' ("incoming", "deferred", ...), hashed where Postfix hashes. */
int pf_spool_path(const struct pf_spool *sp, const char *queue, const char *id, char *out,
                  size_t len);

/*
 * Recovery at start (docs/spool-profiles.md E.2), before anything else uses the
 * spool: files left in active/ go back to incoming/; in incoming/ the
 * relay's temporary files and queue files without the owner's execute
 * bit were never acknowledged and are removed; a queue file elsewhere
 * that has lost its 0700 mark was, and is marked again (with a warning);
 * what is not a queue file where its name puts it is left alone, with a
 * warning naming it. What remains in incoming/ and deferred/ is reported
 * to `found' (queue, ID, mtime) in that order. Defer and bounce logs whose
 * message is gone are removed.
 */
struct pf_recovery {
    unsigned requeued, incomplete, marked, skipped, removed_logs, found_incoming, found_deferred;
};
typedef void (*pf_spool_found_fn)(void *ctx, const char *queue, const char *id, long mtime);
int pf_recover_spool(const struct pf_spool *sp, pf_spool_found_fn found, void *ctx,
                     struct pf_recovery *rec, char *err, size_t errlen);

/*
 * Recovery's rule for one entry of `queue' ("incoming", "active",
 * "deferred", "defer", "bounce") named `name', whose lstat() gave `mode'
 * (type and permissions), `placed' when it is where its name as a queue
 * ID would put it (its hash directory). No I/O; *why says, for SKIP and
 * MARK, what is wrong with it.
 */
enum pf_recover_verdict {
    PF_RECOVER_KEEP,   /* a queue file (or log) to keep: delivered, or its message looked for */
    PF_RECOVER_MARK,   /* acknowledged, but its 0700 lost: marked again, then kept */
    PF_RECOVER_REMOVE, /* incoming/ only: never acknowledged */
    PF_RECOVER_SKIP    /* not ours to judge: left alone, with a warning */
};
enum pf_recover_verdict pf_recover_verdict(const char *queue, const char *name, mode_t mode,
                                           int placed, const char **why);

const char *pf_spool_sync_name(enum pf_sync sync);
int pf_spool_sync_parse(const char *name, enum pf_sync *sync);
/* --sync's value on a command line: the policy it names, else a usage error (msg_usage()). */
enum pf_sync pf_spool_sync_option(const char *name);

#endif
