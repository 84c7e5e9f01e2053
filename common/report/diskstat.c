/*
 * diskstat - the block device's own counts over a run; see diskstat.h.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "diskstat.h"
#include "json_read.h"

int diskstat_delta(const struct disk_counters *before, const struct disk_counters *after,
                   struct disk_counters *delta)
{
    const uint64_t *a[] = {&before->reads,    &before->writes,         &before->flushes,
                           &before->busy_ms,  &before->read_sectors,   &before->write_sectors,
                           &before->discards, &before->discard_sectors};
    const uint64_t *b[] = {&after->reads,    &after->writes,         &after->flushes,
                           &after->busy_ms,  &after->read_sectors,   &after->write_sectors,
                           &after->discards, &after->discard_sectors};
    uint64_t *d[] = {&delta->reads,    &delta->writes,         &delta->flushes,
                     &delta->busy_ms,  &delta->read_sectors,   &delta->write_sectors,
                     &delta->discards, &delta->discard_sectors};
    struct disk_counters out = {
        .has_discards = before->has_discards && after->has_discards,
        .has_flushes = before->has_flushes && after->has_flushes,
    };

    for (size_t i = 0; i < sizeof(a) / sizeof(a[0]); i++)
        if (*b[i] < *a[i]) {
            memset(delta, 0, sizeof(*delta));
            return -1; /* a new device under the same number: nothing to subtract */
        }
    *delta = out;
    for (size_t i = 0; i < sizeof(a) / sizeof(a[0]); i++)
        *d[i] = *b[i] - *a[i];
    if (!delta->has_discards)
        delta->discards = delta->discard_sectors = 0;
    if (!delta->has_flushes)
        delta->flushes = 0;
    return 0;
}

static double per(int known, double n, double messages)
{
    return known && messages > 0 ? n / messages : -1;
}

void diskstat_per_message(const struct diskstat *ds, struct diskstat_per *p)
{
    const struct disk_counters *d = &ds->delta;
    int m = ds->state == DISKSTAT_MEASURED;
    double n = ds->messages;

    p->bytes_written = per(m, (double)d->write_sectors * DISKSTAT_SECTOR, n);
    p->write_ios = per(m, (double)d->writes, n);
    p->flushes = per(m && d->has_flushes, (double)d->flushes, n);
    p->bytes_read = per(m, (double)d->read_sectors * DISKSTAT_SECTOR, n);
    p->read_ios = per(m, (double)d->reads, n);
    p->discards = per(m && d->has_discards, (double)d->discards, n);
    p->bytes_discarded = per(m && d->has_discards, (double)d->discard_sectors * DISKSTAT_SECTOR, n);
}

void diskstat_bytes(double bytes, char *buf, size_t len)
{
    static const char *const units[] = {"KiB", "MiB", "GiB", "TiB"};
    double v = bytes;
    size_t u = 0;

    if (bytes < 1024) {
        snprintf(buf, len, "%.0f B", bytes);
        return;
    }
    for (v = bytes / 1024; v >= 1024 && u + 1 < sizeof(units) / sizeof(units[0]); v /= 1024)
        u++;
    snprintf(buf, len, u == 0 ? "%.1f %s" : "%.2f %s", v, units[u]);
}

/* Whose counts these are, as the line's parenthesis says. */
static const char *scope(const struct diskstat *ds)
{
    return ds->partition ? "the partition's counts" : "the whole device's counts";
}

/* The line's text when there are no counts. */
static void no_counts(const struct diskstat *ds, char *buf, size_t len)
{
    switch (ds->state) {
    case DISKSTAT_NO_DEVICE:
        snprintf(buf, len, "no block device (%s)", ds->fstype[0] ? ds->fstype : "unknown");
        break;
    case DISKSTAT_UNREADABLE:
        snprintf(buf, len, "%s%sits counts could not be read", ds->device,
                 ds->device[0] ? ": " : "");
        break;
    default:
        snprintf(buf, len, "not measured");
        break;
    }
}

void diskstat_line(const struct diskstat *ds, char *buf, size_t len)
{
    struct diskstat_per p;
    char written[32], read[32], flushes[64] = "", discards[64] = "", runs[32] = "";

    if (ds->state != DISKSTAT_MEASURED) {
        no_counts(ds, buf, len);
        return;
    }
    if (ds->messages <= 0) {
        snprintf(buf, len, "%s: no messages to count per (%s)", ds->device, scope(ds));
        return;
    }
    diskstat_per_message(ds, &p);
    diskstat_bytes(p.bytes_written, written, sizeof(written));
    diskstat_bytes(p.bytes_read, read, sizeof(read));
    if (p.flushes >= 0)
        snprintf(flushes, sizeof(flushes), ", %.2f flushes", p.flushes);
    if (p.discards > 0) /* a file system that discards as it deletes (-o discard) */
        snprintf(discards, sizeof(discards), ", %.2f discards", p.discards);
    if (ds->runs > 1)
        snprintf(runs, sizeof(runs), ", %u runs", ds->runs);
    snprintf(buf, len,
             "%s: %s written, %.2f write I/Os%s per message; %s read, %.2f read I/Os%s (%s%s%s)",
             ds->device, written, p.write_ios, flushes, read, p.read_ios, discards, scope(ds), runs,
             p.flushes >= 0 ? "" : "; flushes not counted by this system");
}

