/*
 * calibrate_fit - the files around a calibration's fit; see calibrate_fit.h.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "calibrate_fit.h"
#include "fileutil.h"
#include "json_read.h"
#include "machine_probe.h"
#include "model_fit.h"
#include "msg.h"
#include "optarg.h"
#include "xalloc.h"

#define MAX_ROWS 64

/* The rows of the points, by system. */
struct points {
    struct model_fit_row mta[MAX_ROWS], relay[MAX_ROWS];
    size_t mta_rows, relay_rows;
};

static long clock_ticks(void)
{
    long hz = sysconf(_SC_CLK_TCK);

    if (hz <= 0)
        msg_fatal("cannot tell the clock tick rate (sysconf _SC_CLK_TCK)");
    return hz;
}

static char *read_file(const char *path, const char *what)
{
    char *text = fileutil_read_all(path, NULL);

    if (text == NULL)
        msg_fatal("cannot read %s %s: %s", what, path, strerror(errno));
    return text;
}

static void read_points(const char *path, const char *mta, long hz, struct points *p)
{
    char *text = read_file(path, "the points"), *line, *save = NULL, err[200];
    unsigned number = 0;

    memset(p, 0, sizeof(*p));
    for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        struct model_fit_row row;

        number++;
        if (model_fit_parse_line(line, mta, hz, &row, err, sizeof(err)) != 0)
            msg_fatal("%s line %u: %s", path, number, err);
        if (strcmp(row.system, mta) == 0 && p->mta_rows < MAX_ROWS)
            p->mta[p->mta_rows++] = row;
        else if (strcmp(row.system, "relay") == 0 && p->relay_rows < MAX_ROWS)
            p->relay[p->relay_rows++] = row;
        else
            msg_fatal("%s line %u: a load of %s, neither %s nor relay (or more than %d)", path,
                      number, row.system, mta, MAX_ROWS);
    }
    free(text);
}

void calibrate_fit_machine_json(const struct cost_machine *mc, struct json_writer *w,
                                const char *key)
{
    json_begin_object(w, key);
    json_string(w, "cpu_model", mc->cpu_model);
    json_int(w, "cpus", mc->cpus);
    json_string(w, "kernel", mc->kernel);
    if (mc->has_costs)
        machine_cost_json(&mc->costs, w, "costs");
    json_end_object(w);
}

static void count_json(struct json_writer *w, const char *key, const struct cost_count *c)
{
    json_begin_object(w, key);
    json_double(w, "base", c->base);
    json_double(w, "per_kib", c->per_kib);
    json_double(w, "per_rcpt", c->per_rcpt);
    json_end_object(w);
}

static void fit_json(struct json_writer *w, const char *key, const struct cost_fit *f)
{
    json_begin_object(w, key);
    json_double(w, "base_us", f->base_us);
    json_double(w, "per_kib_us", f->per_kib_us);
    json_double(w, "per_rcpt_us", f->per_rcpt_us);
    json_end_object(w);
}

/* x rounded to one decimal, as the measurements record it (model_fit rounds the same way). */
static double tenth(double x)
{
    char buf[64];

    snprintf(buf, sizeof(buf), "%.1f", x);
    return strtod(buf, NULL);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(((const struct model_fit_cpu *)a)->name, ((const struct model_fit_cpu *)b)->name);
}

static void rows_json(struct json_writer *w, const struct model_fit_row *rows, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        struct model_fit_row sorted = rows[k];
        char kib[32];

        qsort(sorted.cpu, sorted.count, sizeof(sorted.cpu[0]), by_name);
        snprintf(kib, sizeof(kib), "%.2f", sorted.kib);
        json_begin_object(w, NULL);
        json_string(w, "system", sorted.system);
        json_double(w, "kib", strtod(kib, NULL));
        json_uint(w, "rcpts", sorted.rcpts);
        json_begin_object(w, "us_per_msg");
        for (unsigned i = 0; i < sorted.count; i++)
            if (sorted.cpu[i].us >= 0.05) /* a class that did nothing at this load */
                json_double(w, sorted.cpu[i].name, tenth(sorted.cpu[i].us));
        json_end_object(w);
        json_end_object(w);
    }
}

