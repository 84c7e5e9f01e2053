/*
 * report_mark - mark every line of a report; see report_mark.h.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "report_mark.h"

const char *report_mark_sync(const char *sync)
{
    if (strcmp(sync, "none") == 0)
        return "[sync none] ";
    if (strcmp(sync, "fdatasync") == 0)
        return "[sync fdatasync] ";
    return "";
}

void report_mark_print(FILE *fp, const char *mark, const char *text)
{
    while (*text) {
        size_t len = strcspn(text, "\n");

        fprintf(fp, "%s%.*s\n", mark, (int)len, text);
        text += len;
        if (*text == '\n')
            text++;
    }
}

FILE *report_mark_begin(struct report_mark *m, FILE *fp)
{
    m->fp = fp;
    m->text = NULL;
    m->len = 0;
    m->mem = open_memstream(&m->text, &m->len);
    return m->mem ? m->mem : fp;
}

void report_mark_end(struct report_mark *m, const char *mark)
{
    if (m->mem == NULL)
        return;
    fclose(m->mem);
    report_mark_print(m->fp, mark, m->text);
    free(m->text);
}
