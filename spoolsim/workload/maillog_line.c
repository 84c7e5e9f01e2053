/*
 * maillog_line - one line of a mail log in, one event out (see maillog_line.h).
 *
 * Every read goes through struct cursor, which knows where the line ends:
 * the line need not be NUL-terminated, and a line cut anywhere stops a
 * read, never runs past it. No sscanf: a log has millions of lines.
 */
#include "config.h"

#include "maillog_line.h"

#include <string.h>

struct cursor {
    const char *p, *end;
};

static int at_end(const struct cursor *c)
{
    return c->p >= c->end;
}

static int is_digit(char ch)
{
    return ch >= '0' && ch <= '9';
}

static int is_alnum(char ch)
{
    return is_digit(ch) || (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z');
}

/* Exactly n digits into *v. */
static int fixed_digits(struct cursor *c, int n, int *v)
{
    int x = 0;

    if (c->end - c->p < n)
        return -1;
    for (int i = 0; i < n; i++) {
        if (!is_digit(c->p[i]))
            return -1;
        x = x * 10 + (c->p[i] - '0');
    }
    c->p += n;
    *v = x;
    return 0;
}

/* One or more digits into *v, refusing what does not fit in 64 bits. */
static int number(struct cursor *c, uint64_t *v)
{
    uint64_t x = 0;
    const char *start = c->p;

    while (c->p < c->end && is_digit(*c->p)) {
        unsigned d = (unsigned)(*c->p - '0');

        if (x > (UINT64_MAX - d) / 10)
            return -1;
        x = x * 10 + d;
        c->p++;
    }
    if (c->p == start)
        return -1;
    *v = x;
    return 0;
}

/* Digits with an optional fraction, as Postfix writes delay=: seconds. */
static int decimal(struct cursor *c, double *v)
{
    uint64_t whole;
    double frac = 0, scale = 0.1;

    if (number(c, &whole) != 0)
        return -1;
    if (c->p < c->end && *c->p == '.') {
        c->p++;
        while (c->p < c->end && is_digit(*c->p)) {
            frac += (*c->p - '0') * scale;
            scale /= 10;
            c->p++;
        }
    }
    *v = (double)whole + frac;
    return 0;
}

static int literal(struct cursor *c, const char *s)
{
    size_t n = strlen(s);

    if ((size_t)(c->end - c->p) < n || memcmp(c->p, s, n) != 0)
        return -1;
    c->p += n;
    return 0;
}

static int starts_with(const struct cursor *c, const char *s)
{
    size_t n = strlen(s);

    return (size_t)(c->end - c->p) >= n && memcmp(c->p, s, n) == 0;
}

/* Moves past the first s in the rest of the line: 0, or -1 and no move. */
static int skip_past(struct cursor *c, const char *s)
{
    size_t n = strlen(s);
    const char *hit;

    if ((size_t)(c->end - c->p) < n)
        return -1;
    hit = memmem(c->p, (size_t)(c->end - c->p), s, n);
    if (hit == NULL)
        return -1;
    c->p = hit + n;
    return 0;
}

/* Up to the next space (or the end): its length; the cursor after it. */
static size_t token(struct cursor *c, const char **start)
{
    *start = c->p;
    while (c->p < c->end && *c->p != ' ')
        c->p++;
    return (size_t)(c->p - *start);
}

int64_t maillog_line_days(int year, int month, int day)
{
    /* Howard Hinnant's days_from_civil: exact for every Gregorian date. */
    int64_t y = (int64_t)year - (month <= 2);
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;

    return era * 146097 + doe - 719468;
}

void maillog_line_year_init(struct maillog_year *y, int64_t ref_time)
{
    int64_t z = (ref_time >= 0 ? ref_time : ref_time - 86399) / 86400 + 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    int64_t doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153;
    int month = (int)(mp < 10 ? mp + 3 : mp - 9);

    memset(y, 0, sizeof(*y));
    y->ref_year = (int)(yoe + era * 400 + (month <= 2));
    y->ref_month = month - 1;
}

void maillog_line_year_fixed(struct maillog_year *y, int year)
{
    memset(y, 0, sizeof(*y));
    y->ref_year = year;
    y->ref_month = 11;
}

/* The year of a syslog stamp in month (0..11), following the log's months. */
static int year_of(struct maillog_year *y, int month)
{
    if (y->year == 0) {
        y->year = month > y->ref_month ? y->ref_year - 1 : y->ref_year;
        y->month = month;
    } else if (y->month - month > 6) {
        y->year++; /* December, then January */
        y->month = month;
    } else if (month - y->month > 6) {
        return y->year - 1; /* a late December line after January's */
    } else {
        y->month = month;
    }
    return y->year;
}

static const char months[] = "JanFebMarAprMayJunJulAugSepOctNovDec";

static int valid_time(int mon, int day, int h, int m, int s)
{
    return mon >= 1 && mon <= 12 && day >= 1 && day <= 31 && h <= 23 && m <= 59 && s <= 60;
}

/* "Dec  6 08:00:01" */
static int syslog_stamp(struct cursor *c, struct maillog_year *y, double *t)
{
    int mon = -1, day, h, m, s;

    if (c->end - c->p < 15)
        return -1;
    for (int i = 0; i < 12; i++)
        if (memcmp(c->p, months + 3 * i, 3) == 0)
            mon = i;
    if (mon < 0 || c->p[3] != ' ')
        return -1;
    c->p += 4;
    if (*c->p == ' ')
        c->p++;
    if (c->end - c->p >= 2 && is_digit(c->p[0]) && is_digit(c->p[1])) {
        if (fixed_digits(c, 2, &day) != 0)
            return -1;
    } else if (fixed_digits(c, 1, &day) != 0) {
        return -1;
    }
    if (literal(c, " ") != 0 || fixed_digits(c, 2, &h) != 0 || literal(c, ":") != 0 ||
        fixed_digits(c, 2, &m) != 0 || literal(c, ":") != 0 || fixed_digits(c, 2, &s) != 0 ||
        !valid_time(mon + 1, day, h, m, s))
        return -1;
    *t = (double)(maillog_line_days(year_of(y, mon), mon + 1, day) * 86400 + h * 3600 + m * 60 + s);
    return 0;
}

/* "2026-12-06T08:00:01.123456+01:00" (sep 'T') or Exim's "2026-12-06 08:00:01[.123][ +0100]". */
static int iso_stamp(struct cursor *c, char sep, double *t)
{
    int yr, mon, day, h, m, s, zh, zm;
    double frac = 0, scale = 0.1;
    int64_t zone = 0;

    if (fixed_digits(c, 4, &yr) != 0 || literal(c, "-") != 0 || fixed_digits(c, 2, &mon) != 0 ||
        literal(c, "-") != 0 || fixed_digits(c, 2, &day) != 0 || at_end(c) || *c->p != sep)
        return -1;
    c->p++;
    if (fixed_digits(c, 2, &h) != 0 || literal(c, ":") != 0 || fixed_digits(c, 2, &m) != 0 ||
        literal(c, ":") != 0 || fixed_digits(c, 2, &s) != 0 || !valid_time(mon, day, h, m, s))
        return -1;
    if (!at_end(c) && *c->p == '.') {
        c->p++;
        while (!at_end(c) && is_digit(*c->p)) {
            frac += (*c->p - '0') * scale;
            scale /= 10;
            c->p++;
        }
    }
    if (sep == ' ' && (starts_with(c, " +") || starts_with(c, " -")))
        c->p++; /* Exim's log_timezone: " +0100" */
    if (!at_end(c) && (*c->p == '+' || *c->p == '-')) {
        int sign = *c->p == '+' ? 1 : -1;

        c->p++;
        if (fixed_digits(c, 2, &zh) != 0)
            return -1;
        if (!at_end(c) && *c->p == ':')
            c->p++;
        if (fixed_digits(c, 2, &zm) != 0)
            return -1;
        zone = sign * (zh * 3600 + zm * 60);
    } else if (!at_end(c) && *c->p == 'Z') {
        c->p++;
    }
    *t = (double)(maillog_line_days(yr, mon, day) * 86400 + h * 3600 + m * 60 + s - zone) + frac;
    return 0;
}

/* A queue ID followed by ": " (Postfix) or by " " (Exim): 0, copied into ev->qid. */
static int queue_id(struct cursor *c, int exim, struct maillog_event *ev)
{
    const char *start = c->p;
    size_t n;

    while (!at_end(c) && (is_alnum(*c->p) || (exim && *c->p == '-')))
        c->p++;
    n = (size_t)(c->p - start);
    if (n == 0 || n > MAILLOG_QID_MAX || literal(c, exim ? " " : ": ") != 0)
        return -1;
    memcpy(ev->qid, start, n);
    ev->qid[n] = '\0';
    return 0;
}

static enum maillog_kind kind(struct maillog_event *ev, enum maillog_kind k)
{
    ev->kind = k;
    return k;
}

/* ", delay=0.52, delays=0.08/0.01/0.21/0.22" when present, then ", status=WORD". */
static enum maillog_kind postfix_status(struct cursor c, struct maillog_event *ev)
{
    struct cursor d = c;
    const char *w;
    size_t n;

    if (skip_past(&d, ", delay=") == 0 && decimal(&d, &ev->delay) == 0 &&
        literal(&d, ", delays=") == 0) {
        int ok = 1;

        for (int i = 0; i < 4 && ok; i++)
            ok = decimal(&d, &ev->delays[i]) == 0 && (i == 3 || literal(&d, "/") == 0);
        ev->has_delay = ok;
    }
    if (skip_past(&c, ", status=") != 0)
        return kind(ev, MAILLOG_UNPARSED);
    n = token(&c, &w);
    if (n >= 4 && memcmp(w, "sent", 4) == 0)
        ev->status = MAILLOG_SENT;
    else if (n >= 8 && memcmp(w, "deferred", 8) == 0)
        ev->status = MAILLOG_DEFERRED;
    else if (n >= 7 && memcmp(w, "bounced", 7) == 0)
        ev->status = MAILLOG_BOUNCED;
    else if (n >= 7 && memcmp(w, "expired", 7) == 0)
        ev->status = MAILLOG_EXPIRED;
    else
        return kind(ev, MAILLOG_IGNORED); /* undeliverable, deliverable: address probes */
    return kind(ev, MAILLOG_DELIVERY);
}

/* " data=1" or " data=0/1" (accepted/given); none logged before Postfix 3.0. */
static void postfix_disconnect(struct cursor c, struct maillog_event *ev)
{
    struct cursor d = c;
    uint64_t v;

    ev->data_ok = -1;
    if (skip_past(&d, " data=") == 0 && number(&d, &v) == 0)
        ev->data_ok = v > INT32_MAX ? INT32_MAX : (int32_t)v;
    else if (skip_past(&c, " commands=") == 0)
        ev->data_ok = 0;
}

static enum maillog_kind postfix(struct cursor c, const char *daemon, size_t dlen,
                                 struct maillog_event *ev)
{
    int smtpd = dlen == 5 && memcmp(daemon, "smtpd", 5) == 0;
    int qmgr = dlen == 4 && memcmp(daemon, "qmgr", 4) == 0;
    uint64_t v;

    ev->mta = MAILLOG_POSTFIX;
    if (smtpd && literal(&c, "connect from ") == 0)
        return kind(ev, MAILLOG_CONNECT);
    if (smtpd && literal(&c, "disconnect from ") == 0) {
        postfix_disconnect(c, ev);
        return kind(ev, MAILLOG_DISCONNECT);
    }
    if (queue_id(&c, 0, ev) != 0)
        return kind(ev, MAILLOG_IGNORED); /* warnings, NOQUEUE rejects, statistics */
    if (qmgr && literal(&c, "from=<") == 0) {
        struct cursor expiry = c;

        if (skip_past(&expiry, ">, status=") == 0) /* status=expired, returned to sender */
            return postfix_status(c, ev);
        if (skip_past(&c, ">, size=") != 0 || number(&c, &ev->size) != 0 ||
            literal(&c, ", nrcpt=") != 0 || number(&c, &v) != 0)
            return kind(ev, MAILLOG_UNPARSED);
        ev->nrcpt = v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
        return kind(ev, MAILLOG_ARRIVAL);
    }
    if (qmgr && c.end - c.p == 7 && memcmp(c.p, "removed", 7) == 0)
        return kind(ev, MAILLOG_REMOVED);
    if (literal(&c, "to=<") == 0)
        return postfix_status(c, ev);
    return kind(ev, MAILLOG_IGNORED); /* client=, message-id=, the bounce's notices */
}

/* An Exim line after its stamp (and pid): "ID <= ... S=N ...", "ID => ...", ... */
static enum maillog_kind exim(struct cursor c, struct maillog_event *ev)
{
    ev->mta = MAILLOG_EXIM;
    if (literal(&c, "SMTP connection from ") == 0)
        return kind(ev, skip_past(&c, "(TCP/IP connection count") == 0 ? MAILLOG_CONNECT
                                                                       : MAILLOG_IGNORED);
    if (queue_id(&c, 1, ev) != 0 || memchr(ev->qid, '-', strlen(ev->qid)) == NULL)
        return kind(ev, MAILLOG_IGNORED); /* rejections, start-up, retry notes */
    if (literal(&c, "<= ") == 0) {
        if (skip_past(&c, " S=") != 0 || number(&c, &ev->size) != 0)
            return kind(ev, MAILLOG_UNPARSED);
        return kind(ev, MAILLOG_ARRIVAL);
    }
    if (literal(&c, "=> ") == 0 || literal(&c, "-> ") == 0 || literal(&c, "*> ") == 0)
        ev->status = MAILLOG_SENT;
    else if (literal(&c, "== ") == 0)
        ev->status = MAILLOG_DEFERRED;
    else if (literal(&c, "** ") == 0)
        ev->status = MAILLOG_BOUNCED;
    else if (c.end - c.p == 9 && memcmp(c.p, "Completed", 9) == 0)
        return kind(ev, MAILLOG_REMOVED);
    else
        return kind(ev, MAILLOG_IGNORED);
    return kind(ev, MAILLOG_DELIVERY);
}

/* " host postfix/qmgr[123]: " or " host exim[123]: ": the daemon's name, the body after. */
static enum maillog_kind syslog_body(struct cursor c, struct maillog_event *ev)
{
    const char *host, *prog, *slash = NULL;
    size_t plen;

    if (literal(&c, " ") != 0 || token(&c, &host) == 0 || literal(&c, " ") != 0)
        return kind(ev, MAILLOG_OTHER);
    prog = c.p;
    while (!at_end(&c) && *c.p != '[' && *c.p != ':' && *c.p != ' ') {
        if (*c.p == '/')
            slash = c.p;
        c.p++;
    }
    plen = (size_t)(c.p - prog);
    if (!at_end(&c) && *c.p == '[' && skip_past(&c, "]") != 0)
        return kind(ev, MAILLOG_OTHER);
    if (literal(&c, ": ") != 0)
        return kind(ev, MAILLOG_OTHER);
    /* postfix/qmgr, postfix-out/smtp, postfix/submission/smtpd: the last part is the daemon */
    if (slash != NULL && plen >= 7 && memcmp(prog, "postfix", 7) == 0)
        return postfix(c, slash + 1, (size_t)(prog + plen - slash - 1), ev);
    if ((plen == 4 && memcmp(prog, "exim", 4) == 0) || (plen == 5 && memcmp(prog, "exim4", 5) == 0))
        return exim(c, ev);
    return kind(ev, MAILLOG_OTHER);
}

enum maillog_kind maillog_line_parse(const char *line, size_t len, struct maillog_year *y,
                                     struct maillog_event *ev)
{
    struct cursor c = {line, line + len};

    memset(ev, 0, sizeof(*ev));
    ev->data_ok = -1;
    if (len >= 11 && is_digit(line[0]) && line[4] == '-' && line[10] == 'T')
        return iso_stamp(&c, 'T', &ev->time) == 0 ? syslog_body(c, ev) : kind(ev, MAILLOG_OTHER);
    if (len >= 11 && is_digit(line[0]) && line[4] == '-' && line[10] == ' ') {
        if (iso_stamp(&c, ' ', &ev->time) != 0 || literal(&c, " ") != 0)
            return kind(ev, MAILLOG_OTHER);
        if (!at_end(&c) && *c.p == '[') { /* log_selector +pid */
            if (skip_past(&c, "] ") != 0)
                return kind(ev, MAILLOG_OTHER);
        }
        return exim(c, ev);
    }
    if (syslog_stamp(&c, y, &ev->time) != 0)
        return kind(ev, MAILLOG_OTHER);
    return syslog_body(c, ev);
}
