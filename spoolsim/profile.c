/*
 * profile - what a message costs the file system, per MTA; see profile.h.
 *
 * Each table is the success path of docs/spool-profiles.md for one recipient
 * per message, with per-recipient steps marked; the deferral path follows
 * the same section. Sizes of envelope files are typical of each MTA.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "profile.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* ---------------------------------------------------------- Sendmail, A.2 */

static const struct profile_op sendmail_accept[] = {
    {OP_CREATE, "mqueue/df{id}", NULL, 0600, 0},
    {OP_WRITE, NULL, NULL, 0, 0},
    {OP_FSYNC, NULL, NULL, 0, 0},
    {OP_CLOSE, NULL, NULL, 0, 0},
    {OP_CREATE, "mqueue/qf{id}", NULL, 0600, 0},
    {OP_LOCK, NULL, NULL, 0, 0},
    {OP_WRITE, NULL, NULL, 400, 0},
    {OP_FSYNC, NULL, NULL, 0, 0},
    {OP_CLOSE, NULL, NULL, 0, 0},
};
static const struct profile_op sendmail_deliver[] = {
    {OP_UNLINK, "mqueue/df{id}", NULL, 0, 0},
    {OP_UNLINK, "mqueue/qf{id}", NULL, 0, 0},
};
/* A qf rewrite: tf, fsync, rename over qf, fsync again "for softupdates", directory fsync. */
static const struct profile_op sendmail_defer[] = {
    {OP_CREATE, "mqueue/tf{id}", NULL, 0600, 0},
    {OP_LOCK, NULL, NULL, 0, 0},
    {OP_WRITE, NULL, NULL, 450, 0},
    {OP_FSYNC, NULL, NULL, 0, 0},
    {OP_RENAME, "mqueue/tf{id}", "mqueue/qf{id}", 0, 0},
    {OP_FSYNC, NULL, NULL, 0, 0},
    {OP_CLOSE, NULL, NULL, 0, 0},
    {OP_FSYNC_DIR, "mqueue", NULL, 0, 0},
};
static const char *const sendmail_dirs[] = {"mqueue", NULL};

/* ------------------------------------------------------------- qmail, A.3 */

static const struct profile_op qmail_accept[] = {
    {OP_CREATE, "pid/{w}.{id}.1", NULL, 0644, 0},
    {OP_LINK, "pid/{w}.{id}.1", "mess/{h23}/{id}", 0, 0},
    {OP_UNLINK, "pid/{w}.{id}.1", NULL, 0, 0},
    {OP_WRITE, NULL, NULL, 0, 0},
    {OP_FSYNC, NULL, NULL, 0, 0},
    {OP_CLOSE, NULL, NULL, 0, 0},
    {OP_CREATE, "intd/{id}", NULL, 0644, 0},
    {OP_WRITE, NULL, NULL, 80, 0},
    {OP_FSYNC, NULL, NULL, 0, 0},
    {OP_CLOSE, NULL, NULL, 0, 0},
    {OP_LINK, "intd/{id}", "todo/{id}", 0, 0}, /* the commit point */
};
static const struct profile_op qmail_deliver[] = {
    /* qmail-send takes the message from todo/ */
    {OP_PROBE, "local/{h23}/{id}", NULL, 0, 0},
    {OP_PROBE, "remote/{h23}/{id}", NULL, 0, 0},
    {OP_PROBE, "info/{h23}/{id}", NULL, 0, 0},
    {OP_CREATE, "info/{h23}/{id}", NULL, 0644, 0},
    {OP_WRITE, NULL, NULL, 40, 0},
    {OP_FSYNC, NULL, NULL, 0, 0},
    {OP_CLOSE, NULL, NULL, 0, 0},
    {OP_CREATE, "remote/{h23}/{id}", NULL, 0644, 0},
    {OP_WRITE, NULL, NULL, 40, 0},
    {OP_FSYNC, NULL, NULL, 0, 0},
    {OP_CLOSE, NULL, NULL, 0, 0},
    /* qmail-clean */
    {OP_UNLINK, "intd/{id}", NULL, 0, 0},
    {OP_UNLINK, "todo/{id}", NULL, 0, 0},
    /* delivered: a D per recipient, in place, no fsync */
    {OP_OPEN, "remote/{h23}/{id}", NULL, 0, 0},
    {OP_PWRITE, NULL, NULL, 1, OP_PER_RCPT},
    {OP_CLOSE, NULL, NULL, 0, 0},
    {OP_UNLINK, "remote/{h23}/{id}", NULL, 0, 0},
    /* messdone */
    {OP_UNLINK, "info/{h23}/{id}", NULL, 0, 0},
    {OP_PROBE, "intd/{id}", NULL, 0, 0},
    {OP_UNLINK, "mess/{h23}/{id}", NULL, 0, 0},
};
static const char *const qmail_dirs[] = {"pid",   "intd",   "todo",   "mess", "info",
                                         "local", "remote", "bounce", "lock", NULL};
