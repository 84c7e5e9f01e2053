/*
 * profile - what a message costs the file system, per MTA; see profile.h.
 *
 * Each table is the success path for one recipient per message, with
 * per-recipient steps marked, then the deferral path. The Sendmail, Exim
 * and OpenSMTPD tables were taken from strace runs of Debian 12's daemons
 * (each table's head says which version and what else it rests on);
 * sizes of envelope files are what those daemons wrote for a one-line
 * sender and recipient.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "msg.h"
#include "names.h"
#include "optgroup.h"
#include "profile.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/*
 * ---------------------------------------------------------------- Sendmail
 *
 * Sendmail 8.17.1.9 as Debian 12 ships it (sendmail-bin 8.17.1.9-2+deb12u2),
 * SuperSafe=True and DeliveryMode=background (the defaults), traced with
 * strace -f relaying to a loopback smart host, one message per session;
 * the order is the daemon's. Sources: the trace, and sendmail/queue.c
 * (queueup, the qf write), collect.c (the df file), util.c (xunlink).
 *
 * Accepting, the session's child looks for the new ID's xf and df files
 * and twice at the queue directory, creates df, flocks it, writes the
 * body and fsyncs it, reopens it read-only for the delivery, then creates
 * qf, flocks it, writes and fsyncs it (the commit). At the end of the
 * session it unlinks the df, qf and xf files of the envelope it had made
 * ready for a next message, which never existed: three ENOENT probes
 * (once per session: here a session per message). Delivering (a child
 * that inherits the open files) unlinks df and qf with a directory fsync
 * after each (xunlink: RequiresDirfsync, on by default on Linux) and
 * probes for the xf transcript.
 */
static const struct profile_op sendmail_accept[] = {
    {OP_STAT, "mqueue/xf{id}", NULL, 0, 0, 0},
    {OP_STAT, "mqueue/df{id}", NULL, 0, 0, 0},
    {OP_STAT, "mqueue/df{id}", NULL, 0, 0, 0},
    {OP_STAT, "mqueue/df{id}", NULL, 0, 0, 0},
    {OP_STAT, "mqueue", NULL, 0, 0, 0},
    {OP_STAT, "mqueue", NULL, 0, 0, 0},
    {OP_CREATE, "mqueue/df{id}", NULL, 0600, 0, 0},
    {OP_LOCK, NULL, NULL, 0, 0, 0},
    {OP_WRITE, NULL, NULL, 0, 0, 0},
    {OP_FSYNC, NULL, NULL, 0, 0, 0},
    {OP_CLOSE, NULL, NULL, 0, 0, 0},
    {OP_OPEN, "mqueue/df{id}", NULL, 0, 0, 1},
    {OP_CREATE, "mqueue/qf{id}", NULL, 0600, 0, 0},
    {OP_LOCK, NULL, NULL, 0, 0, 0},
    {OP_WRITE, NULL, NULL, 480, 0, 0},
    {OP_FSYNC, NULL, NULL, 0, 0, 0},
    {OP_CLOSE, NULL, NULL, 0, 0, 1},
    {OP_CLOSE, NULL, NULL, 0, 0, 0},
    /* the session's end: the unused next envelope */
    {OP_PROBE, "mqueue/df{id}.next", NULL, 0, 0, 0},
    {OP_PROBE, "mqueue/qf{id}.next", NULL, 0, 0, 0},
    {OP_PROBE, "mqueue/xf{id}.next", NULL, 0, 0, 0},
};
static const struct profile_op sendmail_deliver[] = {
    {OP_UNLINK, "mqueue/df{id}", NULL, 0, 0, 0}, {OP_FSYNC_DIR, "mqueue", NULL, 0, 0, 0},
    {OP_UNLINK, "mqueue/qf{id}", NULL, 0, 0, 0}, {OP_FSYNC_DIR, "mqueue", NULL, 0, 0, 0},
    {OP_PROBE, "mqueue/xf{id}", NULL, 0, 0, 0},
};
/*
 * Not traced (it needs a queue run): a qf rewrite from source, queue.c:
 * tf, fsync, rename over qf, fsync again "for softupdates", directory fsync.
 */
