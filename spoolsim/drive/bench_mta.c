/*
 * bench_mta - a real MTA in the relay's place; see bench_mta.h.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench_mta.h"
#include "msg.h"
#include "relay_limits.h"
#include "spoolsim.h"

const char *const bench_mta_names[] = {"postfix", "exim", NULL};

/*
 * --mta runs a real MTA where the relay was: the relay's own options mean
 * nothing there. --compare runs both, the relay with the MTA's profile and
 * model. Both need root (the MTA's master), said before anything starts.
 */
void bench_mta_check_options(struct bench_options *o)
{
    const char *mta = o->mta ? o->mta : o->compare;
    const char *option = o->mta ? "--mta" : "--compare";

    if (o->runs_given && o->compare == NULL && o->common.csv)
        msg_usage("--csv is a run's timeline: not with -n, which makes several");
    if (mta == NULL)
        return;
    if (o->compare && o->common.csv)
        msg_usage("--csv is a run's timeline: not with --compare, which makes several");
    if (o->mta && o->compare)
        msg_usage("--mta and --compare exclude each other (--compare runs both)");
    if (geteuid() != 0)
        msg_usage("%s %s needs root: the real %s runs as it does on a mail host", option, mta, mta);
    if (strcmp(o->profile, "postfix") != 0 && strcmp(o->profile, mta) != 0)
        msg_usage("%s %s: the profile is the MTA's own (not --profile %s)", option, mta,
                  o->profile);
    o->profile = mta; /* its queue's layout, for the drain */
    if (o->discard)
        msg_usage("%s needs the sink: not with --discard", option);
    if (o->model && strcmp(o->model, mta) != 0 && o->mta)
        msg_usage("--model is the relay's: a real %s has none (--mta)", mta);
    if (o->mta && (o->sync || o->cleanup_threads || o->relay_threads || o->concurrency || o->tls ||
                   o->client.delay_s > 0 || strcmp(o->qmgr, relay_options_qmgr_names[0])))
        msg_usage("--mta %s runs a real %s: --sync, --qmgr, --cleanup-threads, --relay-threads, "
                  "--concurrency, --tls and --client-delay are the relay's",
                  mta, mta);
}

/*
 * The MTA's daemons run as an unprivileged user: the directory the work
 * directory goes in, and every one above it, must let others through, or
 * they fail with a bare "permission denied" in the MTA's log. Said here,
 * naming the directory.
 */
static int check_reach(const char *parent, const char *mta)
{
    char dir[PATH_MAX], *slash;
    struct stat st;

    snprintf(dir, sizeof(dir), "%s", parent);
    for (;;) {
        if (stat(dir, &st) == 0 && !(st.st_mode & S_IXOTH)) {
            msg_warn("a real %s's daemons, not root, cannot pass through %s (mode %04o): give "
                     "others search permission (chmod o+x) or take another --spool",
                     mta, dir, (unsigned)(st.st_mode & 07777));
            return -1;
        }
        if ((slash = strrchr(dir, '/')) == NULL || slash == dir)
            return 0;
        *slash = 0;
    }
}

int bench_mta_ready(const char *self, const char *mta, const char *parent, char *script, size_t len)
{
    if (companion_find_script(self, "mta-serve.sh", "SPOOLSIM_MTA_SCRIPT", script, len) != 0) {
        msg_warn("cannot find mta-serve.sh next to %s, in its build tree or where it is "
                 "installed (set SPOOLSIM_MTA_SCRIPT to its path)",
                 self);
        return -1;
    }
    return check_reach(parent, mta);
}

/*
 * A private directory of bench's (the work directory, the spool's) opened
 * to the MTA's daemons: the directories above it passable (check_reach()
 * of its parent when check_parent), and itself 0711.
 */
static int open_to_daemons(const char *private_dir, const char *mta, int check_parent)
{
    char dir[PATH_MAX], *slash;

    snprintf(dir, sizeof(dir), "%s", private_dir);
    if ((slash = strrchr(dir, '/')) != NULL && slash != dir)
        *slash = 0;
    if (check_parent && check_reach(dir, mta) != 0)
        return -1;
    if (chmod(private_dir, 0711) != 0) {
        msg_warn("chmod %s: %s", private_dir, strerror(errno));
        return -1;
    }
    return 0;
}

int bench_mta_start(const struct drive *d, struct drive_child *c, const char *mta,
                    const char *spool, int sink_port)
{
    char script[PATH_MAX], dir[PATH_MAX], portfile[PATH_MAX], sink[16], *slash;
    char *argv[] = {script, (char *)mta, dir, (char *)spool, sink, portfile, NULL};

    snprintf(dir, sizeof(dir), "%s", d->work); /* its parent, until dir is needed below */
    if ((slash = strrchr(dir, '/')) != NULL && slash != dir)
        *slash = 0;
    if (bench_mta_ready(d->self, mta, dir, script, sizeof(script)) != 0)
        return -1;
    /* the queue is in the spool: with --spool, its own private directory there (drive.h) */
    if (open_to_daemons(d->work, mta, 0) != 0 ||
        (d->spool_dir[0] && open_to_daemons(d->spool_dir, mta, 1) != 0))
        return -1;
    calibrate_script_env(d->self);
    drive_path(d, "mta", dir);
    drive_path(d, "mta.port", portfile);
    snprintf(sink, sizeof(sink), "%d", sink_port);
    if (drive_spawn(d, c, "mta", argv) != 0)
        return -1;
    return drive_wait_port(d, c, "mta.port");
}
