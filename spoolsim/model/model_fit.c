/*
 * model_fit - from what a calibration measured to a cost model's stages; see model_fit.h.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_read.h"
#include "model_fit.h"
#include "xalloc.h"

/*
 * Rounded to `digits' decimals as printf rounds the exact binary value
 * (ties to even), so that a figure is the one the model's text shows.
 */
static double round_to(double x, int digits)
{
    char buf[64];

    snprintf(buf, sizeof(buf), "%.*f", digits, x);
    return strtod(buf, NULL);
}

/* The next word of *s (at most len - 1 bytes) into out: 1, or 0 at the end of the line. */
static int next_word(const char **s, char *out, size_t len)
{
    const char *p = *s, *start;

    while (*p == ' ' || *p == '\t')
        p++;
    if (*p == 0 || *p == '\n' || *p == '\r')
        return 0;
    start = p;
    while (*p && *p != ' ' && *p != '\t' && *p != '\n' && *p != '\r')
        p++;
    snprintf(out, len, "%.*s", (int)(p - start), start);
    *s = p;
    return (size_t)(p - start) < len ? 1 : -1;
}

static int number(const char *word, double *out)
{
    char *end;

    errno = 0;
    *out = strtod(word, &end);
    return end != word && *end == 0 && errno == 0 && isfinite(*out) ? 0 : -1;
}

/*
 * A snapshot's "CLASS VALUE" pairs up to '/' or the end, into cpu[] (values
 * as read): 1 when it ended at '/', 0 at the end of the line, -1 on an error.
 */
static int snapshot(const char **s, struct model_fit_cpu *cpu, unsigned *count, char *err,
                    size_t errlen)
{
    char name[MODEL_FIT_NAME + 1], value[64];
    int got;

    *count = 0;
    while ((got = next_word(s, name, sizeof(name))) != 0) {
        if (strcmp(name, "/") == 0)
            return 1;
        if (got < 0 || strlen(name) >= MODEL_FIT_NAME) {
            snprintf(err, errlen, "a class name longer than %d bytes", MODEL_FIT_NAME - 1);
            return -1;
        }
        if (next_word(s, value, sizeof(value)) != 1 || number(value, &cpu[*count].us) != 0) {
            snprintf(err, errlen, "class %s has no number after it", name);
            return -1;
        }
        if (*count == MODEL_FIT_MAX_CLASSES) {
            snprintf(err, errlen, "more than %d classes", MODEL_FIT_MAX_CLASSES);
            return -1;
        }
        snprintf(cpu[*count].name, sizeof(cpu[*count].name), "%s", name);
        (*count)++;
    }
    return 0;
}

int model_fit_parse_line(const char *line, const char *mta, long hz, struct model_fit_row *row,
                         char *err, size_t errlen)
{
    static const char *const heads[] = {"sessions", "bytes", "recipients", "messages"};
    struct model_fit_cpu before[MODEL_FIT_MAX_CLASSES];
    unsigned before_count;
    double head[4], unit;
    char word[64];
    const char *s = line;
    int got;

    memset(row, 0, sizeof(*row));
    if ((got = next_word(&s, row->system, sizeof(row->system))) != 1) {
        snprintf(err, errlen, got == 0 ? "an empty line" : "a system name too long");
        return -1;
    }
    for (int i = 0; i < 4; i++)
        if (next_word(&s, word, sizeof(word)) != 1 || number(word, &head[i]) != 0 ||
            head[i] != floor(head[i]) || head[i] < 0 || head[i] > 1e9) {
            snprintf(err, errlen, "no count of %s", heads[i]);
            return -1;
        }
    if (head[3] < 1) {
        snprintf(err, errlen, "no messages");
        return -1;
    }
    if (head[2] < 1) {
        snprintf(err, errlen, "no recipients");
        return -1;
    }
    if ((got = snapshot(&s, before, &before_count, err, errlen)) < 0)
        return -1;
    if (got == 0) {
        snprintf(err, errlen, "no \" / \" between the two snapshots");
        return -1;
    }
    if ((got = snapshot(&s, row->cpu, &row->count, err, errlen)) != 0) {
        if (got > 0)
            snprintf(err, errlen, "a third snapshot");
        return -1;
    }
    if (hz <= 0) {
        snprintf(err, errlen, "no clock tick rate");
        return -1;
    }
    row->kib = head[1] / 1024.0;
    row->rcpts = (unsigned)head[2];
    /* microseconds: the MTA's cgroups count nanoseconds, the relay's threads clock ticks */
    unit = strcmp(row->system, mta) == 0 ? 1e-3 : 1e6 / (double)hz;
    for (unsigned i = 0; i < row->count; i++) {
        double was = 0;

        for (unsigned j = 0; j < before_count; j++)
            if (strcmp(before[j].name, row->cpu[i].name) == 0) {
                was = before[j].us;
                break;
            }
        row->cpu[i].us = (row->cpu[i].us - was) * unit / head[3];
    }
    return 0;
}

