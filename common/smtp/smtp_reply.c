/*
 * smtp_reply - parse SMTP server replies for a client; see smtp_reply.h.
 */
#include "config.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "smtp_reply.h"

static const struct {
    const char *keyword;
    unsigned flag;
} ext_table[] = {
    {"PIPELINING", SMTP_EXT_PIPELINING},
    {"STARTTLS", SMTP_EXT_STARTTLS},
    {"SIZE", SMTP_EXT_SIZE},
    {"8BITMIME", SMTP_EXT_8BITMIME},
    {"ENHANCEDSTATUSCODES", SMTP_EXT_ENHANCEDSTATUSCODES},
    {"SMTPUTF8", SMTP_EXT_SMTPUTF8},
    {"CHUNKING", SMTP_EXT_CHUNKING},
    {"DSN", SMTP_EXT_DSN},
};

/* Once per reply on a client's hot path: the text buffer needs only its first byte cleared. */
void smtp_reply_init(struct smtp_reply *reply)
{
    reply->code = 0;
    reply->lines = 0;
    reply->extensions = 0;
    reply->size_limit = 0;
    reply->text[0] = 0;
}

int smtp_reply_names(const struct smtp_reply *reply, const char *name)
{
    const char *word = reply->text;
    size_t len, name_len = strlen(name);

    if (strlen(word) < 4 || (word[3] != ' ' && word[3] != '-'))
        return 0;
    word += 4;
    word += strspn(word, " \t");
    len = strcspn(word, " \t=");
    /* a word that reaches the end of a full buffer may have been cut */
    if (word[len] == 0 && word + len == reply->text + SMTP_REPLY_TEXT_MAX - 1)
        return 0;
    return len == name_len && len > 0 && strncasecmp(word, name, len) == 0;
}

static void parse_extension(struct smtp_reply *reply, const char *p, size_t len)
{
    size_t word = 0;

    while (word < len && p[word] != ' ')
        word++;
    for (size_t i = 0; i < sizeof(ext_table) / sizeof(ext_table[0]); i++) {
        if (strlen(ext_table[i].keyword) != word || strncasecmp(ext_table[i].keyword, p, word))
            continue;
        reply->extensions |= ext_table[i].flag;
        if (ext_table[i].flag == SMTP_EXT_SIZE) {
            uint64_t limit = 0;

            for (size_t j = word + 1; j < len && isdigit((unsigned char)p[j]); j++)
                limit = limit * 10 + (uint64_t)(p[j] - '0');
            reply->size_limit = limit;
        }
    }
}

enum smtp_reply_status smtp_reply_line(struct smtp_reply *reply, const char *line, size_t len)
{
    int code;

    if (len < 3 || !isdigit((unsigned char)line[0]) || !isdigit((unsigned char)line[1]) ||
        !isdigit((unsigned char)line[2]) || line[0] < '1' || line[0] > '5')
        return SMTP_REPLY_MALFORMED;
    if (len > 3 && line[3] != ' ' && line[3] != '-')
        return SMTP_REPLY_MALFORMED;
    code = (line[0] - '0') * 100 + (line[1] - '0') * 10 + (line[2] - '0');
    if (reply->lines > 0 && code != reply->code)
        return SMTP_REPLY_MALFORMED;
    if (reply->lines == 0) {
        size_t keep = len < sizeof(reply->text) - 1 ? len : sizeof(reply->text) - 1;

        reply->code = code;
        memcpy(reply->text, line, keep);
        reply->text[keep] = 0;
    } else if (len > 4) {
        parse_extension(reply, line + 4, len - 4);
    }
    reply->lines++;
    return len > 3 && line[3] == '-' ? SMTP_REPLY_MORE : SMTP_REPLY_DONE;
}
