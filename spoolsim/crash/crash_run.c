/*
 * crash_run - spoolsim crash's load on the recorded image, and the check
 * of its crash points (crash_run.h).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "blklog.h"
#include "clock.h"
#include "crash_mta.h"
#include "crash_plan.h"
#include "crash_point.h"
#include "crash_report.h"
#include "crash_run.h"
#include "msg.h"
#include "crash_stack.h"
#include "crash_tally.h"
#include "dmlog.h"
#include "drive.h"
#include "interrupt.h"
#include "msglog.h"
#include "progress.h"
#include "progress_out.h"

static void show_load(void *arg)
{
    struct crash *c = arg;
    struct progress_stats ps = {.label = "crash load", .eta_s = -1};
    char text[PROGRESS_LINE_MAX];

    ps.elapsed_s = (double)(clock_now_ns() - c->o->t_load) / 1e9;
    if (!c->o->common.messages)
        ps.eta_s = progress_eta_time(ps.elapsed_s, c->o->common.duration);
    progress_format(&ps, text, sizeof(text));
    progress_out_show(&c->progress, text);
}

/*
 * With dm-log-writes, every 10 ms: a mark stamping the time, so that a
 * 250 read before it is owed at every cut after it (dmlog.h); the
 * progress line once a second.
 */
static void load_tick(void *arg)
{
    struct crash *c = arg;
    uint64_t now = clock_now_ns();

    if (c->mark_errno == 0 && crash_stack_mark(c, now) != 0)
        c->mark_errno = errno;
    if (progress_out_on(&c->progress) && now >= c->next_show) {
        show_load(c);
        c->next_show = now + 1000000000ULL;
    }
}

/* spoolsim relay on the spool, relaying to the sink: its port. */
static int start_relay(struct crash *c, const char *spool, int sink_port)
{
    struct crash_options *o = c->o;
    char portfile[PATH_MAX], json[PATH_MAX], hop[64];
    char *argv[DRIVE_RELAY_ARGS + 8];
    int n, port;

    drive_path(&c->d, "relay.port", portfile);
    drive_path(&c->d, "relay.json", json);
    snprintf(hop, sizeof(hop), "127.0.0.1:%d", sink_port);
    n = drive_relay_args(argv, &c->d, portfile, spool, hop, json);
    argv[n++] = "--profile";
    argv[n++] = (char *)o->profile;
    n = drive_arg_if_set(argv, n, "--sync", o->sync);
    n = drive_arg_if_set(argv, n, "--model", o->model);
    argv[n] = NULL;
    if (drive_spawn(&c->d, &c->relay, "relay", argv) != 0 ||
        (port = drive_wait_port(&c->d, &c->relay, "relay.port")) < 0) {
        drive_show_errors(&c->d, "relay", "relay");
        crash_stack_fail(c, NULL, "spoolsim relay did not start");
    }
    return port;
}

void crash_run_load(struct crash *c)
{
    struct crash_options *o = c->o;
    char spool[PATH_MAX + 8], log[PATH_MAX];
    char target[64];
    struct drive_load_text load;
    char *argv[48];
    int n, sink_port, relay_port;

    sink_port = drive_start_sink(&c->d, &c->sink, c->sink_path, "sink", "127.0.0.1:0", 0,
                                 strcmp(o->hop_delay, "0") ? o->hop_delay : NULL);
    if (sink_port < 0)
        crash_stack_fail(c, NULL, "smtp-sink did not start");
    snprintf(spool, sizeof(spool), "%s/spool", c->mnt);
    if (o->mta) {
        if ((relay_port = crash_mta_start(&c->mta, &c->relay, spool, sink_port)) < 0)
            crash_stack_fail(c, NULL, "the real %s did not start (see above)", o->mta);
    } else {
        relay_port = start_relay(c, spool, sink_port);
    }
    snprintf(target, sizeof(target), "127.0.0.1:%d", relay_port);
    drive_path(&c->d, "source.log", log);
    n = 0;
    argv[n++] = c->source_path;
    n += drive_source_load_args(argv + n, &o->common, &load);
    argv[n++] = "--ignore-failures";
    argv[n++] = "--msg-log";
    argv[n++] = log;
    argv[n++] = target;
    argv[n] = NULL;
    crash_stack_notice(c, "load: %s%s, %s %s, on %s -o %s", o->mta ? "the real " : "", o->profile,
                       o->common.messages ? "-m" : "for", load.amount, o->type,
                       o->mount_opts[0] ? o->mount_opts : "(none)");
    o->t_load = clock_now_ns();
    if (drive_spawn(&c->d, &c->source, "source", argv) != 0)
        crash_stack_fail(c, NULL, "smtp-source did not start");
    if (o->dm)
        drive_reap_every(&c->source, 0.01, load_tick, c);
    else if (progress_out_on(&c->progress))
        drive_reap_every(&c->source, 1.0, show_load, c);
    else
        drive_reap(&c->source);
    o->load_s = (double)(clock_now_ns() - o->t_load) / 1e9;
    progress_out_clear(&c->progress);
    if (interrupt_signal())
        crash_stack_finish(c, 1);
    if (drive_exit_status(drive_stop(&c->relay)) != 0) {
        drive_show_errors(&c->d, o->mta ? "mta" : "relay", o->mta ? o->mta : "relay");
        crash_stack_fail(c, NULL, "%s failed", o->mta ? o->mta : "spoolsim relay");
    }
    drive_stop(&c->sink);
    o->t_stopped = clock_now_ns(); /* nothing is acknowledged or delivered after it */
    crash_stack_stop_recording(c);
}

/* ------------------------------------------------------------ the check */