int model_fit_parse_roles(const char *json, struct model_fit_roles *roles, char *err, size_t errlen)
{
    struct json_members it;
    char key[MODEL_FIT_NAME + 1], path[64];
    size_t off, len;
    int got;

    memset(roles, 0, sizeof(*roles));
    if (json_read_members_begin(&it, json, NULL) != 0) {
        snprintf(err, errlen, "the roles are not a JSON object");
        return -1;
    }
    while ((got = json_read_members_next(&it, key, sizeof(key), &off, &len)) != -1) {
        char *item = xstrndup(json + off, len);
        unsigned c = roles->count;
        long n = json_read_array_length(item, NULL);

        if (got == 0 || strlen(key) >= MODEL_FIT_NAME || c == MODEL_FIT_MAX_CLASSES || n < 0 ||
            n > MODEL_FIT_MAX_ROLES) {
            snprintf(err, errlen,
                     "the roles of \"%s\" are not a list of at most %d names (of at most %d "
                     "classes)",
                     key, MODEL_FIT_MAX_ROLES, MODEL_FIT_MAX_CLASSES);
            free(item);
            return -1;
        }
        for (unsigned o = 0; o < c; o++)
            if (strcmp(roles->classes[o].name, key) == 0) {
                snprintf(err, errlen, "the roles name class \"%s\" twice", key);
                free(item);
                return -1;
            }
        snprintf(roles->classes[c].name, sizeof(roles->classes[c].name), "%s", key);
        for (long i = 0; i < n; i++) {
            char *role = roles->classes[c].roles[i];

            snprintf(path, sizeof(path), "%ld", i);
            if (json_read_string(item, path, role, MODEL_FIT_NAME) != 0 || *role == 0) {
                snprintf(err, errlen, "role %ld of \"%s\" is not a name", i, key);
                free(item);
                return -1;
            }
        }
        roles->classes[c].count = (unsigned)n;
        roles->count++;
        free(item);
    }
    return 0;
}

double model_fit_cpu_of(const struct model_fit_row *row, const char *name)
{
    for (unsigned i = 0; i < row->count; i++)
        if (strcmp(row->cpu[i].name, name) == 0)
            return row->cpu[i].us;
    return 0;
}

/*
 * The normal equations of us = a + b * KiB + c * (rcpts - 1), solved by
 * Gauss-Jordan with partial pivoting; a term whose pivot is exactly 0 (the
 * loads cannot tell it) is 0.
 */
struct cost_fit model_fit_line(const double (*samples)[3], size_t n)
{
    double a[3][3] = {{0}}, b[3] = {0}, coef[3];
    struct cost_fit f;

    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++)
            for (size_t k = 0; k < n; k++) {
                double x[3] = {1.0, samples[k][0], samples[k][1] - 1.0};

                a[i][j] += x[i] * x[j];
            }
        for (size_t k = 0; k < n; k++) {
            double x[3] = {1.0, samples[k][0], samples[k][1] - 1.0};

            b[i] += x[i] * samples[k][2];
        }
    }
    for (int i = 0; i < 3; i++) {
        int p = i;
        double t[3], tb;

        for (int k = i + 1; k < 3; k++)
            if (fabs(a[k][i]) > fabs(a[p][i]))
                p = k;
        memcpy(t, a[i], sizeof(t));
        memcpy(a[i], a[p], sizeof(t));
        memcpy(a[p], t, sizeof(t));
        tb = b[i], b[i] = b[p], b[p] = tb;
        for (int k = 0; k < 3; k++) {
            double r;

            if (k == i || a[i][i] == 0)
                continue;
            r = a[k][i] / a[i][i];
            for (int j = 0; j < 3; j++)
                a[k][j] -= r * a[i][j];
            b[k] -= r * b[i];
        }
    }
    for (int i = 0; i < 3; i++)
        coef[i] = a[i][i] != 0 ? b[i] / a[i][i] : 0.0;
    f.base_us = coef[0];
    f.per_kib_us = coef[1];
    f.per_rcpt_us = coef[2];
    return f;
}

static struct cost_fit fit_rounded(const double (*samples)[3], size_t n)
{
    struct cost_fit f = model_fit_line(samples, n);

