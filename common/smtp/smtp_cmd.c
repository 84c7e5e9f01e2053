/*
 * smtp_cmd - parse one SMTP command line; see smtp_cmd.h.
 */
#include "config.h"

#include <ctype.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

#include "smtp_cmd.h"

enum arg_rule { ARG_NONE, ARG_REQUIRED, ARG_OPTIONAL, ARG_PATH };

static const struct verb_entry {
    const char *name;
    enum smtp_verb verb;
    enum arg_rule rule;
    const char *syntax; /* 501 reply when the argument is wrong */
} verb_table[] = {
    {"HELO", SMTP_VERB_HELO, ARG_REQUIRED, "501 5.5.4 Syntax: HELO hostname"},
    {"EHLO", SMTP_VERB_EHLO, ARG_REQUIRED, "501 5.5.4 Syntax: EHLO hostname"},
    {"LHLO", SMTP_VERB_LHLO, ARG_REQUIRED, "501 5.5.4 Syntax: LHLO hostname"},
    {"MAIL", SMTP_VERB_MAIL, ARG_PATH, "501 5.5.4 Syntax: MAIL FROM:<address>"},
    {"RCPT", SMTP_VERB_RCPT, ARG_PATH, "501 5.5.4 Syntax: RCPT TO:<address>"},
    {"DATA", SMTP_VERB_DATA, ARG_NONE, "501 5.5.4 Syntax: DATA"},
    {"RSET", SMTP_VERB_RSET, ARG_NONE, "501 5.5.4 Syntax: RSET"},
    {"NOOP", SMTP_VERB_NOOP, ARG_OPTIONAL, NULL},
    {"QUIT", SMTP_VERB_QUIT, ARG_NONE, "501 5.5.4 Syntax: QUIT"},
    {"VRFY", SMTP_VERB_VRFY, ARG_REQUIRED, "501 5.5.4 Syntax: VRFY address"},
    {"HELP", SMTP_VERB_HELP, ARG_OPTIONAL, NULL},
    {"STARTTLS", SMTP_VERB_STARTTLS, ARG_NONE, "501 5.5.4 Syntax: STARTTLS"},
};

#define VERB_TABLE_LEN (sizeof(verb_table) / sizeof(verb_table[0]))

static const char unknown_reply[] = "502 5.5.2 Error: command not recognized";
static const char bad_param_reply[] = "555 5.5.4 Unsupported option";
static const char bad_size_reply[] = "501 5.5.4 Bad SIZE parameter";
static const char bad_body_reply[] = "501 5.5.4 Bad BODY parameter";
static const char path_long_reply[] = "501 5.1.3 Address too long";
static const char control_reply[] = "501 5.5.2 Syntax error: control character in command";
/* Postfix's words for a path it cannot take apart. */
static const char bad_sender_reply[] = "501 5.1.7 Bad sender address syntax";
static const char bad_rcpt_reply[] = "501 5.1.3 Bad recipient address syntax";
/* RFC 6531 3.5: 553, and 5.6.7 "Non-ASCII addresses not permitted for that sender/recipient". */
static const char no_utf8_reply[] =
    "553 5.6.7 Error: 8-bit character in address, and SMTPUTF8 is not offered";
static const char undeclared_reply[] = "553 5.6.7 Must declare SMTPUTF8 to send unicode address";
static const char bad_utf8_reply[] = "501 5.6.7 Error: malformed UTF-8 in address";
static const char param_8bit_reply[] = "501 5.5.4 Error: 8-bit character in parameter";
static const char bad_smtputf8_reply[] = "501 5.5.4 Bad SMTPUTF8 parameter";

const char *smtp_cmd_verb_name(enum smtp_verb verb)
{
    for (size_t i = 0; i < VERB_TABLE_LEN; i++)
        if (verb_table[i].verb == verb)
            return verb_table[i].name;
    return "UNKNOWN";
}

/*
 * The table's entry for a verb, any case. The verb is folded to upper case
 * once and compared bytewise: a strncasecmp against each entry in turn was
 * a tenth of the sink's instructions per message.
 */
