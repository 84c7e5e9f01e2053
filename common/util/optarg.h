/*
 * optarg - check and convert command-line option values.
 *
 * A value that does not parse, or is out of range, ends the program with
 * msg_usage() (exit status 2) and a message naming the option and value,
 * so callers only ever see good values. Every program reads its command
 * line through optarg_getopt(), so that all of them word a missing value
 * or an unknown option alike.
 */
#ifndef SPOOLSIM_OPTARG_H
#define SPOOLSIM_OPTARG_H

#include <getopt.h>
#include <stddef.h>
#include <stdint.h>

#include "workload.h"

/*
 * The largest message size any program takes, 1 GiB: smtp-source builds
 * each message in memory, and a typo such as --size 99999999999999 must
 * be a usage error, not an allocation that fails halfway through a run.
 */
#define OPTARG_SIZE_MAX (1024ULL * 1024 * 1024)
#define OPTARG_SIZE_MAX_TEXT "1024m (1 GiB)"

/*
 * getopt_long(), except that a missing value or an unknown option ends
 * the program with msg_usage(), saying which of the two it is. A command
 * line of only --list-options prints the table instead, one option a
 * line ("-x", "--name"; "=" after one that takes a value, "[=]" after one
 * that may), and exits 0: what the shell completion offers
 * (completion/spoolsim.bash), read from the program that runs.
 */
int optarg_getopt(int argc, char *const argv[], const char *shortopts,
                  const struct option *longopts);

/*
 * An old spelling of an option ("-o", "--like"), still in the command's
 * getopt table so that scripts keep working for a while. --list-options
 * (and so the completion and tests/it/it_vocabulary.sh) leaves it out;
 * using it prints one notice on standard error naming `now', the spelling
 * to use ("-O/--mount-options"). With `now' NULL it is only left out of
 * the list: the command refuses it with a message of its own. A table of
 * them ends with a row whose `old' is NULL.
 */
struct optarg_old {
    const char *old;
    const char *now;
};

/* optarg_getopt() with the old spellings of `old' (NULL: none). */
int optarg_getopt_old(int argc, char *const argv[], const char *shortopts,
                      const struct option *longopts, const struct optarg_old *old);

/*
 * A command's options whose whole handling is to be stored: a flag (no
 * value; set to 1) or a text kept as given, each row naming the code
 * getopt returns for it and where it goes, with .flag = or .text =. The
 * table ends with a row of code 0. A text that names a directory says
 * its option's name in .dir ("--spool"): an empty one is then a usage
 * error (optarg_dir()). Options with a value to check or a meaning of their
 * own stay in the command's switch, where the check is.
 */
struct optarg_store {
    int code;
    int *flag;
    const char **text;
    const char *dir;
};

/* Stores option `code' (its value `arg') as its row says: 1, or 0 if no row has it. */
int optarg_store(const struct optarg_store *table, int code, const char *arg);

/*
 * A directory given on the command line: any path but the empty one, a
 * usage error naming `what'. An unset shell variable ($SPOOL) gives "",
 * which every path function would take for the current directory or, with
 * a name put after it, for the root.
 */
const char *optarg_dir(const char *text, const char *what);

/* A decimal count in [min, max]. */
uint64_t optarg_count(const char *text, const char *what, uint64_t min, uint64_t max);

/* A time such as 2, 0.5, 250ms or 2m, in seconds. */
double optarg_seconds(const char *text, const char *what);

/*
 * A time as above in [min_s, max_s], else a usage error naming the option
 * and both bounds. Every duration option has its bounds: 0 or a few
 * nanoseconds where a timer repeats makes a hot loop (a retry, a timeout
 * that reconnects), and a huge value overflows the deadline it is added to.
 */
double optarg_seconds_in(const char *text, const char *what, double min_s, double max_s);

/*
 * A time as above greater than 0 and at most max_s: 0 is in range but
 * means nothing (a run, a limit that nothing meets), and is said so.
 */
double optarg_seconds_positive(const char *text, const char *what, double max_s);

/*
 * A network's round trip (a delay put on a hop or a client): a time as
 * above, at most a minute.
 */
double optarg_round_trip(const char *text, const char *what);

/* The usual bounds: a delay held per reply or step, a timeout, a run or a retry. */
#define OPTARG_DELAY_MAX 3600.0        /* 1h */
#define OPTARG_TIMEOUT_MIN 0.1         /* 100ms: no reply comes back sooner */
#define OPTARG_LONG_MAX (30 * 86400.0) /* 30d: a run, a timeout, a retry */

/* `s' seconds as an option would say it, in its largest whole unit: 0, 100ms, 1h, 30d. */
void optarg_seconds_text(double s, char *buf, size_t len);

/*
 * A timeline's interval (--interval), in seconds: a time as above from
 * 10ms (shorter ones would measure the timer, not the run) to one hour.
 */
double optarg_interval(const char *text, const char *what);

/* A byte count such as 4096, 64k or 10m, in [min, OPTARG_SIZE_MAX]. */
uint64_t optarg_size(const char *text, const char *what, uint64_t min);

/* A size distribution (workload.h) none of whose sizes exceeds OPTARG_SIZE_MAX. */
void optarg_size_dist(const char *text, const char *what, struct size_dist *out);

/*
 * A value that goes into an SMTP line as it is (an address, a HELO name):
 * a CR or LF in it would put a bare line end on the wire, and a CR LF a
 * command of its own (docs/security.md item 4), so either is a usage error.
 */
const char *optarg_one_line(const char *text, const char *what);

/*
 * A host name for greetings, EHLO and Received: headers: one line (as
 * above), then a domain name (labels of letters, digits, hyphens and
 * underscores, none empty, none starting or ending in a hyphen, at most 63
 * bytes each and 253 in all) or an address literal such as [192.0.2.1] or
 * [IPv6:2001:db8::1]. Anything else is a usage error naming `what'.
 */
const char *optarg_hostname(const char *text, const char *what);

/* The test behind optarg_hostname(), for a name already on one line: 1 if it is one. */
int optarg_is_hostname(const char *text);

/*
 * One of `names' (NULL-terminated): its index. Anything else is a usage
 * error that lists them: bad --qmgr "x" (single or pool).
 */
unsigned optarg_choice(const char *text, const char *what, const char *const names[]);

/* A rate in messages per second: a number greater than 0, at most 10 million. */
double optarg_rate(const char *text, const char *what);

/* A factor (--scale, --replay): a number greater than 0, at most 10^9 (sweep scales a quiet log's
 * mean far). */
double optarg_factor(const char *text, const char *what);

/*
 * An output file given on the command line, such as --json FILE: "-"
 * (standard output), or a path that can be written now, so that a run is
 * not wasted on a report that cannot be kept. Nothing is created; the
 * path is returned, for the option's field.
 */
const char *optarg_output_file(const char *path, const char *what);

/*
 * A directory a command works in, such as --spool DIR: it is a directory
 * this user may create files in, or, with may_make, one that does not
 * exist yet and that mkdir could make (its parent a directory this user
 * may write in). Anything else is a usage error
 * naming `what' and the reason. Nothing is created: a dry run's check,
 * and a run's before it starts.
 */
void optarg_work_dir(const char *path, const char *what, int may_make);

/* Two output files given are one: the same name, or the same file ("-" is never). */
int optarg_same_output(const char *a, const char *b);

#endif
