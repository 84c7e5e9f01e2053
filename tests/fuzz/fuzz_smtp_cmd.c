/*
 * fuzz_smtp_cmd - smtp_cmd_parse() and smtp_seq on a session of command lines.
 *
 * The input is split into lines by smtp_line (at the RFC 5321 command
 * limit), as smtp-sink does. Every line goes through smtp_cmd_parse():
 * it must return 0 or one of the documented reply codes with a reply text
 * that starts with that code, its spans must lie inside the line, a
 * MAIL/RCPT path must respect the path limit, end at a '>' outside quotes
 * and hold 8-bit bytes only where SMTPUTF8 lets them in (the flags, drawn
 * from the input's hash per line), and a verb's name must look the verb
 * up again. Each parsed command is then checked against the
 * session's sequencing, with some accepted commands "refused" by the
 * server (drawn from the input's hash) so that a refused RCPT is seen not
 * to open the way to DATA; smtp_seq's answers must match an independent
 * model of the rules in smtp_seq.h, whatever order the client sends.
 */
#include "config.h"

#include "fuzz.h"
#include "smtp_cmd.h"
#include "smtp_line.h"
#include "smtp_seq.h"

/* What smtp_seq.h promises, kept separately. */
struct model {
    int helo_seen, helo_required, in_mail, tls_active;
    unsigned rcpts;
};

static int model_allows(const struct model *m, enum smtp_verb verb)
{
    switch (verb) {
    case SMTP_VERB_MAIL:
        return !(m->helo_required && !m->helo_seen) && !m->in_mail;
    case SMTP_VERB_RCPT:
        return m->in_mail;
    case SMTP_VERB_DATA:
        return m->in_mail && m->rcpts > 0;
    case SMTP_VERB_STARTTLS:
        return !m->tls_active && !m->in_mail;
    default:
        return 1;
    }
}

static int in_line(const char *line, size_t len, struct smtp_span s)
{
    return s.ptr == NULL ? s.len == 0 : s.ptr >= line && s.ptr + s.len <= line + len;
}

/* Quotes balanced, no '>' outside them: where smtp_cmd.h says a path ends. */
static int path_well_quoted(struct smtp_span path)
{
    int quoted = 0;

    for (size_t i = 0; i < path.len; i++) {
        if (quoted && path.ptr[i] == '\\')
            i++;
        else if (path.ptr[i] == '"')
            quoted = !quoted;
        else if (path.ptr[i] == '>' && !quoted)
            return 0;
    }
    return !quoted;
}

static int any_8bit(struct smtp_span s)
{
    for (size_t i = 0; i < s.len; i++)
        if ((unsigned char)s.ptr[i] >= 0x80)
            return 1;
    return 0;
}

