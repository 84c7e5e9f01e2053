/*
 * diskstat - what the block device under a spool did during a run, by its
 * own counts: bytes and requests written and read, flushes and discards,
 * in all and per message, beside the system calls a report counts.
 *
 * The counts are the difference of two snapshots of the device's
 * counters (platform.h: on Linux its stat file under /sys), one before
 * the load and one after the drain, taken by disk_probe.h; this module is
 * the pure part: the difference, the figures per message, the report's
 * text line and note, the JSON object `disk' (docs/json.md) and reading
 * one back, and the sum of several runs' (ab's sides). Nothing here does
 * I/O.
 *
 * They are the device's counts, not the spool's: every writer on the
 * device counts (on the system's disk, its logs; bench's own message logs
 * in its work directory), and the report says so where the device is
 * known to be shared. A file system with no block device (tmpfs, NFS,
 * overlay) has no counts: the report says "no block device (tmpfs)" and
 * the JSON has nulls. A figure the system does not count (flushes before
 * Linux 5.5, discards before 4.18) is null, never 0.
 */
#ifndef SPOOLSIM_DISKSTAT_H
#define SPOOLSIM_DISKSTAT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "json.h"
#include "platform.h" /* struct disk_counters */

enum diskstat_state {
    DISKSTAT_NOT_MEASURED, /* no snapshots taken (a run that did not get that far) */
    DISKSTAT_NO_DEVICE,    /* the file system has no block device */
    DISKSTAT_UNREADABLE,   /* it has one, but its counts could not be read, or went back */
    DISKSTAT_MEASURED,
};

#define DISKSTAT_SECTOR 512 /* the unit of the stat file's sectors, whatever the device's */

struct diskstat {
    enum diskstat_state state;
    char device[96];       /* "vda1", "dm-0 (vg-spool)"; "" if unknown */
    char fstype[64];       /* DISKSTAT_NO_DEVICE: the file system without one ("tmpfs") */
    int partition;         /* the device is a partition of a larger disk */
    int shared;            /* 1: it holds more than the spool's file system; 0: not; -1: unknown */
    char shared_with[256]; /* shared: "/" or another mount point on it */
    struct disk_counters delta; /* after - before, when DISKSTAT_MEASURED */
    double messages;            /* what the per-message figures divide by */
    unsigned runs;              /* > 0: the sum of that many runs (ab's sides) */
    /* disk_probe.c's: where the counts are read, and the first snapshot */
    char id[64];
    struct disk_counters before;
};

/* Per message, < 0 where unknown (no counts, no messages, not counted by the system). */
struct diskstat_per {
    double bytes_written, write_ios, flushes, bytes_read, read_ios, discards, bytes_discarded;
};

/*
 * after - before into delta: 0, or -1 when a counter went back (the
 * device was replaced, or its counters reset, during the run).
 */
int diskstat_delta(const struct disk_counters *before, const struct disk_counters *after,
                   struct disk_counters *delta);

void diskstat_per_message(const struct diskstat *ds, struct diskstat_per *p);

/*
 * The report's line after "disk:", e.g. "vda: 43.1 KiB written, 2.35 write
 * I/Os, 1.25 flushes per message; 0 B read, 0.00 read I/Os (the whole
 * device's counts)", or "no block device (tmpfs)".
 */
void diskstat_line(const struct diskstat *ds, char *buf, size_t len);

/* A note for a device known to hold more than the spool (other writers count too), or NULL. */
const char *diskstat_note(const struct diskstat *ds, char *buf, size_t len);

/*
 * The line on fp after `label' ("disk:       "), and the note, if any,
 * on a line of its own after `note_label', as every report prints them.
 */
void diskstat_print(FILE *fp, const char *label, const char *note_label, const struct diskstat *ds);

/* "512 B", "43.1 KiB", "1.50 MiB", "2.00 GiB": a size as the line writes it. */
void diskstat_bytes(double bytes, char *buf, size_t len);

/* The object `key' (docs/json.md, "The disk"). */
void diskstat_write_json(struct json_writer *w, const char *key, const struct diskstat *ds);

/*
 * The object at `path' of a result's text back into ds (its probe fields
 * zero): 0, or -1 (ds DISKSTAT_NOT_MEASURED) when the text has none.
 */
int diskstat_read_json(const char *text, const char *path, struct diskstat *ds);

/*
 * Add one run's counts to a sum (zeroed first, or DISKSTAT_NOT_MEASURED):
 * the sum is measured while every run added was, on one device; a run
 * with no device, or on another, makes the sum say so.
 */
void diskstat_add(struct diskstat *sum, const struct diskstat *one);

#endif
