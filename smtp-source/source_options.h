/*
 * source_options - smtp-source's command line: Postfix's options and ours.
 *
 * source_options_parse() fills a struct source_options from argv; a bad
 * option or value ends the program through msg_usage() (exit status 2)
 * with a message naming the problem. No other I/O happens here except
 * reading the -F message file.
 */
#ifndef SPOOLSIM_SOURCE_OPTIONS_H
#define SPOOLSIM_SOURCE_OPTIONS_H

#include <stdint.h>

#include "smtp_tool_opts.h"
#include "workload.h"
#include "workload_file.h"

#define SOURCE_THREADS_MAX 256

enum arrival_kind { ARRIVAL_FIXED, ARRIVAL_POISSON };

struct source_options {
    struct smtp_tool_opts tool; /* -4 -6 -L -T -v, --seed --json --msg-log --no-summary */
    int count_display;          /* -c */
    unsigned connect_retries;   /* -C */
    int reuse;                  /* -d: keep the connection for the next message */
    const char *from;           /* -f */
    const char *message_file;   /* -F */
    uint64_t messages;          /* -m */
    const char *helo_name;      /* -M */
    int number_rcpts;           /* -N */
    int old_mode;               /* -o: no HELO, no headers */
    unsigned rcpts;             /* -r */
    double random_wait;         /* -R, seconds */
    unsigned sessions;          /* -s */
    const char *subject;        /* -S */
    const char *to;             /* -t */
    double fixed_wait;          /* -w, seconds */
    const char *target;

    /* spoolsim extensions */
    int tls;
    int pipelining;
    int skip_quit_reply; /* close after QUIT without its reply, as Postfix's smtp client */
    double rate;         /* messages per second, 0 = closed loop */
    enum arrival_kind arrivals;
    double duration; /* seconds, 0 = until -m messages */
    struct size_dist size;
    int size_given;       /* --size or -l */
    double timeout;       /* seconds per reply */
    double interval;      /* --interval: the timeline's, seconds */
    const char *csv_file; /* --csv: the timeline */
    int ignore_failures;
    double start_at;           /* --start-at: Unix seconds to start at; 0: at once */
    const char *start_at_text; /* as given, for messages */
    const char *id;            /* --id: this source's name in the JSON, NULL: none */
    int progress;     /* the status line: -1 on a terminal, 0 never (--no-progress), 1 always */
    unsigned threads; /* --threads: event loops, each with its share of the sessions */
    /* --workload: sizes, recipients and the rate from a mail log's workload (workload_file.h) */
    const char *workload_path;
    struct workload_file *workload; /* NULL without --workload; read once, shared read-only */
    char workload_sha256[65];       /* the file's digest, hex */
    double scale;                   /* --scale: the workload's rate times this (1) */
    int peak;                       /* --peak: the busiest minute's rate, not the mean */
    double replay;                  /* --replay: its minutes, compressed this many times; 0: none */
};

void source_options_parse(int argc, char **argv, struct source_options *opts);

#endif
