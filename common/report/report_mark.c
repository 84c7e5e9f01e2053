/*
 * report_mark - mark every line of a report; see report_mark.h.
 */
#include "config.h"

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
