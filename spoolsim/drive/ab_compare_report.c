/*
 * ab_compare_report - a predicted A/B ratio against the real one; see ab_compare_report.h.
 */
#include "config.h"

#include <math.h>

#include "ab_compare_report.h"

void ab_compare_report_judge(struct ab_compare *c)
{
    c->over = 0;
    c->agree = 0;
    if (!c->predicted.have || !c->real.have || !(c->real.ratio > 0) || !(c->predicted.ratio > 0))
        return;
    c->over = c->predicted.ratio / c->real.ratio;
    /* 1.10 is within 10 %, whatever the last bit of the division says */
    c->agree = fabs(c->over - 1) <= AB_COMPARE_TOLERANCE + 1e-12;
}

static void print_pass(FILE *fp, const char *label, const char *unit,
                       const struct ab_compare_pass *p)
{
    if (!p->have) {
        fprintf(fp, "%-11s no ratio (a side had no run that worked)\n", label);
        return;
    }
    fprintf(fp, "%-11s B/A %.2f", label, p->ratio);
    if (isfinite(p->ci_low) && isfinite(p->ci_high))
        fprintf(fp, " (95 %% CI %.2f-%.2f)", p->ci_low, p->ci_high);
    fprintf(fp, ": A %.1f, B %.1f %s (medians)\n", p->median_a, p->median_b, unit);
}

void ab_compare_report_print(const struct ab_compare *c, FILE *fp)
{
    fprintf(fp,
            "compare:    B/A as the relay's model of %s predicts it, and as a real %s shows it "
            "(the two reports above)\n",
            c->mta, c->mta);
    print_pass(fp, "predicted:", c->unit, &c->predicted);
    print_pass(fp, "real:", c->unit, &c->real);
    if (c->over <= 0) {
        fprintf(fp, "verdict:    none: a pass gave no ratio\n");
        return;
    }
    fprintf(fp,
            "verdict:    %s: the predicted B/A is %.0f %% %s the real one (%.2f times it; "
            "tolerance +-%.0f %%)\n",
            c->agree ? "agree" : "DISAGREE", fabs(c->over - 1) * 100,
            c->over >= 1 ? "above" : "below", c->over, AB_COMPARE_TOLERANCE * 100);
}

static void write_pass(struct json_writer *w, const char *key, const struct ab_compare_pass *p)
{
    json_begin_object(w, key);
    json_double(w, "ratio", p->have ? p->ratio : NAN);
    json_double(w, "ci_low", p->have ? p->ci_low : NAN);
    json_double(w, "ci_high", p->have ? p->ci_high : NAN);
    json_double(w, "median_a", p->have ? p->median_a : NAN);
    json_double(w, "median_b", p->have ? p->median_b : NAN);
    json_end_object(w);
}

void ab_compare_report_write_json(const struct ab_compare *c, struct json_writer *w)
{
    json_string(w, "mta", c->mta);
    write_pass(w, "predicted", &c->predicted);
    write_pass(w, "real", &c->real);
    json_double(w, "predicted_over_real", c->over > 0 ? c->over : NAN);
    json_double(w, "tolerance", AB_COMPARE_TOLERANCE);
    if (c->over > 0)
        json_bool(w, "agree", c->agree);
    else
        json_string(w, "agree", NULL);
}
