/*
 * relay_model - spend a real MTA's CPU where it spends it; see relay_model.h.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "cpu_burn.h"
#include "fileutil.h"
#include "machine_probe.h"
#include "model_cache.h"
#include "msg.h"
#include "relay_model.h"
#include "xalloc.h"

#define PLACES (COST_DAEMON + 1)

/*
 * A process nobody waits for (COST_DAEMON): a thread of its own that
 * spends, one after the other, what the messages left it. Its owed work
 * is a sum, since no message waits for its share to be done.
 */
struct model_daemon {
    struct relay_model *rm;
    unsigned stage;
    pthread_t thread;
    int started;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    uint64_t owed_ns;        /* under lock */
    uint64_t owed_calls;     /* under lock */
    int quit;                /* under lock */
    _Atomic uint64_t cpu_ns; /* the thread's CPU clock, at its last burn and at its end */
};

struct relay_model {
    struct cost_model model;
    char origin[4200]; /* "built-in", "calibrated here, PATH" or the file's path */
    double here_speed; /* cpu_burn_speed() on this machine */
    struct cost_machine here;
    int same_machine;   /* cost_model_machine_same(): 1, 0, or -1 when the model does not say */
    char warning[1200]; /* why its rates may not be this machine's; "" when they are */
    pthread_mutex_t serial[COST_MAX_STAGES];
    /* how long messages waited for each single-process daemon: where its one process queues */
    _Atomic uint64_t serial_wait_ns[COST_MAX_STAGES];
    struct model_daemon daemons[COST_MAX_STAGES]; /* started for the COST_DAEMON stages */
    _Atomic uint64_t spent_ns[PLACES];
    _Atomic uint64_t messages[PLACES];
    _Atomic uint64_t syscalls; /* made for real: cost_model_syscalls() */
    atomic_int stopping;       /* relay_model_stop(): every burn ends at its next look */
};

static void not_taken(const char *path, const char *why)
{
    msg_warn("not taking the cached model %s (going on as if it were not there): %s", path, why);
}

/*
 * The model in the cache file at path, if it may be taken (model_cache.h),
 * parses and was measured here: 1 (and the model in rm), else 0. What
 * cannot be taken is said once, and the run goes on as if it were not
 * there.
 */
static int open_cached_file(struct relay_model *rm, const char *path, int system)
{
    char err[300], why[2];
    char *text;
    int fd, ok;

    if ((fd = model_cache_open(path, system, err, sizeof(err))) < 0) {
        if (err[0])
            not_taken(path, err);
        return 0;
    }
    text = fileutil_read_fd(fd, MODEL_CACHE_FILE_MAX, NULL);
    if (text == NULL)
        not_taken(path,
                  errno == EFBIG ? "it grew past a model's size as it was read" : strerror(errno));
    close(fd);
    if (text == NULL)
        return 0;
    if (cost_model_parse(text, &rm->model, err, sizeof(err)) != 0) {
        not_taken(path, err);
        free(text);
        return 0;
    }
    free(text);
    /* another machine's file under this machine's name is not taken (its costs: below) */
    ok = cost_model_machine_same(&rm->model.machine, &rm->here, why, sizeof(why)) == 1;
    if (ok)
        snprintf(rm->origin, sizeof(rm->origin), "calibrated on this machine, %s", path);
    return ok;
}

/* This machine's own model from the user's cache, else from the machine's: 1, else 0. */
static int open_cached(struct relay_model *rm, const char *mta)
{
    char own[4096], machine[4096], path[4096];
    int have_own = model_cache_dir(own, sizeof(own)) == 0;

    model_cache_system_dir(machine, sizeof(machine));
    if (have_own && model_cache_file(own, mta, &rm->here, path, sizeof(path)) == 0 &&
        open_cached_file(rm, path, strcmp(own, machine) == 0))
        return 1;
    if (have_own && strcmp(own, machine) == 0)
        return 0;
    return model_cache_file(machine, mta, &rm->here, path, sizeof(path)) == 0 &&
           open_cached_file(rm, path, 1);
}

