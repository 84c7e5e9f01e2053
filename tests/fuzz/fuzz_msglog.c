/*
 * fuzz_msglog - msglog_parse_line() on any line.
 *
 * spoolsim's loss accounting trusts what msglog_parse_line() makes of the
 * --msg-log files, which a dying writer may have cut anywhere. The input
 * is the line (up to its first NUL, as the C string the loader passes).
 * On -1 the entry must be untouched. On success it must obey msglog.h: a
 * message-id of 1-255 bytes, NUL-terminated, without control characters
 * or white space, not "-", and ending in '>' if it starts with '<'; a
 * queue id shorter than its buffer. The same line with "\n" or "\r\n"
 * appended must parse the same, and the entry written back out as a log
 * line must parse to the same entry again.
 */
#include "config.h"

#include <inttypes.h>

#include "fuzz.h"
#include "msglog.h"

static int parse(const char *line, struct msglog_entry *e)
{
    struct msglog_entry before;
    int rc;

    memset(e, 0xa5, sizeof(*e));
    before = *e;
    rc = msglog_parse_line(line, e);
    FUZZ_CHECK(rc == 0 || rc == -1);
    if (rc != 0)
        FUZZ_CHECK(memcmp(&before, e, sizeof(*e)) == 0);
    return rc;
}

static void check_entry(const struct msglog_entry *e)
{
    size_t n = strnlen(e->message_id, sizeof(e->message_id));

    FUZZ_CHECK(n >= 1 && n < sizeof(e->message_id));
    FUZZ_CHECK(strcmp(e->message_id, "-") != 0);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)e->message_id[i];

        FUZZ_CHECK(c >= 0x20 && c != 0x7f && c != ' ');
    }
    FUZZ_CHECK(e->message_id[0] != '<' || e->message_id[n - 1] == '>');
    FUZZ_CHECK(strnlen(e->queue_id, sizeof(e->queue_id)) < sizeof(e->queue_id));
}

static int same(const struct msglog_entry *a, const struct msglog_entry *b)
{
    return a->size == b->size && a->sum == b->sum && strcmp(a->message_id, b->message_id) == 0 &&
           strcmp(a->queue_id, b->queue_id) == 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *line = fuzz_strdup(data, size);
    size_t len = strlen(line);
    char *ended = malloc(len + 3);
    struct msglog_entry e, e2;
    int rc;

    FUZZ_CHECK(ended != NULL);
    rc = parse(line, &e);
    if (rc == 0)
        check_entry(&e);

    /* An added line end changes nothing (unless the line had one already). */
    if (len == 0 || (line[len - 1] != '\n' && line[len - 1] != '\r')) {
        memcpy(ended, line, len);
        memcpy(ended + len, "\n", 2);
        FUZZ_CHECK(parse(ended, &e2) == rc && (rc != 0 || same(&e, &e2)));
        memcpy(ended + len, "\r\n", 3);
        FUZZ_CHECK(parse(ended, &e2) == rc && (rc != 0 || same(&e, &e2)));
    }

    /* Written back as smtp-sink writes it, it reads the same. */
    if (rc == 0 && strpbrk(e.queue_id, " \t") == NULL) {
        char out[512];

        snprintf(out, sizeof(out), "id=%s size=%" PRIu64 " sum=%" PRIx64 " message-id=%s\n",
                 e.queue_id, e.size, e.sum, e.message_id);
        FUZZ_CHECK(parse(out, &e2) == 0 && same(&e, &e2));
    }
    free(ended);
    free(line);
    return 0;
}
