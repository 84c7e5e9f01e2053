/*
 * progress - the live status line, as text (fio's status line for a spool).
 *
 * A program running a load (relay, raw, bench, smtp-source, postmark, ab)
 * hands progress_format() what it counts now, and gets one line:
 *
 *   LABEL ELAPSED [ETA T] | [DONE/TOTAL NOUN |] [in R/s out R/s |]
 *       [queue I/A/D |] [p99 L |] [failed N]
 *
 * e.g. "relay 0:07 | in 1203/s out 1198/s | queue 0/12/0 | p99 4.21ms | failed 0".
 * A part the program does not know is left out. The queue is incoming/
 * active/deferred; the rates are over the last interval (progress_rate),
 * p99 over the run so far. Times are M:SS, or H:MM:SS from an hour.
 *
 * Off a terminal the same text is written as a plain line with the prefix
 * PROGRESS_PREFIX, so that a log stays readable and a driver (bench, ab)
 * can find its child's last line in the child's standard error
 * (progress_last()) and pass it on. No I/O here; progress_out.h writes.
 */
#ifndef SPOOLSIM_PROGRESS_H
#define SPOOLSIM_PROGRESS_H

#include <stddef.h>
#include <stdint.h>

#define PROGRESS_PREFIX "progress: "
#define PROGRESS_SEPARATOR " | "
#define PROGRESS_LINE_MAX 512

struct progress_stats {
    const char *label;
    double elapsed_s;
    double eta_s;   /* the time left; negative or NaN: not known (left out) */
    uint64_t done;  /* with total > 0: "DONE/TOTAL NOUN" */
    uint64_t total; /* 0: no count shown */
    const char *count_noun;
    int has_rates;
    double in_per_s, out_per_s;
    int has_queues;
    uint64_t incoming, active, deferred;
    int has_latency; /* p99_ns is known: there is a latency so far */
    uint64_t p99_ns;
    int has_failures;
    uint64_t failures;
};

/* The line into buf (always terminated when len > 0); the length it needed, as snprintf. */
size_t progress_format(const struct progress_stats *s, char *buf, size_t len);

/* Seconds as "M:SS" or "H:MM:SS" (to the nearest second); "-" for a negative or NaN time. */
size_t progress_format_time(double seconds, char *buf, size_t len);

/* Nanoseconds as "850us", "4.21ms", "31.5ms", "250ms" or "1.25s". */
size_t progress_format_latency(uint64_t ns, char *buf, size_t len);

/*
 * Cut text to at most width characters, at the end of the last whole part
 * (before a PROGRESS_SEPARATOR) that fits; in the middle of the first one
 * only if even that does not fit. A terminal line longer than the terminal
 * wraps, and a carriage return then rewrites only its last row.
 */
void progress_fit(char *text, size_t width);

/* The time left of a run of duration_s after elapsed_s: never negative. */
double progress_eta_time(double elapsed_s, double duration_s);
/* Of a run of total items with done made in elapsed_s, at that pace; NaN if done is 0. */
double progress_eta_count(double elapsed_s, uint64_t done, uint64_t total);
/*
 * Of n runs of which done took spent_s in all, the current one current_s
 * in so far: the runs left at the mean pace, less the current run's time
 * (never negative); NaN before a run is done.
 */
double progress_eta_runs(unsigned done, unsigned n, double spent_s, double current_s);

/* Rates over the last interval, from cumulative counters. */
struct progress_rate {
    int started;
    double t;
    uint64_t in, out;
};

void progress_rate_init(struct progress_rate *r);
/*
 * The counters at t seconds: the rates since the last call (since t = 0
 * with nothing counted for the first), 0 for a counter that went back or
 * an interval of no length.
 */
void progress_rate_update(struct progress_rate *r, double t, uint64_t in, uint64_t out,
                          double *in_per_s, double *out_per_s);

/* -1: as the stream is (a terminal, or not); 0: --no-progress; 1: --progress. */
enum progress_mode { PROGRESS_OFF, PROGRESS_TTY, PROGRESS_PLAIN };
enum progress_mode progress_mode_for(int want, int is_tty);
/*
 * Whether a terminal of type term ($TERM; NULL when unset) erases to the
 * end of a line at "\033[K": not one that says it is "dumb", nor one that
 * says nothing (an editor's shell buffer, a serial console), which would
 * show the escape as text.
 */
int progress_term_erases(const char *term);
/* The want of --progress (1), --no-progress (0) or neither (-1): -q (quiet) is 0 unless told. */
int progress_want(int option, int quiet);

/*
 * The text of the last whole line (ending in '\n') of the len bytes at buf
 * that starts with PROGRESS_PREFIX, without the prefix, into out (outlen
 * bytes): 0, or -1 (out "") if there is none.
 */
int progress_last(const char *buf, size_t len, char *out, size_t outlen);

/*
 * PROGRESS_SEPARATOR and more after the text in buf (len bytes), cut to
 * fit; nothing if more is "": a driver's line with its child's.
 */
void progress_append(char *buf, size_t len, const char *more);

/* The parts of a line after its head (label, elapsed, ETA): "" when it has no other. */
const char *progress_fields(const char *text);

#endif
