/*
 * dmlog - reads the log the kernel's dm-log-writes target keeps into
 * blklog's records (blklog.h), so that the replay that judges
 * spoolsim-recorder's log judges the kernel's the same way. Pure: the
 * caller maps the log device's bytes, the records point into them.
 *
 * The kernel's format (its device-mapper documentation, log-writes), all
 * integers little-endian, in units of the logged device's sector size:
 *
 *   super, at byte 0:  magic u64 0x6a736677736872, version u64 1,
 *                      nr_entries u64, sectorsize u32
 *   then nr_entries entries from sector 1, each one sector:
 *                      sector u64, nr_sectors u64, flags u64, data_len u64,
 *                      and a mark's name (data_len bytes) in the same sector
 *   followed by nr_sectors sectors of data, unless it is a discard or a mark
 *
 * with flags FLUSH 1, FUA 2, DISCARD 4, MARK 8 and METADATA 16 (a hint).
 *
 * What it means, and how it becomes blklog's records: the target logs a
 * write only when a flush covers it (the writes that had completed when a
 * flush was issued come in the log just before that flush), or at once
 * for a FUA write, which is durable when it completes. So:
 *
 * - an empty flush is a flush record;
 * - a write is a write record; with FLUSH it is preceded by a flush record
 *   (the preflush covers what came before), with FUA followed by one (what
 *   came before it in the log is flushed or FUA already, so the flush adds
 *   nothing but the write's own durability);
 * - a discard is left out (counted): the replay keeps the range's old
 *   contents, which a disk may do, a discard being a hint;
 * - a mark is no record. A mark named "spoolsim-t" and a CLOCK_MONOTONIC
 *   time in nanoseconds (dmlog_mark_name()) stamps the records after it
 *   with that time, until the next such mark; those before the first get
 *   t_start. Other marks (the target's own "dm-log-writes-end", written
 *   when the device is removed) only count. A stamp also sets the
 *   t_logged_ns of the records since the last one: they were in the log
 *   by then (the target logs in the order things reach its list, a mark
 *   at once). The log's mark_times is set: a cut after record i is timed
 *   between record i's t_logged_ns and record i + 1's t_ns (crash_plan.h).
 *
 * A log whose bytes end before its nr_entries parses up to the last whole
 * entry and says so (truncated); the super's count is rewritten only at
 * marks and FUA writes, so `ended' says whether the last entry read is the
 * target's end mark (the device was removed cleanly, the count is whole).
 * Anything else out of place (the magic, the version, a sector size that
 * is no power of two from 512 to 64 KiB, unknown flags, a write outside
 * the image or of no sectors, a mark's name longer than its sector,
 * stamped times going backwards) is an error naming the entry.
 */
#ifndef SPOOLSIM_DMLOG_H
#define SPOOLSIM_DMLOG_H

#include <stddef.h>
#include <stdint.h>

#include "blklog.h"

#define DMLOG_MAGIC 0x6a736677736872ULL
#define DMLOG_VERSION 1u
#define DMLOG_ENTRY_LEN 32u
#define DMLOG_MARK_PREFIX "spoolsim-t"
#define DMLOG_END_MARK "dm-log-writes-end"

enum dmlog_flag {
    DMLOG_FLUSH = 1,
    DMLOG_FUA = 2,
    DMLOG_DISCARD = 4,
    DMLOG_MARK = 8,
    DMLOG_METADATA = 16,
};

struct dmlog_info {
    uint32_t sectorsize;
    uint64_t nr_entries; /* the super's count */
    uint64_t entries;    /* read */
    size_t marks, stamps, discards;
    int ended; /* the last entry read is the target's end mark */
};

/* The name of a mark stamping time t_ns: "spoolsim-t" and the decimal nanoseconds. */
void dmlog_mark_name(char *out, size_t len, uint64_t t_ns);

/*
 * Parse the log in buf (len bytes) of writes to an image of image_size
 * bytes into l (blklog_init()'d) and info. 0, or -1 with a reason in err
 * ("not a dm-log-writes log (bad magic)", "entry 12 at 6144: ...").
 */
int dmlog_parse(const unsigned char *buf, size_t len, uint64_t image_size, uint64_t t_start,
                struct blklog *l, struct dmlog_info *info, char *err, size_t errlen);

#endif
