/*
 * report_mark - mark every line of a report made under a sync policy
 * that is not Postfix's.
 *
 * Results measured without fsync (or with fdatasync) must never be
 * compared with fsync results by accident, so such a report carries its
 * policy on every line, not only in a header that a reader may cut off
 * (docs/spool-profiles.md E.2).
 */
#ifndef SPOOLSIM_REPORT_MARK_H
#define SPOOLSIM_REPORT_MARK_H

#include <stdio.h>

/* "[sync none] " or "[sync fdatasync] ", or "" for fsync. */
const char *report_mark_sync(const char *sync);

/* Print `text' to `fp' with `mark' before each of its lines. */
void report_mark_print(FILE *fp, const char *mark, const char *text);

/*
 * A report printed whole, then marked: report_mark_begin() gives the
 * stream to print it to (one in memory; fp itself when there is no
 * memory for one, and the report then goes out unmarked), and
 * report_mark_end() prints what it holds to fp, `mark' before each line.
 */
struct report_mark {
    FILE *fp, *mem;
    char *text;
    size_t len;
};
FILE *report_mark_begin(struct report_mark *m, FILE *fp);
void report_mark_end(struct report_mark *m, const char *mark);

#endif
