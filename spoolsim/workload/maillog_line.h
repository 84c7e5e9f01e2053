/*
 * maillog_line - one line of a mail log in, one event out.
 *
 * Pure: no I/O, no clock, no allocation, no global state. It reads the
 * lines of Postfix (syslog's "Mon DD HH:MM:SS host postfix/qmgr[pid]: ..."
 * or rsyslog's RFC 3339 stamp in front) and of Exim's main log
 * ("YYYY-MM-DD HH:MM:SS[.fff][ +zzzz][ [pid]] ID <= ..."), and returns what
 * the workload needs of them: a message's arrival (queue ID, size,
 * recipients), a delivery's outcome (sent, deferred, bounced) with its
 * delays, an SMTP connection and, from Postfix >= 3.0's disconnect line,
 * the messages it carried. No address, host name or subject is kept:
 * an event holds counts, times and the queue ID only.
 *
 * A line is given as bytes and a length; it need not end in NUL, may hold
 * NUL or non-UTF-8 bytes, and may be cut anywhere: such a line is
 * MAILLOG_OTHER, MAILLOG_IGNORED or MAILLOG_UNPARSED, never an error.
 *
 * Syslog's stamp has no year: struct maillog_year supplies it, the year
 * of the reference time for the first stamp (the year before when the
 * stamp's month is later than the reference's: a log is not from the
 * future), and one more each time the months go from December back to
 * January.
 */
#ifndef SPOOLSIM_MAILLOG_LINE_H
#define SPOOLSIM_MAILLOG_LINE_H

#include <stddef.h>
#include <stdint.h>

#define MAILLOG_QID_MAX 31 /* Exim 4.97's IDs are 23 bytes, Postfix's long ones 17 */

enum maillog_kind {
    MAILLOG_OTHER,      /* no stamp we know, or another program's line */
    MAILLOG_IGNORED,    /* a mail program's line that says nothing the workload counts */
    MAILLOG_UNPARSED,   /* a mail program's line of a kind we count, but broken */
    MAILLOG_ARRIVAL,    /* Postfix qmgr's from=, size=, nrcpt=; Exim's <= */
    MAILLOG_DELIVERY,   /* status=sent|deferred|bounced|expired; Exim's => -> == ** */
    MAILLOG_CONNECT,    /* smtpd's connect from; Exim's SMTP connection from (+smtp_connection) */
    MAILLOG_DISCONNECT, /* smtpd's disconnect from, with its command counts */
    MAILLOG_REMOVED,    /* qmgr's removed; Exim's Completed: the queue ID is done */
};

enum maillog_mta { MAILLOG_POSTFIX = 1, MAILLOG_EXIM = 2 };

enum maillog_status { MAILLOG_SENT, MAILLOG_DEFERRED, MAILLOG_BOUNCED, MAILLOG_EXPIRED };

struct maillog_event {
    enum maillog_kind kind;
    enum maillog_mta mta; /* with every kind but MAILLOG_OTHER */
    double time;          /* Unix seconds (a stamp without a zone is taken as UTC) */
    char qid[MAILLOG_QID_MAX + 1];
    /* MAILLOG_ARRIVAL */
    uint64_t size;  /* bytes */
    uint32_t nrcpt; /* Postfix's nrcpt=, Exim's "for" list when logged; 0: not said */
    /* MAILLOG_DELIVERY */
    enum maillog_status status;
    int has_delay;    /* Postfix's delay= and delays= were read */
    double delay;     /* seconds, arrival to this outcome */
    double delays[4]; /* before qmgr, in qmgr, connection set-up, transmission */
    /* MAILLOG_DISCONNECT: the DATA commands that were accepted; -1 when not logged (< 3.0) */
    int32_t data_ok;
};

struct maillog_year {
    int year;     /* of the current stamp; 0 until the first */
    int month;    /* 0..11 of the last stamp */
    int ref_year; /* the reference time's year and month */
    int ref_month;
};

/* A reference time (Unix seconds, UTC) for stamps without a year. */
void maillog_line_year_init(struct maillog_year *y, int64_t ref_time);
/* The first stamp's year is year, whatever its month (spoolsim workload --year). */
void maillog_line_year_fixed(struct maillog_year *y, int year);

/* Parse len bytes of line (without its newline) into ev; returns ev->kind. */
enum maillog_kind maillog_line_parse(const char *line, size_t len, struct maillog_year *y,
                                     struct maillog_event *ev);

/* Days since 1970-01-01 of a proleptic Gregorian date (month 1..12): pure, no time zone. */
int64_t maillog_line_days(int year, int month, int day);

#endif
