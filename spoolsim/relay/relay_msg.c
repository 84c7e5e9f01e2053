/*
 * relay_msg - a message's own state between attempts; see relay_msg.h.
 */
#include "config.h"

#include <stdlib.h>

#include "relay_msg.h"
#include "xalloc.h"

static void free_notes(struct relay_msg *m)
{
    for (unsigned i = 0; m->rcpt_reason && i < m->view.rcpt_count; i++) {
        free(m->rcpt_reason[i]);
        free(m->rcpt_reply[i]);
    }
    free(m->rcpt_reason);
    free(m->rcpt_reply);
    free(m->rcpt_status);
    m->rcpt_reason = m->rcpt_reply = NULL;
    m->rcpt_status = NULL;
}

void relay_msg_note(struct relay_msg *m, unsigned i)
{
    if (m->rcpt_reason == NULL) {
        m->rcpt_reason = xcalloc(m->view.rcpt_count, sizeof(*m->rcpt_reason));
        m->rcpt_reply = xcalloc(m->view.rcpt_count, sizeof(*m->rcpt_reply));
        m->rcpt_status = xcalloc(m->view.rcpt_count, sizeof(*m->rcpt_status));
    }
    free(m->rcpt_reason[i]);
    free(m->rcpt_reply[i]);
    m->rcpt_reason[i] = xstrdup(m->reason);
    m->rcpt_reply[i] = m->hop_reply[0] ? xstrdup(m->hop_reply) : NULL;
    m->rcpt_status[i] = m->own_status;
}

void relay_msg_release(struct relay_msg *m)
{
    free_notes(m);
    pf_qfile_view_free(&m->view);
    free(m->file);
    m->file = NULL;
    free(m->results);
    m->results = NULL;
}

int relay_msg_any(const struct relay_msg *m, int which)
{
    for (unsigned i = 0; i < m->view.rcpt_count; i++)
        if ((int)m->results[i] == which)
            return 1;
    return 0;
}

int relay_msg_must_wait(const struct relay_msg *m)
{
    if (m->flushed & RELAY_FLUSH_DEFER)
        return m->flush_failed; /* the expired recipients were returned */
    return relay_msg_any(m, RCPT_DEFERRED) || m->flush_failed;
}
