/*
 * ab_export - Markdown and CSV of an ab comparison; see ab_export.h.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ab_export.h"
#include "json.h"
#include "msg.h"

/* What write puts, as a string: open_memstream() hands it over only once the stream is closed. */
static char *export_text(const struct ab_export *e, void (*write)(FILE *, const struct ab_export *))
{
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);

    if (fp == NULL)
        msg_fatal("out of memory");
    write(fp, e);
    if (fclose(fp) != 0)
        msg_fatal("out of memory");
    return buf;
}

/* A figure as the JSON has it: the same digits in every export. */
static void put_number(FILE *fp, double v)
{
    char cell[64];

    json_format_double(cell, sizeof(cell), v);
    fputs(cell, fp);
}

/* A Markdown table cell: a '|' would end it, a line break the row. */
static void put_md_code(FILE *fp, const char *s)
{
    fputc('`', fp);
    for (; *s; s++) {
        if (*s == '|')
            fputs("\\|", fp);
        else if (*s == '\n' || *s == '\r')
            fputc(' ', fp);
        else
            fputc(*s, fp);
    }
    fputc('`', fp);
}

static void write_markdown(FILE *fp, const struct ab_export *e)
{
    const struct ab_result *r = e->result;

    fprintf(fp,
            "| Side | Directory | Median [%s] | Mean ± σ [%s] | Min [%s] | Max [%s] | Runs | "
            "B/A (95 %% CI) |\n",
            e->unit, e->unit, e->unit, e->unit);
    fputs("|:---|:---|---:|---:|---:|---:|---:|---:|\n", fp);
    for (int k = 0; k < 2; k++) {
        const struct ab_summary *s = &e->side[k];

        fprintf(fp, "| %s | ", k ? "B" : "A");
        put_md_code(fp, e->dir[k]);
        if (s->runs == 0)
            fputs(" | n/a | n/a | n/a | n/a | 0 | ", fp);
        else
            fprintf(fp, " | %.1f | %.1f ± %.1f | %.1f | %.1f | %zu | ", s->median, s->mean, s->sd,
                    s->min, s->max, s->runs);
        if (r == NULL)
            fputs("n/a |\n", fp);
        else if (k == 0)
            fputs("1.000 |\n", fp);
        else
            fprintf(fp, "%.3f (%.3f–%.3f) |\n", r->ratio, r->ci_low, r->ci_high);
    }
}

char *ab_export_markdown(const struct ab_export *e)
{
    return export_text(e, write_markdown);
}

/* RFC 4180: quoted when it must be, a quote doubled. */
static void put_csv_field(FILE *fp, const char *s)
{
    if (strpbrk(s, ",\"\r\n") == NULL) {
        fputs(s, fp);
        return;
    }
    fputc('"', fp);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', fp);
        fputc(*s, fp);
    }
    fputc('"', fp);
}

static void write_csv(FILE *fp, const struct ab_export *e)
{
    const struct ab_result *r = e->result;

    fputs("side,directory,unit,median,mean,stddev,min,max,runs,ratio,ci_low,ci_high\n", fp);
    for (int k = 0; k < 2; k++) {
        const struct ab_summary *s = &e->side[k];
        const double v[5] = {s->median, s->mean, s->sd, s->min, s->max};

        fprintf(fp, "%s,", k ? "B" : "A");
        put_csv_field(fp, e->dir[k]);
        fputc(',', fp);
        put_csv_field(fp, e->unit);
        for (int i = 0; i < 5; i++) {
            fputc(',', fp);
            if (s->runs)
                put_number(fp, v[i]);
        }
        fprintf(fp, ",%zu,", s->runs);
        if (r && k == 0) {
            fputs("1,,", fp);
        } else if (r) {
            put_number(fp, r->ratio);
            fputc(',', fp);
            put_number(fp, r->ci_low);
            fputc(',', fp);
            put_number(fp, r->ci_high);
        } else {
            fputs(",,", fp);
        }
        fputc('\n', fp);
    }
}

char *ab_export_csv(const struct ab_export *e)
{
    return export_text(e, write_csv);
}