/*
 * Is the model this machine's? Its identity must be this machine's, and
 * so must its costs: two VMs with the same CPU model name and kernel were
 * seen to differ by a factor of 2 in Postfix's CPU per message, and by as
 * much in process round trips (docs/fidelity.md). A model that records no
 * costs cannot be checked, and is not taken for this machine's. Sets
 * same_machine, and the warning that says why not and what to do.
 */
static void check_machine(struct relay_model *rm, const char *self)
{
    char why[600] = "", dir[4096] = "", costs[300] = "", err[200];
    struct machine_cost here_costs;
    const struct cost_machine *there = &rm->model.machine;
    int measured = 0;

    rm->same_machine = cost_model_machine_same(there, &rm->here, why, sizeof(why));
    if (rm->same_machine >= 0 && there->has_costs) {
        measured = machine_probe_costs(self, &here_costs, err, sizeof(err)) == 0;
    }
    /*
     * A busy moment can make this machine look dearer: probe again before
     * saying it is not. A probe that fails leaves the figures it had, which
     * disagree, so that a failure never turns a verdict into "the same".
     */
    for (int more = 1; rm->same_machine == 1 && measured && more < MACHINE_CHECK_ROUNDS &&
                       !machine_cost_agree(&here_costs, &there->costs, NULL, 0);
         more++)
        if (machine_probe_costs_more(self, 1, &here_costs, err, sizeof(err)) != 0)
            break;
    if (rm->same_machine == 1) {
        if (!there->has_costs) {
            rm->same_machine = 0;
            snprintf(why, sizeof(why), "it records no costs to check this machine against");
        } else if (measured &&
                   !machine_cost_agree(&here_costs, &there->costs, costs, sizeof(costs))) {
            rm->same_machine = 0;
            snprintf(why, sizeof(why),
                     "the same CPU and kernel, but system work costs differ: here against "
                     "there %s",
                     costs);
        }
        if (rm->same_machine == 1)
            return;
        costs[0] = 0;
    } else if (measured) {
        machine_cost_compare(&here_costs, &there->costs, costs, sizeof(costs));
    }
    /* a calibration needs root, whose model every user's runs then read */
    if (model_cache_home(0, dir, sizeof(dir), NULL) != 0)
        snprintf(dir, sizeof(dir), "the cache directory");
    snprintf(rm->warning, sizeof(rm->warning),
             "the model was not measured on this machine (%s)%s%s: its rates can be off by a "
             "factor of 2 to 5 here (docs/fidelity.md); calibrate here%s with `spoolsim "
             "calibrate %s' (about a minute, kept in %s and used from then on)",
             rm->same_machine < 0 ? "it does not say where it was measured" : why,
             costs[0] ? "; system work here against there: " : "", costs,
             geteuid() == 0 ? "" : " as root", rm->model.mta, dir);
}

/* A model file's text (a FIFO or /dev/stdin is the user's choice; a read without end is not). */
static char *read_model_file(const char *spec, char *err, size_t errlen)
{
    int fd = open(spec, O_RDONLY | O_CLOEXEC);
    char *text = fd >= 0 ? fileutil_read_fd(fd, MODEL_CACHE_FILE_MAX, NULL) : NULL;

    if (text == NULL)
        snprintf(err, errlen, "cannot read the model %s: %s", spec,
                 errno == EFBIG ? "more than a model's 1 MiB" : strerror(errno));
    if (fd >= 0)
        close(fd);
    return text;
}

static void enter_kernel(unsigned calls, const atomic_int *stop);

static void *daemon_main(void *arg)
{
    struct model_daemon *d = arg;
    struct relay_model *rm = d->rm;

    for (;;) {
        uint64_t ns, calls, start;

        pthread_mutex_lock(&d->lock);
        while (d->owed_ns == 0 && d->owed_calls == 0 && !d->quit)
            pthread_cond_wait(&d->wake, &d->lock);
        ns = d->owed_ns;
        calls = d->owed_calls;
        d->owed_ns = d->owed_calls = 0;
        pthread_mutex_unlock(&d->lock);
        if (ns == 0 && calls == 0) /* told to quit, with nothing owed */
            break;
        start = cpu_burn_thread_ns();
        enter_kernel((unsigned)(calls > UINT32_MAX ? UINT32_MAX : calls), &rm->stopping);
        cpu_burn_until(cpu_burn_thread_ns() + ns, rm->here_speed, &rm->stopping);
        atomic_fetch_add(&rm->spent_ns[COST_DAEMON], cpu_burn_thread_ns() - start);
        atomic_fetch_add(&rm->syscalls, calls);
        atomic_store(&d->cpu_ns, cpu_burn_thread_ns());
        if (atomic_load(&rm->stopping))
            break; /* what is still owed is not spent by a stopping relay */
    }
    atomic_store(&d->cpu_ns, cpu_burn_thread_ns());
    return NULL;
}