#define VERB_MAX 8 /* STARTTLS, the longest */
static const struct verb_entry *find_verb(const char *name, size_t len)
{
    char upper[VERB_MAX];

    if (len == 0 || len > VERB_MAX)
        return NULL;
    for (size_t i = 0; i < len; i++) {
        char c = name[i];

        upper[i] = c >= 'a' && c <= 'z' ? (char)(c - 'a' + 'A') : c;
    }
    for (size_t i = 0; i < VERB_TABLE_LEN; i++) {
        const char *known = verb_table[i].name;
        size_t k = 0;

        /*
         * Stops at the name's NUL, so known[k] is never past it: the verb
         * may hold a NUL of its own, and a strncmp that stopped at the
         * two NULs let a longer verb be looked up past a shorter name.
         */
        while (k < len && known[k] != 0 && known[k] == upper[k])
            k++;
        if (k == len && known[k] == 0)
            return &verb_table[i];
    }
    return NULL;
}

enum smtp_verb smtp_cmd_verb_lookup(const char *name, size_t len)
{
    const struct verb_entry *entry = find_verb(name, len);

    return entry ? entry->verb : SMTP_VERB_UNKNOWN;
}

static int is_space(char c)
{
    return c == ' ' || c == '\t';
}

/*
 * A control character other than a tab: a NUL, or a bare CR that a next hop
 * ending its lines at CR would read as the end of a command, so that an
 * address like "b\rRSET@x" would smuggle a command through a relay.
 */
static int has_control(struct smtp_span s)
{
    for (size_t i = 0; i < s.len; i++) {
        unsigned char c = (unsigned char)s.ptr[i];

        if ((c < 0x20 && c != '\t') || c == 0x7f)
            return 1;
    }
    return 0;
}

static int has_8bit(const char *p, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if ((unsigned char)p[i] >= 0x80)
            return 1;
    return 0;
}

/*
 * Well-formed UTF-8 (RFC 3629): no overlong form, no surrogate, nothing
 * past U+10FFFF, every sequence complete. RFC 6531 lets only that into a
 * path, and a next hop or a mailbox name may choke on anything else.
 */
static int valid_utf8(const unsigned char *p, size_t len)
{
    size_t i = 0;

    while (i < len) {
        unsigned char c = p[i];
        unsigned char lo = 0x80, hi = 0xbf; /* the bounds of the second byte */
        size_t n;

        if (c < 0x80) {
            n = 0;
        } else if (c >= 0xc2 && c <= 0xdf) {
            n = 1;
        } else if (c >= 0xe0 && c <= 0xef) {
            n = 2;
            lo = c == 0xe0 ? 0xa0 : 0x80; /* not overlong */
            hi = c == 0xed ? 0x9f : 0xbf; /* not a surrogate */
        } else if (c >= 0xf0 && c <= 0xf4) {
            n = 3;
            lo = c == 0xf0 ? 0x90 : 0x80; /* not overlong */
            hi = c == 0xf4 ? 0x8f : 0xbf; /* not past U+10FFFF */
        } else {
            return 0; /* a continuation byte first, an overlong lead, or past U+10FFFF */
        }
        if (len - i - 1 < n)
            return 0;
        for (size_t k = 1; k <= n; k++) {
            unsigned char b = p[i + k];

            if (b < (k == 1 ? lo : 0x80) || b > (k == 1 ? hi : 0xbf))
                return 0;
        }
        i += n + 1;
    }
    return 1;
}

/*
 * The '>' that ends a path whose text starts at p: the first one outside a
 * quoted string. Inside quotes RFC 5321 4.1.2 allows qtextSMTP (printable
 * ASCII but the quote and the backslash; with SMTPUTF8 also UTF-8, which
 * the caller judges, as any 8-bit byte) and quoted-pairSMTP (a backslash
 * and one printable character), so that "a b>c"@example is one local
 * part. A backslash outside quotes quotes nothing (RFC 5321 has none
 * there). NULL when there is no such '>'; *bad is set when a quoted
 * string is left open or holds what it may not (a tab).
 */
