/*
 * procfs - the text of Linux's /proc and /sys files, parsed; see procfs.h.
 *
 * A mountinfo line (proc(5)): ID PARENT MAJ:MIN ROOT MOUNT_POINT
 * MOUNT_OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPER_OPTIONS, with any
 * number of optional fields. Spaces in paths are written as \040. The
 * longest mount point that is the path or a directory above it wins; of
 * two lines on the same point the later one does, as a later mount hides
 * an earlier one. Lines that are not mountinfo lines are skipped.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "procfs.h"

static int is_octal(char c)
{
    return c >= '0' && c <= '7';
}

/*
 * Copy a field, turning \ooo escapes back into bytes; a backslash not
 * followed by three octal digits is copied as it is. 0, or -1 if the
 * field did not fit in `out' (which then holds its beginning).
 */
static int unescape(const char *field, size_t len, char *out, size_t outlen)
{
    size_t o = 0, i;

    for (i = 0; i < len && o + 1 < outlen; i++) {
        if (field[i] == '\\' && i + 3 < len && field[i + 1] >= '0' && field[i + 1] <= '3' &&
            is_octal(field[i + 2]) && is_octal(field[i + 3])) {
            out[o++] =
                (char)((field[i + 1] - '0') * 64 + (field[i + 2] - '0') * 8 + (field[i + 3] - '0'));
            i += 3;
        } else {
            out[o++] = field[i];
        }
    }
    out[o] = 0;
    return i < len ? -1 : 0;
}

/* `mount_point' (unescaped) is `path' or a directory above it. */
static int covers(const char *mount_point, const char *path)
{
    size_t n = strlen(mount_point);

    if (mount_point[0] != '/')
        return 0; /* no mount point is relative or empty: a damaged line */
    if (strcmp(mount_point, "/") == 0)
        return path[0] == '/';
    return strncmp(path, mount_point, n) == 0 && (path[n] == 0 || path[n] == '/');
}

/* A field of a line: where it starts and how long it is. */
struct span {
    const char *p;
    size_t len;
};

/*
 * The fields of one mountinfo line that matter: the six before the
 * optional fields, and FSTYPE SOURCE SUPER_OPTIONS after the "-" that
 * ends them (SUPER_OPTIONS may be missing: len 0). 0, or -1 if the line
 * is not a mountinfo line.
 */
static int split_line(const char *line, size_t line_len, struct span head[6], struct span tail[3])
{
    const char *p = line, *end = line + line_len;
    size_t n = 0, after = 0; /* fields seen; fields seen after the "-" */
    int dash = 0;

    memset(tail, 0, 3 * sizeof(*tail));
    while (p < end) {
        const char *q = memchr(p, ' ', (size_t)(end - p));
        size_t len;

        if (q == NULL)
            q = end;
        len = (size_t)(q - p);
        if (n < 6) {
            head[n].p = p;
            head[n].len = len;
        } else if (!dash) {
            dash = len == 1 && *p == '-'; /* any number of optional fields before it */
        } else if (after < 3) {
            tail[after].p = p;
            tail[after].len = len;
            after++;
        }
        n++;
        p = q + 1;
    }
    return dash && after >= 2 && tail[0].len > 0 ? 0 : -1;
}

/* `list' (comma-separated) holds the option opt[0..len) already. */
static int has_option(const char *list, const char *opt, size_t len)
{
    for (const char *p = list; *p;) {
        size_t n = strcspn(p, ",");

        if (n == len && memcmp(p, opt, len) == 0)
            return 1;
        p += n;
        if (*p == ',')
            p++;
    }
    return 0;
}

/*
 * Append each option of text[0..len) that `list' does not hold yet: the
 * kernel shows rw (and others) both per mount and per superblock, and
 * one mount's options should read as one list, each option once. An
 * option that does not fit is dropped whole, never cut.
 */
static void add_options(char *list, size_t size, const char *text, size_t len)
{
    const char *p = text, *end = text + len;

    while (p < end) {
        const char *comma = memchr(p, ',', (size_t)(end - p));
        size_t n = comma ? (size_t)(comma - p) : (size_t)(end - p);
        size_t used = strlen(list);

        if (n > 0 && !has_option(list, p, n) && used + (used > 0) + n < size)
            snprintf(list + used, size - used, "%s%.*s", used > 0 ? "," : "", (int)n, p);
        p += n + 1;
    }
}

int procfs_mountinfo(const char *mountinfo, const char *path, struct fsinfo *out)
{
    const char *line = mountinfo;
    size_t best = 0;
    int found = -1;

    while (line && *line) {
        const char *end = strchr(line, '\n');
        size_t line_len = end ? (size_t)(end - line) : strlen(line);
        char mount_point[sizeof(out->mount_point)];
        struct span head[6], tail[3];
        size_t mlen;

        if (split_line(line, line_len, head, tail) == 0 &&
            unescape(head[4].p, head[4].len, mount_point, sizeof(mount_point)) == 0 &&
            covers(mount_point, path) && (mlen = strlen(mount_point)) >= best) {
            /* >=: of two mounts on one point, the later one hides the earlier */
            best = mlen;
            found = 0;
            snprintf(out->mount_point, sizeof(out->mount_point), "%s", mount_point);
            snprintf(out->fstype, sizeof(out->fstype), "%.*s", (int)tail[0].len, tail[0].p);
            unescape(tail[1].p, tail[1].len, out->source, sizeof(out->source));
            out->options[0] = 0;
            add_options(out->options, sizeof(out->options), head[5].p, head[5].len);
            add_options(out->options, sizeof(out->options), tail[2].p, tail[2].len);
        }
        line = end ? end + 1 : NULL;
    }
    return found;
}

