/*
 * spoolsim workload - a mail log read into a workload (see
 * spoolsim-workload(1) and docs/workload.md).
 *
 * The I/O around maillog_line (a line in, an event out) and maillog_sum
 * (the events summed): open each log, decompress a gzip'd one through
 * `gzip -dc` (by its magic bytes, not its name), cut the stream into
 * lines with a bound on their length, and write the summary as text and
 * JSON. Every log is opened before any is read, so that a missing one is
 * a usage error before any work.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "exit_status.h"
#include "json.h"
#include "json_meta.h"
#include "maillog_line.h"
#include "maillog_sum.h"
#include "msg.h"
#include "optarg.h"
#include "optgroup.h"
#include "spoolsim.h"
#include "xalloc.h"

/* Longer lines are skipped and counted: syslog's own bound is 8 KiB (rsyslog's default). */
#define WORKLOAD_LINE_MAX 65536
#define WORKLOAD_READ_SIZE (1 << 20)

extern char **environ;

struct workload_options {
    const char *output; /* -o: the JSON, NULL: none */
    int year;           /* --year: of the first syslog stamp; 0: from today */
    int no_summary;
};

struct workload_input {
    const char *name;
    int fd;
    int gzip;
    pid_t child; /* gzip -dc, or 0 */
    uint64_t lines;
    int complete;
};

static void usage(FILE *fp, const struct optgroup *g)
{
    fprintf(fp, "Usage: spoolsim workload --from-maillog FILE... [-o FILE]\n"
                "\n"
                "Reads mail logs (Postfix's through syslog, with the classic or the RFC 3339\n"
                "stamp, and Exim's main log; gzip'd or not, '-' for standard input) and writes\n"
                "the workload they describe: messages, their sizes (median, percentiles, the\n"
                "quantiles to draw sizes from), recipients per message, messages per\n"
                "connection, arrivals per minute with the peak and burstiness, the shares\n"
                "deferred and bounced, and the lines read and skipped. It keeps no address,\n"
                "host name or subject: only counts and distributions.\n"
                "\n"
                "Options:\n"
                "  --from-maillog      the operands are mail logs (the only source today)\n"
                "  -o, --output FILE   the workload as JSON (- = stdout)\n"
                "  --year YEAR         the year of the first syslog stamp (default: this\n"
                "                      year, or last year for a month later than this one)\n"
                "  --no-summary        no text summary on standard output\n");
    optgroup_help(fp, g, OPTGROUP_HELP, 18);
    fprintf(fp, "\n"
                "Exit status: 0 when every log was read to its end; 1 if the output could\n"
                "not be written; 2 for a usage error or a log that cannot be opened; 3 if a\n"
                "log was not read to its end (a damaged gzip file, a read error: what was\n"
                "read still counts).\n");
}

enum { OPT_FROM_MAILLOG = 256, OPT_YEAR, OPT_NO_SUMMARY };

static const struct option long_options[] = {
    {"from-maillog", no_argument, NULL, OPT_FROM_MAILLOG},
    {"output", required_argument, NULL, 'o'},
    {"year", required_argument, NULL, OPT_YEAR},
    {"no-summary", no_argument, NULL, OPT_NO_SUMMARY},
    {NULL, 0, NULL, 0},
};

static void parse_options(int argc, char **argv, struct workload_options *o)
{
    struct optgroup_values common;
    struct optgroup g;
    int from = 0, ch;

    memset(o, 0, sizeof(*o));
    optgroup_init(&g, &common, OPTGROUP_HELP, "o:", long_options, "spoolsim workload", usage);
    while ((ch = optgroup_getopt(&g, argc, argv)) != -1) {
        switch (ch) {
        case OPT_FROM_MAILLOG:
            from = 1;
            break;
        case 'o':
            optarg_output_file(optarg, "-o");
            o->output = optarg;
            break;
        case OPT_YEAR:
            o->year = (int)optarg_count(optarg, "--year", 1970, 9999);
            break;
        case OPT_NO_SUMMARY:
            o->no_summary = 1;
            break;
        default:
            msg_panic("option %d not handled", ch);
        }
    }
    if (!from)
        msg_usage("no source: give --from-maillog FILE...");
    if (optind >= argc)
        msg_usage("--from-maillog: no log files (FILE...)");
}

