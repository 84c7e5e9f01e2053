/*
 * optarg - check and convert command-line option values; see optarg.h.
 */
#include "config.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "msg.h"
#include "optarg.h"
#include "suggest.h"
#include "workload.h"

/* The row of `old' for spelling `name' ("-o", "--like"), or NULL. */
static const struct optarg_old *old_spelling(const struct optarg_old *old, const char *name)
{
    for (; old && old->old; old++)
        if (strcmp(old->old, name) == 0)
            return old;
    return NULL;
}

/* --list-options: the table itself, so that the completion cannot drift from it. */
static void list_options(const char *shortopts, const struct option *longopts,
                         const struct optarg_old *old)
{
    char name[64];

    for (const char *p = shortopts; *p; p++) {
        if (*p == ':' || *p == '+' || *p == '-')
            continue;
        snprintf(name, sizeof(name), "-%c", *p);
        if (!old_spelling(old, name))
            printf("%s%s\n", name, p[1] != ':' ? "" : p[2] == ':' ? "[=]" : "=");
    }
    for (const struct option *o = longopts; o && o->name; o++) {
        snprintf(name, sizeof(name), "--%s", o->name);
        if (!old_spelling(old, name))
            printf("%s%s\n", name,
                   o->has_arg == required_argument   ? "="
                   : o->has_arg == optional_argument ? "[=]"
                                                     : "");
    }
    exit(ferror(stdout) || fflush(stdout) != 0);
}

/*
 * " (did you mean --spool?)" in hint for an unknown option `name'
 * ("--dri"): the nearest long option (suggest.h), or "". An old spelling
 * that is near is named with the one to use now.
 */
static void nearest_option(const char *name, const struct option *longopts,
                           const struct optarg_old *old, char *hint, size_t len)
{
    const char *words[256];
    const struct optarg_old *was;
    const char *near;
    char full[64];
    size_t n = 0;

    hint[0] = 0;
    for (const struct option *o = longopts; o && o->name && n < 256; o++) {
        snprintf(full, sizeof(full), "--%s", o->name);
        was = old_spelling(old, full);
        if (!was || was->now)
            words[n++] = o->name;
    }
    if (strncmp(name, "--", 2) != 0 || (near = suggest_nearest(name + 2, words, n)) == NULL)
        return;
    snprintf(full, sizeof(full), "--%s", near);
    was = old_spelling(old, full);
    if (was)
        snprintf(hint, len, " (did you mean %s, now %s?)", full, was->now);
    else
        snprintf(hint, len, " (did you mean %s?)", full);
}

int optarg_getopt(int argc, char *const argv[], const char *shortopts,
                  const struct option *longopts)
{
    return optarg_getopt_old(argc, argv, shortopts, longopts, NULL);
}

int optarg_getopt_old(int argc, char *const argv[], const char *shortopts,
                      const struct option *longopts, const struct optarg_old *old)
{
    char spec[128], name[64];
    const struct optarg_old *was;
    const char *arg;
    int ch, long_index = -1;

    if (optind <= 1 && argc == 2 && strcmp(argv[1], "--list-options") == 0)
        list_options(shortopts, longopts, old);
    /* A leading ':' tells a missing value (':') from an unknown option ('?'). */
    snprintf(spec, sizeof(spec), ":%s", shortopts);
    opterr = 0;
    ch = getopt_long(argc, argv, spec, longopts, &long_index);
    if (ch != '?' && ch != ':') {
        if (ch == -1 || !old)
            return ch;
        if (long_index >= 0)
            snprintf(name, sizeof(name), "--%s", longopts[long_index].name);
        else
            snprintf(name, sizeof(name), "-%c", ch);
        was = old_spelling(old, name);
        if (was && was->now)
            msg_warn("%s is an old spelling: say %s (the old one goes in a later release)", name,
                     was->now);
        return ch;
    }
    arg = optind > 0 && optind <= argc ? argv[optind - 1] : "";
    if (strncmp(arg, "--", 2) == 0)
        snprintf(name, sizeof(name), "%.*s", (int)strcspn(arg, "="), arg);
    else
        snprintf(name, sizeof(name), "-%c", optopt);
    if (ch == ':')
        msg_usage("option %s requires a value", name);
    if (optopt == 0) {
        char hint[160];

        nearest_option(name, longopts, old, hint, sizeof(hint));
        msg_usage("unknown option %s%s", name, hint); /* or an ambiguous abbreviation */
    }
    if (strncmp(arg, "--", 2) == 0 && strchr(arg, '=') != NULL)
        msg_usage("option %s takes no value", name);
    msg_usage("unknown option -%c", optopt);
}