const char *diskstat_note(const struct diskstat *ds, char *buf, size_t len)
{
    if (ds->state != DISKSTAT_MEASURED || ds->shared != 1)
        return NULL;
    if (strcmp(ds->shared_with, "/") == 0)
        snprintf(buf, len,
                 "%s holds the root file system: every writer on the system counts, not the "
                 "spool alone",
                 ds->device);
    else
        snprintf(buf, len,
                 "%s is mounted on %s too: writers there count as well, not the spool alone",
                 ds->device, ds->shared_with);
    return buf;
}

void diskstat_print(FILE *fp, const char *label, const char *note_label, const struct diskstat *ds)
{
    char line[600], note[600];

    diskstat_line(ds, line, sizeof(line));
    fprintf(fp, "%s%s\n", label, line);
    if (diskstat_note(ds, note, sizeof(note)))
        fprintf(fp, "%s%s\n", note_label, note);
}

static const char *const state_names[] = {"not_measured", "no_block_device", "unreadable",
                                          "measured"};

static void count(struct json_writer *w, const char *key, int known, uint64_t v)
{
    json_uint_or_null(w, key, known, v);
}

void diskstat_write_json(struct json_writer *w, const char *key, const struct diskstat *ds)
{
    const struct disk_counters *d = &ds->delta;
    int m = ds->state == DISKSTAT_MEASURED, dev = ds->device[0] != 0;
    char text[600];
    struct diskstat_per p;

    json_begin_object(w, key);
    json_string(w, "state", state_names[ds->state]);
    json_string(w, "device", dev ? ds->device : NULL);
    if (dev)
        json_bool(w, "partition", ds->partition);
    else
        json_string(w, "partition", NULL);
    json_string(w, "filesystem", ds->fstype[0] ? ds->fstype : NULL);
    if (dev && ds->shared >= 0)
        json_bool(w, "shared", ds->shared);
    else
        json_string(w, "shared", NULL);
    json_string(w, "shared_with", dev && ds->shared == 1 ? ds->shared_with : NULL);
    if (!m)
        no_counts(ds, text, sizeof(text));
    else if (diskstat_note(ds, text, sizeof(text)) == NULL)
        snprintf(text, sizeof(text), "%s", scope(ds));
    json_string(w, "note", text);
    if (ds->runs > 0)
        json_uint(w, "runs", ds->runs);
    json_double(w, "messages", ds->state == DISKSTAT_NOT_MEASURED ? NAN : ds->messages);
    count(w, "read_ios", m, d->reads);
    count(w, "bytes_read", m, d->read_sectors * DISKSTAT_SECTOR);
    count(w, "write_ios", m, d->writes);
    count(w, "bytes_written", m, d->write_sectors * DISKSTAT_SECTOR);
    count(w, "flushes", m && d->has_flushes, d->flushes);
    count(w, "discards", m && d->has_discards, d->discards);
    count(w, "bytes_discarded", m && d->has_discards, d->discard_sectors * DISKSTAT_SECTOR);
    json_double(w, "busy_s", m ? (double)d->busy_ms / 1e3 : NAN);
    diskstat_per_message(ds, &p);
    json_begin_object(w, "per_message");
    json_double(w, "bytes_written", p.bytes_written >= 0 ? p.bytes_written : NAN);
    json_double(w, "write_ios", p.write_ios >= 0 ? p.write_ios : NAN);
    json_double(w, "flushes", p.flushes >= 0 ? p.flushes : NAN);
    json_double(w, "bytes_read", p.bytes_read >= 0 ? p.bytes_read : NAN);
    json_double(w, "read_ios", p.read_ios >= 0 ? p.read_ios : NAN);
    json_double(w, "discards", p.discards >= 0 ? p.discards : NAN);
    json_double(w, "bytes_discarded", p.bytes_discarded >= 0 ? p.bytes_discarded : NAN);
    json_end_object(w);
    json_end_object(w);
}

/* A member of the object at path that is `true': 1; `false': 0; anything else (null): -1. */
static int read_bool(const char *text, const char *path, const char *name)
{
    struct json_members it;
    char key[64];
    size_t off, len;
    int whole;

    if (json_read_members_begin(&it, text, path) != 0)
        return -1;
    while ((whole = json_read_members_next(&it, key, sizeof(key), &off, &len)) >= 0)
        if (whole == 1 && strcmp(key, name) == 0)
            return len == 4 && memcmp(text + off, "true", 4) == 0    ? 1
                   : len == 5 && memcmp(text + off, "false", 5) == 0 ? 0
                                                                     : -1;
    return -1;
}