/* Opens name and, when it starts with gzip's magic, puts `gzip -dc' between: 0, or -1 (errno). */
static int input_open(struct workload_input *in, const char *name)
{
    unsigned char magic[2];
    ssize_t n;

    memset(in, 0, sizeof(*in));
    in->name = name;
    in->fd = strcmp(name, "-") == 0 ? dup(STDIN_FILENO) : open(name, O_RDONLY | O_CLOEXEC);
    if (in->fd < 0)
        return -1;
    /* A pipe cannot be rewound: standard input is read as it comes. */
    if (strcmp(name, "-") == 0)
        return 0;
    n = pread(in->fd, magic, sizeof(magic), 0);
    if (n < 0 && errno == ESPIPE)
        return 0; /* a named pipe: read as it comes, as standard input is */
    if (n < 0) {
        int e = errno;

        close(in->fd);
        errno = e;
        return -1;
    }
    in->gzip = n == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
    return 0;
}

/* The stream to read: the file itself, or gzip's output (gzip reads the file as its input). */
static int input_start(struct workload_input *in)
{
    posix_spawn_file_actions_t fa;
    char *args[] = {"gzip", "-dc", NULL};
    int p[2], rc;

    if (!in->gzip)
        return 0;
    if (pipe(p) != 0)
        return -1;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, in->fd, STDIN_FILENO);
    posix_spawn_file_actions_adddup2(&fa, p[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&fa, p[0]);
    rc = posix_spawnp(&in->child, "gzip", &fa, NULL, args, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(p[1]);
    close(in->fd);
    in->fd = p[0];
    if (rc != 0) {
        close(p[0]);
        in->fd = -1;
        errno = rc;
        return -1;
    }
    return 0;
}

static void line(struct maillog_sum *s, struct maillog_year *y, struct workload_input *in,
                 const char *p, size_t len)
{
    struct maillog_event ev;

    in->lines++;
    if (len > 0 && p[len - 1] == '\r')
        len--;
    if (len > WORKLOAD_LINE_MAX) { /* whole in one read, but as long as one that was not */
        maillog_sum_skip(s, MAILLOG_SKIP_TOO_LONG);
        return;
    }
    if (memchr(p, '\0', len) != NULL) {
        maillog_sum_skip(s, MAILLOG_SKIP_BINARY);
        return;
    }
    maillog_line_parse(p, len, y, &ev);
    maillog_sum_add(s, &ev);
}

/* Reads in's stream to its end in lines: 0, or -1 when it could not be read whole. */
static int input_read(struct workload_input *in, struct maillog_sum *s, struct maillog_year *y,
                      char *buf)
{
    size_t len = 0;
    int too_long = 0, status = 0;

    for (;;) {
        ssize_t n = read(in->fd, buf + len, WORKLOAD_LINE_MAX + WORKLOAD_READ_SIZE - len);
        size_t start = 0;
        char *nl;

        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            msg_warn("%s: cannot read: %s", in->name, strerror(errno));
            status = -1;
            break;
        }
        if (n == 0)
            break;
        len += (size_t)n;
        while ((nl = memchr(buf + start, '\n', len - start)) != NULL) {
            if (too_long) {
                in->lines++;
                maillog_sum_skip(s, MAILLOG_SKIP_TOO_LONG);
                too_long = 0;
            } else {
                line(s, y, in, buf + start, (size_t)(nl - (buf + start)));
            }
            start = (size_t)(nl - buf) + 1;
        }
        /* What is left is the start of a line: kept, unless it is already too long. */
        if (len - start > WORKLOAD_LINE_MAX) {
            too_long = 1;
            len = 0;
        } else {
            memmove(buf, buf + start, len - start);
            len -= start;
        }
    }
    if (too_long) {
        in->lines++;
        maillog_sum_skip(s, MAILLOG_SKIP_TOO_LONG);
    } else if (len > 0) {
        line(s, y, in, buf, len); /* the last line, cut short of its newline */
    }
    close(in->fd);
    if (in->child > 0) {
        int ws;

        while (waitpid(in->child, &ws, 0) < 0 && errno == EINTR)
            ;
        if (!WIFEXITED(ws) || WEXITSTATUS(ws) != 0) {
            msg_warn("%s: gzip -dc failed: the file is damaged or cut short; its %llu lines "
                     "read before count",
                     in->name, (unsigned long long)in->lines);
            status = -1;
        }
    }
    in->complete = status == 0;
    return status;
}

