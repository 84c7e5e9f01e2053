/*
 * pm_report - the reports of spoolsim postmark; see pm_report.h.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "json.h"
#include "msg.h"
#include "pm_report.h"
#include "pm_workers.h"

#define KB 1024.0
#define MB 1048576.0

const char *pm_report_scale(char *buf, size_t len, long value)
{
    if (value >= 1048576)
        snprintf(buf, len, "%.2f megabytes", (double)value / MB);
    else if (value >= 1024)
        snprintf(buf, len, "%.2f kilobytes", (double)value / KB);
    else
        snprintf(buf, len, "%ld bytes", value);
    return buf;
}

const char *pm_report_scalef(char *buf, size_t len, double value)
{
    if (value / MB > 1)
        snprintf(buf, len, "%.2f megabytes", value / MB);
    else if (value != 0)
        snprintf(buf, len, "%.2f kilobytes", value / KB);
    else
        snprintf(buf, len, "%f bytes", value);
    return buf;
}

/* The four phase lengths: whole run, transactions, pool creation, final deletion. */
struct phases {
    double total, trans, create, delete;
    double bytes_read, bytes_written;
};

static double at_least_one(long seconds)
{
    return seconds == 0 ? 1 : (double)seconds;
}

static void phases_of(const struct pm_result *r, int compat, struct phases *p)
{
    if (compat) {
        p->total = at_least_one(r->end_s - r->start_s);
        p->trans = at_least_one(r->trans_end_s - r->trans_start_s);
        p->create = at_least_one(r->trans_start_s - r->start_s);
        p->delete = at_least_one(r->end_s - r->trans_end_s);
        p->bytes_read = r->bytes_read_f;
        p->bytes_written = r->bytes_written_f;
    } else {
        p->total = (double)(r->end_ns - r->start_ns) / 1e9;
        p->trans = (double)(r->trans_end_ns - r->trans_start_ns) / 1e9;
        p->create = (double)(r->trans_start_ns - r->start_ns) / 1e9;
        p->delete = (double)(r->end_ns - r->trans_end_ns) / 1e9;
        p->bytes_read = (double)r->bytes_read;
        p->bytes_written = (double)r->bytes_written;
    }
}

static double rate(double count, double seconds)
{
    return seconds > 0 ? count / seconds : 0;
}

/* "(N per second)": an integer quotient in compat timing, two decimals otherwise. */
static const char *per_second(char *buf, size_t len, int compat, double count, double seconds)
{
    if (compat)
        snprintf(buf, len, "%ld", (long)count / (long)seconds);
    else
        snprintf(buf, len, "%.2f", rate(count, seconds));
    return buf;
}

static const char *seconds_text(char *buf, size_t len, int compat, double seconds)
{
    if (compat)
        snprintf(buf, len, "%ld", (long)seconds);
    else
        snprintf(buf, len, "%.3f", seconds);
    return buf;
}

/*
 * The files created or deleted: all of them over the whole run, then
 * those of the phase alone (over its own time), then the rest, mixed
 * with the transactions.
 */
static void files_alone_and_mixed(FILE *fp, int c, const struct phases *p, const char *done,
                                  unsigned n, const char *phase, unsigned alone,
                                  double alone_seconds)
{
    char a[64];
    double mixed = (double)n - alone;

    fprintf(fp, "\t%u %s (%s per second)\n", n, done, per_second(a, sizeof(a), c, n, p->total));
    fprintf(fp, "\t\t%s alone: %u files (%s per second)\n", phase, alone,
            per_second(a, sizeof(a), c, alone, alone_seconds));
    fprintf(fp, "\t\tMixed with transactions: %.0f files (%s per second)\n", mixed,
            per_second(a, sizeof(a), c, mixed, p->trans));
}

void pm_report_verbose(FILE *fp, const struct pm_config *cfg, const struct pm_result *r,
                       const struct pm_report_settings *how)
{
    struct phases p;
    int c = how->compat_timing;
    char a[64], b[64];

    phases_of(r, c, &p);
    fprintf(fp, "Time:\n");
    fprintf(fp, "\t%s seconds total\n", seconds_text(a, sizeof(a), c, p.total));
    fprintf(fp, "\t%s seconds of transactions (%s per second)\n",
            seconds_text(a, sizeof(a), c, p.trans),
            per_second(b, sizeof(b), c, cfg->transactions, p.trans));
    fprintf(fp, "\nFiles:\n");
    files_alone_and_mixed(fp, c, &p, "created", r->created, "Creation", cfg->number, p.create);
    fprintf(fp, "\t%u read (%s per second)\n", r->read,
            per_second(a, sizeof(a), c, r->read, p.trans));
    fprintf(fp, "\t%u appended (%s per second)\n", r->appended,
            per_second(a, sizeof(a), c, r->appended, p.trans));
    files_alone_and_mixed(fp, c, &p, "deleted", r->deleted, "Deletion", r->deleted_alone, p.delete);
    fprintf(fp, "\nData:\n");
    fprintf(
        fp, "\t%s read (%s per second)\n", pm_report_scalef(a, sizeof(a), p.bytes_read),
        pm_report_scalef(b, sizeof(b),
                         c ? (float)p.bytes_read / (float)p.total : rate(p.bytes_read, p.total)));
    fprintf(fp, "\t%s written (%s per second)\n", pm_report_scalef(a, sizeof(a), p.bytes_written),
            pm_report_scalef(b, sizeof(b),
                             c ? (float)p.bytes_written / (float)p.total
                               : rate(p.bytes_written, p.total)));
}

