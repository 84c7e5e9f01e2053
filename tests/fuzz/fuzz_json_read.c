/*
 * fuzz_json_read - json_read_number() and json_read_string() on any text.
 *
 * spoolsim bench and ab read other runs' JSON reports, which may have been
 * cut short by a writer that died. The input is the text; if it holds a
 * NUL, the part before it is a path and the rest the text. Besides that
 * path, a few fixed ones are looked up (the top level, keys, indexes,
 * paths from the real reports). The checks: a number read is finite; a
 * value is never both a number and a string; a string read into a small
 * buffer is the same string read into a large one, cut on a UTF-8
 * boundary (never more than the 3 bytes of an unfinished sequence short)
 * and always NUL-terminated; -1 leaves an empty string; and if any path
 * can be read, the text is well-formed, so the top level can be read too.
 * A walk over the top-level members (json_members_*) gives the keys
 * json_read_key() gives, in order, each value a span inside the text.
 */
#include "config.h"

#include "fuzz.h"
#include "json_read.h"

/* Valid UTF-8, complete sequences only (overlong forms do not matter here). */
static int utf8_ok(const unsigned char *s, size_t n)
{
    for (size_t i = 0; i < n;) {
        size_t need = s[i] < 0x80 ? 1 : s[i] >= 0xf0 ? 4 : s[i] >= 0xe0 ? 3 : s[i] >= 0xc0 ? 2 : 0;

        if (need == 0 || need > 4 || i + need > n)
            return 0;
        for (size_t k = 1; k < need; k++)
            if ((s[i + k] & 0xc0) != 0x80)
                return 0;
        i += need;
    }
    return 1;
}

/*
 * Returns 1 if the path named a value of either kind. big has room for
 * more than the whole input: an unescaped string is never longer than its
 * JSON text, so a read into it is never truncated.
 */
static int check_path(const char *text, const char *path, char *big, size_t big_len)
{
    static const size_t small[] = {1, 2, 3, 4, 5, 7, 16};
    double num = 12345.0;
    int is_num = json_read_number(text, path, &num) == 0;
    int is_str;
    size_t full;

    memset(big, 'x', big_len);
    is_str = json_read_string(text, path, big, big_len) == 0;
    full = strnlen(big, big_len);
    FUZZ_CHECK(full < big_len);
    if (is_num)
        FUZZ_CHECK(num == num && num - num == 0); /* finite: not NaN, not infinite */
    else
        FUZZ_CHECK(num == 12345.0); /* untouched */
    FUZZ_CHECK(!(is_num && is_str));
    if (!is_str) {
        FUZZ_CHECK(full == 0);
        return is_num;
    }
    for (size_t i = 0; i < sizeof(small) / sizeof(small[0]); i++) {
        char out[16];
        size_t len = small[i], got;

        memset(out, 'x', sizeof(out));
        FUZZ_CHECK(json_read_string(text, path, out, len) == 0);
        got = strnlen(out, len);
        FUZZ_CHECK(got < len);
        FUZZ_CHECK(memcmp(out, big, got) == 0);
        if (full < len) {
            FUZZ_CHECK(got == full);
        } else {
            FUZZ_CHECK(got + 3 >= len - 1);
            if (utf8_ok((const unsigned char *)big, full))
                FUZZ_CHECK(utf8_ok((const unsigned char *)out, got));
        }
    }
    {
        char none = 'x';

        FUZZ_CHECK(json_read_string(text, path, &none, 0) == -1 && none == 'x');
    }
    return 1;
}

static void check_members(const char *text)
{
    struct json_members it;
    size_t off, len, n = 0, text_len = strlen(text);
    char key[16], by_index[16];
    int whole;

    if (json_read_members_begin(&it, text, NULL) != 0) {
        FUZZ_CHECK(json_read_key(text, NULL, 0, key, sizeof(key)) == -1);
        return;
    }
    while ((whole = json_read_members_next(&it, key, sizeof(key), &off, &len)) >= 0) {
        int rc = json_read_key(text, NULL, n, by_index, sizeof(by_index));

        FUZZ_CHECK(off < text_len && len > 0 && off + len <= text_len);
        if (whole)
            FUZZ_CHECK(rc == 0 && strcmp(key, by_index) == 0);
        n++;
    }
    FUZZ_CHECK(json_read_key(text, NULL, n, key, sizeof(key)) == -1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const paths[] = {
        NULL,
        "",
        "a",
        "a.b",
        "0",
        "1",
        "a.0",
        "0.a",
        "name",
        "delivered",
        "latency.end_to_end.p50_ms",
        "queue_depth.0.t",
        "queue_depth.1.n.2.0",
        "profile_ops.create",
        "spool_ops.fsyncs",
        "a.b.c.d.e.f",
        "00",
        "99999999999999999999",
    };
    char *input = fuzz_strdup(data, size);
    const char *text = input, *own_path = NULL;
    size_t big_len = size + 2;
    char *big = malloc(big_len);
    int any = 0;

    FUZZ_CHECK(big != NULL);
    if (strlen(input) < size) {
        own_path = input;
        text = input + strlen(input) + 1;
        any |= check_path(text, own_path, big, big_len);
    }
    for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
        any |= check_path(text, paths[i], big, big_len);
    check_members(text);
    if (any) {
        /* Well-formed: the top level is a number, a string or a container. */
        double d;

        FUZZ_CHECK(json_read_number(text, NULL, &d) == 0 ||
                   json_read_string(text, NULL, big, big_len) == 0 ||
                   text[strspn(text, " \t\r\n")] == '{' || text[strspn(text, " \t\r\n")] == '[');
    }
    free(big);
    free(input);
    return 0;
}
