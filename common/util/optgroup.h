/*
 * optgroup - the option groups several commands share: one table of their
 * long and short names, one parser, one wording of their errors and of
 * their --help lines.
 *
 * A command names the groups it takes (OPTGROUP_* bits) and gives its own
 * options as a getopt_long() table and option string; optgroup_getopt()
 * merges them, handles every group option itself (checked as optarg.h
 * does: a bad value ends the program with msg_usage(), exit status 2,
 * naming the option and the problem) and returns only the command's own.
 * optgroup_end() makes the checks that need the whole command line. The
 * values land in a struct optgroup_values, which holds each group's
 * defaults from optgroup_init() on; a command may change a default
 * between optgroup_init() and parsing, and its --help then says so, since
 * optgroup_help() prints the defaults from the values.
 *
 * An option means one thing in every command that takes it: the table in
 * optgroup.c is the only place its name, value and help text are written
 * (--list-options prints it; tests/it/it_man_options.sh checks each
 * command's page against that).
 */
#ifndef SPOOLSIM_OPTGROUP_H
#define SPOOLSIM_OPTGROUP_H

#include <getopt.h>
#include <stdint.h>
#include <stdio.h>

#include "optarg.h"

enum {
    OPTGROUP_HELP = 1 << 0,         /* -h, --help, --version */
    OPTGROUP_LENGTH = 1 << 1,       /* -d, --duration TIME; -m, --messages N (not both) */
    OPTGROUP_SESSIONS = 1 << 2,     /* -s, --sessions N */
    OPTGROUP_SIZE = 1 << 3,         /* --size DIST */
    OPTGROUP_RCPTS = 1 << 4,        /* -r, --rcpts N */
    OPTGROUP_JSON = 1 << 5,         /* --json FILE */
    OPTGROUP_TIMELINE = 1 << 6,     /* --interval TIME, --csv FILE */
    OPTGROUP_KEEP = 1 << 7,         /* --keep */
    OPTGROUP_PROGRESS = 1 << 8,     /* --progress, --no-progress (with OPTGROUP_QUIET) */
    OPTGROUP_QUIET = 1 << 9,        /* -q, --quiet */
    OPTGROUP_NO_OPERANDS = 1 << 10, /* not a group: an argument after the options is an error */
    OPTGROUP_SEED = 1 << 11,        /* --seed N */
    OPTGROUP_DRY_RUN = 1 << 12,     /* --dry-run */
    OPTGROUP_LOAD_FILE = 1 << 13,   /* --workload FILE */
    OPTGROUP_LOAD_SHAPE = 1 << 14,  /* --scale K, --peak, --replay[=F]: its arrivals */
};

/* The groups that say what to offer, and those that say what to report. */
#define OPTGROUP_WORKLOAD (OPTGROUP_LENGTH | OPTGROUP_SESSIONS | OPTGROUP_SIZE | OPTGROUP_RCPTS)
#define OPTGROUP_OUTPUT                                                                            \
    (OPTGROUP_JSON | OPTGROUP_TIMELINE | OPTGROUP_KEEP | OPTGROUP_PROGRESS | OPTGROUP_QUIET |      \
     OPTGROUP_HELP | OPTGROUP_DRY_RUN)

/* The most messages -m takes: a count, not a typo. */
#define OPTGROUP_MESSAGES_MAX 1000000000ULL

struct optgroup_values {
    double duration;   /* -d, in seconds (10) */
    uint64_t messages; /* -m; 0: by --duration */
    unsigned sessions; /* -s (20) */
    const char *size;  /* --size as given, checked: the children read it again ("1024") */
    unsigned rcpts;    /* -r (1) */
    const char *json;  /* --json FILE, checked writable; NULL: none */
    double interval;   /* --interval, in seconds (1) */
    const char *csv;   /* --csv FILE, checked writable; NULL: none */
    uint64_t seed;     /* --seed, any 64-bit number (1) */
    int keep;          /* --keep */
    int dry_run;       /* --dry-run: check, say what would run, exit (optgroup_dry_run_done()) */
    int quiet;         /* -q */
    /*
     * --progress 1, --no-progress 0, neither -1; optgroup_end() settles
     * -1 with -q to 0 (progress_want()), leaving -1 for "on a terminal".
     */
    int progress;
    /*
     * --workload FILE: smtp-source draws sizes, recipients and its rate
     * from it (not with --size or -r); NULL: none. --scale (1), --peak,
     * --replay (0: none) as smtp-source's. The file's contents are the
     * caller's to check: this layer reads no JSON.
     */
    const char *workload;
    double scale;
    int peak;
    double replay;
};

