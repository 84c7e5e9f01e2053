/*
 * dmlog - dm-log-writes' log into blklog's records; see dmlog.h.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "dmlog.h"

#define KNOWN_FLAGS (DMLOG_FLUSH | DMLOG_FUA | DMLOG_DISCARD | DMLOG_MARK | DMLOG_METADATA)

void dmlog_mark_name(char *out, size_t len, uint64_t t_ns)
{
    snprintf(out, len, "%s%" PRIu64, DMLOG_MARK_PREFIX, t_ns);
}

/* The time a mark's name stamps: 0 and *t, or -1 for a name that is not a stamp. */
static int stamp_of(const unsigned char *name, size_t len, uint64_t *t)
{
    size_t plen = strlen(DMLOG_MARK_PREFIX);
    uint64_t v = 0;

    if (len <= plen || len > plen + 20 || memcmp(name, DMLOG_MARK_PREFIX, plen) != 0)
        return -1;
    for (size_t i = plen; i < len; i++) {
        if (name[i] < '0' || name[i] > '9' || v > (UINT64_MAX - 9) / 10)
            return -1;
        v = v * 10 + (uint64_t)(name[i] - '0');
    }
    *t = v;
    return 0;
}

static void add(struct blklog *l, enum blklog_type type, uint64_t t, uint64_t offset,
                uint64_t length, size_t data)
{
    struct blklog_rec r = {.type = type,
                           .t_ns = t,
                           .t_logged_ns = UINT64_MAX, /* until a mark comes after it */
                           .offset = offset,
                           .length = length,
                           .data = data};

    blklog_add(l, &r);
}

int dmlog_parse(const unsigned char *buf, size_t len, uint64_t image_size, uint64_t t_start,
                struct blklog *l, struct dmlog_info *info, char *err, size_t errlen)
{
    uint64_t t = t_start;
    size_t at, ss, unmarked = 0; /* the records no mark has followed yet start here */

    memset(info, 0, sizeof(*info));
    l->image_size = image_size;
    l->mark_times = 1;
    if (len < 28 || blklog_le64(buf) != DMLOG_MAGIC) {
        snprintf(err, errlen, "not a dm-log-writes log (bad magic)");
        return -1;
    }
    if (blklog_le64(buf + 8) != DMLOG_VERSION) {
        snprintf(err, errlen, "dm-log-writes log version %" PRIu64 ": this reads version %u",
                 blklog_le64(buf + 8), DMLOG_VERSION);
        return -1;
    }
    info->nr_entries = blklog_le64(buf + 16);
    info->sectorsize = blklog_le32(buf + 24);
    ss = info->sectorsize;
    if (ss < 512 || ss > 65536 || (ss & (ss - 1)) != 0) {
        snprintf(err, errlen, "dm-log-writes log with a sector size of %zu bytes", ss);
        return -1;
    }
    for (at = ss; info->entries < info->nr_entries; info->entries++) {
        uint64_t sector, nr, flags, data_len, bytes;
        const unsigned char *e = buf + at;
        size_t data = at + ss;

        if (len < ss || at > len - ss) {
            l->truncated = 1;
            break;
        }
        sector = blklog_le64(e);
        nr = blklog_le64(e + 8);
        flags = blklog_le64(e + 16);
        data_len = blklog_le64(e + 24);
        info->ended = 0;
        if (flags & ~(uint64_t)KNOWN_FLAGS) {
            snprintf(err, errlen, "entry %" PRIu64 " at %zu: unknown flags %#" PRIx64,
                     info->entries, at, flags);
            return -1;
        }
        if (flags & DMLOG_MARK) {
            uint64_t stamp;

            if (data_len > ss - DMLOG_ENTRY_LEN || nr != 0) {
                snprintf(err, errlen,
                         "entry %" PRIu64 " at %zu: a mark of %" PRIu64 " bytes and %" PRIu64
                         " sectors",
                         info->entries, at, data_len, nr);
                return -1;
            }
            info->marks++;
            if (stamp_of(e + DMLOG_ENTRY_LEN, (size_t)data_len, &stamp) == 0) {
                if (stamp < t) {
                    snprintf(err, errlen,
                             "entry %" PRIu64 " at %zu: its mark's time goes backwards",
                             info->entries, at);
                    return -1;
                }
                t = stamp;
                info->stamps++;
                for (; unmarked < l->n; unmarked++)
                    l->v[unmarked].t_logged_ns = stamp;
            }
            info->ended = data_len == strlen(DMLOG_END_MARK) &&
                          memcmp(e + DMLOG_ENTRY_LEN, DMLOG_END_MARK, (size_t)data_len) == 0;
            at = data;
            continue;
        }
        if (data_len != 0) {
            snprintf(err, errlen, "entry %" PRIu64 " at %zu: inline data in a write", info->entries,
                     at);
            return -1;
        }
        if (nr == 0 && (flags & DMLOG_FLUSH) == 0) {
            snprintf(err, errlen, "entry %" PRIu64 " at %zu: a write of no sectors", info->entries,
                     at);
            return -1;
        }
        if (nr > image_size / ss || sector > image_size / ss - nr) {
            snprintf(err, errlen,
                     "entry %" PRIu64 " at %zu: %" PRIu64 " sectors at sector %" PRIu64
                     ", outside the image (%" PRIu64 " bytes)",
                     info->entries, at, nr, sector, image_size);
            return -1;
        }
        if (flags & DMLOG_DISCARD) {
            info->discards++;
            at = data;
            continue;
        }
        bytes = nr * ss;
        if (bytes > len - data) {
            l->truncated = 1;
            break;
        }
        if (flags & DMLOG_FLUSH)
            add(l, BLKLOG_FLUSH, t, 0, 0, 0);
        if (nr > 0) {
            add(l, BLKLOG_WRITE, t, sector * ss, bytes, data);
            if (flags & DMLOG_FUA)
                add(l, BLKLOG_FLUSH, t, 0, 0, 0);
        }
        at = data + (size_t)bytes;
    }
    return 0;
}