static void load_msglog(struct crash *c, const char *name, struct msglog_set *s)
{
    char path[PATH_MAX];

    drive_path(&c->d, name, path);
    msglog_set_init(s);
    if (msglog_set_load(s, path) != 0)
        crash_stack_fail(c, NULL, "cannot read %s: %s", path, strerror(errno));
    for (size_t i = 0; i < s->n; i++)
        if (s->v[i].mono_ns == 0)
            crash_stack_fail(c, NULL,
                             "%s has a message with no mono_ns= time: a smtp-sink or smtp-source "
                             "older than this spoolsim?",
                             path);
}

static void show_check(const struct crash *c, size_t done, size_t total, uint64_t t0)
{
    struct progress_stats ps = {
        .label = "crash check", .done = done, .total = total, .count_noun = "points"};
    char text[PROGRESS_LINE_MAX];

    ps.elapsed_s = (double)(clock_now_ns() - t0) / 1e9;
    ps.eta_s = progress_eta_count(ps.elapsed_s, done, total);
    progress_format(&ps, text, sizeof(text));
    progress_out_show(&c->progress, text);
}

void crash_run_check(struct crash *c, struct crash_report *rep)
{
    struct crash_options *o = c->o;
    struct msglog_set acked, sunk;
    struct blklog log;
    struct crash_plan plan;
    struct stat sb;
    unsigned char *buf;
    char err[512];
    uint64_t t0 = clock_now_ns();
    int fd;

    if ((fd = open(c->log, O_RDONLY | O_CLOEXEC)) < 0 || fstat(fd, &sb) != 0)
        crash_stack_fail(c, NULL, "cannot read the log %s: %s", c->log, strerror(errno));
    buf = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (buf == MAP_FAILED)
        crash_stack_fail(c, NULL, "cannot map the log %s: %s", c->log, strerror(errno));
    blklog_init(&log);
    if (o->dm) {
        struct dmlog_info info;

        if (dmlog_parse(buf, (size_t)sb.st_size, o->image_size, c->t_built, &log, &info, err,
                        sizeof(err)) != 0)
            crash_stack_fail(c, NULL, "the log %s: %s", c->log, err);
        if (log.truncated || !info.ended)
            crash_stack_fail(
                c, NULL, "the log %s does not end with the target's end mark: not whole", c->log);
        crash_stack_notice(c, "dm-log-writes: %llu entries, %zu marks, %zu discards left out",
                           (unsigned long long)info.entries, info.marks, info.discards);
    } else if (blklog_parse(buf, (size_t)sb.st_size, &log, err, sizeof(err)) != 0) {
        crash_stack_fail(c, NULL, "the log %s: %s", c->log, err);
    }
    load_msglog(c, "source.log", &acked);
    load_msglog(c, "sink.log", &sunk);
    crash_plan_make(&log, o->points, o->common.seed, o->t_stopped, &plan);
    crash_report_begin(rep, o, &log, &plan, acked.n);
    crash_stack_notice(c, "recorded %zu writes and %zu flushes; checking %zu crash points",
                       log.writes, log.flushes, plan.n);

    c->checker.d = &c->d;
    c->checker.fs = o->fs;
    c->checker.options = o->mount_opts;
    c->checker.restart = o->restart;
    c->checker.spool_rel = "spool";
    c->checker.mta = o->mta ? &c->mta : NULL;
    c->checker.log = &log;
    c->checker.log_buf = buf;
    drive_path(&c->d, "cursor.img", c->checker.cursor);
    drive_path(&c->d, "crash.img", c->checker.image);
    drive_path(&c->d, "crash-mnt", c->checker.mnt);
    if (mkdir(c->checker.mnt, 0700) != 0 ||
        crash_point_checker_open(&c->checker, c->base, err, sizeof(err)) != 0)
        crash_stack_fail(c, NULL, "%s", err[0] ? err : strerror(errno));
    for (size_t i = 0; i < plan.n && !interrupt_signal(); i++) {
        struct crash_result r;
        struct crash_tally t;

        if (progress_out_on(&c->progress))
            show_check(c, i, plan.n, t0);
        c->checker.keep = i + 1 == o->keep_point ? o->keep_point : 0;
        if (crash_point_check(&c->checker, &plan.v[i], &r, err, sizeof(err)) != 0) {
            crash_point_result_free(&r);
            crash_stack_fail(c, NULL, "crash point %zu: %s", i + 1, err);
        }
        if (o->mta) /* its Received: header changes the size and the sum */
            crash_tally_point_ids(&acked, &sunk, &r.recovered, plan.v[i].t_ns, &t);
        else
            crash_tally_point(&acked, &sunk, &r.recovered, plan.v[i].t_ns, &t);
        crash_report_add(rep, &plan.v[i], &r, &t, o->t_load);
        crash_point_result_free(&r);
    }
    progress_out_clear(&c->progress);
    if (o->keep_point > plan.n)
        msg_warn("--keep-point %u: the log gave only %zu crash points; nothing of a point kept",
                 o->keep_point, plan.n);
    else if (o->keep_point && !interrupt_signal())
        /* asked for by name: said even with --quiet */
        progress_out_notice(&c->progress, 0, "spoolsim crash",
                            "kept crash point %u: point%u.img (before its repair), "
                            "point%u.repair.out, point%u.restart.* in %s",
                            o->keep_point, o->keep_point, o->keep_point, o->keep_point, c->d.work);
    rep->check_s = (double)(clock_now_ns() - t0) / 1e9;
    crash_point_checker_close(&c->checker);
    crash_plan_free(&plan);
    blklog_free(&log);
    msglog_set_free(&acked);
    msglog_set_free(&sunk);
    munmap(buf, (size_t)sb.st_size);
}
