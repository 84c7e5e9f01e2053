/*
 * bench_report - the results of a `spoolsim bench' run.
 *
 * bench_report_read() reads the three programs' JSON reports and the
 * client's and sink's message logs from the run's work directory
 * (relay.json, source.json, sink.json, source.log, sink.log); the rest
 * prints what was found, with the harness verdict (bottleneck.h) from
 * each program's own CPU per message. Exactly once means: the queue drained, and every message
 * the client saw acknowledged arrived at the sink once, intact, with
 * nothing else arriving. It is judged only on whole message logs: a log
 * with an unreadable line, one that cannot be read, or one its program
 * says lost lines of (its JSON's msg_log_complete, or no JSON at all)
 * makes it "not checked", never "NO": the relay is not judged on what
 * the harness failed to write.
 */
#ifndef SPOOLSIM_BENCH_REPORT_H
#define SPOOLSIM_BENCH_REPORT_H

#include <stdio.h>

#include "diskstat.h"
#include "drive.h"
#include "fsinfo.h"
#include "histogram.h"
#include "timeline.h"
#include "json_meta.h"
#include "msglog.h"
#include "netem.h"
#include "optgroup.h"

struct drive; /* drive.h: the work directory the reports are in */

struct bench_options {
    const char *spool_parent;
    /* -d -m -s --size -r, --json, --interval (passed on to the relay), --csv, --keep, -q */
    struct optgroup_values common;
    int reuse;
    const char *rate;
    const char *arrivals; /* --arrivals: "poisson" (the default) or "fixed" spacing for --rate */
    const char *sync;
    const char *qmgr;
    const char *profile;
    const char *model; /* NULL: the relay's default */
    enum { BENCH_CALIBRATE_NEVER, BENCH_CALIBRATE_IF_NEEDED, BENCH_CALIBRATE_AGAIN } calibrate;
    const char *cleanup_threads;
    const char *relay_threads; /* the relay's --threads; NULL: its default */
    const char *concurrency;
    unsigned harness_threads; /* --threads for smtp-source and smtp-sink */
    int discard;
    int tls;                  /* STARTTLS on both legs: source -> relay -> sink */
    struct netem_spec hop;    /* --hop-delay and the rest: all 0, a loopback sink */
    struct netem_spec client; /* --client-delay, --client-jitter: all 0, a loopback client */
    double drain_timeout;
    const char *mta;     /* --mta: a real MTA (postfix, exim) in place of the relay; NULL: none */
    const char *compare; /* --compare: that MTA against the relay's model of it; NULL: none */
    unsigned runs;       /* --runs: the runs of each side with --compare */
    int runs_given;
    const struct json_run *run; /* the command line, for the JSON report */
};

/* The client's failure kinds (smtp-source's "failures" keys), in its order. */
#define BENCH_FAILURE_KINDS 6

/* How the next hop was had: the loopback sink, netem, or the sink's delays. */
enum bench_hop_kind { BENCH_HOP_LOOPBACK, BENCH_HOP_NETEM, BENCH_HOP_EMULATED };
#define BENCH_WHY_MAX 300  /* netem_hop's why */
#define BENCH_WHERE_MAX 80 /* "namespace NAME, sink at ADDRESS" */

struct bench_results {
    enum bench_hop_kind hop;
    char hop_why[300];          /* BENCH_HOP_EMULATED: why not a network */
    char hop_where[80];         /* BENCH_HOP_NETEM: the namespace and the sink's address */
    enum bench_hop_kind client; /* the client's side, the same way (emulated: relay delays) */
    char client_why[300], client_where[80];
    double load_s, drain_s, total_s; /* as bench saw its children: start to exit, to empty queue */
    double inject_s; /* the client's own window (its report's elapsed_s): injected/s is over it */
    double injected, failed, delivered_sink;
    struct histogram e2e;     /* the relay's end to end, read back from its report's buckets */
    struct timeline timeline; /* the relay's; empty without its report */
    double fsyncs, creates, renames, unlinks, chmods;
    double failures[BENCH_FAILURE_KINDS]; /* the client's failed messages, by kind */
    char failed_why[600]; /* "connect 5: Too many open files; reply 2: 452@data 2"; "" if none */
    double refused_storage, refused_other, deferrals, bounced; /* the relay's */
    struct msglog_compare cmp;
    char logs_unchecked[400]; /* why the message logs cannot be trusted; "" when they can */
    struct fsinfo fs;
    struct diskstat disk; /* the spool's device, load start to empty queue, per injected message */
    int relay_status, source_status, drained;
    double cpu_relay_s, cpu_source_s, cpu_sink_s; /* each child's, from wait4() */
    /* each program's own CPU (its JSON's cpu_s; the relay's roles added), < 0: no report */
    double own_relay_s, own_source_s, own_sink_s;
    unsigned cores;           /* the machine's, as the relay counted them */
    double machine_busy;      /* over the relay's busy window, 0..1; < 0: unknown */
    char model[400];          /* the relay's cost model, as its JSON names it */
    char model_warning[1200]; /* why its rates may not be this machine's; "" if they are */
    char bottleneck[600];     /* the relay's verdict on what limited the run */
    char mta_version[32];     /* --mta: the real MTA's version, as its script found it */
    char workload_sha256[DRIVE_SHA256_HEX]; /* --workload: as smtp-source's report says */
};

const char *bench_report_sync_name(const struct bench_options *o);
void bench_report_read(const struct drive *d, struct bench_results *res);
/* 1 if exactly once, 0 if not or not checked (logs_unchecked says why). */
int bench_report_exactly_once(const struct bench_results *res);
void bench_report_print(const struct bench_options *o, const char *spool,
                        const struct bench_results *res, FILE *fp);
int bench_report_write_json(const struct bench_options *o, const char *spool,
                            const struct bench_results *res);
/* --json and --csv, each whole or not at all; 0, or -1 when one could not be written (said). */
int bench_report_save(const struct bench_options *o, const char *spool,
                      const struct bench_results *res);

#endif