static void check_parse(const char *line, size_t len, unsigned flags, struct smtp_cmd *cmd, int rc)
{
    FUZZ_CHECK(rc == 0 || rc == 501 || rc == 502 || rc == 553 || rc == 555);
    FUZZ_CHECK((rc == 502) == (cmd->verb == SMTP_VERB_UNKNOWN));
    FUZZ_CHECK(smtp_cmd_verb_lookup(smtp_cmd_verb_name(cmd->verb),
                                    strlen(smtp_cmd_verb_name(cmd->verb))) == cmd->verb);
    if (rc != 0) {
        char code[4];

        FUZZ_CHECK(cmd->error != NULL);
        snprintf(code, sizeof(code), "%d", rc);
        FUZZ_CHECK(strncmp(cmd->error, code, 3) == 0 && cmd->error[3] == ' ');
        return;
    }
    FUZZ_CHECK(cmd->error == NULL);
    FUZZ_CHECK(memchr(line, '\0', len) == NULL);
    FUZZ_CHECK(in_line(line, len, cmd->arg));
    FUZZ_CHECK(in_line(line, len, cmd->path));
    FUZZ_CHECK(in_line(line, len, cmd->params));
    if (cmd->verb == SMTP_VERB_MAIL || cmd->verb == SMTP_VERB_RCPT) {
        FUZZ_CHECK(cmd->path.ptr != NULL && cmd->path.len <= SMTP_PATH_LIMIT);
        FUZZ_CHECK(cmd->path.ptr[-1] == '<' && cmd->path.ptr[cmd->path.len] == '>');
        FUZZ_CHECK(path_well_quoted(cmd->path));
        FUZZ_CHECK(cmd->verb == SMTP_VERB_MAIL || cmd->path.len > 0);
        /* SMTPUTF8 only where offered; 8-bit only where declared. */
        FUZZ_CHECK(!cmd->smtputf8 ||
                   (cmd->verb == SMTP_VERB_MAIL && (flags & SMTP_CMD_OFFER_SMTPUTF8)));
        if (cmd->verb == SMTP_VERB_MAIL ? !cmd->smtputf8 : !(flags & SMTP_CMD_MAIL_SMTPUTF8))
            FUZZ_CHECK(!any_8bit(cmd->path) && !any_8bit(cmd->params));
    } else {
        FUZZ_CHECK(cmd->path.len == 0 && cmd->params.len == 0);
    }
    if (cmd->verb != SMTP_VERB_MAIL)
        FUZZ_CHECK(!cmd->has_size && cmd->body == SMTP_BODY_UNSPECIFIED && !cmd->smtputf8);
    /* Trimmed spans neither start nor end with white space. */
    if (cmd->arg.len > 0) {
        FUZZ_CHECK(cmd->arg.ptr[0] != ' ' && cmd->arg.ptr[0] != '\t');
        FUZZ_CHECK(cmd->arg.ptr[cmd->arg.len - 1] != ' ' && cmd->arg.ptr[cmd->arg.len - 1] != '\t');
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *buf = (const char *)data;
    struct smtp_line_reader rd;
    struct smtp_seq seq;
    struct model m = {0};
    struct fuzz_rng rng;

    fuzz_rng_init(&rng, fuzz_hash(data, size));
    smtp_line_init(&rd, SMTP_COMMAND_LINE_LIMIT);
    smtp_seq_init(&seq);
    while (size > 0) {
        struct smtp_line line;
        struct smtp_cmd cmd;
        size_t consumed;
        enum smtp_line_status st = smtp_line_next(&rd, buf, size, &line, &consumed);
        const char *reply;
        int rc, refused;
        /* A server that offers SMTPUTF8 or not; a transaction that declared it or not. */
        unsigned flags = (unsigned)(fuzz_rng_next(&rng) % 3);

        FUZZ_CHECK(consumed <= size);
        buf += consumed;
        size -= consumed;
        if (st == SMTP_LINE_NEED_MORE)
            break;
        if (st != SMTP_LINE_OK)
            continue;
        if (flags == SMTP_CMD_MAIL_SMTPUTF8)
            flags |= SMTP_CMD_OFFER_SMTPUTF8;
        rc = smtp_cmd_parse(line.text, line.len, flags, &cmd);
        check_parse(line.text, line.len, flags, &cmd, rc);
        if (rc != 0)
            continue;

        reply = smtp_seq_check(&seq, cmd.verb);
        FUZZ_CHECK((reply == NULL) == model_allows(&m, cmd.verb));
        if (reply != NULL) {
            FUZZ_CHECK(strncmp(reply, "503 ", 4) == 0);
            continue;
        }
        refused = fuzz_rng_next(&rng) % 5 == 0; /* e.g. a RCPT the server rejects */
        if (refused && cmd.verb != SMTP_VERB_STARTTLS)
            continue;
        smtp_seq_commit(&seq, cmd.verb);
        switch (cmd.verb) {
        case SMTP_VERB_HELO:
        case SMTP_VERB_EHLO:
        case SMTP_VERB_LHLO:
            m.helo_seen = 1;
            m.in_mail = 0;
            m.rcpts = 0;
            break;
        case SMTP_VERB_MAIL:
            m.in_mail = 1;
            m.rcpts = 0;
            break;
        case SMTP_VERB_RCPT:
            m.rcpts++;
            break;
        case SMTP_VERB_RSET:
            m.in_mail = 0;
            m.rcpts = 0;
            break;
        case SMTP_VERB_DATA:
            /* The message was read (or failed): the transaction ends either way. */
            smtp_seq_end_transaction(&seq);
            m.in_mail = 0;
            m.rcpts = 0;
            break;
        case SMTP_VERB_STARTTLS:
            if (refused)
                break; /* "454 TLS not available": nothing changes */
            smtp_seq_tls_started(&seq);
            memset(&m, 0, sizeof(m));
            m.tls_active = 1;
            m.helo_required = 1;
            break;
        default:
            break;
        }
        FUZZ_CHECK(seq.in_mail == m.in_mail && seq.rcpt_count == m.rcpts);
        FUZZ_CHECK(seq.helo_seen == m.helo_seen);
        FUZZ_CHECK(seq.tls_active == m.tls_active && seq.helo_required == m.helo_required);
        FUZZ_CHECK(!seq.helo_required || seq.tls_active);
    }
    return 0;
}
