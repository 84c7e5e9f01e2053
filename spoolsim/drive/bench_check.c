/*
 * bench_check - what bench checks before anything starts; see bench_check.h.
 */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "bench_check.h"
#include "bench_mta.h"
#include "cost_model.h"
#include "drive.h"
#include "fileutil.h"
#include "msg.h"
#include "optarg.h"
#include "optgroup.h"
#include "profile.h"

int bench_check_relay_args(const struct bench_options *o, char *argv[], int n)
{
    n = drive_arg_if_set(argv, n, "--sync", o->sync);
    argv[n++] = "--qmgr";
    argv[n++] = (char *)o->qmgr;
    argv[n++] = "--profile";
    argv[n++] = (char *)o->profile;
    n = drive_arg_if_set(argv, n, "--model", o->model);
    n = drive_arg_if_set(argv, n, "--cleanup-threads", o->cleanup_threads);
    n = drive_arg_if_set(argv, n, "--threads", o->relay_threads);
    n = drive_arg_if_set(argv, n, "--concurrency", o->concurrency);
    if (o->tls) {
        argv[n++] = "--tls";
        argv[n++] = "--hop-tls";
        argv[n++] = "encrypt";
    }
    return n;
}

/*
 * The relay's dry run with the options bench would give it, before the
 * sink or anything else starts: a --model it cannot take (a typo, a file
 * that is no model, another MTA's) is a usage error now, not the relay's
 * failure once the sink runs. Its spool is the parent of bench's own,
 * which exists; the one bench makes in it does not yet.
 */
static void check_relay(const struct bench_options *o, const struct drive *d, const char *parent)
{
    char *argv[DRIVE_RELAY_DRY_RUN_ARGS + 3 + BENCH_CHECK_RELAY_ARGS];
    int n;

    n = drive_relay_dry_run_args(argv, d, parent);
    argv[n++] = "--next-hop";
    argv[n++] = o->discard ? "discard" : "127.0.0.1:25";
    n = bench_check_relay_args(o, argv, n);
    argv[n] = NULL;
    if (drive_dry_run(argv) != 0)
        msg_usage("the relay cannot run with these options (see above); nothing was started");
}

_Noreturn void bench_check_dry_run(const struct bench_options *o, const char *parent)
{
    char mta[32];
    char load[64];

    if (o->common.messages)
        snprintf(load, sizeof(load), "%llu messages", (unsigned long long)o->common.messages);
    else
        snprintf(load, sizeof(load), "%g s of load", o->common.duration);
    if (o->compare)
        optgroup_dry_run_done("would run %u runs each of the relay with the %s model and of a real "
                              "%s (fetched if need be), %s from %u sessions each, in a private "
                              "directory in %s",
                              o->runs, o->compare, o->compare, load, o->common.sessions, parent);
    if (o->runs_given)
        optgroup_dry_run_done("would run a warm-up and %u runs of smtp-source -> %s -> %s, %s "
                              "from %u sessions, each spool in a private directory in %s",
                              o->runs, o->mta ? o->mta : "spoolsim relay",
                              o->discard ? "discard" : "smtp-sink", load, o->common.sessions,
                              parent);
    optgroup_dry_run_done(
        "would run smtp-source -> %s -> %s, %s from %u sessions, the spool in a "
        "private directory in %s%s",
        o->mta ? o->mta : "spoolsim relay", o->discard ? "discard" : "smtp-sink", load,
        o->common.sessions, parent,
        bench_check_calibrates(o, mta, sizeof(mta)) ? ", after calibrating if need be" : "");
}

int bench_check_calibrates(const struct bench_options *o, char *mta, size_t len)
{
    const struct profile *p = profile_find(o->profile);

    snprintf(mta, len, "%s", p && p->mta ? p->mta : "");
    return o->calibrate != BENCH_CALIBRATE_NEVER && cost_model_builtin(mta) != NULL &&
           (o->model == NULL || strcmp(o->model, mta) == 0);
}

const char *bench_check_before(const struct bench_options *o, const struct drive *d)
{
    const char *parent = o->spool_parent ? o->spool_parent : fileutil_tmp_dir();
    const char *mta = o->mta ? o->mta : o->compare;
    char script[PATH_MAX];

    optarg_work_dir(parent, o->spool_parent ? "--spool" : "TMPDIR", 0);
    if (!o->mta)
        check_relay(o, d, parent);
    /* not the options' fault but the machine's: exit 1, as ever, but before anything starts */
    if (mta && bench_mta_ready(d->self, mta, parent, script, sizeof(script)) != 0) {
        if (o->common.dry_run)
            msg_usage("a real %s cannot run here (see above)", mta);
        msg_fatal("a real %s cannot run here (see above); nothing was started", mta);
    }
    return parent;
}