static const char *path_end(const char *p, size_t len, int *bad)
{
    int quoted = 0;

    *bad = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)p[i];

        if (!quoted) {
            if (c == '>')
                return p + i;
            quoted = c == '"';
        } else if (c == '"') {
            quoted = 0;
        } else if (c == '\\' && i + 1 < len && (unsigned char)p[i + 1] >= 0x20) {
            i++; /* a control character was refused already; 8-bit is the caller's */
        } else if (c < 0x20 || c == '\\') {
            break; /* a tab, or a backslash with nothing to quote */
        }
    }
    *bad = quoted;
    return NULL;
}

static struct smtp_span trim(const char *p, size_t len)
{
    struct smtp_span span;

    while (len > 0 && is_space(*p)) {
        p++;
        len--;
    }
    while (len > 0 && is_space(p[len - 1]))
        len--;
    span.ptr = p;
    span.len = len;
    return span;
}

static int span_prefix(struct smtp_span s, const char *prefix)
{
    size_t n = strlen(prefix);

    return s.len >= n && strncasecmp(s.ptr, prefix, n) == 0;
}

static int parse_decimal(const char *p, size_t len, uint64_t *out)
{
    uint64_t value = 0;

    if (len == 0 || len > 19)
        return -1;
    for (size_t i = 0; i < len; i++) {
        if (!isdigit((unsigned char)p[i]))
            return -1;
        value = value * 10 + (uint64_t)(p[i] - '0');
    }
    *out = value;
    return 0;
}

/* One ESMTP parameter KEYWORD[=VALUE] of MAIL or RCPT. */
static int parse_param(struct smtp_cmd *cmd, unsigned flags, const char *p, size_t len)
{
    const char *eq = memchr(p, '=', len);
    size_t key_len = eq ? (size_t)(eq - p) : len;
    const char *value = eq ? eq + 1 : p + len;
    size_t value_len = (size_t)(p + len - value);

#define KEY_IS(k) (key_len == strlen(k) && strncasecmp(p, k, key_len) == 0)
    if (cmd->verb == SMTP_VERB_MAIL) {
        if (KEY_IS("SIZE")) {
            if (parse_decimal(value, value_len, &cmd->size) != 0) {
                cmd->error = bad_size_reply;
                return 501;
            }
            cmd->has_size = 1;
            return 0;
        }
        if (KEY_IS("BODY")) {
            if (value_len == 4 && strncasecmp(value, "7BIT", 4) == 0)
                cmd->body = SMTP_BODY_7BIT;
            else if (value_len == 8 && strncasecmp(value, "8BITMIME", 8) == 0)
                cmd->body = SMTP_BODY_8BITMIME;
            else if (value_len == 10 && strncasecmp(value, "BINARYMIME", 10) == 0)
                cmd->body = SMTP_BODY_BINARYMIME;
            else {
                cmd->error = bad_body_reply;
                return 501;
            }
            return 0;
        }
        if (KEY_IS("SMTPUTF8") && (flags & SMTP_CMD_OFFER_SMTPUTF8)) {
            if (eq) { /* RFC 6531 3.4: a keyword without a value */
                cmd->error = bad_smtputf8_reply;
                return 501;
            }
            cmd->smtputf8 = 1;
            return 0;
        }
        if (KEY_IS("RET") || KEY_IS("ENVID") || KEY_IS("AUTH"))
            return 0;
    } else if (KEY_IS("NOTIFY") || KEY_IS("ORCPT")) {
        return 0;
    }
#undef KEY_IS
    cmd->error = bad_param_reply;
    return 555;
}

/*
 * 8-bit bytes in the path and the parameters, once the parameters are
 * known: MAIL's own SMTPUTF8 lets UTF-8 into its path, a RCPT's comes
 * from the transaction (flags). RFC 6531 3.3 extends esmtp-value to UTF-8
 * by the same rule; RFC 5321 alone has no 8-bit anywhere in a command.
 */