static const struct profile_op sendmail_defer[] = {
    {OP_CREATE, "mqueue/tf{id}", NULL, 0600, 0, 0},
    {OP_LOCK, NULL, NULL, 0, 0, 0},
    {OP_WRITE, NULL, NULL, 450, 0, 0},
    {OP_FSYNC, NULL, NULL, 0, 0, 0},
    {OP_RENAME, "mqueue/tf{id}", "mqueue/qf{id}", 0, 0, 0},
    {OP_FSYNC, NULL, NULL, 0, 0, 0},
    {OP_CLOSE, NULL, NULL, 0, 0, 0},
    {OP_FSYNC_DIR, "mqueue", NULL, 0, 0, 0},
};
static const char *const sendmail_dirs[] = {"mqueue", NULL};

/* ------------------------------------------------------------- qmail, A.3 */

static const struct profile_op qmail_accept[] = {
    {OP_CREATE, "pid/{w}.{id}.1", NULL, 0644, 0, 0},
    {OP_LINK, "pid/{w}.{id}.1", "mess/{h23}/{id}", 0, 0, 0},
    {OP_UNLINK, "pid/{w}.{id}.1", NULL, 0, 0, 0},
    {OP_WRITE, NULL, NULL, 0, 0, 0},
    {OP_FSYNC, NULL, NULL, 0, 0, 0},
    {OP_CLOSE, NULL, NULL, 0, 0, 0},
    {OP_CREATE, "intd/{id}", NULL, 0644, 0, 0},
    {OP_WRITE, NULL, NULL, 80, 0, 0},
    {OP_FSYNC, NULL, NULL, 0, 0, 0},
    {OP_CLOSE, NULL, NULL, 0, 0, 0},
    {OP_LINK, "intd/{id}", "todo/{id}", 0, 0, 0}, /* the commit point */
};
static const struct profile_op qmail_deliver[] = {
    /* qmail-send takes the message from todo/ */
    {OP_PROBE, "local/{h23}/{id}", NULL, 0, 0, 0},
    {OP_PROBE, "remote/{h23}/{id}", NULL, 0, 0, 0},
    {OP_PROBE, "info/{h23}/{id}", NULL, 0, 0, 0},
    {OP_CREATE, "info/{h23}/{id}", NULL, 0644, 0, 0},
    {OP_WRITE, NULL, NULL, 40, 0, 0},
    {OP_FSYNC, NULL, NULL, 0, 0, 0},
    {OP_CLOSE, NULL, NULL, 0, 0, 0},
    {OP_CREATE, "remote/{h23}/{id}", NULL, 0644, 0, 0},
    {OP_WRITE, NULL, NULL, 40, 0, 0},
    {OP_FSYNC, NULL, NULL, 0, 0, 0},
    {OP_CLOSE, NULL, NULL, 0, 0, 0},
    /* qmail-clean */
    {OP_UNLINK, "intd/{id}", NULL, 0, 0, 0},
    {OP_UNLINK, "todo/{id}", NULL, 0, 0, 0},
    /* delivered: a D per recipient, in place, no fsync */
    {OP_OPEN, "remote/{h23}/{id}", NULL, 0, 0, 0},
    {OP_PWRITE, NULL, NULL, 1, OP_PER_RCPT, 0},
    {OP_CLOSE, NULL, NULL, 0, 0, 0},
    {OP_UNLINK, "remote/{h23}/{id}", NULL, 0, 0, 0},
    /* messdone */
    {OP_UNLINK, "info/{h23}/{id}", NULL, 0, 0, 0},
    {OP_PROBE, "intd/{id}", NULL, 0, 0, 0},
    {OP_UNLINK, "mess/{h23}/{id}", NULL, 0, 0, 0},
};
static const char *const qmail_dirs[] = {"pid",   "intd",   "todo",   "mess", "info",
                                         "local", "remote", "bounce", "lock", NULL};
