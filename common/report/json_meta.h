/*
 * json_meta - what every JSON result of every program begins with.
 *
 * One header, written one way (docs/json.md): schema_version, program,
 * version (git describe when built from git, else PACKAGE_VERSION),
 * command_line, date (UTC, ISO 8601), and host (name, kernel, machine,
 * CPU model and count, memory); and for a spool, one object with its
 * path, device, filesystem, mount point and mount options. A result that
 * cannot say where and how it was obtained cannot be compared with
 * another. The date format is pure; only json_meta_host_lookup() reads
 * the system, through platform.h where POSIX does not say.
 */
#ifndef SPOOLSIM_JSON_META_H
#define SPOOLSIM_JSON_META_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "fsinfo.h"
#include "json.h"

/* Raised when a key changes meaning or goes; docs/json.md says what each version holds. */
#define JSON_SCHEMA_VERSION 1

/* What `git describe' said at build time, or PACKAGE_VERSION outside a git checkout. */
const char *json_meta_version(void);

struct json_host {
    char name[256];
    char kernel[300]; /* "Linux 6.1.0-18-amd64" */
    char machine[80]; /* "x86_64" */
    char cpu_model[256];
    long cpus;             /* online; 0 if unknown */
    uint64_t memory_bytes; /* 0 if unknown */
};

/* The host as the system describes it; what cannot be found stays empty or 0. */
void json_meta_host_lookup(struct json_host *h);

/* t as "2026-12-01T08:30:33Z". */
void json_meta_date(time_t t, char *out, size_t len);

/* What a result says about how it came about (the caller's argv, for the command line). */
struct json_run {
    const char *program; /* "smtp-source", "spoolsim bench", ... */
    const char *prefix; /* put before argv in command_line ("spoolsim" for a subcommand), or NULL */
    int argc;
    char **argv;
};

/*
 * Keep the command line as given: call before getopt, which reorders argv
 * (the strings stay; the copy is of the pointers). json_meta_run_free() frees it.
 */
void json_meta_run_init(struct json_run *run, const char *program, const char *prefix, int argc,
                        char **argv);
void json_meta_run_free(struct json_run *run);

/* The header keys, at the start of the top-level object; host is looked up now. */
void json_meta_write(struct json_writer *w, const struct json_run *run);

/* The same, with the host and date given (for tests). */
void json_meta_write_with(struct json_writer *w, const struct json_run *run,
                          const struct json_host *host, time_t now);

/*
 * key: {"path", "device", "filesystem", "mount_point", "mount_options"}
 * of a spool at path; null for what fs does not know.
 */
void json_meta_write_spool(struct json_writer *w, const char *key, const char *path,
                           const struct fsinfo *fs);

/*
 * A result file, begun and ended one way: json_meta_begin() starts the
 * document for path ("-": standard output) in memory, opens the top-level
 * object and writes the header keys (none when run is NULL); 0, or -1 with
 * errno when it cannot (then nothing is to be ended). json_meta_end()
 * closes the top-level object and puts the document at path whole or not
 * at all (fileutil_write_output(): a temporary file renamed into place), so
 * that a full disk or a crash never leaves half a result; 0, or -1 with
 * errno when it could not be written (the path is then as it was).
 */
int json_meta_begin(struct json_writer *w, const char *path, const struct json_run *run);
int json_meta_end(struct json_writer *w);

/*
 * The same on a stream the caller opened and closes itself (a result kept
 * in memory until it is whole): json_meta_end_stream() closes the
 * top-level object; 0, or -1 when the stream had an error.
 */
/*
 * Where a program's text report goes when its JSON goes to json_path
 * (NULL: none): standard error when the JSON is on standard output ("-"),
 * so that standard output holds the JSON alone for a reader; else
 * standard output.
 */
FILE *json_meta_text_stream(const char *json_path);

void json_meta_begin_stream(struct json_writer *w, FILE *fp, const struct json_run *run);
int json_meta_end_stream(struct json_writer *w);

#endif
