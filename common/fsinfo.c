/*
 * fsinfo - which filesystem a directory is on; see fsinfo.h.
 *
 * A mountinfo line (proc(5)): ID PARENT MAJ:MIN ROOT MOUNT_POINT
 * MOUNT_OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPER_OPTIONS. Spaces in
 * paths are written as \040; the last matching line wins, as a later
 * mount hides an earlier one on the same point.
 */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fsinfo.h"

/* Copy a field, turning \ooo escapes back into bytes. */
static void unescape(const char *field, size_t len, char *out, size_t outlen)
{
    size_t o = 0;

    for (size_t i = 0; i < len && o + 1 < outlen; i++) {
        if (field[i] == '\\' && i + 3 < len && field[i + 1] >= '0' && field[i + 1] <= '3') {
            out[o++] = (char)((field[i + 1] - '0') * 64 + (field[i + 2] - '0') * 8 +
                              (field[i + 3] - '0'));
            i += 3;
        } else {
            out[o++] = field[i];
        }
    }
    out[o] = 0;
}

static int covers(const char *mount_point, const char *path)
{
    size_t n = strlen(mount_point);

    if (strcmp(mount_point, "/") == 0)
        return path[0] == '/';
    return strncmp(path, mount_point, n) == 0 && (path[n] == 0 || path[n] == '/');
}

int fsinfo_parse(const char *mountinfo, const char *path, struct fsinfo *out)
{
    const char *line = mountinfo;
    size_t best = 0;
    int found = -1;

    while (line && *line) {
        const char *end = strchr(line, '\n');
        size_t line_len = end ? (size_t)(end - line) : strlen(line);
        const char *field[16];
        size_t field_len[16];
        int n = 0, dash = -1;
        const char *p = line;

        while (p < line + line_len && n < 16) {
            const char *q = p;

            while (q < line + line_len && *q != ' ')
                q++;
            field[n] = p;
            field_len[n] = (size_t)(q - p);
            if (field_len[n] == 1 && *p == '-' && n >= 6 && dash < 0)
                dash = n;
            n++;
            p = q + 1;
        }
        if (dash > 0 && n >= dash + 3) {
            char mount_point[sizeof(out->mount_point)];
            size_t mlen;

            unescape(field[4], field_len[4], mount_point, sizeof(mount_point));
            mlen = strlen(mount_point);
            if (covers(mount_point, path) && mlen >= best) {
                best = mlen;
                found = 0;
                snprintf(out->mount_point, sizeof(out->mount_point), "%s", mount_point);
                snprintf(out->fstype, sizeof(out->fstype), "%.*s", (int)field_len[dash + 1],
                         field[dash + 1]);
                unescape(field[dash + 2], field_len[dash + 2], out->source, sizeof(out->source));
                snprintf(out->options, sizeof(out->options), "%.*s,%.*s", (int)field_len[5],
                         field[5], (int)field_len[dash + 3 < n ? dash + 3 : 5],
                         field[dash + 3 < n ? dash + 3 : 5]);
            }
        }
        line = end ? end + 1 : NULL;
    }
    return found;
}

int fsinfo_lookup(const char *path, struct fsinfo *out)
{
    char resolved[PATH_MAX];
    char *text = NULL;
    size_t len = 0, cap = 0;
    FILE *fp;
    int status;

    memset(out, 0, sizeof(*out));
    if (realpath(path, resolved) == NULL || (fp = fopen("/proc/self/mountinfo", "r")) == NULL)
        return -1;
    for (;;) {
        size_t n;

        if (cap - len < 4096) {
            cap = cap ? 2 * cap : 16384;
            text = realloc(text, cap);
            if (text == NULL) {
                fclose(fp);
                return -1;
            }
        }
        n = fread(text + len, 1, cap - len - 1, fp);
        if (n == 0)
            break;
        len += n;
    }
    fclose(fp);
    text[len] = 0;
    status = fsinfo_parse(text, resolved, out);
    free(text);
    return status;
}

void fsinfo_describe(const struct fsinfo *fs, char *buf, size_t len)
{
    if (fs->fstype[0] == 0)
        snprintf(buf, len, "unknown filesystem");
    else
        snprintf(buf, len, "%s (%s) on %s", fs->fstype, fs->options, fs->mount_point);
}
