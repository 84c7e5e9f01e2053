/*
 * fsinfo - which filesystem a directory is on; see fsinfo.h.
 *
 * A mountinfo line (proc(5)): ID PARENT MAJ:MIN ROOT MOUNT_POINT
 * MOUNT_OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPER_OPTIONS, with any
 * number of optional fields. Spaces in paths are written as \040. The
 * longest mount point that is the path or a directory above it wins; of
 * two lines on the same point the later one does, as a later mount hides
 * an earlier one. Lines that are not mountinfo lines are skipped.
 */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fileutil.h"
#include "fsinfo.h"

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

int fsinfo_parse(const char *mountinfo, const char *path, struct fsinfo *out)
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

int fsinfo_lookup(const char *path, struct fsinfo *out)
{
    char resolved[PATH_MAX];
    char *text;
    int status;

    memset(out, 0, sizeof(*out));
    if (realpath(path, resolved) == NULL ||
        (text = fileutil_read_all("/proc/self/mountinfo", NULL)) == NULL)
        return -1;
    status = fsinfo_parse(text, resolved, out);
    free(text);
    return status;
}

const char *fsinfo_note(const struct fsinfo *fs)
{
    if (strcmp(fs->fstype, "tmpfs") == 0)
        return "tmpfs is memory, not a disk: fsync costs nothing there";
    if (strcmp(fs->fstype, "ramfs") == 0)
        return "ramfs is memory, not a disk: fsync costs nothing there";
    return NULL;
}

void fsinfo_describe(const struct fsinfo *fs, char *buf, size_t len)
{
    if (fs->fstype[0] == 0)
        snprintf(buf, len, "unknown filesystem");
    else
        snprintf(buf, len, "%s (%s) on %s", fs->fstype, fs->options, fs->mount_point);
}
