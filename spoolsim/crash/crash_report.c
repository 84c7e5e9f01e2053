/*
 * crash_report - spoolsim crash's report; see crash_report.h.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exit_status.h"
#include "crash_report.h"
#include "json.h"
#include "json_meta.h"
#include "xgrow.h"

/* 1480 as "1,480". */
static const char *grouped(uint64_t v, char *buf, size_t len)
{
    char digits[32];
    size_t n = (size_t)snprintf(digits, sizeof(digits), "%llu", (unsigned long long)v), o = 0;

    for (size_t i = 0; i < n && o + 2 < len; i++) {
        if (i > 0 && (n - i) % 3 == 0)
            buf[o++] = ',';
        buf[o++] = digits[i];
    }
    buf[o] = '\0';
    return buf;
}

void crash_report_begin(struct crash_report *r, const struct crash_options *o,
                        const struct blklog *log, const struct crash_plan *plan, size_t acked)
{
    memset(r, 0, sizeof(*r));
    r->o = o;
    r->writes = log->writes;
    r->flushes = log->flushes;
    r->bytes = log->bytes;
    r->acked = acked;
    r->flush_points = plan->flush_points;
    r->random_points = plan->random_points;
}

void crash_report_add(struct crash_report *r, const struct crash_point *p,
                      const struct crash_result *res, const struct crash_tally *t,
                      uint64_t t_load_ns)
{
    struct crash_row *row;

    r->rows = xgrow(r->rows, &r->cap, r->n + 1, 64, sizeof(*r->rows));
    row = &r->rows[r->n++];
    memset(row, 0, sizeof(*row));
    row->t_s = p->t_ns >= t_load_ns ? (double)(p->t_ns - t_load_ns) / 1e9
                                    : -(double)(t_load_ns - p->t_ns) / 1e9;
    row->is_flush = p->is_flush;
    row->kept = res->kept;
    row->unflushed = res->unflushed;
    row->tally = *t;
    row->corrupt = res->corrupt;
    row->repaired = res->repaired;
    row->repair_failed = res->repair_failed;
    row->unmountable = res->unmountable;
    row->refused = res->refused;
    if (t->lost > r->max_lost)
        r->max_lost = t->lost;
    r->points_losing += t->lost > 0;
    if (t->owed > r->max_owed)
        r->max_owed = t->owed;
    r->corrupt_files += res->corrupt;
    r->corrupt_points += res->corrupt > 0;
    r->repaired_points += res->repaired != 0;
    r->repair_failed_points += res->repair_failed != 0;
    r->unmountable_points += res->unmountable != 0;
    r->refused_points += res->refused != 0;
    if (t->duplicated > r->max_duplicated)
        r->max_duplicated = t->duplicated;
    if (res->note[0] && !r->first_note[0])
        snprintf(r->first_note, sizeof(r->first_note), "%s", res->note);
}

void crash_report_free(struct crash_report *r)
{
    free(r->rows);
    r->rows = NULL;
    r->n = r->cap = 0;
}

int crash_report_durable(const struct crash_report *r)
{
    return r->n > 0 && r->acked > 0 && r->max_lost == 0;
}

int crash_report_exit_status(const struct crash_report *r)
{
    if (r->n == 0 || r->acked == 0)
        return EXIT_STATUS_INCOMPLETE; /* nothing to judge: no verdict either way */
    return r->max_lost == 0 ? EXIT_STATUS_OK : EXIT_STATUS_BAD;
}

void crash_report_verdict(const struct crash_report *r, char *buf, size_t len)
{
    const struct crash_options *o = r->o;
    char a[32], b[32], c[32];

    if (r->n == 0) {
        snprintf(buf, len, "inconclusive: no crash point to check (the log holds no write)");
    } else if (r->acked == 0) {
        snprintf(buf, len, "inconclusive: no message was acknowledged, so none could be lost");
    } else if (r->max_lost == 0) {
        snprintf(buf, len, "durable: 0 of %s acknowledged messages lost over %s power cuts",
                 grouped(r->acked, a, sizeof(a)), grouped(r->n, b, sizeof(b)));
    } else if (o->mta) {
        snprintf(buf, len,
                 "LOSES acknowledged mail: up to %s per cut, at %s of %s power cuts (%s%s%s, "
                 "the real %s)",
                 grouped(r->max_lost, a, sizeof(a)), grouped(r->points_losing, b, sizeof(b)),
                 grouped(r->n, c, sizeof(c)), o->type, o->mount_opts[0] ? " -o " : "",
                 o->mount_opts, o->mta);
    } else {
        snprintf(buf, len,
                 "LOSES acknowledged mail: up to %s per cut, at %s of %s power cuts (%s%s%s, "
                 "profile %s, sync %s)",
                 grouped(r->max_lost, a, sizeof(a)), grouped(r->points_losing, b, sizeof(b)),
                 grouped(r->n, c, sizeof(c)), o->type, o->mount_opts[0] ? " -o " : "",
                 o->mount_opts, o->profile, o->sync ? o->sync : "the profile's");
    }
}

