/*
 * ab_export - the comparison of `spoolsim ab' as a Markdown table and as
 * CSV (--export-markdown, --export-csv), as hyperfine exports its runs.
 *
 * One row per side: its directory, the median, mean, standard deviation,
 * min and max of its successful runs, how many, and the ratio to A with
 * its 95 % interval (A's ratio is 1). A side with no successful run has
 * empty cells (CSV) or "n/a" (Markdown). Pure: the text comes back in a
 * string the caller frees.
 */
#ifndef SPOOLSIM_AB_EXPORT_H
#define SPOOLSIM_AB_EXPORT_H

#include "ab_stats.h"

struct ab_export {
    const char *unit; /* "msgs/s" */
    const char *dir[2];
    struct ab_summary side[2];      /* runs 0: no successful run */
    const struct ab_result *result; /* NULL: not compared */
};

/*
 * | Side | Directory | Median [u] | Mean ± σ [u] | Min [u] | Max [u] | Runs | B/A (95 % CI) |
 * then the alignment row and one row per side; UTF-8.
 */
char *ab_export_markdown(const struct ab_export *e);

/*
 * side,directory,unit,median,mean,stddev,min,max,runs,ratio,ci_low,ci_high
 * and one row per side; a field with a comma, a quote or a line break is
 * quoted (RFC 4180).
 */
char *ab_export_csv(const struct ab_export *e);

#endif
