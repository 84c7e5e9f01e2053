/*
 * crash_scan - an MTA's restart, judged from its spool's files; see crash_scan.h.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "checksum.h"
#include "crash_scan.h"
#include "pf_qfile.h"
#include "profile.h"
#include "spool_envelope.h"
#include "xgrow.h"

/* ------------------------------------------------------------ the tree */

void crash_scan_tree_init(struct scan_tree *t)
{
    memset(t, 0, sizeof(*t));
}

void crash_scan_tree_add(struct scan_tree *t, char *path, char *data, size_t len)
{
    t->v = xgrow(t->v, &t->cap, t->n + 1, 64, sizeof(*t->v));
    t->v[t->n++] = (struct scan_file){path, data, len};
}

static int by_path(const void *a, const void *b)
{
    return strcmp(((const struct scan_file *)a)->path, ((const struct scan_file *)b)->path);
}

void crash_scan_tree_sort(struct scan_tree *t)
{
    if (t->n > 1)
        qsort(t->v, t->n, sizeof(*t->v), by_path);
}

const struct scan_file *crash_scan_tree_get(const struct scan_tree *t, const char *path)
{
    struct scan_file key = {(char *)path, NULL, 0};

    return t->n ? bsearch(&key, t->v, t->n, sizeof(*t->v), by_path) : NULL;
}

