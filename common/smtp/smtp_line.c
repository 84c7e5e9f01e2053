/*
 * smtp_line - split an SMTP byte stream into lines; see smtp_line.h.
 */
#include "config.h"

#include <string.h>

#include "smtp_line.h"

void smtp_line_init(struct smtp_line_reader *rd, size_t limit)
{
    rd->limit = limit < 3 ? 3 : limit;
    rd->discarding = 0;
}

enum smtp_line_status smtp_line_next(struct smtp_line_reader *rd, const char *buf, size_t avail,
                                     struct smtp_line *line, size_t *consumed)
{
    size_t skipped = 0;
    const char *lf;

    /* Throw away the tail of an over-long line, then look for the next. */
    if (rd->discarding) {
        lf = memchr(buf, '\n', avail);
        if (lf == NULL) {
            *consumed = avail;
            return SMTP_LINE_NEED_MORE;
        }
        skipped = (size_t)(lf - buf) + 1;
        buf += skipped;
        avail -= skipped;
        rd->discarding = 0;
    }

    lf = memchr(buf, '\n', avail < rd->limit ? avail : rd->limit);
    if (lf == NULL) {
        if (avail >= rd->limit) {
            /*
             * Throw the line away up to its LF if that is here already, and
             * no further: what follows it is the next line (found by
             * fuzz_smtp_line: consuming all of avail ate that line, and
             * discarding then ate the one after it too). Callers that pass
             * at most `limit' bytes never got here with an LF in the buffer.
             */
            lf = memchr(buf + rd->limit, '\n', avail - rd->limit);
            rd->discarding = lf == NULL;
            *consumed = skipped + (lf ? (size_t)(lf - buf) + 1 : avail);
            return SMTP_LINE_TOO_LONG;
        }
        *consumed = skipped;
        return SMTP_LINE_NEED_MORE;
    }
    line->text = buf;
    line->len = (size_t)(lf - buf);
    line->bare_lf = !(line->len > 0 && buf[line->len - 1] == '\r');
    if (!line->bare_lf)
        line->len--;
    *consumed = skipped + (size_t)(lf - buf) + 1;
    return SMTP_LINE_OK;
}
