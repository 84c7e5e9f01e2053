/*
 * dsn - delivery status notifications, composed in memory; see dsn.h.
 */
#include "config.h"

#include <ctype.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dsn.h"
#include "xalloc.h"
#include "xgrow.h"

struct buf {
    char *p;
    size_t len, cap;
};

static void buf_add(struct buf *b, const char *s, size_t n)
{
    b->p = xgrow(b->p, &b->cap, b->len + n + 1, 1024, 1);
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = 0;
}

static void buf_str(struct buf *b, const char *s)
{
    buf_add(b, s, strlen(s));
}

static void buf_printf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void buf_printf(struct buf *b, const char *fmt, ...)
{
    va_list ap;
    char small[512];
    int n;

    va_start(ap, fmt);
    n = vsnprintf(small, sizeof(small), fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n < sizeof(small)) {
        buf_add(b, small, (size_t)n);
        return;
    }
    {
        char *big = xmalloc((size_t)n + 1);

        va_start(ap, fmt);
        vsnprintf(big, (size_t)n + 1, fmt, ap);
        va_end(ap);
        buf_add(b, big, (size_t)n);
        free(big);
    }
}

/* A value on one line: line ends, NULs and other controls become spaces. */
static void add_clean(struct buf *b, const char *s)
{
    for (; *s; s++) {
        char c = (unsigned char)*s < 0x20 || *s == 0x7f ? ' ' : *s;

        buf_add(b, &c, 1);
    }
}

/* -------------------------------------------------------------- the logs */

char *dsn_log_format(const struct dsn_entry *e)
{
    struct buf b = {0};

    buf_str(&b, "\n");
#define FIELD(name, value)                                                                         \
    do {                                                                                           \
        if (value) {                                                                               \
            buf_str(&b, name "=");                                                                 \
            add_clean(&b, value);                                                                  \
            buf_str(&b, "\n");                                                                     \
        }                                                                                          \
    } while (0)
    FIELD("recipient", e->recipient ? (*e->recipient ? e->recipient : "<>") : "<>");
    if (e->offset > 0)
        buf_printf(&b, "offset=%ld\n", e->offset);
    FIELD("status", e->status);
    FIELD("action", e->action);
    if (e->diag_type && e->diag_text) {
        FIELD("diag_type", e->diag_type);
        FIELD("diag_text", e->diag_text);
    }
    if (e->mta_type && e->mta_name) {
        FIELD("mta_type", e->mta_type);
        FIELD("mta_name", e->mta_name);
    }
    FIELD("reason", e->reason);
#undef FIELD
    buf_str(&b, "\n");
    return b.p;
}

static void entry_free(struct dsn_entry *e)
{
    free(e->recipient);
    free(e->status);
    free(e->action);
    free(e->diag_type);
    free(e->diag_text);
    free(e->mta_type);
    free(e->mta_name);
    free(e->reason);
    memset(e, 0, sizeof(*e));
}

void dsn_log_free(struct dsn_log *log)
{
    for (unsigned i = 0; i < log->count; i++)
        entry_free(&log->entries[i]);
    free(log->entries);
    log->entries = NULL;
    log->count = 0;
}

static void set_field(char **field, const char *value, size_t len)
{
    free(*field);
    *field = xstrndup(value, len);
}

static void end_block(struct dsn_log *log, struct dsn_entry *e, size_t *cap, int is_defer)
{
    if (e->recipient == NULL) {
        entry_free(e);
        return;
    }
    if (e->status == NULL)
        e->status = xstrdup(is_defer ? "4.0.0" : "5.0.0");
    if (e->action == NULL)
        e->action = xstrdup(is_defer ? "delayed" : "failed");
    log->entries = xgrow(log->entries, cap, log->count + 1, 4, sizeof(*log->entries));
    log->entries[log->count++] = *e;
    memset(e, 0, sizeof(*e));
}