static const char *const qmail_splits[] = {"mess", "info", "local", "remote", NULL};

/* -------------------------------------------------------------- Exim, A.4 */

static const struct profile_op exim_accept[] = {
    {OP_CREATE, "input/{id}-D", NULL, 0640, 0},
    {OP_FCHMOD, NULL, NULL, 0640, 0},
    {OP_LOCK, NULL, NULL, 0, 0},
    {OP_WRITE, NULL, NULL, 0, 0},
    {OP_FSYNC, NULL, NULL, 0, 0},
    {OP_FDATASYNC, NULL, NULL, 0, 0}, /* 4.98: before logging reception and the ack */
    {OP_CLOSE, NULL, NULL, 0, 0},
    {OP_CREATE, "input/hdr.{id}", NULL, 0640, 0},
    {OP_FCHMOD, NULL, NULL, 0640, 0},
    {OP_WRITE, NULL, NULL, 700, 0},
    {OP_FSYNC, NULL, NULL, 0, 0},
    {OP_CLOSE, NULL, NULL, 0, 0},
    {OP_RENAME, "input/hdr.{id}", "input/{id}-H", 0, 0},
    {OP_FSYNC_DIR, "input", NULL, 0, 0},
    {OP_APPEND, "msglog/{id}", NULL, 0, 0},
    {OP_WRITE, NULL, NULL, 120, 0},
    {OP_CLOSE, NULL, NULL, 0, 0},
};
static const struct profile_op exim_deliver[] = {
    {OP_OPEN, "input/{id}-D", NULL, 0, 0},
    {OP_LOCK, NULL, NULL, 0, 0},
    {OP_CLOSE, NULL, NULL, 0, 0},
    {OP_CREATE, "input/{id}-J", NULL, 0640, 0},
    {OP_WRITE, NULL, NULL, 40, OP_PER_RCPT},
    {OP_FSYNC, NULL, NULL, 0, OP_PER_RCPT},
    {OP_CLOSE, NULL, NULL, 0, 0},
    {OP_UNLINK, "msglog/{id}", NULL, 0, 0},
    {OP_UNLINK, "input/{id}-D", NULL, 0, 0},
    {OP_UNLINK, "input/{id}-H", NULL, 0, 0},
    {OP_UNLINK, "input/{id}-J", NULL, 0, 0},
};
/* A new -H by temp file, rename and directory fsync; the attempt's -J goes. */
static const struct profile_op exim_defer[] = {
    {OP_CREATE, "input/{id}-J", NULL, 0640, 0},
    {OP_CLOSE, NULL, NULL, 0, 0},
    {OP_CREATE, "input/hdr.{id}", NULL, 0640, 0},
    {OP_FCHMOD, NULL, NULL, 0640, 0},
    {OP_WRITE, NULL, NULL, 750, 0},
    {OP_FSYNC, NULL, NULL, 0, 0},
    {OP_CLOSE, NULL, NULL, 0, 0},
    {OP_RENAME, "input/hdr.{id}", "input/{id}-H", 0, 0},
    {OP_FSYNC_DIR, "input", NULL, 0, 0},
    {OP_UNLINK, "input/{id}-J", NULL, 0, 0},
};
static const char *const exim_dirs[] = {"input", "msglog", NULL};

/* ---------------------------------------------------- OpenSMTPD fs, A.5 */

