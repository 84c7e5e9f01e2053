/*
 * blklog - the block-write log spoolsim-recorder writes and spoolsim crash
 * reads: every write a loop device passed down (offset, length, data) and
 * every flush, in the order they reached the recorder, each with its
 * CLOCK_MONOTONIC time. The encoders and the parser are pure: the caller
 * does the I/O (the recorder appends, spoolsim crash maps the file).
 *
 * The format, all integers little-endian:
 *
 *   file header, 32 bytes:
 *     0  magic       8 bytes "SPBLKLOG"
 *     8  version     u32, 1
 *    12  header_len  u32, 32 (records start here)
 *    16  image_size  u64, bytes of the image the writes are to
 *    24  reserved    u64, 0
 *
 *   then records, each a 32-byte head and its data:
 *     0  type        u32: 1 write, 2 flush
 *     4  reserved    u32, 0
 *     8  t_ns        u64, CLOCK_MONOTONIC when the request reached the recorder
 *    16  offset      u64, the write's byte offset in the image (flush: 0)
 *    24  length      u64, the write's bytes, which follow the head (flush: 0)
 *
 * What the order means (dm-log-writes' meaning, which spoolsim-recorder's
 * comment shows it keeps): every write logged before a flush record had
 * completed before that flush was issued, and is durable once it is; a
 * write logged after it is not covered by it.
 *
 * A log cut short (a recorder that died) parses up to its last whole
 * record and says so; anything else out of place (the magic, the version,
 * an unknown type, a write outside the image or with no bytes, a flush
 * with a length, times going backwards) is an error naming its offset.
 */
#ifndef SPOOLSIM_BLKLOG_H
#define SPOOLSIM_BLKLOG_H

#include <stddef.h>
#include <stdint.h>

#define BLKLOG_MAGIC "SPBLKLOG"
#define BLKLOG_VERSION 1u
#define BLKLOG_HEADER_LEN 32u
#define BLKLOG_HEAD_LEN 32u

enum blklog_type { BLKLOG_WRITE = 1, BLKLOG_FLUSH = 2 };

void blklog_header_encode(unsigned char out[BLKLOG_HEADER_LEN], uint64_t image_size);
void blklog_head_encode(unsigned char out[BLKLOG_HEAD_LEN], enum blklog_type type, uint64_t t_ns,
                        uint64_t offset, uint64_t length);

struct blklog_rec {
    enum blklog_type type;
    uint64_t t_ns;
    /*
     * A time by which the record was surely in the log: t_ns here; with
     * mark_times the first mark after it (UINT64_MAX when none came).
     */
    uint64_t t_logged_ns;
    uint64_t offset, length; /* a write's; 0 for a flush */
    size_t data;             /* where a write's bytes start in the parsed buffer */
};

struct blklog {
    uint64_t image_size;
    struct blklog_rec *v;
    size_t n, cap;
    size_t writes, flushes;
    uint64_t bytes; /* written, all writes together */
    int truncated;  /* the buffer ended inside a record: that record is left out */
    /*
     * The times are not the records' own but those of the last mark before
     * each (dmlog.h: dm-log-writes stamps nothing), and t_logged_ns that of
     * the first mark after each: a cut after record i is timed between
     * record i's t_logged_ns and record i + 1's t_ns (crash_plan.h).
     */
    int mark_times;
};

/* Little-endian reads, for this format and dm-log-writes' (dmlog.h). */
uint32_t blklog_le32(const unsigned char *p);
uint64_t blklog_le64(const unsigned char *p);

void blklog_init(struct blklog *l);
void blklog_free(struct blklog *l);
/* Append a record, counting it in writes, flushes and bytes (for another format's reader). */
void blklog_add(struct blklog *l, const struct blklog_rec *r);

/*
 * Parse a whole log held in buf (len bytes) into l (blklog_init()'d); the
 * records point into buf, which must outlive them. 0, or -1 with a reason
 * in err ("bad magic", "record at 1234: write past the image's end").
 */
int blklog_parse(const unsigned char *buf, size_t len, struct blklog *l, char *err, size_t errlen);

#endif