static int check_8bit(struct smtp_cmd *cmd, unsigned flags)
{
    int utf8 = cmd->verb == SMTP_VERB_MAIL ? cmd->smtputf8 : (flags & SMTP_CMD_MAIL_SMTPUTF8) != 0;

    if (has_8bit(cmd->path.ptr, cmd->path.len)) {
        if (!utf8) {
            cmd->error = flags & SMTP_CMD_OFFER_SMTPUTF8 ? undeclared_reply : no_utf8_reply;
            return 553;
        }
        if (!valid_utf8((const unsigned char *)cmd->path.ptr, cmd->path.len)) {
            cmd->error = bad_utf8_reply;
            return 501;
        }
    }
    if (!utf8 && has_8bit(cmd->params.ptr, cmd->params.len)) {
        cmd->error = param_8bit_reply;
        return 501;
    }
    return 0;
}

/* "FROM:<path> params" or "TO:<path> params". */
static int parse_path_arg(struct smtp_cmd *cmd, unsigned flags, const struct verb_entry *entry)
{
    const char *keyword = cmd->verb == SMTP_VERB_MAIL ? "FROM:" : "TO:";
    struct smtp_span rest;
    const char *close;
    int status, bad;

    if (!span_prefix(cmd->arg, keyword)) {
        cmd->error = entry->syntax;
        return 501;
    }
    rest = trim(cmd->arg.ptr + strlen(keyword), cmd->arg.len - strlen(keyword));
    if (rest.len == 0 || rest.ptr[0] != '<') {
        cmd->error = entry->syntax;
        return 501;
    }
    if ((close = path_end(rest.ptr + 1, rest.len - 1, &bad)) == NULL) {
        cmd->error = !bad                          ? entry->syntax
                     : cmd->verb == SMTP_VERB_MAIL ? bad_sender_reply
                                                   : bad_rcpt_reply;
        return 501;
    }
    cmd->path.ptr = rest.ptr + 1;
    cmd->path.len = (size_t)(close - cmd->path.ptr);
    if (cmd->path.len > SMTP_PATH_LIMIT) {
        cmd->error = path_long_reply;
        return 501;
    }
    if (cmd->verb == SMTP_VERB_RCPT && cmd->path.len == 0) {
        cmd->error = entry->syntax;
        return 501;
    }
    rest = trim(close + 1, (size_t)(rest.ptr + rest.len - close - 1));
    if (rest.len > 0 && rest.ptr == close + 1) {
        /* Parameters must be separated from the path by a space. */
        cmd->error = entry->syntax;
        return 501;
    }
    cmd->params = rest;
    while (rest.len > 0) {
        size_t word = 0;

        while (word < rest.len && !is_space(rest.ptr[word]))
            word++;
        if ((status = parse_param(cmd, flags, rest.ptr, word)) != 0)
            return status;
        rest = trim(rest.ptr + word, rest.len - word);
    }
    return check_8bit(cmd, flags);
}

int smtp_cmd_parse(const char *line, size_t len, unsigned flags, struct smtp_cmd *cmd)
{
    struct smtp_span all = trim(line, len);
    const struct verb_entry *entry;
    size_t verb_len = 0;

    memset(cmd, 0, sizeof(*cmd));
    while (verb_len < all.len && !is_space(all.ptr[verb_len]))
        verb_len++;
    entry = find_verb(all.ptr, verb_len);
    if (entry == NULL) {
        cmd->error = unknown_reply;
        return 502;
    }
    cmd->verb = entry->verb;
    cmd->arg = trim(all.ptr + verb_len, all.len - verb_len);
    if (has_control(all)) {
        cmd->error = control_reply;
        return 501;
    }
    switch (entry->rule) {
    case ARG_NONE:
        if (cmd->arg.len != 0) {
            cmd->error = entry->syntax;
            return 501;
        }
        return 0;
    case ARG_REQUIRED:
        if (cmd->arg.len == 0) {
            cmd->error = entry->syntax;
            return 501;
        }
        return 0;
    case ARG_OPTIONAL:
        return 0;
    case ARG_PATH:
        return parse_path_arg(cmd, flags, entry);
    }
    return 0;
}