/* The attributes with text values, as bounce_append_service.c names them. */
static const struct {
    const char *name;
    size_t off;
} text_fields[] = {
    {"recipient", offsetof(struct dsn_entry, recipient)},
    {"status", offsetof(struct dsn_entry, status)},
    {"action", offsetof(struct dsn_entry, action)},
    {"diag_type", offsetof(struct dsn_entry, diag_type)},
    {"diag_text", offsetof(struct dsn_entry, diag_text)},
    {"mta_type", offsetof(struct dsn_entry, mta_type)},
    {"mta_name", offsetof(struct dsn_entry, mta_name)},
    {"reason", offsetof(struct dsn_entry, reason)},
};

int dsn_log_parse(const char *text, size_t len, int is_defer, struct dsn_log *log)
{
    struct dsn_entry e = {0};
    size_t cap = 0;
    size_t pos = 0;

    log->entries = NULL;
    log->count = 0;
    while (pos < len) {
        const char *line = text + pos, *nl = memchr(line, '\n', len - pos), *eq;
        size_t n = nl ? (size_t)(nl - line) : len - pos, name_len;

        pos += n + (nl != NULL);
        if (n > 0 && line[n - 1] == '\r')
            n--;
        if (n == 0) {
            end_block(log, &e, &cap, is_defer);
            continue;
        }
        eq = memchr(line, '=', n);
        if (eq == NULL || eq == line)
            continue; /* not an attribute: the old "<rcpt>: text" form */
        name_len = (size_t)(eq - line);
        eq++;
        if (name_len == 6 && memcmp(line, "offset", 6) == 0) {
            e.offset = strtol(eq, NULL, 10);
            continue;
        }
        for (size_t f = 0; f < sizeof(text_fields) / sizeof(text_fields[0]); f++)
            if (strlen(text_fields[f].name) == name_len &&
                memcmp(line, text_fields[f].name, name_len) == 0)
                set_field((char **)((char *)&e + text_fields[f].off), eq, n - name_len - 1);
    }
    end_block(log, &e, &cap, is_defer);
    return 0;
}

/* -------------------------------------------------------- status codes */

/* How many digits (1 to 3) start `s', or 0 for none or too many. */
static size_t subcode(const char *s)
{
    size_t n = 0;

    while (isdigit((unsigned char)s[n]) && n < 4)
        n++;
    return n <= 3 ? n : 0;
}

/* "C.S.D" with C the class, S and D of one to three digits, then a space or end. */
static size_t enhanced_code(const char *p, int class)
{
    size_t s, d;

    if (p[0] != '0' + class || p[1] != '.' || (s = subcode(p + 2)) == 0 || p[2 + s] != '.' ||
        (d = subcode(p + 3 + s)) == 0)
        return 0;
    if (p[3 + s + d] && p[3 + s + d] != ' ' && p[3 + s + d] != '\t')
        return 0;
    return 3 + s + d;
}

void dsn_status_of_reply(const char *reply, int failed, char out[DSN_STATUS_MAX])
{
    int class;
    size_t n;

    if (reply == NULL || !isdigit((unsigned char)reply[0]) || !isdigit((unsigned char)reply[1]) ||
        !isdigit((unsigned char)reply[2]) || (reply[0] != '4' && reply[0] != '5')) {
        snprintf(out, DSN_STATUS_MAX, "%s", failed ? "5.0.0" : "4.0.0");
        return;
    }
    class = reply[0] - '0';
    if ((reply[3] == ' ' || reply[3] == '-') && (n = enhanced_code(reply + 4, class)) > 0) {
        snprintf(out, DSN_STATUS_MAX, "%.*s", (int)n, reply + 4);
        return;
    }
    snprintf(out, DSN_STATUS_MAX, "%d.0.0", class);
}

