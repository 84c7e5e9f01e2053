/*
 * progress - the live status line, as text; see progress.h.
 */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "progress.h"

/* Append to buf as snprintf would, keeping the length it needed in *used. */
static void append(char *buf, size_t len, size_t *used, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void append(char *buf, size_t len, size_t *used, const char *fmt, ...)
{
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(*used < len ? buf + *used : NULL, *used < len ? len - *used : 0, fmt, ap);
    va_end(ap);
    if (n > 0)
        *used += (size_t)n;
}

size_t progress_format_time(double seconds, char *buf, size_t len)
{
    uint64_t s, h;
    int n;

    if (!(seconds >= 0)) /* NaN too */
        return (size_t)snprintf(buf, len, "-");
    /* beyond a century is no estimate worth its digits */
    s = seconds > 3.15e9 ? (uint64_t)3.15e9 : (uint64_t)(seconds + 0.5);
    h = s / 3600;
    if (h)
        n = snprintf(buf, len, "%" PRIu64 ":%02u:%02u", h, (unsigned)(s / 60 % 60),
                     (unsigned)(s % 60));
    else
        n = snprintf(buf, len, "%u:%02u", (unsigned)(s / 60), (unsigned)(s % 60));
    return n > 0 ? (size_t)n : 0;
}

size_t progress_format_latency(uint64_t ns, char *buf, size_t len)
{
    double ms = (double)ns / 1e6;
    int n;

    if (ns < 1000000)
        n = snprintf(buf, len, "%" PRIu64 "us", ns / 1000);
    else if (ms < 10)
        n = snprintf(buf, len, "%.2fms", ms);
    else if (ms < 100)
        n = snprintf(buf, len, "%.1fms", ms);
    else if (ms < 1000)
        n = snprintf(buf, len, "%.0fms", ms);
    else
        n = snprintf(buf, len, "%.2fs", ms / 1e3);
    return n > 0 ? (size_t)n : 0;
}

/* A rate with a precision that stays readable from 0.5/s to 500000/s. */
static void append_rate(char *buf, size_t len, size_t *used, const char *name, double r)
{
    if (!(r >= 0))
        r = 0;
    append(buf, len, used, r < 10 ? "%s %.1f/s" : "%s %.0f/s", name, r);
}

size_t progress_format(const struct progress_stats *s, char *buf, size_t len)
{
    char t[32];
    size_t used = 0;

    if (len)
        buf[0] = 0;
    progress_format_time(s->elapsed_s, t, sizeof(t));
    append(buf, len, &used, "%s %s", s->label ? s->label : "", t);
    if (s->eta_s >= 0) {
        progress_format_time(s->eta_s, t, sizeof(t));
        append(buf, len, &used, " ETA %s", t);
    }
    if (s->total)
        append(buf, len, &used, PROGRESS_SEPARATOR "%" PRIu64 "/%" PRIu64 "%s%s", s->done, s->total,
               s->count_noun ? " " : "", s->count_noun ? s->count_noun : "");
    if (s->has_rates) {
        append(buf, len, &used, PROGRESS_SEPARATOR);
        append_rate(buf, len, &used, "in", s->in_per_s);
        append_rate(buf, len, &used, " out", s->out_per_s);
    }
    if (s->has_queues)
        append(buf, len, &used, PROGRESS_SEPARATOR "queue %" PRIu64 "/%" PRIu64 "/%" PRIu64,
               s->incoming, s->active, s->deferred);
    if (s->has_latency) {
        progress_format_latency(s->p99_ns, t, sizeof(t));
        append(buf, len, &used, PROGRESS_SEPARATOR "p99 %s", t);
    }
    if (s->has_failures)
        append(buf, len, &used, PROGRESS_SEPARATOR "failed %" PRIu64, s->failures);
    return used;
}

void progress_fit(char *text, size_t width)
{
    size_t n = strlen(text), sep = strlen(PROGRESS_SEPARATOR);
    const char *cut = NULL;

    if (n <= width)
        return;
    for (const char *p = strstr(text, PROGRESS_SEPARATOR); p && (size_t)(p - text) <= width;
         p = strstr(p + sep, PROGRESS_SEPARATOR))
        cut = p;
    text[cut ? (size_t)(cut - text) : width] = 0;
}

double progress_eta_time(double elapsed_s, double duration_s)
{
    return elapsed_s < duration_s ? duration_s - elapsed_s : 0;
}

double progress_eta_count(double elapsed_s, uint64_t done, uint64_t total)
{
    if (done >= total)
        return 0;
    if (done == 0 || !(elapsed_s > 0))
        return NAN;
    return elapsed_s * (double)(total - done) / (double)done;
}

double progress_eta_runs(unsigned done, unsigned n, double spent_s, double current_s)
{
    double left;

    if (done >= n)
        return 0;
    if (done == 0)
        return NAN;
    left = spent_s / done * (double)(n - done) - current_s;
    return left > 0 ? left : 0;
}

void progress_rate_init(struct progress_rate *r)
{
    memset(r, 0, sizeof(*r));
}

static double rate(uint64_t now, uint64_t before, double dt)
{
    return now > before && dt > 0 ? (double)(now - before) / dt : 0;
}

void progress_rate_update(struct progress_rate *r, double t, uint64_t in, uint64_t out,
                          double *in_per_s, double *out_per_s)
{
    double dt = r->started ? t - r->t : t;

    *in_per_s = rate(in, r->started ? r->in : 0, dt);
    *out_per_s = rate(out, r->started ? r->out : 0, dt);
    r->started = 1;
    r->t = t;
    r->in = in;
    r->out = out;
}

enum progress_mode progress_mode_for(int want, int is_tty)
{
    if (want == 0)
        return PROGRESS_OFF;
    if (is_tty)
        return PROGRESS_TTY;
    return want > 0 ? PROGRESS_PLAIN : PROGRESS_OFF;
}

int progress_term_erases(const char *term)
{
    return term != NULL && term[0] != 0 && strcmp(term, "dumb") != 0;
}

int progress_want(int option, int quiet)
{
    return option < 0 && quiet ? 0 : option;
}

int progress_last(const char *buf, size_t len, char *out, size_t outlen)
{
    size_t plen = strlen(PROGRESS_PREFIX), end = len;

    if (outlen)
        out[0] = 0;
    /* the last line may still be being written: only whole ones count */
    while (end > 0 && buf[end - 1] != '\n')
        end--;
    while (end > 0) {
        size_t start = end - 1; /* buf[start] is the line's '\n' */

        while (start > 0 && buf[start - 1] != '\n')
            start--;
        if (end - 1 - start >= plen && memcmp(buf + start, PROGRESS_PREFIX, plen) == 0) {
            size_t n = end - 1 - start - plen;

            if (outlen == 0)
                return 0;
            if (n >= outlen)
                n = outlen - 1;
            memcpy(out, buf + start + plen, n);
            out[n] = 0;
            return 0;
        }
        end = start;
    }
    return -1;
}

void progress_append(char *buf, size_t len, const char *more)
{
    size_t n = strnlen(buf, len);

    if (*more == 0 || n + 1 >= len)
        return;
    snprintf(buf + n, len - n, "%s", PROGRESS_SEPARATOR);
    n = strlen(buf);
    snprintf(buf + n, len - n, "%s", more);
}

const char *progress_fields(const char *text)
{
    const char *p = strstr(text, PROGRESS_SEPARATOR);

    return p ? p + strlen(PROGRESS_SEPARATOR) : "";
}