static const char *const qmail_splits[] = {"mess", "info", "local", "remote", NULL};

/*
 * -------------------------------------------------------------------- Exim
 *
 * Exim 4.96 as Debian 12 ships it (exim4-daemon-light 4.96-15+deb12u11),
 * message_logs on (the default), no split_spool_directory, Berkeley DB
 * hints, traced with strace -f relaying to a loopback smart host through
 * an smtp transport; the order is the daemon's. Sources: the trace, and
 * src/receive.c (the -D file), spool_out.c (the -H file and the directory
 * fsync), deliver.c (the journal, the message log), dbfn.c (the hints).
 *
 * Accepting creates -D (chown, chmod, an fcntl lock), writes and fsyncs
 * it, writes the header file as hdr.ID, fsyncs it, renames it to -H and
 * fsyncs the directory (the commit), then appends to the message log.
 * Delivering (a re-exec'd exim) opens and locks -D, reads -H, looks for
 * a -J journal, reopens the message log with O_APPEND|O_CREAT, looks the
 * host up in the retry hints database (a lock file, Berkeley DB's
 * DB_CONFIG probe, the database that does not exist while nothing has
 * failed), creates -J; the transport (a child) reopens -D, reads the
 * retry and wait-remote_smtp databases under their lock files, writes
 * and fsyncs a journal line per recipient; the delivery logs it and
 * unlinks the message log, -D, -H and -J.
 *
 * Exim 4.98 adds one fdatasync of -D once -H is in place, before it logs
 * the reception (receive.c, commit 690bc2ce8 "fdatasync the spool data
 * file"; read, not traced: Debian 12 has no 4.98). Its other spool code
 * (spool_out.c, deliver.c, dbfn.c's Berkeley DB lock files) makes the
 * same calls as 4.96's.
 */
/* One step a line, as in the tables. */
// clang-format off
#define EXIM_ACCEPT_HEAD                                          \
    {OP_CREATE, "input/{id}-D", NULL, 0640, 0, 0},                \
    {OP_FCHOWN, NULL, NULL, 0, 0, 0},                             \
    {OP_FCHMOD, NULL, NULL, 0640, 0, 0},                          \
    {OP_LOCK, NULL, NULL, 0, 0, 0},                               \
    {OP_WRITE, NULL, NULL, 0, 0, 0},                              \
    {OP_FSYNC, NULL, NULL, 0, 0, 0},                              \
    {OP_CREATE, "input/hdr.{id}", NULL, 0640, 0, 1},              \
    {OP_FCHOWN, NULL, NULL, 0, 0, 1},                             \
    {OP_FCHMOD, NULL, NULL, 0640, 0, 1},                          \
    {OP_WRITE, NULL, NULL, 360, 0, 1},                            \
    {OP_WRITE, NULL, NULL, 340, 0, 1},                            \
    {OP_FSYNC, NULL, NULL, 0, 0, 1},                              \
    {OP_CLOSE, NULL, NULL, 0, 0, 1},                              \
    {OP_RENAME, "input/hdr.{id}", "input/{id}-H", 0, 0, 0},       \
    {OP_FSYNC_DIR, "input", NULL, 0, 0, 0}
#define EXIM_ACCEPT_TAIL                                          \
    {OP_APPEND, "msglog/{id}", NULL, 0, 0, 1},                    \
    {OP_WRITE, NULL, NULL, 110, 0, 1},                            \
    {OP_CLOSE, NULL, NULL, 0, 0, 1},                              \
    {OP_CLOSE, NULL, NULL, 0, 0, 0}
