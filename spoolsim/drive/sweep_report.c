/*
 * sweep_report - what `spoolsim sweep' found: the report and its JSON; see sweep.h.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "json_meta.h"
#include "sweep.h"

/* ------------------------------------------------------------ the report */

static void describe(const struct sweep *s, char *out, size_t len)
{
    const struct sweep_options *o = s->opts;
    size_t used;

    if (o->target) {
        snprintf(out, len, "%s%s", o->target,
                 o->sink_port ? ", its deliveries to smtp-sink measured" : ", acceptance measured");
        return;
    }
    used = (size_t)snprintf(out, len, "spoolsim relay");
    for (size_t i = 0; i < o->n_relay_args && used < len; i++)
        used += (size_t)snprintf(out + used, len - used, " %s", o->relay_args[i]);
    if (used < len)
        snprintf(out + used, len - used, ", next hop smtp-sink");
}

void sweep_report_print(const struct sweep *s, const struct sweep_search *search, FILE *fp)
{
    const struct sweep_options *o = s->opts;
    char what[1024], where[1200], why[160];
    double knee = sweep_search_knee(search), broke = sweep_search_broke(search);

    describe(s, what, sizeof(what));
    fprintf(fp, "sweep:      %s\n", what);
    if (!o->target) {
        fsinfo_describe(&s->fs, where, sizeof(where));
        fprintf(fp, "spool:      %s\n", where);
        if (fsinfo_note(&s->fs))
            fprintf(fp, "note:       %s\n", fsinfo_note(&s->fs));
    }
    fprintf(
        fp,
        "steps:      open loop (%s arrivals), %u sessions, size %s, warm-up %.1f s, window %.1f s, "
        "SLO p99 %.0f ms\n",
        o->arrivals, o->common.sessions, o->common.workload ? "from --workload" : o->common.size,
        o->warmup, o->window, o->slo * 1e3);
    fprintf(fp, "%4s %9s %9s %11s %9s %9s %9s %9s %7s %7s %8s %6s  %s\n", "step", "offered/s",
            "sent/s", "delivered/s", "p50 ms", "p99 ms", "e2e p50", "e2e p99", "queue0", "queue1",
            "growth/s", "failed", "verdict");
    for (unsigned i = 0; i < s->n_steps; i++) {
        const struct sweep_step *st = &s->steps[i];
        char e50[16] = "-", e99[16] = "-", q0[16] = "-", q1[16] = "-", g[16] = "-";
        char p50[16] = "-", p99[16] = "-";

        if (st->e2e_known) {
            snprintf(e50, sizeof(e50), "%.1f", st->e2e_p50_s * 1e3);
            snprintf(e99, sizeof(e99), "%.1f", st->e2e_p99_s * 1e3);
        }
        if (st->m.queue_known) {
            snprintf(q0, sizeof(q0), "%.0f", st->m.queue_start);
            snprintf(q1, sizeof(q1), "%.0f", st->m.queue_end);
            snprintf(g, sizeof(g), "%.1f", sweep_search_growth_per_s(&st->m));
        }
        if (st->latency_known) {
            snprintf(p50, sizeof(p50), "%.1f", st->p50_s * 1e3);
            snprintf(p99, sizeof(p99), "%.1f", st->m.p99_s * 1e3);
        }
        sweep_search_reason_text(st->reason, &st->m, o->slo, why, sizeof(why));
        fprintf(fp, "%4u %9.1f %9.1f %11.1f %9s %9s %9s %9s %7s %7s %8s %6.0f  %s\n", i + 1,
                st->m.offered_per_s, st->sent_per_s, st->m.delivered_per_s, p50, p99, e50, e99, q0,
                q1, g, st->m.failures, why);
        if (st->no_mail[0] && o->target)
            fprintf(fp, "     target %s: %s\n", o->target, st->no_mail);
        else if (st->no_mail[0])
            fprintf(fp, "     relay: %s\n", st->no_mail);
    }
    /* sweep.c stops after a first step that had nothing accepted */
    if (s->n_steps > 0 && s->steps[0].no_mail[0])
        fprintf(fp, "stopped:    nothing was accepted at %.6g msgs/s: the %s does not take mail\n",
                s->steps[0].m.offered_per_s, o->target ? "target" : "relay");
    if (knee > 0)
        fprintf(fp,
                "knee:       %.6g msgs/s (delivered >= 99 %% of offered, queue steady, no "
                "failures, p99 <= %.0f ms)",
                knee, o->slo * 1e3);
    else
        fprintf(fp, "knee:       none: no step held");
    if (broke > 0) {
        for (unsigned i = 0; i < s->n_steps; i++)
            if (s->steps[i].m.offered_per_s == broke && s->steps[i].reason != SWEEP_HELD) {
                sweep_search_reason_text(s->steps[i].reason, &s->steps[i].m, o->slo, why,
                                         sizeof(why));
                fprintf(fp, "; broke at %.6g msgs/s (step %u): %s\n", broke, i + 1, why);
                break;
            }
    } else {
        fprintf(fp, "; every step held (no rate broke it: try higher rates)\n");
    }
    if (o->common.workload && knee > 0)
        fprintf(fp,
                "workload:   %s: the knee carries %.1fx its busiest minute (%.6g msgs/s) and "
                "%.1fx its mean (%.6g msgs/s)\n",
                o->common.workload, knee / o->workload_peak_per_s, o->workload_peak_per_s,
                knee / o->workload_mean_per_s, o->workload_mean_per_s);
    else if (o->common.workload)
        fprintf(fp, "workload:   %s: busiest minute %.6g msgs/s, mean %.6g msgs/s (no knee)\n",
                o->common.workload, o->workload_peak_per_s, o->workload_mean_per_s);
}