static const struct profile_op opensmtpd_accept[] = {
    {OP_STAT, "queue/{hh}/{id}", NULL, 0, 0},
    {OP_MKDIR, "incoming/{id}", NULL, 0, 0},
    {OP_STAT, "incoming/{id}", NULL, 0, OP_PER_RCPT},
    {OP_CREATE, "incoming/{id}/{id}{r}", NULL, 0600, OP_PER_RCPT},
    {OP_WRITE, NULL, NULL, 500, OP_PER_RCPT},
    {OP_CLOSE, NULL, NULL, 0, OP_PER_RCPT},
    {OP_CREATE, "temporary/{id}", NULL, 0600, 0},
    {OP_WRITE, NULL, NULL, 0, 0},
    {OP_CLOSE, NULL, NULL, 0, 0},
    {OP_RENAME, "temporary/{id}", "incoming/{id}/message", 0, 0},
    {OP_RENAME, "incoming/{id}", "queue/{hh}/{id}", 1, 0}, /* a directory; bucket made on ENOENT */
};
static const struct profile_op opensmtpd_deliver[] = {
    {OP_UNLINK, "queue/{hh}/{id}/{id}{r}", NULL, 0, OP_PER_RCPT},
    {OP_UNLINK, "queue/{hh}/{id}/message", NULL, 0, 0},
    {OP_RMDIR, "queue/{hh}/{id}", NULL, 0, 0},
};
/* The envelope is rewritten through incoming/envelope.tmp (one per worker here). */
static const struct profile_op opensmtpd_defer[] = {
    {OP_CREATE, "incoming/envelope.tmp.{w}", NULL, 0600, OP_PER_RCPT},
    {OP_WRITE, NULL, NULL, 520, OP_PER_RCPT},
    {OP_FSYNC, NULL, NULL, 0, OP_PER_RCPT},
    {OP_CLOSE, NULL, NULL, 0, OP_PER_RCPT},
    {OP_RENAME, "incoming/envelope.tmp.{w}", "queue/{hh}/{id}/{id}{r}", 0, OP_PER_RCPT},
};
static const char *const opensmtpd_dirs[] = {"incoming", "temporary", "queue", "purge", NULL};

static const char *const postfix_dirs[] = {NULL};

static const struct profile profiles[] = {
    {"postfix",
     "Postfix 3.7: the relay's own queue code (pf_spool)",
     "fchmod 0700",
     postfix_dirs,
     NULL,
     {NULL, NULL, NULL},
     {0, 0, 0},
     1,
     0},
    {"sendmail",
     "Sendmail 8.18, SuperSafe=True",
     "qf written and fsync'ed",
     sendmail_dirs,
     NULL,
     {sendmail_accept, sendmail_deliver, sendmail_defer},
     {N(sendmail_accept), N(sendmail_deliver), N(sendmail_defer)},
     0,
     0},
    {"qmail",
     "notqmail 1.08 (no file work on a deferral: the schedule is in memory)",
     "link intd -> todo",
     qmail_dirs,
     qmail_splits,
     {qmail_accept, qmail_deliver, NULL},
     {N(qmail_accept), N(qmail_deliver), 0},
     0,
     0},
    {"exim",
     "Exim 4.98+, message_logs on, no split_spool_directory",
     "rename to -H and directory fsync",
     exim_dirs,
     NULL,
     {exim_accept, exim_deliver, exim_defer},
     {N(exim_accept), N(exim_deliver), N(exim_defer)},
     0,
     0},
    {"opensmtpd",
     "OpenSMTPD queue_fs",
     "rename incoming/ID -> queue/HH/ID",
     opensmtpd_dirs,
     NULL,
     {opensmtpd_accept, opensmtpd_deliver, opensmtpd_defer},
     {N(opensmtpd_accept), N(opensmtpd_deliver), N(opensmtpd_defer)},
     0,
     0},
    {"null",
     "no disk I/O at all: the harness alone",
     "none",
     postfix_dirs,
     NULL,
     {NULL, NULL, NULL},
     {0, 0, 0},
     0,
     1},
};

static const char *const op_names[OP_KIND_COUNT] = {
    "create",    "open",   "append", "write", "pwrite", "fsync",  "fdatasync",
    "fsync_dir", "fchmod", "lock",   "close", "link",   "rename", "unlink",
    "probe",     "stat",   "mkdir",  "rmdir", "utime",
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
    for (size_t i = 0; i < N(sync_names); i++) {
        if (strcmp(name, sync_names[i]) == 0) {
            *sync = (enum profile_sync)i;
            return 0;
        }
    }
    return -1;
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