/* The daemons' threads, with every signal blocked: the program's own threads take them. */
static int start_daemons(struct relay_model *rm, char *err, size_t errlen)
{
    sigset_t all, old;
    int e = 0;

    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    for (unsigned i = 0; i < rm->model.stage_count && e == 0; i++) {
        struct model_daemon *d = &rm->daemons[i];

        if (rm->model.stages[i].place != COST_DAEMON)
            continue;
        d->rm = rm;
        d->stage = i;
        pthread_mutex_init(&d->lock, NULL);
        pthread_cond_init(&d->wake, NULL);
        if ((e = pthread_create(&d->thread, NULL, daemon_main, d)) == 0) {
            char name[16]; /* the daemon's, as the pools are named (top -H, /proc/PID/task) */

            snprintf(name, sizeof(name), "%s", rm->model.stages[i].name);
            pthread_setname_np(d->thread, name);
            d->started = 1;
        } else
            snprintf(err, errlen, "cannot start the model's %s thread: %s",
                     rm->model.stages[i].name, strerror(e));
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return e == 0 ? 0 : -1;
}

static void stop_daemons(struct relay_model *rm)
{
    for (unsigned i = 0; i < rm->model.stage_count; i++) {
        struct model_daemon *d = &rm->daemons[i];

        if (!d->started)
            continue;
        pthread_mutex_lock(&d->lock);
        d->quit = 1;
        pthread_cond_signal(&d->wake);
        pthread_mutex_unlock(&d->lock);
        pthread_join(d->thread, NULL);
        d->started = 0;
        pthread_mutex_destroy(&d->lock);
        pthread_cond_destroy(&d->wake);
    }
}

/* Leave a daemon its share of a message: it spends it when it comes to it. */
static void owe_daemon(struct model_daemon *d, uint64_t ns, unsigned calls)
{
    pthread_mutex_lock(&d->lock);
    d->owed_ns += ns;
    d->owed_calls += calls;
    pthread_cond_signal(&d->wake);
    pthread_mutex_unlock(&d->lock);
}

uint64_t relay_model_daemons_cpu_ns(const struct relay_model *rm)
{
    uint64_t total = 0;

    for (unsigned i = 0; rm && i < rm->model.stage_count; i++) {
        const struct model_daemon *d = &rm->daemons[i];
        clockid_t clock;
        struct timespec ts;

        if (d->started && pthread_getcpuclockid(d->thread, &clock) == 0 &&
            clock_gettime(clock, &ts) == 0)
            total += (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
        else
            total += atomic_load(&d->cpu_ns);
    }
    return total;
}

int relay_model_open(const char *spec, const char *self, struct relay_model **out, char *err,
                     size_t errlen)
{
    struct relay_model *rm;
    char *text = NULL;
    const char *json = cost_model_builtin(spec);
    int builtin = json != NULL;

    *out = NULL;
    if (strcmp(spec, "none") == 0)
        return 0;
    if (!builtin && (json = text = read_model_file(spec, err, errlen)) == NULL)
        return -1;
    rm = xcalloc(1, sizeof(*rm));
    machine_probe_identity(&rm->here);
    if (!(builtin && open_cached(rm, spec))) {
        if (cost_model_parse(json, &rm->model, err, errlen) != 0) {
            char why[200];

            snprintf(why, sizeof(why), "%s", err);
            snprintf(err, errlen, "%s: %s", text ? spec : "the built-in model", why);
            free(text);
            free(rm);
            return -1;
        }
        snprintf(rm->origin, sizeof(rm->origin), "%s", builtin ? "built-in" : spec);
    }
    free(text);
    check_machine(rm, self);
    rm->here_speed = cpu_burn_speed();
    rm->model.scale = rm->model.reference_speed / rm->here_speed;
    for (unsigned i = 0; i < rm->model.stage_count; i++)
        pthread_mutex_init(&rm->serial[i], NULL);
    if (start_daemons(rm, err, errlen) != 0) {
        relay_model_free(rm);
        return -1;
    }
    *out = rm;
    return 0;
}

int relay_model_check(const char *spec, const char *profile, const char *mta, char *err,
                      size_t errlen)
{
    struct relay_model *rm;
    const char *json = cost_model_builtin(spec);
    char *text = NULL, why[300];
    int ok;

    if (strcmp(spec, "none") == 0)
        return 0;
    if (json == NULL && (json = text = read_model_file(spec, err, errlen)) == NULL)
        return -1;
    rm = xcalloc(1, sizeof(*rm));
    err[0] = 0;
    if (cost_model_parse(json, &rm->model, why, sizeof(why)) != 0)
        snprintf(err, errlen, "%s: %s", text ? spec : "the built-in model", why);
    else if (!relay_model_fits(rm, profile, mta, why, sizeof(why)))
        snprintf(err, errlen, "%s: %s", spec, why);
    ok = err[0] == 0;
    free(text);
    free(rm);
    return ok ? 0 : -1;
}

const char *relay_model_warning(const struct relay_model *rm)
{
    return rm && rm->warning[0] ? rm->warning : NULL;
}

const char *relay_model_default(const char *mta)
{
    return mta && cost_model_builtin(mta) ? cost_model_builtin_name(mta) : "none";
}

int relay_model_fits(const struct relay_model *rm, const char *profile, const char *mta, char *why,
                     size_t len)
{
    if (rm == NULL)
        return 1;
    if (mta && strcmp(mta, rm->model.mta) == 0)
        return 1;
    snprintf(why, len, "it is a model of %s's CPU, which goes with --profile %s, not --profile %s",
             rm->model.mta, rm->model.mta, profile);
    return 0;
}

const char *relay_model_origin(const struct relay_model *rm)
{
    return rm ? rm->origin : "none";
}

void relay_model_free(struct relay_model *rm)
{
    if (rm == NULL)
        return;
    atomic_store(&rm->stopping, 1);
    stop_daemons(rm);
    for (unsigned i = 0; i < rm->model.stage_count; i++)
        pthread_mutex_destroy(&rm->serial[i]);
    free(rm);
}

#define SMTPD_STEPS 6 /* greeting, EHLO, MAIL, first RCPT, DATA, end of data */

/* smtpd's burn for a message of no bytes: what its commands share (its system calls come last). */
uint64_t relay_model_command_ns(const struct relay_model *rm, int extra_rcpt)
{
    uint64_t one, two;
    int i;

    if (rm == NULL || (i = cost_model_session_stage(&rm->model)) < 0)
        return 0;
    one = cost_model_burn_ns(&rm->model, (unsigned)i, 0, 1);
    if (!extra_rcpt)
        return one / SMTPD_STEPS;
    two = cost_model_burn_ns(&rm->model, (unsigned)i, 0, 2);
    return two > one ? two - one : 0;
}

void relay_model_stop(struct relay_model *rm)
{
    if (rm)
        atomic_store(&rm->stopping, 1);
}

void relay_model_burn_command(struct relay_model *rm, uint64_t ns)
{
    uint64_t start = cpu_burn_thread_ns();

    cpu_burn_until(start + ns, rm->here_speed, &rm->stopping);
    atomic_fetch_add(&rm->spent_ns[COST_RECEIVE], cpu_burn_thread_ns() - start);
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

/*
 * The class's system calls, made: the simplest call there is (the one
 * machine_probe prices), since what is measured from machine to machine is
 * the price of entering and leaving the kernel, which mitigations, the
 * hypervisor and the CPU set, and which an integer loop does not feel.
 */
static void enter_kernel(unsigned calls, const atomic_int *stop)
{
    for (unsigned c = 0; c < calls; c++) {
        if (c % 1024 == 0 && atomic_load_explicit(stop, memory_order_relaxed))
            return; /* a stopping relay is not held by a million calls either */
        (void)getppid();
    }
}

void relay_model_spend(struct relay_model *rm, enum cost_place place, uint64_t bytes,
                       unsigned rcpts)
{
    const struct cost_model *m;
    uint64_t start, end;

    if (rm == NULL)
        return;
    m = &rm->model;
    start = end = cpu_burn_thread_ns();
    for (unsigned i = 0; i < m->stage_count; i++) {
        uint64_t ns;
        unsigned calls;
        enum cost_place at = m->stages[i].place;
        int serial = at == COST_SERIAL;

        /* A single-process daemon is paid for on the side that calls it. */
        if ((serial || at == COST_DAEMON) ? m->stages[i].caller != place : at != place)
            continue;
        ns = (int)i == cost_model_session_stage(m) ? smtpd_rest_ns(rm, i, bytes, rcpts)
                                                   : cost_model_burn_ns(m, i, bytes, rcpts);
        calls = cost_model_syscalls(m, i, bytes, rcpts);
        if (ns == 0 && calls == 0)
            continue;
        if (at == COST_DAEMON) {
            owe_daemon(&rm->daemons[i], ns, calls);
            continue;
        }
        if (serial) {
            uint64_t asked = clock_now_ns();

            pthread_mutex_lock(&rm->serial[i]);
            atomic_fetch_add(&rm->serial_wait_ns[i], clock_now_ns() - asked);
        }
        /* the calls cost what they cost here; the burns run to one end (cpu_burn.h) */
        if (calls > 0) {
            uint64_t before = cpu_burn_thread_ns();

            enter_kernel(calls, &rm->stopping);
            end += cpu_burn_thread_ns() - before;
        }
        end += ns;
        cpu_burn_until(end, rm->here_speed, &rm->stopping);
        if (serial)
            pthread_mutex_unlock(&rm->serial[i]);
        atomic_fetch_add(&rm->syscalls, calls);
    }
    atomic_fetch_add(&rm->spent_ns[place], cpu_burn_thread_ns() - start);
    atomic_fetch_add(&rm->messages[place], 1);
}

static unsigned model_syscalls(const struct cost_model *m, uint64_t bytes, unsigned rcpts)
{
    unsigned n = 0;

    for (unsigned i = 0; i < m->stage_count; i++)
        n += cost_model_syscalls(m, i, bytes, rcpts);
    return n;
}

void relay_model_describe(const struct relay_model *rm, char *buf, size_t len)
{
    const struct cost_model *m;
    char made[64] = "";
    unsigned calls;

    if (rm == NULL) {
        snprintf(buf, len, "none (the bare relay: what the spool alone allows)");
        return;
    }
    m = &rm->model;
    calls = model_syscalls(m, 1024, 1);
    if (calls)
        snprintf(made, sizeof(made), " (%u system calls of it made for real)", calls);
    snprintf(buf, len, "%s %s (%s, measured on %s, %s), %.0f us per 1 KiB message%s%s", m->mta,
             m->mta_version, rm->origin, m->measured_on[0] ? m->measured_on : "?",
             m->date[0] ? m->date : "?", cost_model_mta_us(m, 1024, 1), made,
             rm->same_machine == 1 ? "; this machine"
                                   : "; NOT THIS MACHINE: its rates may not be this machine's");
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
    json_bool(w, "this_machine", rm->same_machine == 1);
    if (rm->warning[0])
        json_string(w, "warning", rm->warning);
    json_double(w, "mta_us_per_1kib_message", cost_model_mta_us(m, 1024, 1));
    json_uint(w, "syscalls_per_1kib_message", model_syscalls(m, 1024, 1));
    json_uint(w, "syscalls_made", atomic_load(&rm->syscalls));
    json_begin_object(w, "spent_cpu_s");
    for (int p = 0; p < PLACES; p++)
        json_double(w, cost_model_place_name((enum cost_place)p), (double)rm->spent_ns[p] / 1e9);
    json_end_object(w);
    json_begin_object(w, "serial_wait_s");
    for (unsigned i = 0; i < m->stage_count; i++)
        if (m->stages[i].place == COST_SERIAL)
            json_double(w, m->stages[i].name, (double)atomic_load(&rm->serial_wait_ns[i]) / 1e9);
    json_end_object(w);
    json_end_object(w);
}
