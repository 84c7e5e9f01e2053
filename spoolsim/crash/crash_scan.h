/*
 * crash_scan - what an MTA would find and deliver when it restarts on a
 * spool after a power cut, from the spool's files (no I/O: crash_walk.h
 * reads them).
 *
 * The postfix profile's restart is the relay's own recovery
 * (crash_point.c); the table profiles' relay keeps their messages in
 * memory, so for them this is the MTA's restart, judged from the files
 * its profile writes (profile.c) as that MTA reads them:
 *
 * - sendmail: a qfID that is whole, with its dfID (a queue run reads
 *   every qf; one cut short, or whose df is gone, is set aside);
 * - qmail: todo/ID, whole, with mess/H/ID (qmail-send preprocesses todo/
 *   at start); or info/H/ID with a remote/H/ID (or local/) whose mark is
 *   still T, not D, and mess/H/ID (a message preprocessed before the cut);
 * - exim (and exim-4.98): input/ID-H, whole, with input/ID-D; a -J
 *   journal that lists every recipient means it was delivered;
 * - opensmtpd: queue/HH/ID/message with at least one whole envelope in
 *   queue/HH/ID/ (incoming/ is purged at start).
 *
 * The data file (df, mess, -D, message) holds the message as the relay's
 * queue-file records (relay_spool_runner.c writes that image there):
 * parsed as the relay's queue manager parses its own, it gives the key
 * the sink logged for the message (Message-ID, size, checksum of the text
 * the relay sends), so that what is found can be matched to what was
 * acknowledged. An envelope is whole when spool_envelope_read() says so
 * for the message's ID. `corrupt' counts the files a restart would find
 * and set aside: an envelope not whole, a data file that does not parse.
 * A file that is missing is no corruption, only not there.
 */
#ifndef SPOOLSIM_CRASH_SCAN_H
#define SPOOLSIM_CRASH_SCAN_H

#include <stddef.h>
#include <stdint.h>

#include "msglog.h"

/* One file of the spool: its path under the spool ("mqueue/qf12"), its bytes (NULL: unreadable). */
struct scan_file {
    char *path;
    char *data;
    size_t len;
};

/* The spool's regular files; sorted by path once made (crash_scan_tree_sort). */
struct scan_tree {
    struct scan_file *v;
    size_t n, cap;
};

void crash_scan_tree_init(struct scan_tree *t);
/* Takes path and data (malloc'ed) over. */
void crash_scan_tree_add(struct scan_tree *t, char *path, char *data, size_t len);
void crash_scan_tree_sort(struct scan_tree *t);
/* The file at path, or NULL. */
const struct scan_file *crash_scan_tree_get(const struct scan_tree *t, const char *path);
void crash_scan_tree_free(struct scan_tree *t);

/*
 * How an MTA restarts on what a power cut left: one row per MTA in
 * crash_scan.c, its scan of the spool with it (a new MTA's restart rule is
 * that row and its scan, nothing else).
 */
struct crash_restart;

/*
 * How profile `name' restarts: as its MTA (the profile's `mta', profile.h)
 * does; -1 for an unknown profile or one whose MTA the crash test cannot
 * judge.
 */
int crash_scan_restart_of(const char *name, const struct crash_restart **how);

/* Does a restart find anything on disk (not the null profile's)? */
int crash_scan_on_disk(const struct crash_restart *how);

/*
 * Is it the relay's own recovery that restarts (Postfix's profile: the relay
 * is that spool's reader, crash_point.c), rather than crash_scan()?
 */
int crash_scan_by_relay(const struct crash_restart *how);

/*
 * A data file's message: 1 and e filled (queue_id set to qid) when it
 * parses and has a recipient not yet done, 0 when every recipient is
 * done, -1 when it does not parse.
 */
int crash_scan_key(const char *buf, size_t len, const char *qid, struct msglog_entry *e);

/* The messages a restart of `how' would deliver from t, added to recovered; the corrupt files. */
void crash_scan(const struct crash_restart *how, const struct scan_tree *t,
                struct msglog_set *recovered, size_t *corrupt);

#endif