#define OPTGROUP_TABLE_MAX 96
#define OPTGROUP_SHORT_MAX 64

struct optgroup {
    const char *name; /* "spoolsim bench": what --version says */
    unsigned groups;
    struct optgroup_values *v;
    void (*usage)(FILE *fp, const struct optgroup *g); /* --help: the whole text */
    const char *progress_what; /* what the status line shows, for --help; NULL: nothing said */
    const char *seed_what;     /* what --seed draws, for --help ("the crash points") */
    int duration_given;
    const struct optarg_old *old; /* the command's old spellings (optarg.h); NULL: none */
    int size_given, rcpts_given, shape_given; /* --size, -r; --scale, --peak or --replay */
    int argc;                                 /* the command line optgroup_getopt() reads */
    char *const *argv;
    struct option table[OPTGROUP_TABLE_MAX];
    char shortopts[OPTGROUP_SHORT_MAX];
};

/* The groups' defaults in v (what a command that changes none of them runs). */
void optgroup_values_defaults(struct optgroup_values *v);

/*
 * Sets v to the groups' defaults, merges the command's own options (own,
 * a getopt_long() table ending in a zero entry; own_short, its letters as
 * getopt wants them) with the groups', and readies getopt for argv[1].
 * A name or letter the command and a group both claim is a programming
 * error: msg_panic().
 */
void optgroup_init(struct optgroup *g, struct optgroup_values *v, unsigned groups,
                   const char *own_short, const struct option *own, const char *name,
                   void (*usage)(FILE *fp, const struct optgroup *g));

/*
 * The next of the command's own options (as getopt_long() returns it,
 * optarg set), or -1 at the end. Group options are handled here: their
 * values checked and stored, --help and --version printed (exit 0).
 */
int optgroup_getopt(struct optgroup *g, int argc, char *const argv[]);

/*
 * After the last option: the checks across options (-m with -d), the
 * status line's choice; with OPTGROUP_NO_OPERANDS, that no argument is left.
 */
void optgroup_end(struct optgroup *g);

/*
 * At the start of the run, not before (a --dry-run or a usage error keeps
 * them): remove the results an earlier run left at --json and --csv
 * (fileutil_output_forget()), so that a run that ends without its own
 * leaves none to be read as this one's. One that cannot be removed ends
 * the program (msg_fatal()).
 */
void optgroup_forget_results(const struct optgroup_values *v);

/*
 * The end of a dry run that found nothing wrong: "PROGRAM: dry run: TEXT"
 * on standard output, then exit 0 (1 if standard output cannot take it).
 * A command's dry run makes every check its run would make before
 * starting anything (the options, the directories, a child's own dry
 * run), each a usage error (exit 2) as in the run, and then says here
 * what would run; it starts, writes and creates nothing.
 */
_Noreturn void optgroup_dry_run_done(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * The --help lines of the groups in `which' that g takes, in the table's
 * order: "  LABEL" padded to column 2 + width, then the text (with the
 * default), wrapped to 79 columns.
 */
void optgroup_help(FILE *fp, const struct optgroup *g, unsigned which, int width);

/*
 * One --help entry as optgroup_help() prints them: "  LABEL", then `text'
 * wrapped to 79 columns from column 2 + width + 1 (on the next line when
 * the label reaches that column).
 */
void optgroup_help_line(FILE *fp, const char *label, const char *text, int width);

#endif