/* A hints database looked up under its lock file in slot s; it does not exist. */
#define EXIM_HINTS_ABSENT(db, s)                                  \
    {OP_OPEN, "db/" db ".lockfile", NULL, 0, 0, s},               \
    {OP_LOCK, NULL, NULL, 1, 0, s},                               \
    {OP_STAT, "db/DB_CONFIG", NULL, 0, 0, 0},                     \
    {OP_STAT, "db/" db, NULL, 0, 0, 0},                           \
    {OP_CLOSE, NULL, NULL, 0, 0, s}
// clang-format on
static const struct profile_op exim_accept[] = {EXIM_ACCEPT_HEAD, EXIM_ACCEPT_TAIL};
static const struct profile_op exim498_accept[] = {
    EXIM_ACCEPT_HEAD, {OP_FDATASYNC, NULL, NULL, 0, 0, 0}, EXIM_ACCEPT_TAIL};
static const struct profile_op exim_deliver[] = {
    {OP_OPEN, "input/{id}-D", NULL, 0, 0, 0},
    {OP_LOCK, NULL, NULL, 0, 0, 0},
    {OP_OPEN, "input/{id}-H", NULL, 0, 0, 1},
    {OP_CLOSE, NULL, NULL, 0, 0, 1},
    {OP_STAT, "input/{id}-J", NULL, 0, 0, 0},
    {OP_APPEND, "msglog/{id}", NULL, 0, 0, 1},
    {OP_FCHOWN, NULL, NULL, 0, 0, 1},
    {OP_FCHMOD, NULL, NULL, 0640, 0, 1},
    EXIM_HINTS_ABSENT("retry", 2),
    {OP_CREATE, "input/{id}-J", NULL, 0640, 0, 2},
    {OP_FCHOWN, NULL, NULL, 0, 0, 2},
    {OP_FCHMOD, NULL, NULL, 0640, 0, 2},
    /* the transport */
    {OP_OPEN, "input/{id}-D", NULL, 0, 0, 3},
    EXIM_HINTS_ABSENT("retry", 4),
    {OP_OPEN, "db/wait-remote_smtp.lockfile", NULL, 0, 0, 4},
    {OP_LOCK, NULL, NULL, 1, 0, 4},
    {OP_STAT, "db/DB_CONFIG", NULL, 0, 0, 0},
    {OP_STAT, "db/wait-remote_smtp", NULL, 0, 0, 0},
    {OP_OPEN, "db/wait-remote_smtp", NULL, 0, 0, 5},
    {OP_CLOSE, NULL, NULL, 0, 0, 5},
    {OP_APPEND, "db/wait-remote_smtp", NULL, 0, 0, 5},
    {OP_CLOSE, NULL, NULL, 0, 0, 5},
    {OP_CLOSE, NULL, NULL, 0, 0, 4},
    {OP_WRITE, NULL, NULL, 40, OP_PER_RCPT, 2},
    {OP_FSYNC, NULL, NULL, 0, OP_PER_RCPT, 2},
    {OP_CLOSE, NULL, NULL, 0, 0, 3},
    /* the delivery process again */
    {OP_WRITE, NULL, NULL, 70, OP_PER_RCPT, 1},
    {OP_UNLINK, "msglog/{id}", NULL, 0, 0, 0},
    {OP_UNLINK, "input/{id}-D", NULL, 0, 0, 0},
    {OP_UNLINK, "input/{id}-H", NULL, 0, 0, 0},
    {OP_CLOSE, NULL, NULL, 0, 0, 1},
    {OP_CLOSE, NULL, NULL, 0, 0, 2},
    {OP_UNLINK, "input/{id}-J", NULL, 0, 0, 0},
    {OP_CLOSE, NULL, NULL, 0, 0, 0},
};
/*
 * Not traced (it needs a failing hop and a queue run): from source,
 * spool_out.c and deliver.c, a new -H by temp file, rename and directory
 * fsync; the attempt's -J goes.
 */
