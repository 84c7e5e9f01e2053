/*
 * relay_model - spend a real MTA's CPU where it spends it; see relay_model.h.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_burn.h"
#include "fileutil.h"
#include "relay_model.h"
#include "xalloc.h"

#define PLACES (COST_SERIAL + 1)

struct relay_model {
    struct cost_model model;
    char origin[256];  /* "built-in" or the file's path */
    double here_speed; /* cpu_burn_speed() on this machine */
    pthread_mutex_t serial[COST_MAX_STAGES];
    _Atomic uint64_t spent_ns[PLACES];
    _Atomic uint64_t messages[PLACES];
};

int relay_model_open(const char *spec, struct relay_model **out, char *err, size_t errlen)
{
    struct relay_model *rm;
    char *text = NULL;
    const char *json = cost_model_postfix_json;

    *out = NULL;
    if (strcmp(spec, "none") == 0)
        return 0;
    if (strcmp(spec, "postfix") != 0) {
        if ((text = file_read_all(spec, NULL)) == NULL) {
            snprintf(err, errlen, "cannot read the model %s: %s", spec, strerror(errno));
            return -1;
        }
        json = text;
    }
    rm = xcalloc(1, sizeof(*rm));
    if (cost_model_parse(json, &rm->model, err, errlen) != 0) {
        char why[200];

        snprintf(why, sizeof(why), "%s", err);
        snprintf(err, errlen, "%s: %s", text ? spec : "the built-in model", why);
        free(text);
        free(rm);
        return -1;
    }
    free(text);
    snprintf(rm->origin, sizeof(rm->origin), "%s",
             strcmp(spec, "postfix") == 0 ? "built-in" : spec);
    rm->here_speed = cpu_burn_speed();
    rm->model.scale = rm->model.reference_speed / rm->here_speed;
    for (unsigned i = 0; i < rm->model.stage_count; i++)
        pthread_mutex_init(&rm->serial[i], NULL);
    *out = rm;
    return 0;
}

void relay_model_free(struct relay_model *rm)
{
    if (rm == NULL)
        return;
    for (unsigned i = 0; i < rm->model.stage_count; i++)
        pthread_mutex_destroy(&rm->serial[i]);
    free(rm);
}

#define SMTPD_STEPS 6 /* greeting, EHLO, MAIL, first RCPT, DATA, end of data */

/* The net cost of smtpd's fit components (the MTA's less the relay's), never below 0. */
static double net(double mta, double relay)
{
    return mta > relay ? mta - relay : 0;
}

static int smtpd_stage(const struct cost_model *m)
{
    for (unsigned i = 0; i < m->stage_count; i++)
        if (strcmp(m->stages[i].name, "smtpd") == 0)
            return (int)i;
    return -1;
}

uint64_t relay_model_command_ns(const struct relay_model *rm, int extra_rcpt)
{
    const struct cost_stage *st;
    double us;
    int i;

    if (rm == NULL || (i = smtpd_stage(&rm->model)) < 0)
        return 0;
    st = &rm->model.stages[i];
    us = extra_rcpt ? net(st->mta.per_rcpt_us, st->relay.per_rcpt_us)
                    : net(st->mta.base_us, st->relay.base_us) / SMTPD_STEPS;
    return (uint64_t)(us * rm->model.scale * 1000.0);
}

void relay_model_burn_command(struct relay_model *rm, uint64_t ns)
{
    uint64_t start = cpu_thread_ns();

    cpu_burn_ns(ns);
    atomic_fetch_add(&rm->spent_ns[COST_RECEIVE], cpu_thread_ns() - start);
}

/* What is left of smtpd's cost at the end of data, after the commands' shares. */
static uint64_t smtpd_rest_ns(const struct relay_model *rm, unsigned i, uint64_t bytes,
                              unsigned rcpts)
{
    uint64_t all = cost_model_burn_ns(&rm->model, i, bytes, rcpts);
    uint64_t spent = (SMTPD_STEPS - 1) * relay_model_command_ns(rm, 0) +
                     (rcpts > 1 ? rcpts - 1 : 0) * relay_model_command_ns(rm, 1);

    return all > spent ? all - spent : 0;
}

void relay_model_spend(struct relay_model *rm, enum cost_place place, uint64_t bytes,
                       unsigned rcpts)
{
    const struct cost_model *m;
    uint64_t start;

    if (rm == NULL)
        return;
    m = &rm->model;
    start = cpu_thread_ns();
    for (unsigned i = 0; i < m->stage_count; i++) {
        uint64_t ns;
        int serial = m->stages[i].place == COST_SERIAL;

        /* The single-process daemons are paid for on the receiving side, one at a time. */
        if (m->stages[i].place != place && !(serial && place == COST_RECEIVE))
            continue;
        ns = strcmp(m->stages[i].name, "smtpd") == 0 ? smtpd_rest_ns(rm, i, bytes, rcpts)
                                                     : cost_model_burn_ns(m, i, bytes, rcpts);
        if (ns == 0)
            continue;
        if (serial)
            pthread_mutex_lock(&rm->serial[i]);
        cpu_burn_ns(ns);
        if (serial)
            pthread_mutex_unlock(&rm->serial[i]);
    }
    atomic_fetch_add(&rm->spent_ns[place], cpu_thread_ns() - start);
    atomic_fetch_add(&rm->messages[place], 1);
}

void relay_model_describe(const struct relay_model *rm, char *buf, size_t len)
{
    const struct cost_model *m;

    if (rm == NULL) {
        snprintf(buf, len, "none (the bare relay: what the spool alone allows)");
        return;
    }
    m = &rm->model;
    snprintf(buf, len,
             "%s %s (%s, measured on %s, %s), CPU scaled by %.2f; %.0f us per 1 KiB message",
             m->mta, m->mta_version, rm->origin, m->measured_on[0] ? m->measured_on : "?",
             m->date[0] ? m->date : "?", m->scale, cost_model_mta_us(m, 1024, 1));
}

void relay_model_json(const struct relay_model *rm, struct json_writer *w)
{
    const struct cost_model *m;

    if (rm == NULL) {
        json_string(w, "model", "none");
        return;
    }
    m = &rm->model;
    json_begin_object(w, "model");
    json_string(w, "mta", m->mta);
    json_string(w, "mta_version", m->mta_version);
    json_string(w, "origin", rm->origin);
    json_string(w, "measured_on", m->measured_on);
    json_string(w, "date", m->date);
    json_double(w, "reference_speed", m->reference_speed);
    json_double(w, "this_host_speed", rm->here_speed);
    json_double(w, "scale", m->scale);
    json_double(w, "mta_us_per_1kib_message", cost_model_mta_us(m, 1024, 1));
    json_begin_object(w, "spent_cpu_s");
    for (int p = 0; p < PLACES; p++)
        json_double(w, cost_place_name((enum cost_place)p), (double)rm->spent_ns[p] / 1e9);
    json_end_object(w);
    json_end_object(w);
}