int procfs_device_shared(const char *mountinfo, const char *dev, const char *mount_point,
                         char *other, size_t len)
{
    size_t dlen = strlen(dev);
    int seen = 0;

    if (len > 0)
        other[0] = 0;
    if (strcmp(mount_point, "/") == 0) {
        snprintf(other, len, "/");
        return 1; /* the system's own disk: its logs and everything else write there */
    }
    for (const char *line = mountinfo; line && *line;) {
        const char *end = strchr(line, '\n');
        size_t line_len = end ? (size_t)(end - line) : strlen(line);
        char point[512];
        struct span head[6], tail[3];

        if (split_line(line, line_len, head, tail) == 0 && head[2].len == dlen &&
            memcmp(head[2].p, dev, dlen) == 0 &&
            unescape(head[4].p, head[4].len, point, sizeof(point)) == 0) {
            seen = 1;
            if (strcmp(point, mount_point) != 0) {
                snprintf(other, len, "%s", point);
                return 1;
            }
        }
        line = end ? end + 1 : NULL;
    }
    return seen ? 0 : -1;
}

/* The value of a "key : value" line whose key is exactly `key'; NULL if none. */
static const char *field(const char *text, const char *key, size_t *len)
{
    size_t klen = strlen(key);

    for (const char *line = text; line && *line;) {
        const char *end = strchr(line, '\n'), *p = line;

        if (end == NULL)
            end = line + strlen(line);
        if (strncmp(p, key, klen) == 0) {
            p += klen;
            while (p < end && (*p == ' ' || *p == '\t'))
                p++;
            if (p < end && *p == ':') {
                p++;
                while (p < end && (*p == ' ' || *p == '\t'))
                    p++;
                *len = (size_t)(end - p);
                while (*len > 0 &&
                       (p[*len - 1] == ' ' || p[*len - 1] == '\t' || p[*len - 1] == '\r'))
                    (*len)--;
                return p;
            }
        }
        line = *end ? end + 1 : NULL;
    }
    return NULL;
}

int procfs_cpu_model(const char *cpuinfo, char *out, size_t len)
{
    static const char *const keys[] = {"model name", "cpu model", "Model", "Hardware", "cpu", NULL};

    if (len == 0)
        return -1;
    out[0] = 0;
    for (size_t i = 0; keys[i]; i++) {
        size_t n;
        const char *v = field(cpuinfo, keys[i], &n);

        if (v && n > 0) {
            snprintf(out, len, "%.*s", (int)n, v);
            return 0;
        }
    }
    return -1;
}

int procfs_mem_total(const char *meminfo, uint64_t *bytes)
{
    size_t n;
    const char *v = field(meminfo, "MemTotal", &n);
    char *end;
    unsigned long long kib;

    if (v == NULL || n == 0 || *v < '0' || *v > '9')
        return -1;
    kib = strtoull(v, &end, 10);
    while (*end == ' ')
        end++;
    if (strncmp(end, "kB", 2) != 0 || kib > UINT64_MAX / 1024)
        return -1;
    *bytes = (uint64_t)kib * 1024;
    return 0;
}

int procfs_stat_cpu(const char *text, uint64_t *busy, uint64_t *total)
{
    uint64_t v[8] = {0};
    int n;

    if (strncmp(text, "cpu ", 4) != 0)
        return -1;
    n = sscanf(text + 4,
               "%" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64
               " %" SCNu64,
               &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]);
    if (n < 4)
        return -1;
    *total = 0;
    for (int i = 0; i < 8; i++)
        *total += v[i];
    *busy = *total - v[3] - v[4]; /* idle and iowait */
    return 0;
}

int procfs_pid_stat(const char *text, char *comm, size_t commlen, uint64_t *ticks)
{
    const char *open = strchr(text, '('), *close = strrchr(text, ')');
    unsigned long long utime, stime;
    size_t len;

    if (open == NULL || close == NULL || close < open)
        return -1;
    len = (size_t)(close - open - 1);
    if (commlen > 0) {
        if (len >= commlen)
            len = commlen - 1;
        memcpy(comm, open + 1, len);
        comm[len] = 0;
    }
    /* After ") ": state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime
     */
    if (sscanf(close + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &utime,
               &stime) != 2)
        return -1;
    *ticks = utime + stime;
    return 0;
}

int procfs_disk_stat(const char *text, struct disk_counters *out)
{
    unsigned long long f[17] = {0};
    int n = sscanf(text,
                   "%llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu "
                   "%llu %llu",
                   &f[0], &f[1], &f[2], &f[3], &f[4], &f[5], &f[6], &f[7], &f[8], &f[9], &f[10],
                   &f[11], &f[12], &f[13], &f[14], &f[15], &f[16]);

    memset(out, 0, sizeof(*out));
    if (n < 11)
        return -1;
    out->reads = f[0];
    out->read_sectors = f[2];
    out->writes = f[4];
    out->write_sectors = f[6];
    out->busy_ms = f[9];
    out->has_discards = n >= 15; /* fields 12-15: kernels since 4.18 */
    if (out->has_discards) {
        out->discards = f[11];
        out->discard_sectors = f[13];
    }
    out->has_flushes = n >= 17; /* fields 16-17: kernels since 5.5 */
    out->flushes = out->has_flushes ? f[15] : 0;
    return 0;
}

int procfs_storage_thread(const char *comm)
{
    static const char *const prefixes[] = {"jbd2/", "kworker/", "loop",    "xfs",
                                           "ext4-", "blkcg",    "kblockd", "dio/"};

    for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
        if (strncmp(comm, prefixes[i], strlen(prefixes[i])) == 0)
            return 1;
    return 0;
}