static const struct profile_op exim_defer[] = {
    {OP_CREATE, "input/{id}-J", NULL, 0640, 0, 0},
    {OP_CLOSE, NULL, NULL, 0, 0, 0},
    {OP_CREATE, "input/hdr.{id}", NULL, 0640, 0, 0},
    {OP_FCHMOD, NULL, NULL, 0640, 0, 0},
    {OP_WRITE, NULL, NULL, 750, 0, 0},
    {OP_FSYNC, NULL, NULL, 0, 0, 0},
    {OP_CLOSE, NULL, NULL, 0, 0, 0},
    {OP_RENAME, "input/hdr.{id}", "input/{id}-H", 0, 0, 0},
    {OP_FSYNC_DIR, "input", NULL, 0, 0, 0},
    {OP_UNLINK, "input/{id}-J", NULL, 0, 0, 0},
};
static const char *const exim_dirs[] = {"input", "msglog", "db", NULL};
/* Made by the first messages of a running Exim, kept from then on. */
static const char *const exim_files[] = {"db/retry.lockfile", "db/wait-remote_smtp.lockfile",
                                         "db/wait-remote_smtp", NULL};

/*
 * --------------------------------------------------------------- OpenSMTPD
 *
 * OpenSMTPD 6.8.0p2 as Debian 12 ships it (opensmtpd 6.8.0p2-4+b4), the
 * queue_fs backend, relaying to a loopback host, traced with strace -f
 * (the queue process, chrooted into the spool, and the smtp/mta process
 * that writes the message into a descriptor the queue passes it); the
 * order is the daemon's. Sources: the trace, and smtpd/queue_fs.c.
 *
 * Accepting checks that queue/HH/ID is free, makes incoming/ID, writes an
 * envelope in it per recipient, writes the message into temporary/ID,
 * renames it into incoming/ID and renames that directory to queue/HH/ID
 * (the commit), then unlinks temporary/ID, which is gone: an ENOENT
 * probe. Nothing is synced. A bucket HH is made when first needed and
 * kept, so a warm spool (every bucket made, as here at set-up) costs one
 * mkdir and one rmdir per message. Delivering opens the message for the
 * mta process, unlinks the envelope, finds the message directory empty
 * of envelopes (a stat of incoming/ID, which is not there, then an fts
 * walk of queue/HH/ID: a stat, the directory read, a stat of its one
 * entry), unlinks the message and removes the directory.
 */
static const struct profile_op opensmtpd_accept[] = {
    {OP_STAT, "queue/{hh}/{id}", NULL, 0, 0, 0},
    {OP_MKDIR, "incoming/{id}", NULL, 0, 0, 0},
    {OP_STAT, "incoming/{id}", NULL, 0, OP_PER_RCPT, 0},
    {OP_CREATE, "incoming/{id}/{id}{r}", NULL, 0600, OP_PER_RCPT, 0},
    {OP_WRITE, NULL, NULL, 250, OP_PER_RCPT, 0},
    {OP_CLOSE, NULL, NULL, 0, OP_PER_RCPT, 0},
    {OP_CREATE, "temporary/{id}", NULL, 0600, 0, 0},
    {OP_WRITE, NULL, NULL, 0, 0, 0},
    {OP_CLOSE, NULL, NULL, 0, 0, 0},
    {OP_RENAME, "temporary/{id}", "incoming/{id}/message", 0, 0, 0},
    {OP_RENAME, "incoming/{id}", "queue/{hh}/{id}", 1, 0,
     0}, /* a directory; bucket made on ENOENT */
    {OP_PROBE, "temporary/{id}", NULL, 0, 0, 0},
};
static const struct profile_op opensmtpd_deliver[] = {
    {OP_OPEN, "queue/{hh}/{id}/message", NULL, 0, 0, 0},
    {OP_UNLINK, "queue/{hh}/{id}/{id}{r}", NULL, 0, OP_PER_RCPT, 0},
    {OP_STAT, "incoming/{id}", NULL, 0, 0, 0},
    {OP_STAT, "queue/{hh}/{id}", NULL, 0, 0, 0},
    {OP_READDIR, "queue/{hh}/{id}", NULL, 0, 0, 0},
    {OP_STAT, "queue/{hh}/{id}/message", NULL, 0, 0, 0},
    {OP_UNLINK, "queue/{hh}/{id}/message", NULL, 0, 0, 0},
    {OP_RMDIR, "queue/{hh}/{id}", NULL, 0, 0, 0},
    {OP_CLOSE, NULL, NULL, 0, 0, 0},
};
/*
 * Not traced (it needs a failing hop): from queue_fs.c, the envelope is
 * rewritten through incoming/envelope.tmp (one per worker here).
 */
