/*
 * relay_options - the command line of `spoolsim relay'.
 *
 * relay_options_parse() fills the options from argv with the defaults a
 * benchmark wants (short retry times, Postfix's limits elsewhere), and
 * ends the program with exit status 2 on a usage error, naming it.
 *
 * Short options mean one thing in every spoolsim command: -q no progress,
 * -s sessions, -n runs (ab). The relay's spool and next hop, once -s and
 * -n, are --spool and --next-hop only; the old letters get a usage error
 * that names the new spelling, since reading them as before would give
 * the letters two meanings again.
 */
#ifndef SPOOLSIM_RELAY_OPTIONS_H
#define SPOOLSIM_RELAY_OPTIONS_H

#include <stdint.h>

#include "pf_spool.h"
#include "relay_limits.h"
#include "smtp_server_opts.h"

enum relay_hop_kind { RELAY_HOP_DISCARD, RELAY_HOP_SMTP, RELAY_HOP_MAILDIR };

/* STARTTLS to the next hop, as Postfix's smtp_tls_security_level. */
enum relay_hop_tls {
    RELAY_HOP_TLS_NONE,
    RELAY_HOP_TLS_MAY,     /* when offered */
    RELAY_HOP_TLS_ENCRYPT, /* or defer the mail */
};

/* Where the queue manager's file operations run. */
enum relay_qmgr_shape {
    RELAY_QMGR_SINGLE, /* one thread, in order: Postfix's single qmgr */
    RELAY_QMGR_POOL,   /* on the cleanup pool, concurrently */
};

struct relay_options {
    int check_only; /* --dry-run, or its old name --check-options: relay_dry_run.h */
    const char *listen;
    const char *spool;
    const char *user; /* -u: run as this user once listening; the spool is theirs */
    const char *next_hop;
    enum relay_hop_kind hop_kind;
    const char *hop_arg; /* HOST:PORT or the Maildir */
    enum pf_sync sync;
    int sync_given;      /* --sync was on the command line */
    const char *profile; /* the spool profile; postfix is the relay's own */
    const char *model;   /* --model: none, postfix or a model file (relay_model.h); NULL: default */
    int long_ids;
    int hash_depth;
    unsigned cleanup_threads;
    unsigned threads; /* event loops for client sessions (relay_loop.h) */
    enum relay_qmgr_shape qmgr;
    /* SPOOLSIM_QMGR_SCAN=1, an experiment: the queue manager takes every file of incoming/
     * marked complete, as Postfix's qmgr scans it, even one whose fsync is still running */
    int incoming_scan;
    unsigned concurrency;  /* connections to the next hop */
    unsigned active_limit; /* messages in active/ at once */
    uint64_t min_backoff_ns, max_backoff_ns, max_lifetime_ns;
    unsigned hopcount_limit; /* Received: headers (ours too) from which a message is refused */
    int no_bounces;          /* --no-bounces: drop what fails, with no notification */
    const char *bounce_to_postmaster; /* where a failed notification goes; NULL: discarded */
    double in_flow_delay;             /* seconds; 0 disables flow control */
    unsigned in_flow_limit;           /* tokens, as Postfix's default_process_limit */
    double timeout;                   /* client idle time, seconds */
    unsigned max_sessions;            /* client sessions at once; the rest wait in the backlog */
    struct smtp_server_opts server;   /* limits, --bare-lf, STARTTLS */
    double reply_delay; /* seconds each reply to a client is held: a client that far away; 0 none */
    double hop_timeout; /* next hop reply time, seconds */
    enum relay_hop_tls hop_tls;
    double stats_interval; /* --interval: the timeline's and the queue-depth samples' period */
    const char *csv;       /* --csv FILE: the timeline */
    unsigned backlog;
    const char *hostname;
    const char *port_file;
    const char *json;
    int quiet;      /* no progress notices */
    int no_summary; /* no summary at exit */
    int progress;   /* the live status line: -1 on a terminal, 0 never, 1 always */
    int verbose;
};

void relay_options_parse(struct relay_options *opts, int argc, char **argv);

#endif
