/*
 * pm_report - the reports of spoolsim postmark (no I/O but to the stream given).
 *
 * The verbose and terse reports keep PostMark 1.53's lines and wording so
 * that existing parsers still work. In precise timing (the default) every
 * duration comes from the monotonic clock and every rate is a real
 * quotient printed with decimals; in compat timing the figures are
 * PostMark's own (whole seconds, 0 taken as 1, integer division, float
 * byte sums), for byte-for-byte comparison. pm_report_extras() adds what
 * PostMark never said: per-operation latency, errors, no-ops, durability.
 */
#ifndef SPOOLSIM_PM_REPORT_H
#define SPOOLSIM_PM_REPORT_H

#include <stdio.h>

#include "json_meta.h"
#include "pm_engine.h"
#include "pm_fs.h"

struct pm_report_settings {
    int compat_timing;
    enum pm_sync sync;
    int dirsync;
    unsigned workers;
    uint32_t seed;              /* the configured one; worker seeds derive from it */
    const struct json_run *run; /* the command line, for the JSON report; NULL: none known */
};

void pm_report_verbose(FILE *fp, const struct pm_config *cfg, const struct pm_result *r,
                       const struct pm_report_settings *how);
void pm_report_terse(FILE *fp, const struct pm_config *cfg, const struct pm_result *r,
                     const struct pm_report_settings *how);
void pm_report_extras(FILE *fp, const struct pm_result *r, const struct pm_report_settings *how);
int pm_report_json(const char *path, const struct pm_config *cfg, const struct pm_result *r,
                   const struct pm_report_settings *how);

/* PostMark's scale() for integers and scalef() for floats, into buf. */
const char *pm_report_scale(char *buf, size_t len, long value);
const char *pm_report_scalef(char *buf, size_t len, double value);

#endif
