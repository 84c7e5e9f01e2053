/*
 * cost_model - the CPU a real MTA spends per message; see cost_model.h.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cost_model.h"
#include "json_read.h"

/* The last ", " of s, or NULL. */
static const char *strrstr_sep(const char *s)
{
    const char *last = NULL;

    for (const char *p = strstr(s, ", "); p; p = strstr(p + 1, ", "))
        last = p;
    return last;
}

/*
 * Who waits for whom, after Postfix's and Exim's processes: cleanup asks
 * trivial-rewrite before its reply, smtp asks scache for a connection, a
 * connection waits for Exim's daemon to fork its receiving process; master
 * (spawning and watching the others) and postlogd (taking log records
 * sent as datagrams) hold up no message.
 */
static const struct {
    const char *name;
    enum cost_place place, caller;
} known_places[] = {
    {"smtpd", COST_RECEIVE, COST_RECEIVE},
    {"cleanup", COST_RECEIVE, COST_RECEIVE},
    {"qmgr", COST_QMGR, COST_QMGR},
    {"smtp", COST_DELIVER, COST_DELIVER},
    {"trivial-rewrite", COST_SERIAL, COST_RECEIVE},
    {"scache", COST_SERIAL, COST_DELIVER},
    {"master", COST_DAEMON, COST_RECEIVE},
    {"postlogd", COST_DAEMON, COST_RECEIVE},
    {"receive", COST_RECEIVE, COST_RECEIVE}, /* Exim's */
    {"delivery", COST_DELIVER, COST_DELIVER},
};

/* The SMTP server's own process: its CPU goes with the replies. */
static const char *const session_stages[] = {"smtpd", "receive"};

enum cost_place cost_model_place_of(const char *stage)
{
    for (size_t i = 0; i < sizeof(known_places) / sizeof(known_places[0]); i++)
        if (strcmp(known_places[i].name, stage) == 0)
            return known_places[i].place;
    return COST_SERIAL; /* another daemon of Postfix's, Exim's daemon: one process, waited for */
}

enum cost_place cost_model_caller_of(const char *stage)
{
    for (size_t i = 0; i < sizeof(known_places) / sizeof(known_places[0]); i++)
        if (strcmp(known_places[i].name, stage) == 0)
            return known_places[i].caller;
    return COST_RECEIVE;
}

int cost_model_session_stage(const struct cost_model *m)
{
    for (unsigned i = 0; i < m->stage_count; i++)
        for (size_t k = 0; k < sizeof(session_stages) / sizeof(session_stages[0]); k++)
            if (strcmp(m->stages[i].name, session_stages[k]) == 0)
                return (int)i;
    return -1;
}

static const struct {
    const char *mta;
    const char *json;
} builtins[] = {
    {"postfix", cost_model_postfix_json},
    {"exim", cost_model_exim_json},
};

const char *cost_model_builtin(const char *mta)
{
    for (size_t i = 0; i < sizeof(builtins) / sizeof(builtins[0]); i++)
        if (strcmp(builtins[i].mta, mta) == 0)
            return builtins[i].json;
    return NULL;
}

const char *cost_model_builtin_name(const char *mta)
{
    for (size_t i = 0; i < sizeof(builtins) / sizeof(builtins[0]); i++)
        if (strcmp(builtins[i].mta, mta) == 0)
            return builtins[i].mta;
    return NULL;
}

const char *cost_model_place_name(enum cost_place place)
{
    switch (place) {
    case COST_RECEIVE:
        return "receive";
    case COST_QMGR:
        return "qmgr";
    case COST_DELIVER:
        return "deliver";
    case COST_SERIAL:
        return "serial";
    case COST_DAEMON:
        return "daemon";
    }
    return "?";
}

static int read_fit(const char *json, const char *prefix, struct cost_fit *f, char *err,
                    size_t errlen)
{
    static const struct {
        const char *key, *unit;
        double min, max;
    } terms[] = {
        {"base_us", "a message", 0, COST_BASE_US_MAX},
        {"per_kib_us", "a KiB", -COST_PER_KIB_US_MAX, COST_PER_KIB_US_MAX},
        {"per_rcpt_us", "a recipient", -COST_PER_RCPT_US_MAX, COST_PER_RCPT_US_MAX},
    };
    double *values[] = {&f->base_us, &f->per_kib_us, &f->per_rcpt_us};
    char path[96];

    for (int k = 0; k < 3; k++) {
        snprintf(path, sizeof(path), "%s.%s", prefix, terms[k].key);
        if (json_read_number(json, path, values[k]) != 0) {
            snprintf(err, errlen, "no number at %s", path);
            return -1;
        }
        /* written so that a NaN fails too */
        if (!(*values[k] >= terms[k].min && *values[k] <= terms[k].max)) {
            snprintf(err, errlen, "%s is %g: no real MTA's process costs that (%.0f to %.0f us %s)",
                     path, *values[k], terms[k].min, terms[k].max, terms[k].unit);
            return -1;
        }
    }
    return 0;
}