static const struct profile_op opensmtpd_defer[] = {
    {OP_CREATE, "incoming/envelope.tmp.{w}", NULL, 0600, OP_PER_RCPT, 0},
    {OP_WRITE, NULL, NULL, 520, OP_PER_RCPT, 0},
    {OP_FSYNC, NULL, NULL, 0, OP_PER_RCPT, 0},
    {OP_CLOSE, NULL, NULL, 0, OP_PER_RCPT, 0},
    {OP_RENAME, "incoming/envelope.tmp.{w}", "queue/{hh}/{id}/{id}{r}", 0, OP_PER_RCPT, 0},
};
static const char *const opensmtpd_dirs[] = {"incoming", "temporary", "queue", "purge", NULL};
static const char *const opensmtpd_buckets[] = {"queue", NULL};

static const char *const postfix_dirs[] = {NULL};

#define PHASES(a, d, f) .phase = {a, d, f}, .phase_len = {N(a), N(d), N(f)}

static const struct profile profiles[] = {
    {.name = "postfix",
     .mta = "postfix",
     .summary = "Postfix 3.7: the relay's own queue code (pf_spool)",
     .commit_marker = "fchmod 0700",
     .dirs = postfix_dirs,
     .backend = PROFILE_BACKEND_POSTFIX},
    {.name = "sendmail",
     .mta = "sendmail",
     .summary = "Sendmail 8.17.1.9 (Debian 12), SuperSafe=True, a session per message",
     .commit_marker = "qf written and fsync'ed",
     .dirs = sendmail_dirs,
     PHASES(sendmail_accept, sendmail_deliver, sendmail_defer)},
    {.name = "qmail",
     .mta = "qmail",
     .summary = "notqmail 1.08 (no file work on a deferral: the schedule is in memory)",
     .commit_marker = "link intd -> todo",
     .dirs = qmail_dirs,
     .splits = qmail_splits,
     .phase = {qmail_accept, qmail_deliver, NULL},
     .phase_len = {N(qmail_accept), N(qmail_deliver), 0}},
    {.name = "exim",
     .mta = "exim",
     .summary = "Exim 4.96 (Debian 12), message_logs on, Berkeley DB hints, no split spool",
     .commit_marker = "rename to -H and directory fsync",
     .dirs = exim_dirs,
     .files = exim_files,
     PHASES(exim_accept, exim_deliver, exim_defer)},
    {.name = "exim-4.98",
     .mta = "exim",
     .summary = "Exim 4.98: as exim, and an fdatasync of -D before logging the reception",
     .commit_marker = "rename to -H and directory fsync",
     .dirs = exim_dirs,
     .files = exim_files,
     PHASES(exim498_accept, exim_deliver, exim_defer)},
    {.name = "opensmtpd",
     .mta = "opensmtpd",
     .summary = "OpenSMTPD 6.8.0p2 (Debian 12), queue_fs, every bucket made",
     .commit_marker = "rename incoming/ID -> queue/HH/ID",
     .dirs = opensmtpd_dirs,
     .buckets = opensmtpd_buckets,
     PHASES(opensmtpd_accept, opensmtpd_deliver, opensmtpd_defer)},
    {.name = "null",
     .summary = "no disk I/O at all: the harness alone",
     .commit_marker = "none",
     .dirs = postfix_dirs,
     .backend = PROFILE_BACKEND_NULL},
};

