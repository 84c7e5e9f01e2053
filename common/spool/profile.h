/*
 * profile - what a message costs the file system, per MTA (no I/O but --help's line).
 *
 * A profile is an ordered list of file operations for each phase of a
 * message's life: accepting it (everything up to the 250), delivering it
 * after its time in the queue, and deferring it (the deferral path; a
 * deferred message is later delivered by the deliver phase). Paths are
 * templates over the message's numbers: {id} (decimal), {w} (worker),
 * {r} (recipient, for an operation repeated per recipient), {h23}
 * (id mod 23, qmail's split), {hh} (two hex digits, OpenSMTPD's buckets).
 * An MTA holds several files open at once (Exim's delivery keeps the -D
 * file, the message log and the journal open while it reads its hints
 * databases), so every operation names the slot of the open file it
 * works on. The Sendmail, Exim and OpenSMTPD tables are what those
 * daemons were traced doing (tests/it/it_profile_daemons.sh checks them);
 * the postfix profile has no table here because it is the relay's own
 * implementation (pf_spool), shared by `spoolsim raw' and the relay.
 */
#ifndef SPOOLSIM_PROFILE_H
#define SPOOLSIM_PROFILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum profile_op_kind {
    OP_CREATE,    /* open(path, O_CREAT|O_EXCL|O_RDWR, arg) into the slot */
    OP_OPEN,      /* open(path, O_RDWR) an existing file into the slot */
    OP_APPEND,    /* open(path, O_CREAT|O_APPEND|O_WRONLY, 0600) into the slot */
    OP_WRITE,     /* the message body (arg 0) or arg bytes, in 4 KiB writes */
    OP_PWRITE,    /* arg bytes in place at offset 0 */
    OP_FSYNC,     /* the slot's file, as the sync policy says */
    OP_FDATASYNC, /* the slot's file, as the sync policy says */
    OP_FSYNC_DIR, /* open(path, O_DIRECTORY), fsync, close */
    OP_FCHMOD,    /* fchmod(slot, arg) */
    OP_LOCK,      /* flock(slot, LOCK_EX|LOCK_NB); arg 1: wait for it (a shared lock file) */
    OP_CLOSE,     /* close the slot's file */
    OP_LINK,      /* link(path, path2) */
    OP_RENAME,    /* rename(path, path2); with arg 1, mkdir path2's parent on ENOENT */
    OP_UNLINK,    /* unlink(path), must succeed */
    OP_PROBE,     /* unlink(path), ENOENT expected */
    OP_STAT,      /* stat(path); found or not, both are expected */
    OP_MKDIR,     /* mkdir(path, 0700) */
    OP_RMDIR,     /* rmdir(path) */
    OP_UTIME,     /* utimes(path) to now + 300 s */
    OP_FCHOWN,    /* fchown(slot) to our own IDs: a daemon running as root gives files away */
    OP_READDIR,   /* open(path, O_DIRECTORY), read every entry, close */
    OP_KIND_COUNT
};

/*
 * Repeat once per recipient, with {r} = 0, 1, ...: a run of such steps is
 * repeated as a whole (create, write, close; create, write, close; ...).
 */
#define OP_PER_RCPT 1u
#define PROFILE_SLOTS 6u /* files a phase may hold open at once */

struct profile_op {
    enum profile_op_kind kind;
    const char *path;
    const char *path2;
    unsigned arg;
    unsigned flags;
    unsigned slot; /* the open file it works on, 0 to PROFILE_SLOTS - 1 */
};

enum profile_phase { PHASE_ACCEPT, PHASE_DELIVER, PHASE_DEFER, PHASE_COUNT };

enum profile_sync {
    PROFILE_SYNC_AS_PROFILE, /* what the MTA does */
    PROFILE_SYNC_FSYNC,      /* every file sync an fsync */
    PROFILE_SYNC_FDATASYNC,  /* every file sync an fdatasync */
    PROFILE_SYNC_NONE,       /* no sync at all, directories included */
};

/* Who does a profile's file work: spool_backend_of() turns it into code. */
enum profile_backend {
    PROFILE_BACKEND_TABLE,   /* its tables of operations, run by spool_table.c */
    PROFILE_BACKEND_POSTFIX, /* pf_spool, the relay's own queue code (spool_postfix.c) */
    PROFILE_BACKEND_NULL,    /* no file work at all (spool_null.c) */
};

/*
 * One row per profile, the one place an MTA's profile is named: every
 * command's --profile takes its value through profile_option() and says
 * the names in its --help through profile_help(), and completion and the
 * tests read them from `spoolsim raw --list'. What else a profile is has
 * its home beside the code that uses it, keyed by the row's `mta': the
 * restart a crash test judges (crash_scan.c), the built-in cost model
 * (cost_model.c).
 */
struct profile {
    const char *name;
    const char *mta;     /* the MTA whose spool it is ("exim" for exim-4.98); NULL: none (null) */
    const char *summary; /* names the version it models */
    const char *commit_marker;
    const char *const *dirs;    /* made at set-up, relative to the spool, NULL-terminated */
    const char *const *splits;  /* made with subdirectories 0..22 for {h23}, or NULL */
    const char *const *buckets; /* made with subdirectories 00..ff for {hh}, or NULL */
    const char *const *files;   /* empty files made at set-up (lock files, hints databases) */
    const struct profile_op *phase[PHASE_COUNT];
    size_t phase_len[PHASE_COUNT];
    enum profile_backend backend;
};

const struct profile *profile_find(const char *name);
/* --profile's value on a command line: name, if a profile has it, else a usage error (msg_usage()).
 */
const char *profile_option(const char *name);
const struct profile *profile_at(size_t i); /* NULL past the end */
/* The profiles' names as --help says them, in the table's order: "postfix, ..., opensmtpd or null".
 */
#define PROFILE_NAMES_MAX 512
void profile_names(char *out, size_t len);
/*
 * The --help entry of a --profile option, as optgroup_help_line() prints
 * one: `before', the profiles' names, then `after' ("(postfix)").
 */
void profile_help(FILE *fp, const char *label, const char *before, const char *after, int width);
const char *profile_op_name(enum profile_op_kind kind);
const char *profile_sync_name(enum profile_sync sync);
int profile_sync_parse(const char *name, enum profile_sync *sync);

/* Operation counts of one phase for `rcpts' recipients (syncs as the policy makes them). */
struct profile_counts {
    unsigned op[OP_KIND_COUNT];
};
void profile_count(const struct profile *p, enum profile_phase phase, unsigned rcpts,
                   enum profile_sync sync, struct profile_counts *out);

/*
 * Whether every phase opens a slot only when it is free, works only on
 * open slots and leaves none open; -1 and the first offence in err if not.
 */
int profile_check(const struct profile *p, char *err, size_t errlen);

/* The end (one past) of the group of steps that starts at ops[i]: i + 1 unless per recipient. */
size_t profile_group_end(const struct profile_op *ops, size_t len, size_t i);

/*
 * Expand a path template for message `id', worker `w', recipient `r';
 * -1 if it does not fit or names an unknown variable.
 */
int profile_expand(const char *tmpl, uint64_t id, unsigned w, unsigned r, char *out, size_t len);

#endif