/* The system calls of a class (or of the relay: path "relay") in the counts, if they are there. */
static int read_count(const char *counts, const char *path, struct cost_count *c)
{
    static const char *const keys[] = {"base", "per_kib", "per_rcpt"};
    double *values[] = {&c->base, &c->per_kib, &c->per_rcpt};
    char at[96];

    for (int k = 0; k < 3; k++) {
        snprintf(at, sizeof(at), "%s.%s", path, keys[k]);
        if (json_read_number(counts, at, values[k]) != 0)
            return -1;
    }
    return 0;
}

int calibrate_fit_run(int argc, char **argv)
{
    const char *points_path, *out, *mta, *version, *roles_text, *method, *machine_path,
        *syscalls = NULL;
    struct model_fit_stage stages[COST_MAX_STAGES];
    struct model_fit_roles roles;
    struct cost_machine mc;
    struct points *p;
    struct json_writer w;
    char err[300], *machine_text, *counts = NULL, *doc = NULL, *end, date[32], path[96];
    char counted[64] = "";
    size_t doc_len = 0;
    double speed;
    int nstages;
    long hz = clock_ticks();
    time_t now = time(NULL);
    FILE *mem;

    if (argc < 9 || argc > 10)
        msg_usage("--fit takes POINTS OUT MTA VERSION ROLES METHOD SPEED MACHINE [SYSCALLS]");
    points_path = argv[1], out = argv[2], mta = argv[3], version = argv[4];
    roles_text = argv[5], method = argv[6], machine_path = argv[8];
    if (argc == 10 && *argv[9] && access(argv[9], F_OK) == 0)
        syscalls = argv[9];
    errno = 0;
    speed = strtod(argv[7], &end);
    if (end == argv[7] || *end || errno || !(speed > 0))
        msg_usage("--fit: the speed \"%s\" is not a positive number", argv[7]);
    if (model_fit_parse_roles(roles_text, &roles, err, sizeof(err)) != 0)
        msg_usage("--fit: %s", err);
    if (strcmp(out, "-") != 0)
        optarg_output_file(out, "--fit's OUT");

    p = xmalloc(sizeof(*p));
    read_points(points_path, mta, hz, p);
    if (p->mta_rows == 0)
        msg_fatal("%s has no load of %s", points_path, mta);
    if (model_fit_check_loads(p->mta, p->mta_rows, p->relay, p->relay_rows, err, sizeof(err)) != 0)
        msg_fatal("%s: %s; no model written", points_path, err);
    nstages = model_fit_stages(p->mta, p->mta_rows, p->relay, p->relay_rows, &roles, stages,
                               COST_MAX_STAGES, err, sizeof(err));
    if (nstages < 0)
        msg_fatal("%s: %s", points_path, err);
    if (nstages == 0)
        msg_fatal("%s: no class of %s spent 1 us a message: nothing to model", points_path, mta);
    memset(&mc, 0, sizeof(mc));
    machine_text = read_file(machine_path, "the machine's figures");
    if (cost_model_parse_machine(machine_text, NULL, &mc, err, sizeof(err)) != 0 ||
        mc.cpu_model[0] == 0)
        msg_fatal("%s is not what spoolsim calibrate --machine prints%s%s", machine_path,
                  *err ? ": " : "", err);
    free(machine_text);
    if (syscalls) {
        counts = read_file(syscalls, "the system call counts");
        snprintf(path, sizeof(path), "%s_version", mta);
        json_read_string(counts, path, counted, sizeof(counted));
        if (strcmp(counted, version) != 0)
            fprintf(stderr,
                    "calibrate: %s counted %s %s, this is %s: its counts are used all the same\n",
                    syscalls, mta, *counted ? counted : "(no version)", version);
    }

    if ((mem = open_memstream(&doc, &doc_len)) == NULL)
        msg_fatal("out of memory");
    json_init(&w, mem);
    json_begin_object(&w, NULL);
    json_string(&w, "mta", mta);
    json_string(&w, "mta_version", version);
    {
        struct cost_machine here;
        char on[sizeof(here.cpu_model) + sizeof(here.kernel) + 32];

        machine_probe_identity(&here);
        snprintf(on, sizeof(on), "%s, %ld CPUs, %s", *here.cpu_model ? here.cpu_model : "?",
                 here.cpus, here.kernel);
        json_string(&w, "measured_on", on);
    }
    strftime(date, sizeof(date), "%Y-%m-%d", localtime(&now));
    json_string(&w, "date", date);
    json_double(&w, "reference_speed", speed);
    calibrate_fit_machine_json(&mc, &w, "machine");
    json_string(&w, "method", method);
    json_begin_array(&w, "measurements");
    rows_json(&w, p->mta, p->mta_rows);
    rows_json(&w, p->relay, p->relay_rows);
    json_end_array(&w);
    json_begin_array(&w, "stages");
    for (int i = 0; i < nstages; i++) {
        struct cost_count c;

        json_begin_object(&w, NULL);
        json_string(&w, "name", stages[i].name);
        fit_json(&w, "mta", &stages[i].mta);
        fit_json(&w, "relay", &stages[i].relay);
        snprintf(path, sizeof(path), "classes.%.*s", (int)sizeof(stages[i].name), stages[i].name);
        if (counts && read_count(counts, path, &c) == 0)
            count_json(&w, "syscalls", &c);
        json_end_object(&w);
    }
    json_end_array(&w);
    if (counts) {
        struct cost_count c;
        char from[400];

        if (read_count(counts, "relay", &c) != 0)
            msg_fatal("%s has no relay count (relay.base, per_kib, per_rcpt)", syscalls);
        count_json(&w, "relay_syscalls", &c);
        if (json_read_string(counts, "method", from, sizeof(from)) == 0)
            json_string(&w, "syscalls_from", from);
        free(counts);
    }
    json_end_object(&w);
    if (json_finish(&w) != 0 || fclose(mem) != 0)
        msg_fatal("cannot write the model: %s", strerror(errno));
    free(p);
    /* a fit the relay would refuse (a cost past its bounds, cost_model.h) is no model to keep */
    {
        struct cost_model check;

        if (cost_model_parse(doc, &check, err, sizeof(err)) != 0)
            msg_fatal("%s: the fit is no model the relay takes (%s); no model written", points_path,
                      err);
    }

    /* whole, so that a full disk or an interrupt leaves no half model where the relay looks */
    if (fileutil_write_output(out, doc, doc_len) != 0)
        msg_fatal("cannot write %s: %s", strcmp(out, "-") == 0 ? "the model" : out,
                  strerror(errno));
    if (strcmp(out, "-") != 0)
        fprintf(stderr, "calibrate: wrote %s\n", out);
    free(doc);
    return 0;
}

