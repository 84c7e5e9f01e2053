/*
 * json_meta - the header of every JSON result; see json_meta.h.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "fileutil.h"
#include "json_meta.h"
#include "version.h"
#include "xalloc.h"

const char *json_meta_version(void)
{
    return SPOOLSIM_VERSION;
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

int json_meta_cpu_model(const char *cpuinfo, char *out, size_t len)
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

int json_meta_mem_total(const char *meminfo, uint64_t *bytes)
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

void json_meta_date(time_t t, char *out, size_t len)
{
    struct tm tm;

    if (gmtime_r(&t, &tm) == NULL || strftime(out, len, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
        snprintf(out, len, "unknown");
}

void json_meta_host_lookup(struct json_host *h)
{
    struct utsname u;
    char *text;

    memset(h, 0, sizeof(*h));
    if (gethostname(h->name, sizeof(h->name)) != 0)
        h->name[0] = 0;
    h->name[sizeof(h->name) - 1] = 0;
    if (uname(&u) == 0) {
        snprintf(h->kernel, sizeof(h->kernel), "%s %s", u.sysname, u.release);
        snprintf(h->machine, sizeof(h->machine), "%s", u.machine);
    }
    h->cpus = sysconf(_SC_NPROCESSORS_ONLN);
    if (h->cpus < 0)
        h->cpus = 0;
    if ((text = fileutil_read_all("/proc/cpuinfo", NULL)) != NULL) {
        json_meta_cpu_model(text, h->cpu_model, sizeof(h->cpu_model));
        free(text);
    }
    if ((text = fileutil_read_all("/proc/meminfo", NULL)) != NULL) {
        json_meta_mem_total(text, &h->memory_bytes);
        free(text);
    }
#if defined(_SC_PHYS_PAGES) && defined(_SC_PAGESIZE)
    if (h->memory_bytes == 0 && sysconf(_SC_PHYS_PAGES) > 0 && sysconf(_SC_PAGESIZE) > 0)
        h->memory_bytes = (uint64_t)sysconf(_SC_PHYS_PAGES) * (uint64_t)sysconf(_SC_PAGESIZE);
#endif
}

void json_meta_run_init(struct json_run *run, const char *program, const char *prefix, int argc,
                        char **argv)
{
    run->program = program;
    run->prefix = prefix;
    run->argc = argc > 0 ? argc : 0;
    run->argv = xcalloc((size_t)run->argc + 1, sizeof(*run->argv));
    for (int i = 0; i < run->argc; i++)
        run->argv[i] = argv[i];
}

void json_meta_run_free(struct json_run *run)
{
    free(run->argv);
    run->argv = NULL;
    run->argc = 0;
}

static const char *or_null(const char *s)
{
    return s && *s ? s : NULL;
}

void json_meta_write_with(struct json_writer *w, const struct json_run *run,
                          const struct json_host *host, time_t now)
{
    char date[64];

    json_uint(w, "schema_version", JSON_SCHEMA_VERSION);
    json_string(w, "program", run->program);
    json_string(w, "version", json_meta_version());
    json_begin_array(w, "command_line");
    if (run->prefix)
        json_string(w, NULL, run->prefix);
    for (int i = 0; i < run->argc && run->argv; i++)
        json_string(w, NULL, run->argv[i]);
    json_end_array(w);
    json_meta_date(now, date, sizeof(date));
    json_string(w, "date", date);
    json_begin_object(w, "host");
    json_string(w, "name", or_null(host->name));
    json_string(w, "kernel", or_null(host->kernel));
    json_string(w, "machine", or_null(host->machine));
    json_string(w, "cpu_model", or_null(host->cpu_model));
    json_uint(w, "cpus", (uint64_t)host->cpus);
    json_uint(w, "memory_bytes", host->memory_bytes);
    json_end_object(w);
}

void json_meta_write(struct json_writer *w, const struct json_run *run)
{
    struct json_host host;

    json_meta_host_lookup(&host);
    json_meta_write_with(w, run, &host, time(NULL));
}

void json_meta_write_spool(struct json_writer *w, const char *key, const char *path,
                           const struct fsinfo *fs)
{
    json_begin_object(w, key);
    json_string(w, "path", path);
    json_string(w, "device", or_null(fs->source));
    json_string(w, "filesystem", or_null(fs->fstype));
    json_string(w, "mount_point", or_null(fs->mount_point));
    json_string(w, "mount_options", or_null(fs->options));
    json_end_object(w);
}