    f.base_us = round_to(f.base_us, 2);
    f.per_kib_us = round_to(f.per_kib_us, 3);
    f.per_rcpt_us = round_to(f.per_rcpt_us, 2);
    return f;
}

/*
 * The relay's CPU in class `name''s role for one load: each relay role the
 * class names, shared among the classes that name that role as the MTA's
 * CPU is shared among them.
 */
static double relay_share(const struct model_fit_roles *roles, const char *name,
                          const struct model_fit_row *mta, const struct model_fit_row *relay)
{
    double us = 0;

    for (unsigned c = 0; c < roles->count; c++) {
        if (strcmp(roles->classes[c].name, name) != 0)
            continue;
        for (unsigned r = 0; r < roles->classes[c].count; r++) {
            const char *role = roles->classes[c].roles[r];
            double total = 0;

            for (unsigned o = 0; o < roles->count; o++)
                for (unsigned q = 0; q < roles->classes[o].count; q++)
                    if (strcmp(roles->classes[o].roles[q], role) == 0) {
                        total += model_fit_cpu_of(mta, roles->classes[o].name);
                        break;
                    }
            if (total > 0)
                us += model_fit_cpu_of(relay, role) * model_fit_cpu_of(mta, name) / total;
        }
        break; /* a class is named once (model_fit_parse_roles) */
    }
    return us;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static double row_total(const struct model_fit_row *row)
{
    double us = 0;

    for (unsigned i = 0; i < row->count; i++)
        us += row->cpu[i].us;
    return us;
}

int model_fit_check_loads(const struct model_fit_row *mta, size_t mta_rows,
                          const struct model_fit_row *relay, size_t relay_rows, char *err,
                          size_t errlen)
{
    size_t paired = mta_rows < relay_rows ? mta_rows : relay_rows;

    for (size_t k = 0; k < paired; k++) {
        double m = row_total(&mta[k]), r = row_total(&relay[k]);

        if (m < r) {
            snprintf(err, errlen,
                     "%s spent %.1f us a message at %.2f KiB and %u recipients, less than the "
                     "bare relay's %.1f: its processes were not all counted",
                     mta[k].system, m, mta[k].kib, mta[k].rcpts, r);
            return -1;
        }
    }
    return 0;
}

int model_fit_stages(const struct model_fit_row *mta, size_t mta_rows,
                     const struct model_fit_row *relay, size_t relay_rows,
                     const struct model_fit_roles *roles, struct model_fit_stage *out, size_t max,
                     char *err, size_t errlen)
{
    const char *names[MODEL_FIT_MAX_CLASSES];
    size_t count = 0, paired = mta_rows < relay_rows ? mta_rows : relay_rows;
    int stages = 0;
    double(*samples)[3];

    for (size_t k = 0; k < mta_rows; k++)
        for (unsigned i = 0; i < mta[k].count; i++) {
            size_t j = 0;

            while (j < count && strcmp(names[j], mta[k].cpu[i].name) != 0)
                j++;
            if (j < count)
                continue;
            if (count == MODEL_FIT_MAX_CLASSES) {
                snprintf(err, errlen, "more than %d classes", MODEL_FIT_MAX_CLASSES);
                return -1;
            }
            names[count++] = mta[k].cpu[i].name;
        }
    qsort(names, count, sizeof(names[0]), by_name);
    samples = xcalloc(mta_rows + 1, sizeof(*samples));
    for (size_t c = 0; c < count; c++) {
        struct model_fit_stage *st;
        double sum = 0;

        for (size_t k = 0; k < mta_rows; k++) {
            samples[k][0] = mta[k].kib;
            samples[k][1] = mta[k].rcpts;
            samples[k][2] = model_fit_cpu_of(&mta[k], names[c]);
            sum += samples[k][2];
        }
        if (sum / (double)mta_rows < 1.0)
            continue; /* a class that did nothing for this load */
        if ((size_t)stages == max) {
            snprintf(err, errlen, "more than %zu stages", max);
            free(samples);
            return -1;
        }
        st = &out[stages++];
        memset(st, 0, sizeof(*st));
        snprintf(st->name, sizeof(st->name), "%s", names[c]);
        st->mta = fit_rounded((const double(*)[3])samples, mta_rows);
        for (size_t k = 0; k < paired; k++)
            samples[k][2] = relay_share(roles, names[c], &mta[k], &relay[k]);
        st->relay = fit_rounded((const double(*)[3])samples, paired);
    }
    free(samples);
    return stages;
}