/*
 * What a relay running a model burned on a role's threads, in seconds: the
 * receiving side's, the deliveries' and the daemons its callers wait for
 * on the cleanup (and smtpd) threads, the queue manager's on its thread
 * (the default single queue manager); 0 without a model.
 */
static double burned_on(const char *text, const char *role)
{
    static const char *const cleanup[] = {"receive", "deliver", "serial", NULL};
    static const char *const qmgr[] = {"qmgr", NULL};
    const char *const *places = strcmp(role, "cleanup") == 0 ? cleanup
                                : strcmp(role, "qmgr") == 0  ? qmgr
                                                             : NULL;
    double total = 0, s;
    char path[96];

    for (size_t i = 0; places && places[i]; i++) {
        snprintf(path, sizeof(path), "model.spent_cpu_s.%s", places[i]);
        if (json_read_number(text, path, &s) == 0)
            total += s;
    }
    return total;
}

int calibrate_fit_relay_cpu(int argc, char **argv)
{
    struct json_members it;
    char *text, role[64], value[64];
    size_t off, len;
    long hz = clock_ticks();
    int got, any = 0;

    if (argc != 2)
        msg_usage("--relay-cpu takes the relay's --json report");
    text = read_file(argv[1], "the relay's report");
    if (json_read_members_begin(&it, text, "cpu_s") != 0)
        msg_fatal("%s has no object cpu_s (not a whole report of spoolsim relay --json)", argv[1]);
    while ((got = json_read_members_next(&it, role, sizeof(role), &off, &len)) != -1) {
        double s;

        snprintf(value, sizeof(value), "%.*s", (int)len, text + off);
        if (got == 0 || strchr(role, ' ') || json_read_number(value, NULL, &s) != 0)
            msg_fatal("%s: cpu_s.%s is not a role's seconds", argv[1], role);
        if (strcmp(role, "daemons") == 0)
            continue; /* a model's own threads, all burn: no role of the bare relay */
        /* a relay that ran a model: its own CPU is what its threads spent beyond the burns */
        s -= burned_on(text, role);
        printf("%s%s %.17g", any++ ? " " : "", role, s * (double)hz);
    }
    printf("\n");
    free(text);
    return fflush(stdout) != 0 || ferror(stdout) ? 1 : 0;
}