static void report_text(FILE *fp, const struct maillog_sum *s)
{
    struct maillog_rate r;
    const struct maillog_lines *l = &s->lines;

    maillog_sum_rate(s, &r);
    fprintf(fp,
            "spoolsim workload: %llu lines read, %llu used (%llu Postfix, %llu Exim); skipped: "
            "%llu of other programs, %llu ignored, %llu unparsed, %llu too long, %llu binary\n",
            (unsigned long long)l->read, (unsigned long long)l->used,
            (unsigned long long)l->postfix, (unsigned long long)l->exim,
            (unsigned long long)l->other, (unsigned long long)l->ignored,
            (unsigned long long)l->unparsed, (unsigned long long)l->too_long,
            (unsigned long long)l->binary);
    fprintf(fp, "messages: %llu, size median %llu, p90 %llu, p99 %llu, max %llu bytes\n",
            (unsigned long long)s->messages, (unsigned long long)histogram_percentile(&s->size, 50),
            (unsigned long long)histogram_percentile(&s->size, 90),
            (unsigned long long)histogram_percentile(&s->size, 99),
            (unsigned long long)histogram_max(&s->size));
    fprintf(fp, "recipients a message: median %llu, p99 %llu, max %llu\n",
            (unsigned long long)histogram_percentile(&s->rcpts, 50),
            (unsigned long long)histogram_percentile(&s->rcpts, 99),
            (unsigned long long)histogram_max(&s->rcpts));
    if (histogram_count(&s->per_conn) > 0)
        fprintf(fp, "messages a connection: mean %.2f, max %llu over %llu connections\n",
                histogram_mean(&s->per_conn), (unsigned long long)histogram_max(&s->per_conn),
                (unsigned long long)histogram_count(&s->per_conn));
    fprintf(fp,
            "arrivals a minute: mean %.2f over %zu minutes, peak %u (%.1f x the mean), cv %.2f\n",
            r.mean, r.minutes, r.peak, r.peak_to_mean, r.cv);
    fprintf(fp, "outcomes: %llu sent, %llu deferred, %llu bounced, %llu expired\n",
            (unsigned long long)s->sent, (unsigned long long)s->deferred,
            (unsigned long long)s->bounced, (unsigned long long)s->expired);
}

static int write_json(const char *path, const struct maillog_sum *s,
                      const struct workload_input *in, size_t n, const struct json_run *run)
{
    struct json_writer w;

    if (json_meta_begin(&w, path, run) != 0)
        return -1;
    json_begin_array(&w, "inputs");
    for (size_t i = 0; i < n; i++) {
        json_begin_object(&w, NULL);
        json_string(&w, "file", in[i].name);
        json_bool(&w, "gzip", in[i].gzip);
        json_uint(&w, "lines", in[i].lines);
        json_bool(&w, "complete", in[i].complete);
        json_end_object(&w);
    }
    json_end_array(&w);
    maillog_sum_write_json(&w, s);
    return json_meta_end(&w);
}

int spoolsim_workload(int argc, char **argv)
{
    struct workload_options o;
    struct workload_input *in;
    struct json_run run;
    struct maillog_sum s;
    struct maillog_year y;
    size_t n;
    char *buf;
    int status = 0;

    json_meta_run_init(&run, "spoolsim workload", "spoolsim", argc, argv);
    parse_options(argc, argv, &o);
    n = (size_t)(argc - optind);
    in = xcalloc(n, sizeof(*in));
    for (size_t i = 0; i < n; i++) {
        const char *name = argv[optind + (int)i];

        if (o.output && strcmp(name, "-") != 0 && optarg_same_output(o.output, name))
            msg_usage("-o %s: that is a log to read (%s)", o.output, name);
        if (input_open(&in[i], name) != 0)
            msg_usage("%s: cannot open: %s", name, strerror(errno));
    }
    if (o.year)
        maillog_line_year_fixed(&y, o.year);
    else
        maillog_line_year_init(&y, (int64_t)time(NULL));
    maillog_sum_init(&s);
    buf = xmalloc(WORKLOAD_LINE_MAX + WORKLOAD_READ_SIZE);
    for (size_t i = 0; i < n; i++) {
        if (input_start(&in[i]) != 0) {
            msg_warn("%s: cannot run gzip -dc: %s", in[i].name, strerror(errno));
            status = 1;
            continue;
        }
        if (input_read(&in[i], &s, &y, buf) != 0)
            status = EXIT_STATUS_INCOMPLETE; /* the log was not read to its end */
    }
    free(buf);
    maillog_sum_finish(&s);
    if (!o.no_summary && !(o.output && strcmp(o.output, "-") == 0))
        report_text(stdout, &s);
    if (o.output && write_json(o.output, &s, in, n, &run) != 0) {
        msg_warn("cannot write %s: %s", o.output, strerror(errno));
        status = EXIT_STATUS_BAD;
    }
    maillog_sum_free(&s);
    free(in);
    json_meta_run_free(&run);
    return status;
}