/* A count at path.name, or 0 and *known cleared when it is null or missing. */
static uint64_t read_count(const char *text, const char *path, const char *name, int *known)
{
    char at[128];
    double v;

    snprintf(at, sizeof(at), "%s.%s", path, name);
    if (json_read_number(text, at, &v) != 0 || v < 0) {
        *known = 0;
        return 0;
    }
    return (uint64_t)v;
}

int diskstat_read_json(const char *text, const char *path, struct diskstat *ds)
{
    struct disk_counters *d = &ds->delta;
    char at[128], state[32];
    double v;
    int counts = 1, flushes = 1, discards = 1;

    memset(ds, 0, sizeof(*ds));
    ds->shared = -1;
    snprintf(at, sizeof(at), "%s.state", path);
    if (json_read_string(text, at, state, sizeof(state)) != 0)
        return -1;
    for (size_t i = 0; i < sizeof(state_names) / sizeof(state_names[0]); i++)
        if (strcmp(state, state_names[i]) == 0)
            ds->state = (enum diskstat_state)i;
    snprintf(at, sizeof(at), "%s.device", path);
    json_read_string(text, at, ds->device, sizeof(ds->device));
    snprintf(at, sizeof(at), "%s.filesystem", path);
    json_read_string(text, at, ds->fstype, sizeof(ds->fstype));
    snprintf(at, sizeof(at), "%s.shared_with", path);
    json_read_string(text, at, ds->shared_with, sizeof(ds->shared_with));
    ds->partition = read_bool(text, path, "partition") == 1;
    ds->shared = read_bool(text, path, "shared");
    snprintf(at, sizeof(at), "%s.messages", path);
    if (json_read_number(text, at, &v) == 0)
        ds->messages = v;
    snprintf(at, sizeof(at), "%s.runs", path);
    if (json_read_number(text, at, &v) == 0)
        ds->runs = (unsigned)v;
    d->reads = read_count(text, path, "read_ios", &counts);
    d->read_sectors = read_count(text, path, "bytes_read", &counts) / DISKSTAT_SECTOR;
    d->writes = read_count(text, path, "write_ios", &counts);
    d->write_sectors = read_count(text, path, "bytes_written", &counts) / DISKSTAT_SECTOR;
    d->flushes = read_count(text, path, "flushes", &flushes);
    d->discards = read_count(text, path, "discards", &discards);
    d->discard_sectors = read_count(text, path, "bytes_discarded", &discards) / DISKSTAT_SECTOR;
    snprintf(at, sizeof(at), "%s.busy_s", path);
    if (json_read_number(text, at, &v) == 0)
        d->busy_ms = (uint64_t)llround(v * 1e3);
    d->has_flushes = flushes;
    d->has_discards = discards;
    if (ds->state == DISKSTAT_MEASURED && !counts)
        ds->state = DISKSTAT_UNREADABLE; /* a result that says measured and has no counts */
    return 0;
}

void diskstat_add(struct diskstat *sum, const struct diskstat *one)
{
    struct disk_counters *s = &sum->delta;
    const struct disk_counters *o = &one->delta;
    unsigned runs = sum->runs + 1;
    double messages = sum->messages + one->messages;

    if (sum->runs == 0 || (sum->state == DISKSTAT_MEASURED && one->state != DISKSTAT_MEASURED)) {
        *sum = *one; /* the first run, or the first without counts: what it says stands */
        sum->id[0] = 0;
    } else if (sum->state == DISKSTAT_MEASURED && strcmp(sum->device, one->device) != 0) {
        char first[sizeof(sum->device)];

        /* two devices' counts are no one device's sum */
        snprintf(first, sizeof(first), "%s", sum->device);
        sum->state = DISKSTAT_UNREADABLE;
        snprintf(sum->device, sizeof(sum->device), "runs on %.40s and %.40s", first, one->device);
    } else if (sum->state == DISKSTAT_MEASURED) {
        s->reads += o->reads;
        s->writes += o->writes;
        s->flushes += o->flushes;
        s->busy_ms += o->busy_ms;
        s->read_sectors += o->read_sectors;
        s->write_sectors += o->write_sectors;
        s->discards += o->discards;
        s->discard_sectors += o->discard_sectors;
        s->has_flushes = s->has_flushes && o->has_flushes;
        s->has_discards = s->has_discards && o->has_discards;
        if (one->shared == 1 && sum->shared != 1) {
            sum->shared = 1;
            snprintf(sum->shared_with, sizeof(sum->shared_with), "%s", one->shared_with);
        }
    }
    sum->runs = runs;
    sum->messages = messages;
}
