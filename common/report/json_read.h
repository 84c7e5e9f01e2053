/*
 * json_read - look up one value in a JSON text by path (no I/O).
 *
 * Enough for one program to read another's JSON report (see json.h for the
 * writer); not a general parser. Every lookup checks the whole text first: it
 * must be exactly one JSON value (RFC 8259 grammar) with optional white
 * space around it, nested at most JSON_READ_MAX_DEPTH deep. Anything else,
 * including a report cut short by a writer that died, gives -1, so a value
 * is never read out of a document that is not whole. The text is read up to
 * its NUL and never past it.
 *
 * Lenient in one way: bytes >= 0x80 in strings pass through unchecked,
 * because our writer copies them the same way and must be able to read its
 * own output back. Strict in another: a \u escape naming a lone UTF-16
 * surrogate cannot become UTF-8 and makes the text malformed.
 *
 * A path is keys separated by '.': "latency.end_to_end.p50_ms". A component
 * of decimal digits indexes an array from 0 when the value it is applied to
 * is an array ("queue_depth.0.t"); applied to an object, every component is
 * a key. NULL or "" names the top-level value itself. Keys are compared
 * after unescaping; a key that contains '.' cannot be named. If an object
 * has the same key twice, the first one is used.
 */
#ifndef SPOOLSIM_JSON_READ_H
#define SPOOLSIM_JSON_READ_H

#include <stddef.h>

#define JSON_READ_MAX_DEPTH 64

/*
 * 0 and the number in *out, or -1 (*out untouched) if the path is missing,
 * its value is not a number (a string "5", true and null are not), the
 * number is too large for a double, or the text is malformed.
 */
int json_read_number(const char *text, const char *path, double *out);

/*
 * 0 and the boolean in *out (1 for true, 0 for false), or -1 (*out
 * untouched) if the path is missing, its value is not true or false (null,
 * 0 and "true" are not), or the text is malformed.
 */
int json_read_bool(const char *text, const char *path, int *out);

/*
 * 0 and the unescaped string in out (\" \\ \/ \b \f \n \r \t, \uXXXX and
 * surrogate pairs to UTF-8), truncated to fit len bytes with its NUL and
 * never in the middle of a UTF-8 sequence; or -1 if the path is missing,
 * its value is not a string (null is not), the string holds \u0000 (it
 * cannot be a C string), len is 0, or the text is malformed. On -1, out is
 * the empty string (when len > 0).
 */
int json_read_string(const char *text, const char *path, char *out, size_t len);

/*
 * 0 and the key of member index (from 0, in the text's order) of the
 * object at path, unescaped and truncated as json_read_string() does; or
 * -1 (out the empty string) if the value is not an object, it has no
 * member index, the key holds \u0000, len is 0, or the text is malformed.
 * A reader walks an object whose keys it does not know, such as the
 * stages of "latency", by index until -1.
 */
int json_read_key(const char *text, const char *path, size_t index, char *out, size_t len);

/* The number of items of the array at path, or -1 if it is not an array (or missing, or malformed).
 */
long json_read_array_length(const char *text, const char *path);

/*
 * The items of the array at path as spans of text: item i is the lengths[i]
 * bytes at text + offsets[i] (no white space around it). The number of
 * items, or -1 if it is not an array (or missing, or malformed) or has more
 * than max_items. Linear in the text: a reader of many objects reads each
 * one's members from its own span, copied out with a NUL, rather than by a
 * path from the top of the text each time (a scan of the whole text a value).
 */
long json_read_item_spans(const char *text, const char *path, size_t *offsets, size_t *lengths,
                          size_t max_items);

/*
 * An array of arrays of width numbers each, [[128, 3], [130, 1]], into out
 * row by row (out holds max_rows * width doubles): the number of rows, or
 * -1 if the path is missing, a row is not an array of exactly width
 * numbers, there are more than max_rows rows, width is 0, or the text is
 * malformed. Linear in the text, for tables too long for a lookup per cell.
 */
long json_read_number_rows(const char *text, const char *path, size_t width, double *out,
                           size_t max_rows);

/*
 * An array of objects, [{"t": 0, "n": 5}, ...], as a table: row i, column
 * j of out (max_rows * nkeys doubles) is member keys[j] of object i, NAN
 * where that member is missing or not a number (null). The number of
 * rows, or -1 if the path is missing, an item is not an object, there are
 * more than max_rows, or the text is malformed.
 */
long json_read_table(const char *text, const char *path, const char *const keys[], size_t nkeys,
                     double *out, size_t max_rows);

/*
 * The members of the object at path, one after another, with the text
 * checked once (by json_read_members_begin) rather than at every lookup: a
 * reader of an object of many members, or of a text too long to check
 * again for each value, walks it so in time linear in the text, and reads
 * a value from its span (copied out with a NUL: a small text of its own).
 * The walk holds no memory of its own; the text must not change during it.
 */
struct json_members {
    const char *text;
    const char *next; /* the next member's key; NULL after the last */
};

/*
 * 0 and it at the first member, or -1 (it then at the end) if the text is
 * malformed or the value at path is not an object.
 */
int json_read_members_begin(struct json_members *it, const char *text, const char *path);

/*
 * The next member: its key unescaped into key as json_read_key() does
 * (len > 0), and its value as a span, *value_len bytes at
 * text + *value_off with no white space around it. 1 when the key is
 * whole; 0 when it did not fit in len bytes (key holds its start) or held
 * \u0000 (key ""), so that a cut key is never taken for a shorter name;
 * -1 after the last member (key "").
 */
int json_read_members_next(struct json_members *it, char *key, size_t len, size_t *value_off,
                           size_t *value_len);

#endif
