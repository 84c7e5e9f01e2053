/*
 * json_meta - the header of every JSON result; see json_meta.h.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "fileutil.h"
#include "json_meta.h"
#include "platform.h"
#include "version.h"
#include "xalloc.h"

const char *json_meta_version(void)
{
    return SPOOLSIM_VERSION;
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
    platform_cpu_model(h->cpu_model, sizeof(h->cpu_model));
    if (platform_memory_bytes(&h->memory_bytes) != 0)
        h->memory_bytes = 0;
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

void json_meta_begin_stream(struct json_writer *w, FILE *fp, const struct json_run *run)
{
    json_init(w, fp);
    json_begin_object(w, NULL);
    if (run)
        json_meta_write(w, run);
}

int json_meta_end_stream(struct json_writer *w)
{
    json_end_object(w);
    return json_finish(w);
}

int json_meta_begin(struct json_writer *w, const char *path, const struct json_run *run)
{
    FILE *fp = fileutil_output_open(&w->out, path);

    if (fp == NULL)
        return -1;
    /*
     * json_init() clears the writer, w->out too: the stream sets out.doc
     * and out.len only when it is closed, so the rest is put back.
     */
    json_meta_begin_stream(w, fp, run);
    w->out.path = path;
    w->out.fp = fp;
    return 0;
}

int json_meta_end(struct json_writer *w)
{
    json_meta_end_stream(w); /* a failed write is the stream's: the close reports it */
    return fileutil_output_close(&w->out);
}

FILE *json_meta_text_stream(const char *json_path)
{
    return json_path && strcmp(json_path, "-") == 0 ? stderr : stdout;
}
