/*
 * suggest - the nearest word to a mistyped one; see suggest.h.
 */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "suggest.h"

static size_t min3(size_t a, size_t b, size_t c)
{
    size_t m = a < b ? a : b;

    return m < c ? m : c;
}

size_t suggest_distance(const char *a, const char *b)
{
    /* three rows of the table: two back (for a swap), the last, this one */
    size_t rows[3][SUGGEST_WORD_MAX + 1];
    size_t la = strlen(a), lb = strlen(b);

    if (la > SUGGEST_WORD_MAX || lb > SUGGEST_WORD_MAX)
        return SIZE_MAX;
    for (size_t j = 0; j <= lb; j++)
        rows[0][j] = j;
    for (size_t i = 1; i <= la; i++) {
        /* row i is rows[i % 3] */
        size_t *two = rows[(i + 1) % 3], *last = rows[(i + 2) % 3], *row = rows[i % 3];

        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t cost = a[i - 1] != b[j - 1];

            row[j] = min3(last[j] + 1, row[j - 1] + 1, last[j - 1] + cost);
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                two[j - 2] + 1 < row[j])
                row[j] = two[j - 2] + 1;
        }
    }
    return rows[la % 3][lb];
}

const char *suggest_nearest(const char *typed, const char *const words[], size_t n)
{
    size_t limit = strlen(typed) / 3, best = SIZE_MAX;
    const char *found = NULL;

    if (limit < 1)
        limit = 1;
    if (limit > 3)
        limit = 3;
    for (size_t i = 0; i < n; i++) {
        size_t d = suggest_distance(typed, words[i]);

        if (d <= limit && d < best) {
            best = d;
            found = words[i];
        }
    }
    return found;
}