int optarg_store(const struct optarg_store *table, int code, const char *arg)
{
    for (; table->code != 0; table++) {
        if (table->code != code)
            continue;
        if (table->flag)
            *table->flag = 1;
        else
            *table->text = table->dir ? optarg_dir(arg, table->dir) : arg;
        return 1;
    }
    return 0;
}

const char *optarg_dir(const char *text, const char *what)
{
    if (text[0] == 0)
        msg_usage("%s: an empty directory name (an unset variable?)", what);
    return text;
}

uint64_t optarg_count(const char *text, const char *what, uint64_t min, uint64_t max)
{
    char *end;
    unsigned long long value;

    if (!isdigit((unsigned char)*text))
        msg_usage("%s: bad number \"%s\"", what, text);
    errno = 0;
    value = strtoull(text, &end, 10);
    if (*end != 0 || errno == ERANGE || value < min || value > max)
        msg_usage("%s: \"%s\" is not a number from %llu to %llu", what, text,
                  (unsigned long long)min, (unsigned long long)max);
    return value;
}

double optarg_seconds(const char *text, const char *what)
{
    uint64_t ns;

    if (workload_parse_duration_ns(text, &ns) != 0)
        msg_usage("%s: bad time \"%s\" (e.g. 2, 0.5, 250ms, 2m)", what, text);
    return (double)ns / 1e9;
}

void optarg_seconds_text(double s, char *buf, size_t len)
{
    static const struct {
        const char *name;
        double s;
    } units[] = {{"d", 86400}, {"h", 3600}, {"m", 60}, {"s", 1}, {"ms", 1e-3}, {"us", 1e-6}};

    if (s <= 0) {
        snprintf(buf, len, "0");
        return;
    }
    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
        double n = s / units[i].s;

        if (n >= 1 && fabs(n - round(n)) < 1e-9 * n) {
            snprintf(buf, len, "%.0f%s", n, units[i].name);
            return;
        }
    }
    snprintf(buf, len, "%gs", s);
}

double optarg_seconds_in(const char *text, const char *what, double min_s, double max_s)
{
    double s = optarg_seconds(text, what);
    char lo[32], hi[32];

    if (s < min_s || s > max_s) {
        optarg_seconds_text(min_s, lo, sizeof(lo));
        optarg_seconds_text(max_s, hi, sizeof(hi));
        msg_usage("%s: \"%s\" is out of range (%s to %s)", what, text, lo, hi);
    }
    return s;
}

double optarg_seconds_positive(const char *text, const char *what, double max_s)
{
    double s = optarg_seconds_in(text, what, 0, max_s);

    if (s <= 0)
        msg_usage("%s must be positive", what);
    return s;
}

double optarg_round_trip(const char *text, const char *what)
{
    double s = optarg_seconds(text, what);

    if (s > 60)
        msg_usage("%s %s: more than a minute is no network", what, text);
    return s;
}

double optarg_interval(const char *text, const char *what)
{
    return optarg_seconds_in(text, what, 0.01, 3600);
}

uint64_t optarg_size(const char *text, const char *what, uint64_t min)
{
    uint64_t value = 0;
    int rc = workload_parse_size(text, &value);

    if (rc != 0 && errno != ERANGE)
        msg_usage("%s: bad size \"%s\" (e.g. 4096, 64k, 10m, 1g)", what, text);
    if (rc != 0 || value > OPTARG_SIZE_MAX)
        msg_usage("%s: \"%s\" is larger than the maximum, %s", what, text, OPTARG_SIZE_MAX_TEXT);
    if (value < min)
        msg_usage("%s: \"%s\" is less than %llu", what, text, (unsigned long long)min);
    return value;
}

void optarg_size_dist(const char *text, const char *what, struct size_dist *out)
{
    char err[256];
    uint64_t largest;

    if (workload_size_parse(text, out, err, sizeof(err)) != 0)
        msg_usage("%s: %s", what, err);
    largest = out->kind == SIZE_FIXED ? out->a : out->kind == SIZE_UNIFORM ? out->b : out->max;
    if (largest > OPTARG_SIZE_MAX)
        msg_usage("%s: \"%s\" allows sizes larger than the maximum, %s", what, text,
                  OPTARG_SIZE_MAX_TEXT);
}