static const char *const day_names[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
static const char *const month_names[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                          "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};

/* Names of our own in both: strftime's %a and %b follow the locale. */
void dsn_date(long t, char *out, size_t len)
{
    time_t tt = (time_t)t;
    struct tm tm;

    if (gmtime_r(&tt, &tm) == NULL) {
        snprintf(out, len, "Thu, 01 Jan 1970 00:00:00 +0000");
        return;
    }
    snprintf(out, len, "%s, %02d %s %04d %02d:%02d:%02d +0000", day_names[tm.tm_wday % 7],
             tm.tm_mday, month_names[tm.tm_mon % 12], tm.tm_year + 1900, tm.tm_hour, tm.tm_min,
             tm.tm_sec);
}

void dsn_mail_date(long t, char *out, size_t len)
{
    time_t tt = (time_t)t;
    struct tm lt, gmt;
    char zone[64];
    long off;

    if (localtime_r(&tt, &lt) == NULL || gmtime_r(&tt, &gmt) == NULL) {
        dsn_date(t, out, len);
        return;
    }
    /* The offset from the two clocks, as tm_gmtoff is not POSIX: they differ by a day at most. */
    off = (lt.tm_hour - gmt.tm_hour) * 60L + lt.tm_min - gmt.tm_min;
    if (lt.tm_year != gmt.tm_year)
        off += lt.tm_year < gmt.tm_year ? -1440 : 1440;
    else if (lt.tm_yday != gmt.tm_yday)
        off += lt.tm_yday < gmt.tm_yday ? -1440 : 1440;
    if (strftime(zone, sizeof(zone), "%Z", &lt) == 0)
        zone[0] = 0;
    snprintf(out, len, "%s, %2d %s %04d %02d:%02d:%02d %c%02ld%02ld%s%s%s",
             day_names[lt.tm_wday % 7], lt.tm_mday, month_names[lt.tm_mon % 12], lt.tm_year + 1900,
             lt.tm_hour, lt.tm_min, lt.tm_sec, off < 0 ? '-' : '+', labs(off) / 60, labs(off) % 60,
             *zone ? " (" : "", zone, *zone ? ")" : "");
}

/* ------------------------------------------------------------- headers */

static int is_header_start(const char *line, size_t n)
{
    size_t i;

    for (i = 0; i < n && line[i] != ':'; i++)
        if ((unsigned char)line[i] <= ' ' || (unsigned char)line[i] >= 0x7f)
            return 0;
    return i > 0 && i < n;
}

size_t dsn_header_length(const char *text, size_t len)
{
    size_t pos = 0;

    while (pos < len) {
        const char *line = text + pos, *nl = memchr(line, '\n', len - pos);
        size_t n = nl ? (size_t)(nl - line) : len - pos, content = n;

        if (content > 0 && line[content - 1] == '\r')
            content--;
        if (content == 0)
            break;
        if (line[0] == ' ' || line[0] == '\t') {
            if (pos == 0)
                break; /* a continuation of nothing */
        } else if (!is_header_start(line, content)) {
            break;
        }
        pos += n + (nl != NULL);
    }
    return pos;
}

/* --------------------------------------------------------- composition */

/*
 * "Name: value", folded before a space where a line would pass 78
 * characters; a word too long for any line is cut at the hard limit.
 */
static void add_field(struct buf *b, const char *name, const char *value)
{
    struct buf v = {0};
    size_t col, i = 0;

    add_clean(&v, value ? value : "");
    buf_str(b, name);
    buf_str(b, ":");
    col = strlen(name) + 1;
    while (v.p && i < v.len) {
        size_t word = i + 1, wlen;

        while (word < v.len && v.p[word] != ' ')
            word++;
        wlen = word - i; /* the word with the space before it (the first one gets one) */
        if (i == 0 && v.p[0] != ' ') {
            buf_str(b, " ");
            col++;
        }
        if (col + wlen > DSN_LINE_FOLD && col > strlen(name) + 2 && v.p[i] == ' ') {
            buf_str(b, "\r\n");
            col = 0;
        }
        while (col + wlen > DSN_LINE_LIMIT) {
            size_t room = DSN_LINE_LIMIT - col;

            buf_add(b, v.p + i, room);
            buf_str(b, "\r\n ");
            col = 1;
            i += room;
            wlen -= room;
        }
        buf_add(b, v.p + i, wlen);
        col += wlen;
        i = word;
    }
    buf_str(b, "\r\n");
    free(v.p);
}

/* Body text wrapped at 78; continuation lines indented by `indent' spaces (Postfix's: 4). */
static void add_wrapped(struct buf *b, const char *text, size_t indent)
{
    static const char spaces[] = "\r\n        ";
    struct buf v = {0};
    size_t col = 0, i = 0;

    add_clean(&v, text);
    while (v.p && i < v.len) {
        size_t start = i, end;

        while (start < v.len && v.p[start] == ' ' && col > 0)
            start++;
        end = start;
        while (end < v.len && v.p[end] != ' ')
            end++;
        if (col > 0 && col + 1 + (end - start) > DSN_LINE_FOLD) {
            buf_add(b, spaces, 2 + indent);
            col = indent;
        } else if (col > 0) {
            buf_str(b, " ");
            col++;
        }
        while (col + (end - start) > DSN_LINE_LIMIT) {
            size_t room = DSN_LINE_LIMIT - col;

            buf_add(b, v.p + start, room);
            buf_add(b, spaces, 2 + indent);
            col = indent;
            start += room;
        }
        buf_add(b, v.p + start, end - start);
        col += end - start;
        i = end;
    }
    buf_str(b, "\r\n");
    free(v.p);
}

static int contains(const char *hay, size_t len, const char *needle)
{
    size_t n = strlen(needle);

    for (size_t i = 0; i + n <= len; i++)
        if (memcmp(hay + i, needle, n) == 0)
            return 1;
    return 0;
}

/* The returned headers with CR LF line ends and no line over the limit. */
static void add_returned(struct buf *b, const char *text, size_t len)
{
    size_t pos = 0;

    while (pos < len) {
        const char *line = text + pos, *nl = memchr(line, '\n', len - pos);
        size_t n = nl ? (size_t)(nl - line) : len - pos, content = n, col = 0, off = 0;

        if (content > 0 && line[content - 1] == '\r')
            content--;
        while (content - off > DSN_LINE_LIMIT - col) {
            buf_add(b, line + off, DSN_LINE_LIMIT - col);
            off += DSN_LINE_LIMIT - col;
            buf_str(b, "\r\n ");
            col = 1;
        }
        buf_add(b, line + off, content - off);
        buf_str(b, "\r\n");
        pos += n + (nl != NULL);
    }
}

char *dsn_compose(const struct dsn_report *rep, size_t *len)
{
    struct buf b = {0};
    char date[64], arrival[64], boundary[128], msgid[256], text[1200];
    const char *host = rep->reporting_mta;
    const struct dsn_log *log = rep->log;
    struct tm tm;
    time_t now = (time_t)rep->now_sec;
    unsigned extra = 0;

    dsn_date(rep->now_sec, date, sizeof(date));
    dsn_date(rep->arrival_sec, arrival, sizeof(arrival));
    /* RFC 2046 allows 70 characters: the host name is cut to keep room for a suffix */
    snprintf(boundary, sizeof(boundary), "%.20s.%ld/%.30s", rep->queue_id, rep->now_sec, host);
    while (contains(rep->headers, rep->headers_len, boundary) && extra < 100) {
        size_t n = strlen(boundary);

        snprintf(boundary + n, sizeof(boundary) - n, "=%u", extra++ % 10);
    }
    if (gmtime_r(&now, &tm) == NULL)
        memset(&tm, 0, sizeof(tm));
    snprintf(msgid, sizeof(msgid), "<%04d%02d%02d%02d%02d%02d.%06ld.%.40s@%.150s>",
             tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
             rep->now_usec, rep->queue_id, host);

    add_field(&b, "Date", date);
    snprintf(text, sizeof(text), "MAILER-DAEMON@%.200s (Mail Delivery System)", host);
    add_field(&b, "From", text);
    add_field(&b, "Subject",
              rep->postmaster_copy ? "Postmaster Copy: Undelivered Mail"
                                   : "Undelivered Mail Returned to Sender");
    add_field(&b, "To", rep->to);
    add_field(&b, "Auto-Submitted", rep->postmaster_copy ? "auto-generated" : "auto-replied");
    add_field(&b, "Message-Id", msgid);
    add_field(&b, "MIME-Version", "1.0");
    buf_str(&b, "Content-Type: multipart/report; report-type=delivery-status;\r\n");
    buf_printf(&b, "\tboundary=\"%s\"\r\n", boundary);
    buf_str(&b, "\r\nThis is a MIME-encapsulated message.\r\n");

    /* the part for people */
    buf_printf(&b, "\r\n--%s\r\n", boundary);
    add_field(&b, "Content-Description", "Notification");
    add_field(&b, "Content-Type", "text/plain; charset=us-ascii");
    buf_str(&b, "\r\n");
    snprintf(text, sizeof(text), "This is the mail system at host %.200s.", host);
    add_wrapped(&b, text, 0);
    buf_str(&b, "\r\n");
    if (rep->postmaster_copy)
        add_wrapped(&b,
                    "A delivery status notification (a message with the null sender) could "
                    "not be delivered. Its headers are attached below.",
                    0);
    else
        add_wrapped(&b,
                    "Your message could not be delivered to one or more recipients. The "
                    "reasons follow, and the headers of your message are attached below.",
                    0);
    for (unsigned i = 0; i < log->count; i++) {
        const struct dsn_entry *e = &log->entries[i];

        buf_str(&b, "\r\n");
        snprintf(text, sizeof(text), "<%.400s>: %.700s", e->recipient,
                 e->reason ? e->reason : (e->diag_text ? e->diag_text : "delivery failed"));
        add_wrapped(&b, text, 4);
    }

    /* the part for programs, RFC 3464 */
    buf_printf(&b, "\r\n--%s\r\n", boundary);
    add_field(&b, "Content-Description", "Delivery report");
    add_field(&b, "Content-Type", "message/delivery-status");
    buf_str(&b, "\r\n");
    snprintf(text, sizeof(text), "dns; %.200s", host);
    add_field(&b, "Reporting-MTA", text);
    add_field(&b, "X-Spoolsim-Queue-ID", rep->queue_id);
    if (rep->sender && *rep->sender) {
        snprintf(text, sizeof(text), "rfc822; %.900s", rep->sender);
        add_field(&b, "X-Spoolsim-Sender", text);
    }
    if (rep->arrival_sec > 0)
        add_field(&b, "Arrival-Date", arrival);
    for (unsigned i = 0; i < log->count; i++) {
        const struct dsn_entry *e = &log->entries[i];

        buf_str(&b, "\r\n");
        snprintf(text, sizeof(text), "rfc822; %.900s", e->recipient);
        add_field(&b, "Final-Recipient", text);
        /* a notice of failure, whatever the log said: "delayed" when it was defer/ (expiry) */
        add_field(&b, "Action", "failed");
        add_field(&b, "Status", e->status);
        if (e->mta_type && e->mta_name) {
            snprintf(text, sizeof(text), "%.20s; %.400s", e->mta_type, e->mta_name);
            add_field(&b, "Remote-MTA", text);
        }
        if (e->diag_type && e->diag_text)
            snprintf(text, sizeof(text), "%.20s; %.900s", e->diag_type, e->diag_text);
        else
            snprintf(text, sizeof(text), "X-Spoolsim; %.900s", e->reason ? e->reason : "failed");
        add_field(&b, "Diagnostic-Code", text);
    }

    /* the original's headers */
    buf_printf(&b, "\r\n--%s\r\n", boundary);
    add_field(&b, "Content-Description", "Undelivered Message Headers");
    add_field(&b, "Content-Type", "text/rfc822-headers");
    buf_str(&b, "\r\n");
    snprintf(text, sizeof(text), "<%.900s>", rep->sender ? rep->sender : "");
    add_field(&b, "Return-Path", text);
    add_returned(&b, rep->headers, rep->headers_len);
    buf_printf(&b, "\r\n--%s--\r\n", boundary);
    *len = b.len;
    return b.p;
}