static const char *const op_names[OP_KIND_COUNT] = {
    "create",    "open",   "append", "write", "pwrite", "fsync",  "fdatasync",
    "fsync_dir", "fchmod", "lock",   "close", "link",   "rename", "unlink",
    "probe",     "stat",   "mkdir",  "rmdir", "utime",  "fchown", "readdir",
};

static const char *const sync_names[] = {"profile", "fsync", "fdatasync", "none"};

const struct profile *profile_find(const char *name)
{
    for (size_t i = 0; i < N(profiles); i++)
        if (strcmp(profiles[i].name, name) == 0)
            return &profiles[i];
    return NULL;
}

const struct profile *profile_at(size_t i)
{
    return i < N(profiles) ? &profiles[i] : NULL;
}

const char *profile_op_name(enum profile_op_kind kind)
{
    return op_names[kind];
}

const char *profile_sync_name(enum profile_sync sync)
{
    return sync_names[sync];
}

int profile_sync_parse(const char *name, enum profile_sync *sync)
{
    int i = names_index(sync_names, N(sync_names), name);

    if (i < 0)
        return -1;
    *sync = (enum profile_sync)i;
    return 0;
}

/* What a sync operation becomes under a policy: itself, another one, or nothing. */
static int synced_kind(enum profile_op_kind kind, enum profile_sync sync)
{
    if (kind != OP_FSYNC && kind != OP_FDATASYNC && kind != OP_FSYNC_DIR)
        return (int)kind;
    if (sync == PROFILE_SYNC_NONE)
        return -1;
    if (kind == OP_FSYNC_DIR || sync == PROFILE_SYNC_AS_PROFILE)
        return (int)kind;
    return sync == PROFILE_SYNC_FSYNC ? OP_FSYNC : OP_FDATASYNC;
}

void profile_count(const struct profile *p, enum profile_phase phase, unsigned rcpts,
                   enum profile_sync sync, struct profile_counts *out)
{
    memset(out, 0, sizeof(*out));
    for (size_t i = 0; i < p->phase_len[phase]; i++) {
        const struct profile_op *op = &p->phase[phase][i];
        int kind = synced_kind(op->kind, sync);

        if (kind >= 0)
            out->op[kind] += (op->flags & OP_PER_RCPT) ? rcpts : 1;
    }
}

/* The operations that open a file into their slot, and those that need one open. */
static int opens_slot(enum profile_op_kind k)
{
    return k == OP_CREATE || k == OP_OPEN || k == OP_APPEND;
}

static int needs_slot(enum profile_op_kind k)
{
    return k == OP_WRITE || k == OP_PWRITE || k == OP_FSYNC || k == OP_FDATASYNC ||
           k == OP_FCHMOD || k == OP_FCHOWN || k == OP_LOCK || k == OP_CLOSE;
}

size_t profile_group_end(const struct profile_op *ops, size_t len, size_t i)
{
    size_t j = i + 1;

    if (!(ops[i].flags & OP_PER_RCPT))
        return j;
    while (j < len && (ops[j].flags & OP_PER_RCPT))
        j++;
    return j;
}

/* One step of the check: what op does to the open slots; NULL, or what is wrong. */
static const char *check_step(const struct profile_op *op, int open[PROFILE_SLOTS])
{
    if (op->slot >= PROFILE_SLOTS)
        return "no such slot";
    if (opens_slot(op->kind) && open[op->slot])
        return "opens a slot already open";
    if (needs_slot(op->kind) && !open[op->slot])
        return "works on a slot with no file open";
    if (opens_slot(op->kind))
        open[op->slot] = 1;
    else if (op->kind == OP_CLOSE)
        open[op->slot] = 0;
    return NULL;
}

