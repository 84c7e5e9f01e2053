/*
 * fuzz_maillog_line - maillog_line_parse() on any bytes.
 *
 * spoolsim workload reads logs that are hostile by nature: cut anywhere,
 * binary, lines of any length, stamps out of order. The input is cut at
 * each newline into lines, each given to the parser from a buffer of
 * exactly its length (ASan sees a read past it), all with one year state
 * as a log's lines are. Every event must be one of the kinds, carry a
 * NUL-terminated queue ID within its buffer (of letters, digits and, for
 * Exim, '-') when its kind has one, a finite time, delays that are not
 * negative; and the same line parsed again with the same year state gives
 * the same event (the parser keeps nothing else).
 */
#include "config.h"

#include <math.h>

#include "fuzz.h"
#include "maillog_line.h"

static void check_event(const struct maillog_event *ev)
{
    size_t n = strnlen(ev->qid, sizeof(ev->qid));

    FUZZ_CHECK(ev->kind >= MAILLOG_OTHER && ev->kind <= MAILLOG_REMOVED);
    FUZZ_CHECK(n < sizeof(ev->qid));
    if (ev->kind == MAILLOG_OTHER)
        return;
    FUZZ_CHECK(ev->mta == MAILLOG_POSTFIX || ev->mta == MAILLOG_EXIM);
    FUZZ_CHECK(isfinite(ev->time));
    if (ev->kind == MAILLOG_ARRIVAL || ev->kind == MAILLOG_DELIVERY ||
        ev->kind == MAILLOG_REMOVED) {
        FUZZ_CHECK(n >= 1);
        for (size_t i = 0; i < n; i++) {
            char c = ev->qid[i];

            FUZZ_CHECK((c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
                       (c == '-' && ev->mta == MAILLOG_EXIM));
        }
    }
    if (ev->kind == MAILLOG_DELIVERY) {
        FUZZ_CHECK(ev->status >= MAILLOG_SENT && ev->status <= MAILLOG_EXPIRED);
        if (ev->has_delay) {
            FUZZ_CHECK(ev->delay >= 0);
            for (int i = 0; i < 4; i++)
                FUZZ_CHECK(ev->delays[i] >= 0);
        }
    }
    if (ev->kind == MAILLOG_DISCONNECT)
        FUZZ_CHECK(ev->data_ok >= -1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct maillog_year y;
    size_t start = 0;

    maillog_line_year_fixed(&y, 2026);
    while (start <= size) {
        const uint8_t *nl = start < size ? memchr(data + start, '\n', size - start) : NULL;
        size_t len = (nl ? (size_t)(nl - data) : size) - start;
        char *line = malloc(len ? len : 1);
        struct maillog_year again = y;
        struct maillog_event ev, ev2;

        FUZZ_CHECK(line != NULL);
        memcpy(line, data + start, len);
        maillog_line_parse(line, len, &y, &ev);
        check_event(&ev);
        maillog_line_parse(line, len, &again, &ev2);
        FUZZ_CHECK(ev2.kind == ev.kind && strcmp(ev2.qid, ev.qid) == 0 && ev2.size == ev.size &&
                   ev2.nrcpt == ev.nrcpt && ev2.data_ok == ev.data_ok &&
                   (ev.kind == MAILLOG_OTHER || ev2.time == ev.time));
        free(line);
        start += len + 1;
    }
    return 0;
}