/* An optional count at prefix (absent: zero); -1 if present and not a count. */
static int read_count(const char *json, const char *prefix, struct cost_count *c, char *err,
                      size_t errlen)
{
    static const char *const keys[] = {"base", "per_kib", "per_rcpt"};
    double *values[] = {&c->base, &c->per_kib, &c->per_rcpt};
    char path[96];

    memset(c, 0, sizeof(*c));
    for (int k = 0; k < 3; k++) {
        snprintf(path, sizeof(path), "%s.%s", prefix, keys[k]);
        if (json_read_number(json, path, values[k]) != 0)
            continue;
        if (!(*values[k] >= 0) || *values[k] > 1e6) {
            snprintf(err, errlen, "%s is not a count of system calls", path);
            return -1;
        }
    }
    return 0;
}

/*
 * Models written before "machine" say it in measured_on only, as the
 * calibration script wrote it: "CPU MODEL, N CPUs, KERNEL".
 */
static void machine_from_measured_on(const char *text, struct cost_machine *mc)
{
    const char *kernel = strrstr_sep(text), *count;
    char head[sizeof(mc->cpu_model)];

    if (kernel == NULL)
        return;
    snprintf(mc->kernel, sizeof(mc->kernel), "%s", kernel + 2);
    snprintf(head, sizeof(head), "%.*s", (int)(kernel - text), text);
    if ((count = strrstr_sep(head)) == NULL || strstr(count, " CPUs") == NULL)
        return;
    mc->cpus = strtol(count + 2, NULL, 10);
    snprintf(mc->cpu_model, sizeof(mc->cpu_model), "%.*s", (int)(count - head), head);
}

int cost_model_parse_machine(const char *json, const char *path, struct cost_machine *mc, char *err,
                             size_t errlen)
{
    const char *dot = path && *path ? "." : "";
    double cpus, v;
    char at[96], cpu[sizeof(mc->cpu_model)];

    if (path == NULL)
        path = "";
    if (errlen)
        *err = 0;
    snprintf(at, sizeof(at), "%s%scpu_model", path, dot);
    if (json_read_string(json, at, cpu, sizeof(cpu)) != 0)
        return 0; /* an older model: measured_on it is */
    memset(mc, 0, sizeof(*mc));
    snprintf(mc->cpu_model, sizeof(mc->cpu_model), "%s", cpu);
    snprintf(at, sizeof(at), "%s%skernel", path, dot);
    json_read_string(json, at, mc->kernel, sizeof(mc->kernel));
    snprintf(at, sizeof(at), "%s%scpus", path, dot);
    if (json_read_number(json, at, &cpus) == 0 && cpus >= 0 && cpus < 1e6)
        mc->cpus = (long)cpus;
    mc->has_costs = 1;
    for (int k = 0; k < MACHINE_COST_KINDS; k++) {
        snprintf(at, sizeof(at), "%s%scosts.%s", path, dot, machine_cost_names[k]);
        if (json_read_number(json, at, &v) != 0) {
            mc->has_costs = 0; /* an identity without costs is still an identity */
            break;
        }
        if (!(v > 0) || v > 1e9) {
            snprintf(err, errlen, "%s is not a positive figure", at);
            return -1;
        }
        machine_cost_set(&mc->costs, k, v);
    }
    return 0;
}

int cost_model_parse(const char *json, struct cost_model *m, char *err, size_t errlen)
{
    char path[64];

    memset(m, 0, sizeof(*m));
    m->scale = 1.0;
    if (json_read_string(json, "mta", m->mta, sizeof(m->mta)) != 0) {
        snprintf(err, errlen, "not a cost model (no \"mta\" string)");
        return -1;
    }
    json_read_string(json, "mta_version", m->mta_version, sizeof(m->mta_version));
    json_read_string(json, "measured_on", m->measured_on, sizeof(m->measured_on));
    machine_from_measured_on(m->measured_on, &m->machine);
    if (cost_model_parse_machine(json, "machine", &m->machine, err, errlen) != 0)
        return -1;
    json_read_string(json, "date", m->date, sizeof(m->date));
    if (json_read_number(json, "reference_speed", &m->reference_speed) != 0) {
        snprintf(err, errlen, "no reference_speed");
        return -1;
    }
    if (!(m->reference_speed >= COST_SPEED_MIN && m->reference_speed <= COST_SPEED_MAX)) {
        snprintf(err, errlen,
                 "reference_speed is %g: no CPU runs the burn loop at that speed (%.0f to %.0f "
                 "iterations a microsecond)",
                 m->reference_speed, COST_SPEED_MIN, COST_SPEED_MAX);
        return -1;
    }
    for (unsigned i = 0;; i++) {
        struct cost_stage *s;

        snprintf(path, sizeof(path), "stages.%u.name", i);
        if (i == COST_MAX_STAGES) {
            char name[32];

            if (json_read_string(json, path, name, sizeof(name)) == 0) {
                snprintf(err, errlen, "more than %d stages", COST_MAX_STAGES);
                return -1;
            }
            break;
        }
        s = &m->stages[i];
        if (json_read_string(json, path, s->name, sizeof(s->name)) != 0)
            break;
        s->place = cost_model_place_of(s->name);
        s->caller = cost_model_caller_of(s->name);
        snprintf(path, sizeof(path), "stages.%u.mta", i);
        if (read_fit(json, path, &s->mta, err, errlen) != 0)
            return -1;
        snprintf(path, sizeof(path), "stages.%u.relay", i);
        if (read_fit(json, path, &s->relay, err, errlen) != 0)
            return -1;
        snprintf(path, sizeof(path), "stages.%u.syscalls", i);
        if (read_count(json, path, &s->syscalls, err, errlen) != 0)
            return -1;
        m->stage_count = i + 1;
    }
    if (m->stage_count == 0) {
        snprintf(err, errlen, "no stages");
        return -1;
    }
    return read_count(json, "relay_syscalls", &m->relay_syscalls, err, errlen);
}

