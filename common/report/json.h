/*
 * json - streaming JSON writer to a stdio stream.
 *
 * Output is pretty-printed with 2-space indentation; commas are automatic.
 * Inside an object every value needs a key; at top level and inside arrays
 * the key must be NULL. A writer emits one top-level value, nested at most
 * JSON_MAX_DEPTH deep; breaking these rules is a programming error and
 * panics. Strings are escaped (short forms for \b \f \n \r \t, \u00xx for
 * other control characters); well-formed UTF-8 passes through, and each
 * byte that starts no UTF-8 character (a path's Latin-1 byte, a cut
 * sequence) becomes U+FFFD, so that the document is always valid JSON.
 * Non-finite doubles are written as null. Write errors are sticky in the
 * stream and reported by json_finish().
 */
#ifndef SPOOLSIM_JSON_H
#define SPOOLSIM_JSON_H

#include <stdint.h>
#include <stdio.h>

#include "fileutil.h"

#define JSON_MAX_DEPTH 32

struct json_writer {
    FILE *fp;
    struct fileutil_output out; /* json_meta_begin()'s: the document, until it is whole */
    int depth;
    int done; /* the top-level value has been started */
    unsigned char is_array[JSON_MAX_DEPTH];
    unsigned char has_items[JSON_MAX_DEPTH];
    unsigned char is_inline[JSON_MAX_DEPTH];
};

void json_init(struct json_writer *w, FILE *fp);

void json_begin_object(struct json_writer *w, const char *key);
void json_end_object(struct json_writer *w);
void json_begin_array(struct json_writer *w, const char *key);
void json_end_array(struct json_writer *w);
/*
 * An array written on one line, "[128, 3]", with any container inside it:
 * for long lists of small tuples, which one per line would make unreadable.
 * json_end_array() closes it.
 */
void json_begin_inline_array(struct json_writer *w, const char *key);

void json_string(struct json_writer *w, const char *key, const char *value); /* NULL -> null */
void json_uint(struct json_writer *w, const char *key, uint64_t value);
void json_int(struct json_writer *w, const char *key, int64_t value);
void json_double(struct json_writer *w, const char *key, double value);
void json_bool(struct json_writer *w, const char *key, int value);
/* value, or null when it is not known (a double says so with NAN: json_double() writes null). */
void json_uint_or_null(struct json_writer *w, const char *key, int known, uint64_t value);
/*
 * A wall-clock instant as Unix seconds to the microsecond ("%.6f"): %.9g
 * would round today's 1.8e9 s to ten seconds. "null" when not finite.
 */
void json_time(struct json_writer *w, const char *key, double unix_s);

/*
 * value as json_double() writes it ("%.9g", '.' whatever the locale; "null"
 * when not finite), for other formats that want the same figures (CSV).
 */
void json_format_double(char *buf, size_t len, double value);

/* Ends the document with a newline; returns 0, or -1 if the stream failed. */
int json_finish(struct json_writer *w);

#endif
