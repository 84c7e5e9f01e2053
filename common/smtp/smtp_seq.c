/*
 * smtp_seq - RFC 5321 command sequencing; see smtp_seq.h.
 */
#include "config.h"

#include <string.h>

#include "smtp_seq.h"

void smtp_seq_init(struct smtp_seq *seq)
{
    memset(seq, 0, sizeof(*seq));
}

const char *smtp_seq_check(const struct smtp_seq *seq, enum smtp_verb verb)
{
    switch (verb) {
    case SMTP_VERB_MAIL:
        if (seq->helo_required && !seq->helo_seen)
            return "503 5.5.1 Error: send HELO/EHLO first";
        if (seq->in_mail)
            return "503 5.5.1 Error: nested MAIL command";
        return NULL;
    case SMTP_VERB_RCPT:
        if (!seq->in_mail)
            return "503 5.5.1 Error: need MAIL command";
        return NULL;
    case SMTP_VERB_DATA:
        if (!seq->in_mail)
            return "503 5.5.1 Error: need MAIL command";
        if (seq->rcpt_count == 0)
            return "503 5.5.1 Error: need RCPT command";
        return NULL;
    case SMTP_VERB_STARTTLS:
        if (seq->tls_active)
            return "503 5.5.1 Error: TLS already active";
        if (seq->in_mail)
            return "503 5.5.1 Error: MAIL transaction in progress";
        return NULL;
    default:
        return NULL;
    }
}

void smtp_seq_commit(struct smtp_seq *seq, enum smtp_verb verb)
{
    switch (verb) {
    case SMTP_VERB_HELO:
    case SMTP_VERB_EHLO:
    case SMTP_VERB_LHLO:
        /* HELO/EHLO also aborts any transaction (RFC 5321 4.1.4). */
        seq->helo_seen = 1;
        smtp_seq_end_transaction(seq);
        break;
    case SMTP_VERB_MAIL:
        seq->in_mail = 1;
        seq->rcpt_count = 0;
        break;
    case SMTP_VERB_RCPT:
        seq->rcpt_count++;
        break;
    case SMTP_VERB_RSET:
        smtp_seq_end_transaction(seq);
        break;
    default:
        break;
    }
}

void smtp_seq_end_transaction(struct smtp_seq *seq)
{
    seq->in_mail = 0;
    seq->rcpt_count = 0;
}

void smtp_seq_tls_started(struct smtp_seq *seq)
{
    smtp_seq_init(seq);
    seq->tls_active = 1;
    seq->helo_required = 1;
}
