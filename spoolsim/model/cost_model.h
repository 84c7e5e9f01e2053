/*
 * cost_model - the CPU a real MTA spends per message, by process (no I/O).
 *
 * spoolsim's relay does a real MTA's file operations, but by itself spends
 * far less CPU than the MTA's processes do, so on a disk that leaves CPU to
 * spare it would report rates no real MTA reaches. A cost model, measured
 * from a real MTA (`spoolsim calibrate', docs/fidelity.md), says for each of
 * the MTA's process classes ("stages": smtpd, cleanup, qmgr, ...) how much
 * CPU one message costs it, and how much the bare relay already spends in
 * the same role, each as a + b * KiB + c * (recipients - 1) microseconds. The
 * relay spends the difference as real work (cpu_burn.h) where the MTA
 * spends it (cost_place below).
 *
 * A model is read from a JSON text (the format is in docs/fidelity.md) and
 * carries the reference speed of the CPU it was measured on; the caller sets
 * `scale' to that speed over this machine's, so a faster CPU burns less.
 *
 * Part of the difference is done rather than burned: the system calls the
 * MTA's class makes per message beyond the relay's own ("syscalls", counted
 * from the real daemons), entered for real, so that what entering the
 * kernel costs on this machine is what they cost; the burn is what is left
 * once they are priced at the model's machine's system call cost.
 */
#ifndef SPOOLSIM_COST_MODEL_H
#define SPOOLSIM_COST_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "machine_cost.h"

#define COST_MAX_STAGES 16

/*
 * Where a stage's CPU is spent in the relay, after the MTA's process model:
 * Postfix's classes, and Exim's (receive: the process forked per
 * connection; delivery: the one forked per message; daemon: the listener).
 */
enum cost_place {
    COST_RECEIVE, /* many in parallel before the 250 (smtpd, cleanup; receive): cleanup threads */
    COST_QMGR,    /* the one queue manager, between its file operations: qmgr thread */
    COST_DELIVER, /* many in parallel per delivery (smtp; delivery): delivery threads */
    /* one process for everybody, which its callers wait for (trivial-rewrite, scache; Exim's
     * daemon): one message at a time, on the side that calls it (cost_model_caller_of) */
    COST_SERIAL,
    /* one process for everybody, which nobody waits for (master, postlogd): its own thread,
     * behind the messages */
    COST_DAEMON,
};

/*
 * What one process class of a real MTA could cost, at most: a model
 * outside these bounds is refused, so that a mistaken or hostile file
 * cannot make the relay burn for hours a message (or convert a cost of
 * 1e300 us to nanoseconds). Postfix's dearest class costs 0.6 ms a
 * message, 9 us a KiB and 123 us a recipient, Exim's 13 ms a message, on
 * the machines docs/fidelity.md names; each bound is 50 times or more
 * that. A fit's slopes may be negative (a least-squares fit over few
 * loads), by as much.
 */
#define COST_BASE_US_MAX 1e6     /* 1 s a message */
#define COST_PER_KIB_US_MAX 1e3  /* 1 ms a KiB: 1 s a MiB */
#define COST_PER_RCPT_US_MAX 1e4 /* 10 ms a recipient */
/*
 * cpu_burn_speed()'s figure, iterations a microsecond: 400 on a 2.8 GHz
 * Xeon, 530 on an AMD EPYC; a machine 400 times slower or 250 times
 * faster than these is no machine a model was measured on.
 */
#define COST_SPEED_MIN 1.0
#define COST_SPEED_MAX 1e5

/* Microseconds of CPU for one message: base + per_kib * KiB + per_rcpt * (recipients - 1). */
struct cost_fit {
    double base_us, per_kib_us, per_rcpt_us;
};

/* System calls for one message: base + per_kib * KiB + per_rcpt * (recipients - 1). */
struct cost_count {
    double base, per_kib, per_rcpt;
};

struct cost_stage {
    char name[32];
    enum cost_place place;
    enum cost_place caller;     /* a single-process stage's: cost_model_caller_of() */
    struct cost_fit mta;        /* the real MTA's process class */
    struct cost_fit relay;      /* the bare relay, in the same role (0 where it has none) */
    struct cost_count syscalls; /* the class's system calls; 0 where the model has none */
};

/*
 * The machine a model was measured on. A model's costs are that machine's:
 * on another, its rates can be off by a factor of 3 (docs/fidelity.md).
 */
