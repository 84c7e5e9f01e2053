/*
 * crash_mta - the real MTA under the recorder; see crash_mta.h.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench_mta.h"
#include "crash_mta.h"
#include "fileutil.h"
#include "msg.h"
#include "msglog.h"

/* What Postfix's queue manager does with a queue file it cannot read. */
#define CRASH_MTA_CORRUPT_DIR "corrupt"

/* The MTAs whose restart crash cannot run yet, for a message that says so. */
static const char *const not_yet[] = {"exim", "exim-4.98", "opensmtpd", "sendmail", NULL};

void crash_mta_check_options(struct crash_options *o)
{
    const char *mta = o->mta;
    int known = 0;

    if (mta == NULL) {
        if (o->profile == NULL)
            o->profile = "postfix";
        return;
    }
    for (size_t i = 0; not_yet[i]; i++)
        if (strcmp(mta, not_yet[i]) == 0)
            msg_usage("--mta %s: not yet supported (only postfix runs under the recorder so "
                      "far; --profile %s judges that MTA's spool by crash's own restart rule)",
                      mta, mta);
    for (size_t i = 0; bench_mta_names[i]; i++)
        known |= strcmp(mta, bench_mta_names[i]) == 0;
    if (!known)
        msg_usage("unknown --mta \"%s\" (postfix; exim, opensmtpd and sendmail are not yet "
                  "supported)",
                  mta);
    if (o->profile == NULL)
        o->profile = mta;
    if (strcmp(o->profile, mta) != 0)
        msg_usage("--mta %s: the profile is the MTA's own (not --profile %s)", mta, o->profile);
    if (o->sync || o->model)
        msg_usage("--mta %s runs a real %s: --sync and --model are the relay's", mta, mta);
}

void crash_mta_ready(struct crash_mta *m, const struct drive *d, const char *mta,
                     const char *parent, const char *sink_path)
{
    memset(m, 0, sizeof(*m));
    m->d = d;
    m->name = mta;
    snprintf(m->sink_path, sizeof(m->sink_path), "%s", sink_path);
    if (bench_mta_ready(d->self, mta, parent, m->script, sizeof(m->script)) != 0)
        msg_usage("--mta %s: a real %s cannot run here (see above); nothing was made", mta, mta);
}

int crash_mta_start(struct crash_mta *m, struct drive_child *c, const char *spool, int sink_port)
{
    int port = bench_mta_start(m->d, c, m->name, spool, sink_port);

    if (port < 0)
        drive_show_errors(m->d, "mta", m->name);
    return port;
}

void crash_mta_stop(struct crash_mta *m)
{
    drive_stop(&m->mta); /* its script stops the MTA, and what is left of it */
    drive_stop(&m->sink);
}

/* Regular files in dir/corrupt: those the MTA set aside. */
static size_t count_corrupt(const char *spool)
{
    char dir[PATH_MAX];
    struct dirent *e;
    size_t n = 0;
    DIR *dp;

    snprintf(dir, sizeof(dir), "%s/%s", spool, CRASH_MTA_CORRUPT_DIR);
    if ((dp = opendir(dir)) == NULL)
        return 0;
    while ((e = readdir(dp)) != NULL)
        n += e->d_type == DT_REG;
    closedir(dp);
    return n;
}

/* The first line of WORK/NAME.err in out (bench/mta-serve.sh's reason comes first); "" if none. */
static void first_error(const struct drive *d, const char *name, char *out, size_t len)
{
    char path[PATH_MAX], base[64], *text;

    snprintf(base, sizeof(base), "%s.err", name);
    drive_path(d, base, path);
    out[0] = 0;
    if ((text = fileutil_read_all(path, NULL)) == NULL)
        return;
    snprintf(out, len, "%.*s", (int)strcspn(text, "\n"), text);
    free(text);
}

/* A file of the work directory removed, so that the next child's is not taken for it. */
static void forget(const struct drive *d, const char *name)
{
    char path[PATH_MAX];

    drive_path(d, name, path);
    if (unlink(path) != 0 && errno != ENOENT)
        msg_warn("cannot remove %s: %s", path, strerror(errno));
}

int crash_mta_restart(struct crash_mta *m, const char *spool, struct crash_result *r, char *err,
                      size_t errlen)
{
    char dir[PATH_MAX], portfile[PATH_MAX], log[PATH_MAX], sink[16], drain[16];
    char *argv[] = {m->script, "--drain", drain, (char *)m->name, dir, (char *)spool,
                    sink,      portfile,  NULL};
    int port, status;

    if (access(spool, F_OK) != 0)
        return 0; /* the spool was never made durable: nothing to find */
    forget(m->d, "resink.log");
    forget(m->d, "resink.port");
    forget(m->d, "mta-restart.port");
    port = drive_start_sink(m->d, &m->sink, m->sink_path, "resink", "127.0.0.1:0", 0, NULL);
    if (port < 0) {
        drive_show_errors(m->d, "resink", "smtp-sink");
        crash_mta_stop(m);
        return msg_set_error(err, errlen, "the restart's smtp-sink did not start");
    }
    drive_path(m->d, "mta-restart", dir);
    drive_path(m->d, "mta-restart.port", portfile);
    snprintf(sink, sizeof(sink), "%d", port);
    snprintf(drain, sizeof(drain), "%d", CRASH_MTA_DRAIN_SECONDS);
    if (drive_spawn(m->d, &m->mta, "mta-restart", argv) != 0) {
        crash_mta_stop(m);
        return msg_set_error(err, errlen, "cannot run %s", m->script);
    }
    status = drive_exit_status(drive_reap(&m->mta));
    drive_stop(&m->sink);
    if (status == -1)
        return msg_set_error(err, errlen, "the restart of the real %s was lost track of", m->name);
    if (status != 0 && status != 4) {
        /* It started on this image before the cut: what it refuses now, the cut made. */
        char why[160];

        first_error(m->d, "mta-restart", why, sizeof(why));
        r->refused = 1;
        snprintf(r->note, sizeof(r->note), "the real %s would not start on the recovered spool: %s",
                 m->name, why);
        return 0;
    }
    if (status == 4)
        snprintf(r->note, sizeof(r->note),
                 "the real %s still listed messages in its queue after %d s (those that never "
                 "reached the sink count as lost)",
                 m->name, CRASH_MTA_DRAIN_SECONDS);
    drive_path(m->d, "resink.log", log);
    if (msglog_set_load(&r->recovered, log) != 0 && errno != ENOENT)
        return msg_set_error(err, errlen, "cannot read %s: %s", log, strerror(errno));
    r->corrupt = count_corrupt(spool);
    return 0;
}
