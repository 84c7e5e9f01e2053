/*
 * ab_compare_report - `spoolsim ab --compare MTA': the A/B ratio the
 * relay's model predicts beside the one the real MTA shows (no I/O but
 * the stream and the JSON writer it is given).
 *
 * An A/B test asks by how much B is faster or slower, and a model's error
 * shared by both sides cancels in the ratio; what is left is judged here:
 * the prediction agrees when the predicted B/A is within
 * AB_COMPARE_TOLERANCE of the real B/A, as a ratio of the two.
 */
#ifndef SPOOLSIM_AB_COMPARE_REPORT_H
#define SPOOLSIM_AB_COMPARE_REPORT_H

#include <stdio.h>

#include "json.h"

#define AB_COMPARE_TOLERANCE 0.10

/* One pass of ab: its B/A, the interval, the two sides' medians; have 0 if it gave none. */
struct ab_compare_pass {
    int have;
    double ratio, ci_low, ci_high; /* the interval NAN when ab had none */
    double median_a, median_b;
};

struct ab_compare {
    const char *mta;
    const char *unit; /* "msgs/s" */
    struct ab_compare_pass predicted, real;
    /* ab_compare_report_judge(): */
    double over; /* predicted B/A over real B/A; 0 without both */
    int agree;   /* |over - 1| <= AB_COMPARE_TOLERANCE */
};

/* The ratio of the two ratios and the verdict. */
void ab_compare_report_judge(struct ab_compare *c);

/* The lines after the two passes' own reports. */
void ab_compare_report_print(const struct ab_compare *c, FILE *fp);

/* The same into an open JSON object. */
void ab_compare_report_write_json(const struct ab_compare *c, struct json_writer *w);

#endif