int profile_check(const struct profile *p, char *err, size_t errlen)
{
    static const char *const phase_names[PHASE_COUNT] = {"accept", "deliver", "defer"};

    /* one recipient and two: a per-recipient group must be repeatable */
    for (unsigned rcpts = 1; rcpts <= 2; rcpts++) {
        for (int ph = 0; ph < PHASE_COUNT; ph++) {
            const struct profile_op *ops = p->phase[ph];
            size_t len = p->phase_len[ph];
            int open[PROFILE_SLOTS] = {0};

            for (size_t i = 0; i < len;) {
                size_t end = profile_group_end(ops, len, i);
                unsigned repeat = (ops[i].flags & OP_PER_RCPT) ? rcpts : 1;

                for (unsigned r = 0; r < repeat; r++) {
                    for (size_t k = i; k < end; k++) {
                        const char *bad = check_step(&ops[k], open);

                        if (bad) {
                            snprintf(err, errlen, "%s, %s step %zu (%s), %u recipient%s: %s",
                                     p->name, phase_names[ph], k + 1, profile_op_name(ops[k].kind),
                                     rcpts, rcpts == 1 ? "" : "s", bad);
                            return -1;
                        }
                    }
                }
                i = end;
            }
            for (unsigned k = 0; k < PROFILE_SLOTS; k++) {
                if (open[k]) {
                    snprintf(err, errlen, "%s, %s: slot %u is left open", p->name, phase_names[ph],
                             k);
                    return -1;
                }
            }
        }
    }
    return 0;
}

int profile_expand(const char *tmpl, uint64_t id, unsigned w, unsigned r, char *out, size_t len)
{
    size_t o = 0;

    while (*tmpl) {
        char piece[32];
        const char *close;
        size_t n;

        if (*tmpl != '{') {
            if (o + 1 >= len)
                return -1;
            out[o++] = *tmpl++;
            continue;
        }
        if ((close = strchr(tmpl, '}')) == NULL)
            return -1;
        n = (size_t)(close - tmpl - 1);
        if (n == 2 && strncmp(tmpl + 1, "id", 2) == 0)
            snprintf(piece, sizeof(piece), "%llu", (unsigned long long)id);
        else if (n == 1 && tmpl[1] == 'w')
            snprintf(piece, sizeof(piece), "%u", w);
        else if (n == 1 && tmpl[1] == 'r')
            snprintf(piece, sizeof(piece), "%u", r);
        else if (n == 3 && strncmp(tmpl + 1, "h23", 3) == 0)
            snprintf(piece, sizeof(piece), "%u", (unsigned)(id % 23));
        else if (n == 2 && strncmp(tmpl + 1, "hh", 2) == 0)
            snprintf(piece, sizeof(piece), "%02x", (unsigned)(id * 2654435761u >> 24) & 0xff);
        else
            return -1;
        n = strlen(piece);
        if (o + n >= len)
            return -1;
        memcpy(out + o, piece, n);
        o += n;
        tmpl = close + 1;
    }
    out[o] = 0;
    return 0;
}

const char *profile_option(const char *name)
{
    if (profile_find(name) == NULL) {
        char names[PROFILE_NAMES_MAX];

        profile_names(names, sizeof(names));
        msg_usage("unknown --profile \"%s\" (%s)", name, names);
    }
    return name;
}

void profile_names(char *out, size_t len)
{
    size_t o = 0;

    out[0] = 0;
    for (size_t i = 0; i < N(profiles) && o < len; i++) {
        const char *sep = i == 0 ? "" : i + 1 == N(profiles) ? " or " : ", ";
        int n = snprintf(out + o, len - o, "%s%s", sep, profiles[i].name);

        if (n < 0)
            break;
        o += (size_t)n;
    }
}

void profile_help(FILE *fp, const char *label, const char *before, const char *after, int width)
{
    char names[PROFILE_NAMES_MAX], text[PROFILE_NAMES_MAX + 512];

    profile_names(names, sizeof(names));
    snprintf(text, sizeof(text), "%s%s%s", before, names, after);
    optgroup_help_line(fp, label, text, width);
}
