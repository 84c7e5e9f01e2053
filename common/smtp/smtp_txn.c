/*
 * smtp_txn - a client's mail transaction as replies come back; see smtp_txn.h.
 */
#include "config.h"

#include "smtp_reply.h"
#include "smtp_txn.h"

static const char *const step_names[SMTP_STEP_COUNT] = {
    [SMTP_STEP_CONNECT] = "connect",
    [SMTP_STEP_GREETING] = "greeting",
    [SMTP_STEP_EHLO] = "EHLO",
    [SMTP_STEP_HELO] = "HELO",
    [SMTP_STEP_STARTTLS] = "STARTTLS",
    [SMTP_STEP_HANDSHAKE] = "TLS handshake",
    [SMTP_STEP_IDLE] = "idle",
    [SMTP_STEP_MAIL] = "MAIL FROM",
    [SMTP_STEP_RCPT] = "RCPT TO",
    [SMTP_STEP_DATA] = "DATA",
    [SMTP_STEP_TEXT] = "sending message body",
    [SMTP_STEP_DOT] = "end of data",
    [SMTP_STEP_RSET] = "RSET",
    [SMTP_STEP_QUIT] = "QUIT",
    [SMTP_STEP_WAIT] = "waiting",
    [SMTP_STEP_DONE] = "done",
};

const char *smtp_txn_step_name(enum smtp_step step)
{
    return step < SMTP_STEP_COUNT ? step_names[step] : "?";
}

void smtp_txn_begin(struct smtp_txn *t, unsigned rcpts, int pipelined, int lmtp)
{
    t->step = SMTP_STEP_MAIL;
    t->pipelined = pipelined;
    t->lmtp = lmtp != 0;
    t->rcpts = rcpts;
    t->rcpt_replies = 0;
    t->accepted = 0;
    t->mail_refused = 0;
    t->dot_replies = 0;
}

unsigned smtp_txn_group_size(const struct smtp_txn *t)
{
    return t->pipelined ? t->rcpts + 2 : 1;
}

/* Every RCPT reply is in: DATA's is next, sent now or already in the group. */
static enum smtp_txn_next envelope_done(struct smtp_txn *t)
{
    if (t->pipelined) {
        t->step = SMTP_STEP_DATA;
        return SMTP_TXN_WAIT;
    }
    if (t->accepted == 0)
        return SMTP_TXN_FAILED;
    t->step = SMTP_STEP_DATA;
    return SMTP_TXN_SEND_DATA;
}

enum smtp_txn_next smtp_txn_reply(struct smtp_txn *t, int code)
{
    int ok = SMTP_REPLY_CLASS(code) == 2;

    switch (t->step) {
    case SMTP_STEP_MAIL:
        t->mail_refused = !ok;
        if (!t->pipelined && !ok)
            return SMTP_TXN_FAILED;
        if (t->rcpts == 0)
            return envelope_done(t);
        t->step = SMTP_STEP_RCPT;
        return t->pipelined ? SMTP_TXN_WAIT : SMTP_TXN_SEND_RCPT;
    case SMTP_STEP_RCPT:
        t->rcpt_replies++;
        if (ok && !t->mail_refused)
            t->accepted++;
        if (t->rcpt_replies < t->rcpts)
            return t->pipelined ? SMTP_TXN_WAIT : SMTP_TXN_SEND_RCPT;
        return envelope_done(t);
    case SMTP_STEP_DATA:
        if (code != 354)
            return SMTP_TXN_FAILED;
        if (t->accepted == 0)
            return SMTP_TXN_EMPTY_354;
        t->step = SMTP_STEP_TEXT;
        return SMTP_TXN_SEND_TEXT;
    case SMTP_STEP_DOT:
        if (t->dot_replies > 1) {
            t->dot_replies--;
            return SMTP_TXN_WAIT;
        }
        t->dot_replies = 0;
        return SMTP_TXN_DONE;
    default:
        return SMTP_TXN_FAILED; /* no reply is owed in this step */
    }
}

void smtp_txn_text_sent(struct smtp_txn *t)
{
    t->step = SMTP_STEP_DOT;
    t->dot_replies = t->lmtp && t->accepted > 0 ? t->accepted : 1;
}

enum smtp_open_next smtp_txn_opening(enum smtp_step step, int code, unsigned extensions,
                                     enum smtp_tls_want tls, int in_tls)
{
    int ok = SMTP_REPLY_CLASS(code) == 2;

    switch (step) {
    case SMTP_STEP_GREETING:
        return ok ? SMTP_OPEN_SEND_EHLO : SMTP_OPEN_REFUSED;
    case SMTP_STEP_EHLO:
    case SMTP_STEP_HELO:
        if (!ok)
            return SMTP_OPEN_REFUSED;
        if (in_tls || tls == SMTP_TLS_NONE)
            return SMTP_OPEN_READY;
        if (step == SMTP_STEP_EHLO && (extensions & SMTP_EXT_STARTTLS))
            return SMTP_OPEN_SEND_STARTTLS;
        return tls == SMTP_TLS_MUST ? SMTP_OPEN_NO_TLS : SMTP_OPEN_READY;
    case SMTP_STEP_STARTTLS:
        if (code == 220)
            return SMTP_OPEN_START_TLS;
        return tls == SMTP_TLS_MUST ? SMTP_OPEN_REFUSED : SMTP_OPEN_READY;
    default:
        return SMTP_OPEN_REFUSED; /* no reply of the opening is owed in this step */
    }
}
