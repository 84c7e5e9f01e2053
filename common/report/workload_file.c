/*
 * workload_file - a workload file read back to drive a load; see workload_file.h.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_read.h"
#include "workload_file.h"
#include "xalloc.h"

static int fail(char *err, size_t errlen, const char *what)
{
    snprintf(err, errlen, "%s", what);
    return -1;
}

/* The sparse [minute, arrivals] pairs into cumulative counts, minute by minute. */
static int read_profile(const char *text, struct workload_file *wf)
{
    long n = json_read_array_length(text, "arrivals_per_minute.profile");
    double *rows;

    if (n < 0 || wf->minutes == 0 || wf->minutes > WORKLOAD_FILE_MINUTES_MAX)
        return 0; /* no profile: --replay is refused, the rates still serve */
    rows = xmalloc(((size_t)n + 1) * 2 * sizeof(*rows));
    if (json_read_number_rows(text, "arrivals_per_minute.profile", 2, rows, (size_t)n) != n) {
        free(rows);
        return -1;
    }
    wf->cum = xcalloc(wf->minutes + 1, sizeof(*wf->cum));
    for (long i = 0; i < n; i++) {
        double m = rows[2 * i], c = rows[2 * i + 1];

        if (!(m >= 0 && m < (double)wf->minutes && m == floor(m) && c >= 0) ||
            (i > 0 && m <= rows[2 * (i - 1)])) {
            free(rows);
            return -1;
        }
        wf->cum[(size_t)m + 1] = c;
    }
    for (size_t m = 0; m < wf->minutes; m++)
        wf->cum[m + 1] += wf->cum[m];
    free(rows);
    return 0;
}

int workload_file_parse(const char *text, struct workload_file *wf, char *err, size_t errlen)
{
    char program[64];
    double msgs, minutes;
    long n;

    memset(wf, 0, sizeof(*wf));
    if (json_read_key(text, NULL, 0, program, sizeof(program)) != 0)
        return fail(err, errlen, "not JSON, or not a JSON object: not a workload file");
    if (json_read_string(text, "program", program, sizeof(program)) != 0 ||
        strcmp(program, WORKLOAD_FILE_PROGRAM) != 0)
        return fail(err, errlen,
                    "not a workload: its \"program\" is not \"" WORKLOAD_FILE_PROGRAM
                    "\" (make one with spoolsim workload --from-maillog)");
    if (json_read_number(text, "messages", &msgs) != 0 || msgs < 1)
        return fail(err, errlen, "the workload has no messages");
    wf->messages = (uint64_t)msgs;
    n = json_read_number_rows(text, "size_bytes.quantiles", 2, &wf->quantiles[0][0],
                              WORKLOAD_FILE_QUANTILES_MAX);
    if (n < 2)
        return fail(err, errlen, "the workload has no size_bytes.quantiles");
    wf->n_quantiles = (size_t)n;
    for (size_t i = 0; i < wf->n_quantiles; i++) {
        const double *q = wf->quantiles[i];

        if (q[0] < 0 || q[0] > 100 || q[1] < 0 || (i > 0 && (q[0] <= q[-2] || q[1] < q[-1])))
            return fail(err, errlen,
                        "size_bytes.quantiles are not ascending [percent, bytes] pairs");
    }
    if (wf->quantiles[0][0] != 0 || wf->quantiles[wf->n_quantiles - 1][0] != 100)
        return fail(err, errlen, "size_bytes.quantiles do not run from 0 to 100 percent");
    n = json_read_number_rows(text, "recipients.counts", 2, &wf->rcpts[0][0],
                              WORKLOAD_FILE_RCPT_ROWS_MAX);
    if (n < 0)
        return fail(err, errlen, "the workload has no recipients.counts");
    wf->n_rcpts = (size_t)n;
    for (size_t i = 0; i < wf->n_rcpts; i++) {
        if (!(wf->rcpts[i][0] >= 1 && wf->rcpts[i][1] >= 0))
            return fail(err, errlen, "recipients.counts are not [recipients, messages] pairs");
        wf->rcpt_weight += wf->rcpts[i][1];
    }
    if (json_read_number(text, "arrivals_per_minute.mean", &wf->mean_per_min) != 0 ||
        json_read_number(text, "arrivals_per_minute.peak", &wf->peak_per_min) != 0 ||
        json_read_number(text, "arrivals_per_minute.minutes", &minutes) != 0 ||
        !(wf->mean_per_min >= 0 && wf->peak_per_min >= wf->mean_per_min && minutes >= 0))
        return fail(err, errlen, "the workload has no arrivals_per_minute mean, peak and minutes");
    wf->minutes = (size_t)minutes;
    if (read_profile(text, wf) != 0) {
        workload_file_free(wf);
        return fail(err, errlen,
                    "arrivals_per_minute.profile is not ascending [minute, arrivals] "
                    "pairs within its minutes");
    }
    return 0;
}