void crash_report_print(const struct crash_report *r, FILE *fp)
{
    const struct crash_options *o = r->o;
    char verdict[512], a[32];

    fprintf(fp, "filesystem:   %s, -o %s, a %llu MiB image", o->type,
            o->mount_opts[0] ? o->mount_opts : "(none)", (unsigned long long)(o->image_size >> 20));
    if (o->like)
        fprintf(fp, " (like %s%s%s)", o->like, o->dropped[0] ? "; not carried over: " : "",
                o->dropped);
    if (o->mta)
        fprintf(fp,
                "\nmta:          the real %s, its own restart at every cut; %s messages "
                "acknowledged in %.1f s\n",
                o->mta, grouped(r->acked, a, sizeof(a)), o->load_s);
    else
        fprintf(fp, "\nrelay:        profile %s, sync %s; %s messages acknowledged in %.1f s\n",
                o->profile, o->sync ? o->sync : "as the profile", grouped(r->acked, a, sizeof(a)),
                o->load_s);
    fprintf(fp, "recorded:     %zu writes (%.1f MiB), %zu flushes, by %s\n", r->writes,
            (double)r->bytes / (1024.0 * 1024.0), r->flushes,
            o->dm ? "dm-log-writes (times: its marks)" : "spoolsim-recorder");
    fprintf(fp,
            "checked:      %zu crash points in %.1f s (%zu at flushes, %zu random between "
            "them), seed %llu\n",
            r->n, r->check_s, r->flush_points, r->random_points,
            (unsigned long long)o->common.seed);
    fprintf(fp,
            "per cut:      up to %zu owed, up to %zu lost (at %zu cuts), up to %zu duplicated\n",
            r->max_owed, r->max_lost, r->points_losing, r->max_duplicated);
    fprintf(fp, "spool:        %zu corrupt queue files (at %zu cuts)\n", r->corrupt_files,
            r->corrupt_points);
    fprintf(fp,
            "repair:       %s changed something at %zu cuts, failed at %zu; %zu cuts "
            "unmountable\n",
            o->fs->repair, r->repaired_points, r->repair_failed_points, r->unmountable_points);
    if (r->refused_points)
        fprintf(fp, "restart:      %s would not take the recovered spool at %zu cuts\n",
                o->mta ? "the real MTA" : "the relay", r->refused_points);
    if (r->first_note[0])
        fprintf(fp, "note:         %s\n", r->first_note);
    fprintf(fp, "crash model:  a disk that honours flushes; the writes not yet flushed in any "
                "subset;\n"
                "              no torn sectors; owed = acknowledged before the cut\n");
    crash_report_verdict(r, verdict, sizeof(verdict));
    fprintf(fp, "%s\n", verdict);
}

int crash_report_json(const struct crash_report *r, const char *path)
{
    const struct crash_options *o = r->o;
    struct json_writer w;
    char verdict[512];

    if (json_meta_begin(&w, path, o->run) != 0)
        return -1;
    json_string(&w, "fstype", o->type);
    json_string(&w, "mount_options", o->mount_opts);
    json_string(&w, "like", o->like);
    json_string(&w, "not_carried_over", o->like ? o->dropped : NULL);
    json_uint(&w, "image_bytes", o->image_size);
    json_string(&w, "profile", o->profile);
    json_string(&w, "sync", o->sync);
    json_string(&w, "mta", o->mta);
    json_uint(&w, "seed", o->common.seed);
    json_string(&w, "recorder", o->dm ? "dm-log-writes" : "fuse");
    json_double(&w, "load_s", o->load_s);
    /* the load as asked (an A/B's crash test is asked for the A/B's) */
    json_uint(&w, "sessions", o->common.sessions);
    json_uint(&w, "messages", o->common.messages);
    json_double(&w, "duration_s", o->common.messages ? NAN : o->common.duration);
    json_string(&w, "size", o->common.size);
    json_uint(&w, "rcpts", o->common.rcpts);
    json_uint(&w, "acknowledged", r->acked);
    json_uint(&w, "writes", r->writes);
    json_uint(&w, "written_bytes", r->bytes);
    json_uint(&w, "flushes", r->flushes);
    json_uint(&w, "points", r->n);
    json_uint(&w, "flush_points", r->flush_points);
    json_uint(&w, "random_points", r->random_points);
    json_double(&w, "check_s", r->check_s);
    json_uint(&w, "max_owed", r->max_owed);
    json_uint(&w, "max_lost", r->max_lost);
    json_uint(&w, "points_losing", r->points_losing);
    json_uint(&w, "max_duplicated", r->max_duplicated);
    json_uint(&w, "corrupt_files", r->corrupt_files);
    json_uint(&w, "repaired_points", r->repaired_points);
    json_uint(&w, "repair_failed_points", r->repair_failed_points);
    json_uint(&w, "unmountable_points", r->unmountable_points);
    json_uint(&w, "refused_points", r->refused_points);
    json_bool(&w, "durable", crash_report_durable(r));
    crash_report_verdict(r, verdict, sizeof(verdict));
    json_string(&w, "verdict", verdict);
    json_begin_array(&w, "cuts");
    for (size_t i = 0; i < r->n; i++) {
        const struct crash_row *row = &r->rows[i];

        json_begin_object(&w, NULL);
        json_double(&w, "t_s", row->t_s);
        json_string(&w, "kind", row->is_flush ? "flush" : "random");
        json_uint(&w, "unflushed_kept", row->kept);
        json_uint(&w, "unflushed", row->unflushed);
        json_uint(&w, "owed", row->tally.owed);
        json_uint(&w, "delivered", row->tally.delivered);
        json_uint(&w, "recovered", row->tally.recovered);
        json_uint(&w, "lost", row->tally.lost);
        json_uint(&w, "duplicated", row->tally.duplicated);
        json_uint(&w, "corrupt", row->corrupt);
        json_bool(&w, "repaired", row->repaired);
        json_bool(&w, "repair_failed", row->repair_failed);
        json_bool(&w, "unmountable", row->unmountable);
        json_bool(&w, "refused", row->refused);
        json_end_object(&w);
    }
    json_end_array(&w);
    return json_meta_end(&w);
}