struct cost_machine {
    char cpu_model[160]; /* /proc/cpuinfo's model name */
    long cpus;           /* online CPUs; 0 if unknown */
    char kernel[96];     /* "Linux 6.1.0-18-amd64" */
    int has_costs;       /* costs were recorded (models before them have none) */
    struct machine_cost costs;
};

struct cost_model {
    char mta[32];                /* "postfix" */
    char mta_version[32];        /* "3.7.11" */
    char measured_on[160];       /* the CPU model and core count of the calibration host */
    struct cost_machine machine; /* "machine", or what measured_on says */
    char date[32];
    double reference_speed; /* cpu_burn_speed() of the calibration host */
    double scale;           /* set by the caller: reference_speed / this host's speed */
    unsigned stage_count;
    struct cost_stage stages[COST_MAX_STAGES];
    struct cost_count relay_syscalls; /* the bare relay's, all roles together */
};

/* Where a stage of this name runs: known Postfix and Exim names, else COST_SERIAL. */
enum cost_place cost_model_place_of(const char *stage);

/*
 * The side a single-process stage (COST_SERIAL, COST_DAEMON) is paid for on: the receiving
 * side's (COST_RECEIVE), or the delivery's for Postfix's scache, which the smtp processes call.
 */
enum cost_place cost_model_caller_of(const char *stage);

/*
 * The stage whose CPU the SMTP server spends command by command, each reply
 * waiting for its share (Postfix's smtpd, Exim's receive), or -1.
 */
int cost_model_session_stage(const struct cost_model *m);
const char *cost_model_place_name(enum cost_place place);

/*
 * 0, or -1 with a message naming what is wrong (missing field, a cost
 * or speed outside its bounds above, with the bound, ...).
 */
int cost_model_parse(const char *json, struct cost_model *m, char *err, size_t errlen);

/*
 * The machine at path in json ("machine" in a model; NULL or "" for the
 * top level, as `spoolsim calibrate --machine' prints it) into mc: 0 with
 * mc untouched when it names no cpu_model; -1 with the reason in err when
 * a figure of its costs is not a positive number.
 */
int cost_model_parse_machine(const char *json, const char *path, struct cost_machine *mc, char *err,
                             size_t errlen);

/*
 * Is `here' the machine the model was measured on: the same CPU model, CPU
 * count and kernel? 1, or 0 and, in why, what differs ("CPU AMD EPYC here,
 * Intel(R) Xeon(R) Processor there; kernel ..."). -1 when the model does
 * not say where it was measured.
 */
int cost_model_machine_same(const struct cost_machine *model, const struct cost_machine *here,
                            char *why, size_t len);

/* CPU microseconds of one fit for a message of `bytes' and `rcpts' recipients. */
double cost_model_fit_us(const struct cost_fit *f, uint64_t bytes, unsigned rcpts);

/*
 * The system calls stage `i' makes for real for this message: the class's
 * count less its share of the relay's own (the relay's total in proportion
 * to the classes'), at most COST_SYSCALLS_MAX. 0 when the model records no
 * system call cost to price them with (they would then be spent twice).
 */
#define COST_SYSCALLS_MAX 100000000U /* whatever the message's size: within unsigned's range */
unsigned cost_model_syscalls(const struct cost_model *m, unsigned i, uint64_t bytes,
                             unsigned rcpts);

/*
 * What stage `i' must burn for this message: (mta - relay - its system calls
 * at the model's machine's price) * scale, never below 0, and never more
 * than COST_BURN_NS_MAX (whatever the message's size or the scale).
 */
#define COST_BURN_NS_MAX 3600000000000ULL /* an hour: still far beyond any real message */
uint64_t cost_model_burn_ns(const struct cost_model *m, unsigned i, uint64_t bytes, unsigned rcpts);

/* The sum of the real MTA's stages for one message, unscaled: its CPU per message. */
double cost_model_mta_us(const struct cost_model *m, uint64_t bytes, unsigned rcpts);

/* The models shipped with spoolsim (measured on the machines docs/fidelity.md names). */
extern const char cost_model_postfix_json[];
extern const char cost_model_exim_json[];

/* The shipped model of this MTA ("postfix", "exim"), or NULL when there is none. */
const char *cost_model_builtin(const char *mta);

/* The same MTA's name as a constant string ("exim"), for a name known to cost_model_builtin(). */
const char *cost_model_builtin_name(const char *mta);

#endif