void workload_file_free(struct workload_file *wf)
{
    free(wf->cum);
    wf->cum = NULL;
}

/* The size at percent u, interpolated between the quantiles around it. */
static double size_at(const struct workload_file *wf, double u)
{
    size_t lo = 0, hi = wf->n_quantiles - 1;

    while (hi - lo > 1) { /* quantiles[lo][0] <= u < quantiles[hi][0] */
        size_t mid = lo + (hi - lo) / 2;

        if (wf->quantiles[mid][0] <= u)
            lo = mid;
        else
            hi = mid;
    }
    {
        const double *a = wf->quantiles[lo], *b = wf->quantiles[hi];
        double f = b[0] > a[0] ? (u - a[0]) / (b[0] - a[0]) : 0;

        return a[1] + (b[1] - a[1]) * (f < 0 ? 0 : f > 1 ? 1 : f);
    }
}

uint64_t workload_file_size(const struct workload_file *wf, struct prng *p)
{
    return (uint64_t)llround(size_at(wf, 100 * workload_prng_uniform01(p)));
}

double workload_file_size_median(const struct workload_file *wf)
{
    return size_at(wf, 50);
}

unsigned workload_file_rcpts(const struct workload_file *wf, struct prng *p)
{
    double r, v = 1;

    if (wf->rcpt_weight <= 0)
        return 1;
    r = workload_prng_uniform01(p) * wf->rcpt_weight;
    for (size_t i = 0; i < wf->n_rcpts; i++) {
        v = wf->rcpts[i][0];
        if (r < wf->rcpts[i][1])
            break;
        r -= wf->rcpts[i][1];
    }
    return v > WORKLOAD_FILE_RCPTS_MAX ? WORKLOAD_FILE_RCPTS_MAX : (unsigned)v;
}

double workload_file_rate(const struct workload_file *wf, int peak)
{
    return (peak ? wf->peak_per_min : wf->mean_per_min) / 60.0;
}

uint64_t workload_file_replay_count(const struct workload_file *wf, double scale)
{
    if (!wf->cum)
        return 0;
    return (uint64_t)floor(wf->cum[wf->minutes] * scale + 1e-9);
}

int workload_file_replay_time(const struct workload_file *wf, double factor, double scale,
                              uint64_t k, double *t_s)
{
    double want = (double)k / scale;
    size_t lo = 0, hi = wf->minutes;

    if (!wf->cum || k >= workload_file_replay_count(wf, scale))
        return -1;
    /* the minute m with cum[m] <= want < cum[m + 1]: lo ends there */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;

        if (wf->cum[mid] <= want)
            lo = mid;
        else
            hi = mid;
    }
    {
        double in = wf->cum[lo + 1] - wf->cum[lo];

        *t_s = ((double)lo + (in > 0 ? (want - wf->cum[lo]) / in : 0)) * 60.0 / factor;
    }
    return 0;
}
