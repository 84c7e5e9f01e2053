/*
 * fuzz_smtp_reply - smtp_reply_line() over the lines of a server's replies.
 *
 * smtp-source parses whatever a server (or a hostile relay hop) sends.
 * The input is split at LF (a CR before it dropped), as the client's line
 * reader does, and the lines are fed to one reply after another; a new
 * reply starts after DONE or MALFORMED. The checks: the status follows
 * from the fourth byte alone ("NNN-" more, "NNN" or "NNN " done), every
 * line of one reply carries the first line's code, the code is 100-599,
 * and the kept text is NUL-terminated, shorter than its buffer and a
 * prefix of the first line; extensions are only collected after the
 * first line, and a malformed line leaves the reply unchanged.
 */
#include "config.h"

#include "fuzz.h"
#include "smtp_reply.h"

static void check_line(struct smtp_reply *r, const char *line, size_t len)
{
    struct smtp_reply before = *r;
    enum smtp_reply_status st = smtp_reply_line(r, line, len);
    int code;

    if (st == SMTP_REPLY_MALFORMED) {
        FUZZ_CHECK(memcmp(&before, r, sizeof(*r)) == 0);
        smtp_reply_init(r);
        return;
    }
    FUZZ_CHECK(len >= 3 && line[0] >= '1' && line[0] <= '5');
    FUZZ_CHECK(line[1] >= '0' && line[1] <= '9' && line[2] >= '0' && line[2] <= '9');
    code = (line[0] - '0') * 100 + (line[1] - '0') * 10 + (line[2] - '0');
    FUZZ_CHECK(r->code == code && code >= 100 && code <= 599);
    FUZZ_CHECK(before.lines == 0 || before.code == code);
    FUZZ_CHECK(r->lines == before.lines + 1);
    if (len > 3 && line[3] == '-')
        FUZZ_CHECK(st == SMTP_REPLY_MORE);
    else
        FUZZ_CHECK(st == SMTP_REPLY_DONE && (len == 3 || line[3] == ' '));
    if (before.lines == 0) {
        size_t n = strnlen(r->text, sizeof(r->text));

        FUZZ_CHECK(n < sizeof(r->text));
        FUZZ_CHECK(n <= len && memcmp(r->text, line, n) == 0);
        FUZZ_CHECK(r->extensions == 0);
    } else {
        FUZZ_CHECK(memcmp(r->text, before.text, sizeof(r->text)) == 0);
        FUZZ_CHECK((r->extensions & before.extensions) == before.extensions);
    }
    FUZZ_CHECK(r->size_limit == 0 || (r->extensions & SMTP_EXT_SIZE));
    if (st != SMTP_REPLY_MORE)
        smtp_reply_init(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *p = (const char *)data, *end = p + size;
    struct smtp_reply r;

    smtp_reply_init(&r);
    while (p < end) {
        const char *lf = memchr(p, '\n', (size_t)(end - p));
        size_t len = lf ? (size_t)(lf - p) : (size_t)(end - p);
        struct smtp_reply alone;

        if (len > 0 && p[len - 1] == '\r')
            len--;
        /* Each line also alone, copied to an exact-size buffer (ASan sees any over-read). */
        {
            char *copy = malloc(len ? len : 1);

            FUZZ_CHECK(copy != NULL);
            memcpy(copy, p, len);
            smtp_reply_init(&alone);
            check_line(&alone, copy, len);
            check_line(&r, copy, len);
            free(copy);
        }
        p = lf ? lf + 1 : end;
    }
    return 0;
}