/* The index of the first path not below prefix (its files follow it, sorted). */
static size_t scan_tree_lower(const struct scan_tree *t, const char *prefix)
{
    size_t lo = 0, hi = t->n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (strcmp(t->v[mid].path, prefix) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

void crash_scan_tree_free(struct scan_tree *t)
{
    for (size_t i = 0; i < t->n; i++) {
        free(t->v[i].path);
        free(t->v[i].data);
    }
    free(t->v);
    crash_scan_tree_init(t);
}

/* ------------------------------------------------------------ profiles */

/* The scans, below: what each MTA's restart would deliver. */
struct scan;
static void scan_sendmail(struct scan *s);
static void scan_qmail(struct scan *s);
static void scan_exim(struct scan *s);
static void scan_opensmtpd(struct scan *s);

struct crash_restart {
    const char *mta;              /* profile.h's; NULL: no MTA, nothing on disk */
    int by_relay;                 /* the relay's own recovery restarts it (crash_point.c) */
    void (*scan)(struct scan *s); /* else this */
};

/* Keyed by the MTA, not the profile: every profile of an MTA restarts as it does. */
static const struct crash_restart restarts[] = {
    {NULL, 0, NULL},          {"postfix", 1, NULL},   {"sendmail", 0, scan_sendmail},
    {"qmail", 0, scan_qmail}, {"exim", 0, scan_exim}, {"opensmtpd", 0, scan_opensmtpd},
};

int crash_scan_restart_of(const char *name, const struct crash_restart **how)
{
    const struct profile *p = profile_find(name);

    if (p == NULL)
        return -1;
    for (size_t i = 0; i < sizeof(restarts) / sizeof(restarts[0]); i++) {
        if (p->mta == NULL ? restarts[i].mta == NULL
                           : restarts[i].mta && strcmp(restarts[i].mta, p->mta) == 0) {
            *how = &restarts[i];
            return 0;
        }
    }
    return -1;
}

int crash_scan_on_disk(const struct crash_restart *how)
{
    return how->mta != NULL;
}

int crash_scan_by_relay(const struct crash_restart *how)
{
    return how->by_relay;
}

/* ------------------------------------------------------------ a message */

/* The Message-ID header's value in the header block of text, or "-". */
static void header_message_id(const char *text, size_t len, char *out, size_t outlen)
{
    const char *line = text, *end = text + len;

    snprintf(out, outlen, "-");
    while (line < end) {
        const char *nl = memchr(line, '\n', (size_t)(end - line));
        const char *stop = nl ? nl : end, *v;

        if (stop > line && stop[-1] == '\r')
            stop--;
        if (stop == line)
            return; /* the blank line ends the header */
        if ((size_t)(stop - line) > 11 && strncasecmp(line, "Message-ID:", 11) == 0) {
            for (v = line + 11; v < stop && (*v == ' ' || *v == '\t');)
                v++;
            if (v < stop)
                snprintf(out, outlen, "%.*s", (int)(stop - v), v);
            return;
        }
        if (nl == NULL)
            return;
        line = nl + 1;
    }
}

int crash_scan_key(const char *buf, size_t len, const char *qid, struct msglog_entry *e)
{
    struct pf_qfile_view v;
    char why[128], *text;
    size_t text_len;
    int pending;

    if (buf == NULL || pf_qfile_read(buf, len, &v, why, sizeof(why)) != 0)
        return -1;
    pending = v.rcpt_pending > 0;
    if (pending) {
        memset(e, 0, sizeof(*e));
        text = pf_qfile_content_text(buf, &v, &text_len);
        struct content_sum cs;

        header_message_id(text, text_len, e->message_id, sizeof(e->message_id));
        /* the message logs' key: without the relay's own Received: header (checksum.h) */
        checksum_content_init(&cs);
        checksum_content_update(&cs, text, text_len, NULL, NULL);
        checksum_content_end(&cs, NULL, NULL);
        e->size = cs.size;
        e->sum = cs.sum;
        snprintf(e->queue_id, sizeof(e->queue_id), "%s", qid);
        free(text);
    }
    pf_qfile_view_free(&v);
    return pending;
}

/* The recipients of a data file that parses, else 0. */
static unsigned rcpts_of(const struct scan_file *f)
{
    struct pf_qfile_view v;
    char why[128];
    unsigned n;

    if (f == NULL || f->data == NULL || pf_qfile_read(f->data, f->len, &v, why, sizeof(why)) != 0)
        return 0;
    n = v.rcpt_count;
    pf_qfile_view_free(&v);
    return n;
}

/* The ID that `name' is, after prefix and before suffix, all digits; 0 and *id, or -1. */
static int id_in(const char *name, const char *prefix, const char *suffix, uint64_t *id)
{
    size_t plen = strlen(prefix), slen = strlen(suffix), n = strlen(name);
    uint64_t v = 0;

    if (n <= plen + slen || strncmp(name, prefix, plen) != 0 ||
        strcmp(name + n - slen, suffix) != 0 || n - plen - slen > 19)
        return -1;
    for (size_t i = plen; i < n - slen; i++) {
        if (name[i] < '0' || name[i] > '9')
            return -1;
        v = v * 10 + (uint64_t)(name[i] - '0');
    }
    *id = v;
    return 0;
}

/* The number of '/' in path: how deep in the spool a file is. */
static unsigned depth(const char *path)
{
    unsigned n = 0;

    for (; *path; path++)
        n += *path == '/';
    return n;
}

/* An envelope file of message id: 1 whole, 0 not there, -1 there but not whole. */
static int envelope(const struct scan_file *f, uint64_t id, struct spool_envelope_view *v)
{
    if (f == NULL)
        return 0;
    return f->data && spool_envelope_read(f->data, f->len, id, v) ? 1 : -1;
}

struct scan {
    const struct scan_tree *t;
    struct msglog_set *recovered;
    size_t *corrupt;
};

/* Whether envelope f (not NULL) is message id's, whole; one that is not is counted corrupt. */
static int whole(struct scan *s, const struct scan_file *f, uint64_t id,
                 struct spool_envelope_view *v)
{
    if (envelope(f, id, v) == 1)
        return 1;
    (*s->corrupt)++;
    return 0;
}

/* The data file at path, of message id: recovered, done, or corrupt. */
static void take_data(struct scan *s, const char *path, uint64_t id)
{
    const struct scan_file *f = crash_scan_tree_get(s->t, path);
    struct msglog_entry e;
    char qid[32];
    int k;

    snprintf(qid, sizeof(qid), "%llu", (unsigned long long)id);
    if (f == NULL)
        return; /* gone: a loss if it was owed, which the tally finds */
    k = crash_scan_key(f->data, f->len, qid, &e);
    if (k < 0)
        (*s->corrupt)++;
    else if (k > 0)
        msglog_set_add(s->recovered, &e);
}

static void scan_sendmail(struct scan *s)
{
    struct spool_envelope_view v;
    char path[96];
    uint64_t id;

    for (size_t i = 0; i < s->t->n; i++) {
        const struct scan_file *f = &s->t->v[i];

        /* a qf cut short: readqf's premature EOF, the file goes to Qf */
        if (id_in(f->path, "mqueue/qf", "", &id) != 0 || !whole(s, f, id, &v))
            continue;
        snprintf(path, sizeof(path), "mqueue/df%llu", (unsigned long long)id);
        take_data(s, path, id);
    }
}

/* qmail: a message preprocessed before the cut, from info/H/ID: 1 to deliver, 0 not. */
static int qmail_in_progress(struct scan *s, uint64_t id)
{
    struct spool_envelope_view v;
    const char *const kinds[] = {"local", "remote"};
    char path[96];
    int pending = 0;

    for (size_t k = 0; k < 2; k++) {
        snprintf(path, sizeof(path), "%s/%u/%llu", kinds[k], (unsigned)(id % 23),
                 (unsigned long long)id);
        switch (envelope(crash_scan_tree_get(s->t, path), id, &v)) {
        case 1:
            pending |= !v.first_done;
            break;
        case -1:
            (*s->corrupt)++;
            break;
        }
    }
    return pending;
}

static void scan_qmail(struct scan *s)
{
    struct spool_envelope_view v;
    char path[96];
    uint64_t id, h;

    for (size_t i = 0; i < s->t->n; i++) {
        const struct scan_file *f = &s->t->v[i];
        int take = 0;

        if (id_in(f->path, "todo/", "", &id) == 0) {
            take = whole(s, f, id, &v); /* todo/ID is intd/ID's link: the envelope */
        } else if (depth(f->path) == 2 &&
                   sscanf(f->path, "info/%llu/", (unsigned long long *)&h) == 1) {
            const char *name = strrchr(f->path, '/') + 1;

            if (id_in(name, "", "", &id) != 0 || id % 23 != h)
                continue;
            snprintf(path, sizeof(path), "todo/%llu", (unsigned long long)id);
            if (crash_scan_tree_get(s->t, path))
                continue; /* found by its todo/ entry; qmail-send redoes it from there */
            take = whole(s, f, id, &v) && qmail_in_progress(s, id);
        }
        if (!take)
            continue;
        snprintf(path, sizeof(path), "mess/%u/%llu", (unsigned)(id % 23), (unsigned long long)id);
        take_data(s, path, id);
    }
}

static void scan_exim(struct scan *s)
{
    struct spool_envelope_view v;
    char path[96];
    uint64_t id;

    for (size_t i = 0; i < s->t->n; i++) {
        const struct scan_file *f = &s->t->v[i];
        char data[96];
        unsigned rcpts;

        /* a -H not whole: a spool format error, the message is not delivered */
        if (id_in(f->path, "input/", "-H", &id) != 0 || !whole(s, f, id, &v))
            continue;
        snprintf(data, sizeof(data), "input/%llu-D", (unsigned long long)id);
        snprintf(path, sizeof(path), "input/%llu-J", (unsigned long long)id);
        rcpts = rcpts_of(crash_scan_tree_get(s->t, data));
        /* a journal naming every recipient: the delivery was done, only its clean-up was cut */
        if (envelope(crash_scan_tree_get(s->t, path), id, &v) == 1 && rcpts > 0 &&
            v.chunks >= rcpts)
            continue;
        take_data(s, data, id);
    }
}

static void scan_opensmtpd(struct scan *s)
{
    struct spool_envelope_view v;
    char dir[96];
    uint64_t id;

    for (size_t i = 0; i < s->t->n; i++) {
        const struct scan_file *f = &s->t->v[i];
        size_t len = strlen(f->path), dlen;
        int found = 0;

        /* queue/HH/ID/message */
        if (depth(f->path) != 3 || strncmp(f->path, "queue/", 6) != 0 || f->path[8] != '/' ||
            len < 18 || strcmp(f->path + len - 8, "/message") != 0)
            continue;
        snprintf(dir, sizeof(dir), "%.*s", (int)(len - 8 - 9), f->path + 9);
        if (id_in(dir, "", "", &id) != 0)
            continue;
        snprintf(dir, sizeof(dir), "%.*s", (int)(len - 7), f->path);
        dlen = strlen(dir);
        /* the message's envelopes: its other files, next to it in the sorted tree */
        for (size_t j = scan_tree_lower(s->t, dir); j < s->t->n; j++) {
            const struct scan_file *e = &s->t->v[j];

            if (strncmp(e->path, dir, dlen) != 0)
                break;
            if (strcmp(e->path + dlen, "message") == 0 || strchr(e->path + dlen, '/'))
                continue;
            found |= whole(s, e, id, &v); /* one not whole: moved to corrupt/ by the queue */
        }
        if (found)
            take_data(s, f->path, id);
    }
}

void crash_scan(const struct crash_restart *how, const struct scan_tree *t,
                struct msglog_set *recovered, size_t *corrupt)
{
    struct scan s = {t, recovered, corrupt};

    if (how->scan) /* none for no MTA, nor where the relay's own recovery restarts */
        how->scan(&s);
}