double cost_model_fit_us(const struct cost_fit *f, uint64_t bytes, unsigned rcpts)
{
    double us = f->base_us + f->per_kib_us * ((double)bytes / 1024.0) +
                f->per_rcpt_us * (rcpts > 1 ? (double)(rcpts - 1) : 0.0);

    return us > 0 ? us : 0;
}

static double count_of(const struct cost_count *c, uint64_t bytes, unsigned rcpts)
{
    double n = c->base + c->per_kib * ((double)bytes / 1024.0) +
               c->per_rcpt * (rcpts > 1 ? (double)(rcpts - 1) : 0.0);

    return n > 0 ? n : 0;
}

unsigned cost_model_syscalls(const struct cost_model *m, unsigned i, uint64_t bytes, unsigned rcpts)
{
    double all = 0, relay, n;

    if (!m->machine.has_costs)
        return 0;
    for (unsigned k = 0; k < m->stage_count; k++)
        all += count_of(&m->stages[k].syscalls, bytes, rcpts);
    n = count_of(&m->stages[i].syscalls, bytes, rcpts);
    if (!(all > 0) || !(n > 0))
        return 0;
    relay = count_of(&m->relay_syscalls, bytes, rcpts);
    n *= relay < all ? 1.0 - relay / all : 0.0;
    return n < COST_SYSCALLS_MAX ? (unsigned)(n + 0.5) : COST_SYSCALLS_MAX;
}

uint64_t cost_model_burn_ns(const struct cost_model *m, unsigned i, uint64_t bytes, unsigned rcpts)
{
    const struct cost_stage *s = &m->stages[i];
    double us =
        cost_model_fit_us(&s->mta, bytes, rcpts) - cost_model_fit_us(&s->relay, bytes, rcpts);
    double ns;

    us -= cost_model_syscalls(m, i, bytes, rcpts) * m->machine.costs.syscall_ns / 1000.0;
    ns = us * m->scale * 1000.0;
    /* a huge message or scale must not reach a conversion out of uint64_t's range */
    if (!(ns > 0))
        return 0;
    return ns < (double)COST_BURN_NS_MAX ? (uint64_t)ns : COST_BURN_NS_MAX;
}

double cost_model_mta_us(const struct cost_model *m, uint64_t bytes, unsigned rcpts)
{
    double us = 0;

    for (unsigned i = 0; i < m->stage_count; i++)
        us += cost_model_fit_us(&m->stages[i].mta, bytes, rcpts);
    return us;
}

int cost_model_machine_same(const struct cost_machine *model, const struct cost_machine *here,
                            char *why, size_t len)
{
    size_t used = 0;

    if (len)
        why[0] = 0;
    if (!model->cpu_model[0])
        return -1;
    if (strcmp(model->cpu_model, here->cpu_model) != 0)
        used +=
            (size_t)snprintf(why + used, len - used, "CPU %s here, %s there",
                             here->cpu_model[0] ? here->cpu_model : "unknown", model->cpu_model);
    if (used < len && model->cpus && here->cpus && model->cpus != here->cpus)
        used += (size_t)snprintf(why + used, len - used, "%s%ld CPUs here, %ld there",
                                 used ? "; " : "", here->cpus, model->cpus);
    if (used < len && model->kernel[0] && strcmp(model->kernel, here->kernel) != 0)
        used +=
            (size_t)snprintf(why + used, len - used, "%skernel %s here, %s there", used ? "; " : "",
                             here->kernel[0] ? here->kernel : "unknown", model->kernel);
    return used == 0;
}
