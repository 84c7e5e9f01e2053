/*
 * relay_local - the next hops that are not SMTP.
 *
 * discard: every recipient is delivered at once, so that a run measures
 * the spool and nothing behind it. maildir:DIR: one copy of each message
 * is written into a Maildir as a local delivery agent does it (create in
 * tmp/ with O_EXCL, write, fsync, rename into new/), on a cleanup thread;
 * its file operations are counted apart from the spool's.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "fileutil.h"
#include "msg.h"
#include "relay_private.h"
#include "relay_deliver.h"
#include "relay_qmgr.h"

static void set_pending(struct relay_msg *m, enum relay_rcpt_result result, const char *reason)
{
    for (unsigned i = 0; i < m->view.rcpt_count; i++)
        if (!m->view.rcpts[i].done)
            m->results[i] = result;
    snprintf(m->reason, sizeof(m->reason), "%s", reason);
}

int relay_local_init(struct relay *r, char *err, size_t errlen)
{
    static const char *const subdirs[] = {"", "/tmp", "/new", "/cur"};
    const char *dir = r->opts->hop_arg;

    if (r->opts->hop_kind != RELAY_HOP_MAILDIR)
        return 0;
    for (size_t i = 0; i < sizeof(subdirs) / sizeof(subdirs[0]); i++) {
        char path[4096];

        snprintf(path, sizeof(path), "%s%s", dir, subdirs[i]);
        if (mkdir(path, 0700) == 0) {
            /* made as root before -u takes effect: the user the relay becomes writes here */
            if (r->spool.owner_set && lchown(path, r->spool.owner_uid, r->spool.owner_gid) != 0) {
                snprintf(err, errlen, "cannot give Maildir %s to %s: %s", path, r->spool.owner_name,
                         strerror(errno));
                return -1;
            }
        } else if (errno != EEXIST) {
            snprintf(err, errlen, "cannot create Maildir %s: %s", path, strerror(errno));
            return -1;
        }
    }
    return 0;
}

struct maildir_copy {
    int fd;
    int failed; /* a write failed: errno says why */
};

static int copy_window(void *ctx, const char *text, size_t len)
{
    struct maildir_copy *copy = ctx;

    if (fileutil_write_all(copy->fd, text, len, 0, NULL, NULL) != 0)
        copy->failed = 1;
    return copy->failed;
}

/*
 * The text into the open file: from memory, or from a large queue file a
 * window at a time. 0; -1 with errno; -2 when the queue file turns out
 * damaged (the reason in m->job_err).
 */
static int write_text(struct relay_msg *m, int fd)
{
    struct maildir_copy copy = {.fd = fd};
    char *text;
    size_t len;
    int status;

    if (m->view.content_unread) {
        status =
            pf_spool_file_content_each(&m->relay->spool, m->id, &m->view, RELAY_TEXT_WINDOW,
                                       copy_window, &copy, m->job_err, sizeof(m->job_err), &m->st);
        return status == 1 ? -1 : status; /* stopped: by a failed write */
    }
    text = pf_qfile_content_text(m->file, &m->view, &len);
    status = fileutil_write_all(fd, text, len, 0, NULL, NULL);
    free(text);
    return status;
}

static void maildir_work(struct io_job *job)
{
    struct relay_msg *m = MSG_OF(job);
    const char *dir = m->relay->opts->hop_arg;
    char tmp[4096], new[4096];
    int fd, written = -1;

    snprintf(tmp, sizeof(tmp), "%s/tmp/%s", dir, m->maildir_name);
    snprintf(new, sizeof(new), "%s/new/%s", dir, m->maildir_name);
    m->job_status = -1;
    fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd >= 0) {
        m->hop_st.creates++;
        if ((written = write_text(m, fd)) == 0 && (m->hop_st.fsyncs++, fsync(fd) == 0) &&
            close(fd) == 0) {
            fd = -1;
            if (rename(tmp, new) == 0) {
                m->hop_st.renames++;
                m->job_status = 0;
            }
        }
        m->job_errno = errno;
        if (fd >= 0)
            close(fd);
        if (m->job_status != 0)
            unlink(tmp);
        if (written == -2)
            m->job_status = -2;
    } else {
        m->job_errno = errno;
    }
}

static void maildir_done(struct io_job *job)
{
    struct relay_msg *m = MSG_OF(job);
    struct relay *r = m->relay;

    pf_spool_stats_add(&r->stats.maildir, &m->hop_st);
    memset(&m->hop_st, 0, sizeof(m->hop_st));
    if (m->job_status == 0) {
        set_pending(m, RCPT_SENT, "delivered to maildir");
    } else if (m->job_status == -2) {
        set_pending(m, RCPT_DEFERRED, m->job_err);
        m->damaged = 1; /* to corrupt/, as the queue manager does with what it cannot read */
    } else if (m->job_err[0]) {
        set_pending(m, RCPT_DEFERRED, m->job_err); /* the queue file could not be read */
    } else {
        char reason[300];

        snprintf(reason, sizeof(reason), "cannot write to maildir: %s", strerror(m->job_errno));
        set_pending(m, RCPT_DEFERRED, reason);
    }
    relay_attempt_delivered(m);
}

static void deliver(struct relay *r, struct relay_msg *m)
{
    struct timeval tv;

    if (r->opts->hop_kind == RELAY_HOP_DISCARD) {
        set_pending(m, RCPT_SENT, "discarded");
        relay_attempt_delivered(m);
        return;
    }
    gettimeofday(&tv, NULL);
    snprintf(m->maildir_name, sizeof(m->maildir_name), "%ld.M%ldP%ldQ%lu.%s", (long)tv.tv_sec,
             (long)tv.tv_usec, (long)getpid(), ++r->maildir_sequence, r->opts->hostname);
    m->job_err[0] = 0;
    m->job.work = maildir_work;
    m->job.done = maildir_done;
    io_pool_submit(r->cleanup, &m->job);
}

static void deliver_ready(struct relay *r)
{
    struct relay_msg *m;

    while ((m = relay_qmgr_next_ready(r)) != NULL)
        deliver(r, m);
}

const struct relay_agent relay_local_agent = {.name = "local", .deliver_ready = deliver_ready};