const char *optarg_one_line(const char *text, const char *what)
{
    if (strpbrk(text, "\r\n") != NULL)
        msg_usage("%s: a CR or LF is not allowed here", what);
    return text;
}

/* [192.0.2.1] or [IPv6:2001:db8::1], as an SMTP address literal (RFC 5321 4.1.3). */
static int is_address_literal(const char *text, size_t len)
{
    char addr[INET6_ADDRSTRLEN + 8];
    unsigned char bin[sizeof(struct in6_addr)];
    int v6;

    if (len < 3 || text[0] != '[' || text[len - 1] != ']' || len - 2 >= sizeof(addr))
        return 0;
    memcpy(addr, text + 1, len - 2);
    addr[len - 2] = 0;
    v6 = strncasecmp(addr, "IPv6:", 5) == 0;
    return inet_pton(v6 ? AF_INET6 : AF_INET, addr + (v6 ? 5 : 0), bin) == 1;
}

int optarg_is_hostname(const char *text)
{
    size_t len = strlen(text), label = 0;

    if (len > 0 && text[0] == '[')
        return is_address_literal(text, len);
    if (len == 0 || len > 253)
        return 0;
    for (size_t i = 0; i <= len; i++) {
        unsigned char c = (unsigned char)text[i];

        if (c == '.' || c == 0) {
            /* an empty label, or one that starts or ends with a hyphen */
            if (label == 0 || text[i - label] == '-' || text[i - 1] == '-')
                return 0;
            label = 0;
            continue;
        }
        /* ASCII alone, whatever the locale; the underscore as Postfix's valid_hostname() */
        if (!(c >= 'a' && c <= 'z') && !(c >= 'A' && c <= 'Z') && !(c >= '0' && c <= '9') &&
            c != '-' && c != '_')
            return 0;
        if (++label > 63)
            return 0;
    }
    return 1;
}

const char *optarg_hostname(const char *text, const char *what)
{
    optarg_one_line(text, what);
    if (*text == 0)
        msg_usage("%s: the host name is empty", what);
    if (!optarg_is_hostname(text))
        msg_usage("%s: \"%s\" is not a host name (letters, digits, hyphens and dots, or an "
                  "address literal such as [192.0.2.1])",
                  what, text);
    return text;
}

unsigned optarg_choice(const char *text, const char *what, const char *const names[])
{
    char list[256];
    size_t used = 0;
    unsigned i;

    for (i = 0; names[i]; i++)
        if (strcmp(text, names[i]) == 0)
            return i;
    for (i = 0; names[i] && used < sizeof(list); i++)
        used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%s",
                                 i == 0         ? ""
                                 : names[i + 1] ? ", "
                                                : " or ",
                                 names[i]);
    msg_usage("bad %s \"%s\" (%s)", what, text, list);
}

double optarg_rate(const char *text, const char *what)
{
    char *end;
    double rate;

    errno = 0;
    rate = strtod(text, &end);
    if (*text == 0 || *end != 0 || !(rate > 0 && rate <= 1e7))
        msg_usage("%s: \"%s\" is not a number of messages per second greater than 0 and at "
                  "most 10000000",
                  what, text);
    return rate;
}

double optarg_factor(const char *text, const char *what)
{
    char *end;
    double k = strtod(text, &end);

    if (*text == 0 || *end != 0 || !(k > 0 && k <= 1e9))
        msg_usage("%s: \"%s\" is not a factor greater than 0 and at most 1000000000", what, text);
    return k;
}

static void output_check(const char *path, const char *what, int depth);

/*
 * A symbolic link to a file that does not exist yet: writing creates its
 * target, so the target is what must be creatable (resolved relative to
 * the link's directory, a few links deep at most).
 */
static void output_link_target(const char *path, const char *what, int depth)
{
    char target[PATH_MAX], joined[2 * PATH_MAX + 2];
    const char *slash = strrchr(path, '/');
    ssize_t n = readlink(path, target, sizeof(target) - 1);

    if (n < 0 || depth > 8)
        msg_usage("%s %s: cannot create: %s", what, path, strerror(n < 0 ? errno : ELOOP));
    target[n] = 0;
    if (target[0] != '/' && slash)
        snprintf(joined, sizeof(joined), "%.*s/%s", (int)(slash - path), path, target);
    else
        snprintf(joined, sizeof(joined), "%s", target);
    output_check(joined, what, depth + 1);
}

