/*
 * ab - `spoolsim ab', in three parts: ab_options.c reads the command line,
 * ab.c makes the runs, ab_report.c says what they measured (text, JSON,
 * Markdown, CSV). What they share: a MODE, the options, the two sides and
 * the comparison's state. See ab.c for what the command does.
 */
#ifndef SPOOLSIM_AB_H
#define SPOOLSIM_AB_H

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "ab_stats.h"
#include "diskstat.h"
#include "drive.h"
#include "fsinfo.h"
#include "json_meta.h"
#include "optgroup.h"
#include "progress_out.h"

#define MAX_RUNS 1000 /* the bootstrap sorts every resample: keep it quick */

/* What a MODE runs, and what it reads back. */
struct mode {
    const char *name;
    const char *subcommand; /* of this program */
    const char *dir_option; /* how the child is given DIR; NULL: in its command file */
    const char *metric;     /* the top-level number in the child's JSON report */
    const char *unit;
    /*
     * Options ARGS must not hold: ab sets them itself, (--keep) they
     * would leave a run's files, or (--discard, --dry-run) there would be
     * no figure. At most 5, so that a NULL ends the list.
     */
    const char *reserved[6];
};

/*
 * --crash: the A/B's load as spoolsim crash takes it, option and value
 * pairs in v (pointing into ARGS or the defaults here), and what of the
 * load it cannot take ("--rate, --tls"; "" for nothing).
 */
struct ab_crash_load {
    const char *v[24];
    int n;
    char duration[32], sessions[16]; /* bench's defaults, where ARGS leave them */
    char left_out[256];
};

struct ab_options {
    unsigned runs, warmup;
    struct optgroup_values common; /* --seed, --json, -q, --progress */
    const char *export_markdown, *export_csv;
    const char *dir[2];
    int one_dir;          /* DIR: both sides in one directory, told apart by their set-ups */
    const char *setup[2]; /* --setup-a, --setup-b: NULL for none */
    const char *prepare;  /* --prepare: NULL for none */
    unsigned crash;       /* --crash N: crash points per side, 0 for no crash test */
    const char *crash_profile, *crash_sync; /* --profile and --sync of relay's ARGS, or NULL */
    struct ab_crash_load crash_load;        /* the load the crash test is given */
    const struct mode *mode;
    char **args; /* MODE's arguments: the tail of argv */
    int nargs;
    const char *compare; /* --compare MTA: the model's B/A against the real MTA's; NULL */
    int opts_end;        /* argv[1..opts_end): ab's options, which getopt put first */
};

/*
 * A side's `spoolsim crash' (--crash): run on an image made like the side's
 * filesystem (--spool DIR, after the side's set-up), its verdict read back.
 */
struct side_crash {
    int done;    /* 1: it ran and wrote its report; 0: not run or failed (why says) */
    int durable; /* its exit status was 0 */
    double points, acknowledged, max_lost, points_losing, check_s;
    double sessions, messages, duration_s; /* the load it ran, as its report says */
    char size[64];
    char verdict[512];
    char fstype[64], mount_options[512], not_carried_over[512];
    char why[256]; /* when !done: what went wrong */
};

struct side {
    const char *name; /* "A" or "B" */
    const char *dir;
    struct fsinfo fs;
    int fs_known;
    dev_t dev;
    ino_t ino;
    double *figures;       /* one per measured run, NAN where the run failed */
    double *good;          /* the figures of the runs that worked, for the statistics */
    struct fsinfo *run_fs; /* what each measured run ran on, after its set-up; zeroed if unknown */
    struct diskstat *run_disk; /* each measured run's device counts, from its JSON report */
    struct diskstat disk;      /* their sum over the successful runs (diskstat_add()) */
    size_t ngood;
    unsigned done; /* measured runs made, failed or not: fewer after an interrupt */
    struct side_crash crash;
};

struct ab {
    const struct ab_options *opts;
    struct drive d; /* this program; ab's own temporary files, in $TMPDIR */
    char *commands; /* postmark: the user's command file, filtered */
    struct side side[2];
    unsigned failures;          /* failed runs, warm-ups included */
    unsigned crash_failures;    /* --crash: crash tests that gave no verdict */
    struct drive_child child;   /* the run going on */
    const struct json_run *run; /* the command line, for the JSON report */

    /* the status line: which run of how many, and the pace so far for the ETA */
    struct progress_out progress;
    char run_label[64];
    unsigned runs_done, runs_total; /* warm-ups included */
    double runs_spent_s;            /* the time of the runs done */
    uint64_t run_start_ns, start_ns;
    char shown_child[PROGRESS_LINE_MAX]; /* the child's line last shown, and when */
    uint64_t shown_ns;
    /* relay with --workload: the file and its SHA-256 as the first run's report named them */
    char workload[1024], workload_sha256[DRIVE_SHA256_HEX];
};

/* ab_options.c: the command line into o, or a usage error (exit status 2). */
void ab_options_parse(struct ab_options *o, int argc, char **argv);

/* ab.c: whether A and B are one filesystem mounted the same way. */
int ab_same_filesystem(const struct side *a, const struct side *b);

/*
 * ab_report.c: the text report on fp; --json (0, or -1 with errno);
 * --export-markdown (markdown 1) or --export-csv to path (0, or -1 with errno).
 */
void ab_report_print(const struct ab *ab, const struct ab_result *r, int compared, FILE *fp);
int ab_report_write_json(const struct ab *ab, const struct ab_result *r, int compared);
int ab_report_write_export(const struct ab *ab, const struct ab_result *r, int compared,
                           const char *path, int markdown);

#endif
