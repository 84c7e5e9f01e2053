/*
 * smtp_junk - commands that achieve nothing; see smtp_junk.h.
 */
#include "config.h"

#include "smtp_junk.h"

void smtp_junk_init(struct smtp_junk *j, unsigned limit)
{
    j->limit = limit;
    j->count = 0;
}

int smtp_junk_verb(enum smtp_verb verb)
{
    switch (verb) {
    case SMTP_VERB_HELO:
    case SMTP_VERB_EHLO:
    case SMTP_VERB_LHLO:
    case SMTP_VERB_RSET:
    case SMTP_VERB_NOOP:
    case SMTP_VERB_VRFY:
    case SMTP_VERB_HELP:
        return 1;
    default:
        return 0;
    }
}

int smtp_junk_count(struct smtp_junk *j)
{
    if (j->limit == 0)
        return 0;
    if (j->count < j->limit) {
        j->count++;
        return 0;
    }
    return 1; /* the count stays at the limit: no wrap-around, however long the flood */
}

int smtp_junk_command(struct smtp_junk *j, enum smtp_verb verb, int over_rcpt_limit)
{
    return (smtp_junk_verb(verb) || (verb == SMTP_VERB_RCPT && over_rcpt_limit)) &&
           smtp_junk_count(j);
}

void smtp_junk_accepted(struct smtp_junk *j)
{
    j->count = 0;
}