static const char *const reason_keys[] = {"held", "fell_behind", "queue_grew", "failures", "slo"};

int sweep_report_write_json(const struct sweep *s, const struct sweep_search *search)
{
    const struct sweep_options *o = s->opts;
    double knee = sweep_search_knee(search), broke = sweep_search_broke(search);
    char why[160];
    struct json_writer w;

    if (json_meta_begin(&w, o->common.json, o->run) != 0)
        return -1;
    if (o->target)
        json_string(&w, "spool", NULL);
    else
        json_meta_write_spool(&w, "spool", s->d.work, &s->fs);
    json_string(&w, "mode", o->n_rates ? "list" : "auto");
    json_string(&w, "target", o->target);
    json_uint_or_null(&w, "sink_port", o->sink_port != 0, o->sink_port);
    json_double(&w, "sink_delay_s", o->sink_delay[0] ? strtod(o->sink_delay, NULL) : NAN);
    json_begin_inline_array(&w, "relay_options");
    for (size_t i = 0; i < o->n_relay_args; i++)
        json_string(&w, NULL, o->relay_args[i]);
    json_end_array(&w);
    json_uint(&w, "sessions", o->common.sessions);
    json_string(&w, "size", o->common.workload ? "workload" : o->common.size);
    drive_workload_json(&w, &o->common, s->workload_sha256);
    json_bool(&w, "reuse", o->reuse);
    json_string(&w, "arrivals", o->arrivals);
    json_uint(&w, "seed", o->common.seed);
    json_double(&w, "warmup_s", o->warmup);
    json_double(&w, "window_s", o->window);
    json_double(&w, "slo_s", o->slo);
    json_begin_array(&w, "steps");
    for (unsigned i = 0; i < s->n_steps; i++) {
        const struct sweep_step *st = &s->steps[i];

        json_begin_object(&w, NULL);
        json_double(&w, "offered_per_s", st->m.offered_per_s);
        json_double(&w, "sent", st->sent);
        json_double(&w, "sent_per_s", st->sent_per_s);
        json_double(&w, "accepted", st->accepted);
        json_double(&w, "delivered_per_s", st->m.delivered_per_s);
        json_double(&w, "arrived_per_s", st->arrived_per_s);
        json_double(&w, "failed", st->m.failures);
        json_double(&w, "backlog_max", st->backlog_max);
        /* json_double() writes NAN as null: no latency where no message was answered */
        json_double(&w, "p50_ms", st->latency_known ? st->p50_s * 1e3 : NAN);
        json_double(&w, "p99_ms", st->latency_known ? st->m.p99_s * 1e3 : NAN);
        json_double(&w, "p99_9_ms", st->latency_known ? st->p999_s * 1e3 : NAN);
        json_double(&w, "max_ms", st->latency_known ? st->max_s * 1e3 : NAN);
        json_double(&w, "end_to_end_count", st->e2e_known ? st->e2e_count : NAN);
        json_double(&w, "end_to_end_p50_ms", st->e2e_known ? st->e2e_p50_s * 1e3 : NAN);
        json_double(&w, "end_to_end_p99_ms", st->e2e_known ? st->e2e_p99_s * 1e3 : NAN);
        json_double(&w, "queue_start", st->m.queue_known ? st->m.queue_start : NAN);
        json_double(&w, "queue_end", st->m.queue_known ? st->m.queue_end : NAN);
        json_double(&w, "queue_growth_per_s",
                    st->m.queue_known ? sweep_search_growth_per_s(&st->m) : NAN);
        json_bool(&w, "held", st->reason == SWEEP_HELD);
        json_string(&w, "reason", reason_keys[st->reason]);
        sweep_search_reason_text(st->reason, &st->m, o->slo, why, sizeof(why));
        json_string(&w, "reason_text", why);
        json_string(&w, "no_mail", st->no_mail[0] ? st->no_mail : NULL);
        json_end_object(&w);
    }
    json_end_array(&w);
    json_double(&w, "knee_per_s", knee > 0 ? knee : NAN);
    json_double(&w, "broke_per_s", broke > 0 ? broke : NAN);
    /* the knee in the log's words: how many of its busiest minutes, and of its mean */
    json_double(&w, "workload_peak_per_s", o->common.workload ? o->workload_peak_per_s : NAN);
    json_double(&w, "workload_mean_per_s", o->common.workload ? o->workload_mean_per_s : NAN);
    json_double(&w, "knee_peak_multiple",
                o->common.workload && knee > 0 ? knee / o->workload_peak_per_s : NAN);
    json_double(&w, "knee_mean_multiple",
                o->common.workload && knee > 0 ? knee / o->workload_mean_per_s : NAN);
    return json_meta_end(&w);
}