void pm_report_terse(FILE *fp, const struct pm_config *cfg, const struct pm_result *r,
                     const struct pm_report_settings *how)
{
    struct phases p;
    int c = how->compat_timing;

    phases_of(r, c, &p);
    if (c) {
        /* PostMark computes these in single precision; so must we, to print the same. */
        float t = (float)p.total, tt = (float)p.trans;

        fprintf(fp, "%ld %ld %.2f %.2f %.2f %.2f %.2f %.2f %.2f %.2f %.2f %.2f %.2f\n",
                (long)p.total, (long)p.trans, (float)cfg->transactions / tt, (float)r->created / t,
                (float)cfg->number / (float)p.create, ((float)r->created - cfg->number) / tt,
                (float)r->read / tt, (float)r->appended / tt, (float)r->deleted / t,
                (float)r->deleted_alone / (float)p.delete,
                ((float)r->deleted - (float)r->deleted_alone) / tt, r->bytes_read_f / t,
                r->bytes_written_f / t);
        return;
    }
    fprintf(fp, "%.3f %.3f %.2f %.2f %.2f %.2f %.2f %.2f %.2f %.2f %.2f %.2f %.2f\n", p.total,
            p.trans, rate(cfg->transactions, p.trans), rate(r->created, p.total),
            rate(cfg->number, p.create), rate((double)r->created - cfg->number, p.trans),
            rate(r->read, p.trans), rate(r->appended, p.trans), rate(r->deleted, p.total),
            rate(r->deleted_alone, p.delete), rate((double)r->deleted - r->deleted_alone, p.trans),
            rate(p.bytes_read, p.total), rate(p.bytes_written, p.total));
}

static const char *const op_names[PM_OP_COUNT] = {"create", "read", "append", "delete"};

void pm_report_extras(FILE *fp, const struct pm_result *r, const struct pm_report_settings *how)
{
    fprintf(fp, "\nDurability: %s before close%s\n", pm_fs_sync_name(how->sync),
            how->dirsync ? ", directory fsync after create and delete" : "");
    fprintf(fp, "Timing: %s\n",
            how->compat_timing ? "compat (PostMark's whole seconds)" : "precise (monotonic clock)");
    fprintf(fp, "Latency per operation:\n");
    for (int op = 0; op < PM_OP_COUNT; op++)
        histogram_print_text(fp, op_names[op], &r->latency[op]);
    fprintf(fp, "Errors: %u; no-ops: %u appends to full-size files, %u creates into a full table\n",
            r->errors, r->append_skipped, r->create_skipped);
    fprintf(fp, "Workers: %u", how->workers);
    for (unsigned i = 0; how->workers > 1 && i < how->workers; i++)
        fprintf(fp, "%s%u", i ? " " : ", seeds ", pm_workers_seed(how->seed, i));
    fprintf(fp, "\n");
}

int pm_report_json(const char *path, const struct pm_config *cfg, const struct pm_result *r,
                   const struct pm_report_settings *how)
{
    struct json_run default_run = {"spoolsim postmark", "spoolsim", 0, NULL};
    const char *dir = cfg->nlocations ? cfg->locations[0].dir : ".";
    struct json_writer w;
    struct fsinfo fs;
    struct phases p;

    if (json_meta_begin(&w, path, how->run ? how->run : &default_run) != 0) {
        fprintf(stderr, "Error: Cannot direct output to file '%s': %s\n", path, strerror(errno));
        return -1;
    }
    phases_of(r, 0, &p);
    /* the first location is where the files go (the current directory without one) */
    fsinfo_lookup(dir, &fs);
    json_meta_write_spool(&w, "spool", dir, &fs);
    json_begin_object(&w, "config");
    json_uint(&w, "size_low", cfg->size_low);
    json_uint(&w, "size_high", cfg->size_high);
    json_uint(&w, "number", cfg->number);
    json_uint(&w, "transactions", cfg->transactions);
    json_uint(&w, "seed", cfg->seed);
    json_uint(&w, "subdirectories", cfg->subdirectories);
    json_uint(&w, "locations", cfg->nlocations);
    json_uint(&w, "read_block", cfg->read_block);
    json_uint(&w, "write_block", cfg->write_block);
    json_bool(&w, "buffered", cfg->buffered);
    json_int(&w, "bias_read", cfg->bias_read);
    json_int(&w, "bias_create", cfg->bias_create);
    json_string(&w, "sync", pm_fs_sync_name(how->sync));
    json_bool(&w, "dirsync", how->dirsync);
    json_uint(&w, "workers", how->workers);
    json_end_object(&w);
    json_bool(&w, "complete", r->complete);
    json_uint(&w, "transactions", cfg->transactions);
    json_double(&w, "elapsed_s", p.total);
    json_double(&w, "transactions_s", p.trans);
    json_double(&w, "creation_s", p.create);
    json_double(&w, "deletion_s", p.delete);
    json_double(&w, "transactions_per_s", rate(cfg->transactions, p.trans));
    json_uint(&w, "created", r->created);
    json_uint(&w, "created_alone", r->created_alone);
    json_uint(&w, "read", r->read);
    json_uint(&w, "appended", r->appended);
    json_uint(&w, "deleted", r->deleted);
    json_uint(&w, "deleted_alone", r->deleted_alone);
    json_uint(&w, "bytes_read", r->bytes_read);
    json_uint(&w, "bytes_written", r->bytes_written);
    json_uint(&w, "errors", r->errors);
    json_uint(&w, "append_skipped", r->append_skipped);
    json_uint(&w, "create_skipped", r->create_skipped);
    json_begin_object(&w, "latency");
    for (int op = 0; op < PM_OP_COUNT; op++)
        histogram_write_json(&w, op_names[op], &r->latency[op]);
    json_end_object(&w);
    if (json_meta_end(&w) != 0) {
        fprintf(stderr, "Error: write error on '%s'\n", path);
        return -1;
    }
    return 0;
}