/* 0 if a file can be made in path's directory, else the errno that says why not. */
static int dir_writable(const char *path)
{
    struct stat st;
    char *dir, *slash;
    int error = 0;

    if ((dir = strdup(path)) == NULL)
        msg_fatal("out of memory");
    slash = strrchr(dir, '/');
    if (slash == dir)
        slash[1] = 0;
    else if (slash)
        *slash = 0;
    errno = 0;
    if (stat(slash ? dir : ".", &st) != 0 || !S_ISDIR(st.st_mode) ||
        access(slash ? dir : ".", W_OK | X_OK) != 0)
        error = errno ? errno : ENOTDIR;
    free(dir);
    return error;
}

static void output_check(const char *path, const char *what, int depth)
{
    struct stat st;
    char *real;
    int error;

    if (strcmp(path, "-") == 0)
        return;
    if (*path == 0)
        msg_usage("%s: an empty file name", what);
    if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode) && stat(path, &st) != 0 && errno == ENOENT) {
        output_link_target(path, what, depth);
        return;
    }
    if (stat(path, &st) == 0) {
        if (S_ISDIR(st.st_mode))
            msg_usage("%s %s: is a directory", what, path);
        if (access(path, W_OK) != 0)
            msg_usage("%s %s: cannot write: %s", what, path, strerror(errno));
        /* a result replaces a file whole, from a new one beside it (fileutil_write_whole()) */
        if (S_ISREG(st.st_mode) && (real = realpath(path, NULL)) != NULL) {
            error = dir_writable(real);
            free(real);
            if (error)
                msg_usage("%s %s: cannot replace it: its directory: %s", what, path,
                          strerror(error));
        }
        return;
    }
    if (errno != ENOENT)
        msg_usage("%s %s: %s", what, path, strerror(errno));
    /* A new file: its directory must let us create it. */
    if ((error = dir_writable(path)) != 0)
        msg_usage("%s %s: cannot create: %s", what, path, strerror(error));
}

const char *optarg_output_file(const char *path, const char *what)
{
    output_check(path, what, 0);
    return path;
}

void optarg_work_dir(const char *path, const char *what, int may_make)
{
    char dir[PATH_MAX], *slash;
    struct stat st;

    if (*path == 0)
        msg_usage("%s: an empty directory name", what);
    if (strlen(path) >= sizeof(dir))
        msg_usage("%s: the path %.60s... is too long", what, path);
    if (stat(path, &st) == 0) {
        if (!S_ISDIR(st.st_mode))
            msg_usage("%s %s: not a directory", what, path);
        if (access(path, W_OK | X_OK) != 0)
            msg_usage("%s %s: cannot write in it: %s", what, path, strerror(errno));
        return;
    }
    if (errno != ENOENT || !may_make)
        msg_usage("%s %s: %s", what, path, strerror(errno));
    /* made as mkdir makes it: in a directory that exists and lets us write */
    snprintf(dir, sizeof(dir), "%s", path);
    while ((slash = strrchr(dir, '/')) != NULL && slash != dir && slash[1] == 0)
        *slash = 0; /* trailing slashes name the same directory */
    if ((slash = strrchr(dir, '/')) == NULL)
        snprintf(dir, sizeof(dir), ".");
    else
        slash[slash == dir] = 0;
    if (stat(dir, &st) != 0)
        msg_usage("%s %s: cannot be made: %s: %s", what, path, dir, strerror(errno));
    if (!S_ISDIR(st.st_mode))
        msg_usage("%s %s: cannot be made: %s is not a directory", what, path, dir);
    if (access(dir, W_OK | X_OK) != 0)
        msg_usage("%s %s: cannot be made in %s: %s", what, path, dir, strerror(errno));
}

int optarg_same_output(const char *a, const char *b)
{
    struct stat sa, sb;

    if (strcmp(a, "-") == 0 || strcmp(b, "-") == 0)
        return 0; /* standard output takes one after the other */
    if (strcmp(a, b) == 0)
        return 1;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}
