/*
 * relay_model - the relay spends a real MTA's CPU where the MTA spends it.
 *
 * With --model, every message costs the relay what it costs the MTA's
 * processes (cost_model.h), on the thread that plays each process:
 * smtpd's and cleanup's share on a cleanup thread before the 250 (many at
 * once, as Postfix runs many), the queue manager's on the qmgr thread
 * around its moves (one at a time, in order), smtp's on the delivery
 * agent's job (many at once). A single-process daemon that its callers
 * wait for (trivial-rewrite for cleanup, scache for smtp) is spent by the
 * caller under the daemon's own lock, one message at a time; one that
 * nobody waits for (master, postlogd) on a thread of its own, behind the
 * messages, so that its work competes for the CPU without holding up a
 * reply. Exim's receiving process is spent as smtpd and cleanup are, its
 * delivery process as smtp, its daemon as a single-process daemon that
 * the connection waits for.
 * What the bare relay already spends in a role is not spent twice.
 *
 * relay_model_spend() is called from pool threads; the totals it keeps are
 * atomic. Nothing here knows which filesystem is under test.
 */
#ifndef SPOOLSIM_RELAY_MODEL_H
#define SPOOLSIM_RELAY_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "cost_model.h"
#include "json.h"

struct relay_model;

/*
 * "none" (NULL model, 0), "postfix" or "exim" (the model calibrated on this
 * machine if the cache has one, model_cache.h; else the built-in model) or
 * a model file. -1 and a message for a file that cannot be read or is not a model.
 * A model measured on another machine opens, with a warning (below); `self'
 * is this program, which the check of the machine's costs runs (see
 * machine_probe.h).
 */
int relay_model_open(const char *spec, const char *self, struct relay_model **out, char *err,
                     size_t errlen);

/*
 * What a dry run can know of --model spec with --profile profile without
 * opening it for a run (no cache, no measuring of this machine): that it
 * is none, built in or a model file that parses within the bounds, and
 * that it goes with the profile, whose MTA is mta (relay_model_fits()). 0, or -1 and, in
 * err, what is wrong, in the words relay_model_open() uses.
 */
int relay_model_check(const char *spec, const char *profile, const char *mta, char *err,
                      size_t errlen);

/*
 * Why the model's rates may not be this machine's (measured elsewhere,
 * what differs, how far this machine's costs are from the model's, how to
 * calibrate here), or NULL when it was measured on this machine.
 */
const char *relay_model_warning(const struct relay_model *rm);

/*
 * The model a profile runs with by default: the built-in one of its MTA
 * (the profile's `mta', profile.h; NULL for none), else "none".
 */
const char *relay_model_default(const char *mta);

/*
 * Does the model go with the profile: a model of the MTA whose spool the
 * profile is ("exim" with exim and exim-4.98)? 1 (also without a model),
 * or 0 and, in why, what does not fit. `mta' is the profile's (NULL: none).
 */
int relay_model_fits(const struct relay_model *rm, const char *profile, const char *mta, char *why,
                     size_t len);

/*
 * The CPU time of the model's own threads, the single-process daemons that
 * no message waits for (master, postlogd: cost_model.h's COST_DAEMON),
 * which spend behind the messages what each left them. 0 without a model.
 */
uint64_t relay_model_daemons_cpu_ns(const struct relay_model *rm);

/* Where the model came from: "built-in", "calibrated on this machine, PATH" or its file. */
const char *relay_model_origin(const struct relay_model *rm);
void relay_model_free(struct relay_model *rm);

/* Spend the stages of `place' for a message of `bytes' bytes and `rcpts' recipients. */
void relay_model_spend(struct relay_model *rm, enum cost_place place, uint64_t bytes,
                       unsigned rcpts);

/*
 * smtpd's CPU (Exim's receive's) is spent command by command, as Postfix's smtpd spends it,
 * each reply waiting for its share: the greeting, EHLO, MAIL, the first
 * RCPT and DATA each take a sixth of smtpd's base cost (the last sixth and
 * the per-KiB cost go with the rest of the receiving side, at the end of
 * data), every further RCPT its per-recipient cost. 0 without a model.
 */
uint64_t relay_model_command_ns(const struct relay_model *rm, int extra_rcpt);

/*
 * The relay stops: every burn under way ends within microseconds, and
 * every later one at once, so that a model's cost (seconds a message at
 * most, cost_model.h, but scaled) never holds a stop. Any thread.
 */
void relay_model_stop(struct relay_model *rm);

/* Spend `ns' on this thread as smtpd's (from a pool thread). */
void relay_model_burn_command(struct relay_model *rm, uint64_t ns);

/* One line for the summary: which model, from where, how scaled; "none" without one. */
void relay_model_describe(const struct relay_model *rm, char *buf, size_t len);

/* The "model" object of the JSON summary: origin, scale, CPU spent per place. */
void relay_model_json(const struct relay_model *rm, struct json_writer *w);

#endif
