/*
 * fuzz_pm_command - spoolsim postmark's command reader on arbitrary scripts.
 *
 * The input is a PostMark command file. It is read by pm_command_stream()
 * from memory (fmemopen), which runs each line through pm_command_line():
 * the same path as `spoolsim postmark FILE' and the interactive prompt.
 * Afterwards the session must still hold a configuration a run could use:
 * sizes 1 <= low <= high, positive counts and block sizes, biases in
 * -1..10, 1..PM_WORKERS_MAX workers, locations with weights >= 1.
 *
 * Commands that touch the file system or the outside world are dropped
 * before the reader sees them, because a fuzzer must not create, write or
 * run anything: "run" (the benchmark itself: files on disk), "load" (opens
 * a file), "!" (runs a shell command) and "show FILE" (appends to a file;
 * plain "show" only prints). Matching is PostMark's: a command matches
 * when its name is a prefix of the line, so "running" is "run" too. "set
 * location" stays: it only stat()s the directory it is given. "set json
 * FILE" stays: it only records the name, which only "run" would use.
 */
#include "config.h"

#include "fuzz.h"
#include "pm_command.h"
#include "pm_workers.h"

static FILE *devnull;

/*
 * Does this line of the script (LF included, if any) do I/O? The reader
 * sees it as a C string without its LF or CR LF, so a NUL ends it.
 */
static int does_io(const char *line, size_t len)
{
    size_t n = strnlen(line, len);

    if (n >= 1 && line[0] == '!')
        return 1;
    if ((n >= 3 && strncmp(line, "run", 3) == 0) || (n >= 4 && strncmp(line, "load", 4) == 0))
        return 1;
    if (n >= 4 && strncmp(line, "show", 4) == 0) {
        /* Anything after "show" but the line end names an output file. */
        const char *rest = line + 4;
        size_t rest_len = n - 4;

        return !(rest_len == 0 || (rest_len == 1 && (rest[0] == '\n' || rest[0] == '\r')) ||
                 (rest_len == 2 && rest[0] == '\r' && rest[1] == '\n'));
    }
    return 0;
}

static void check_session(const struct pm_session *s)
{
    const struct pm_config *c = &s->cfg;

    FUZZ_CHECK(c->size_low >= 1 && c->size_low <= c->size_high);
    FUZZ_CHECK(c->number >= 1 && c->transactions >= 1 && c->seed >= 1);
    FUZZ_CHECK(c->read_block >= 1 && c->write_block >= 1);
    FUZZ_CHECK(c->bias_read >= -1 && c->bias_read <= 10);
    FUZZ_CHECK(c->bias_create >= -1 && c->bias_create <= 10);
    FUZZ_CHECK(c->buffered == 0 || c->buffered == 1);
    FUZZ_CHECK(c->terse == 0 || c->terse == 1);
    FUZZ_CHECK(s->workers >= 1 && s->workers <= PM_WORKERS_MAX);
    FUZZ_CHECK(s->dirsync == 0 || s->dirsync == 1);
    FUZZ_CHECK(s->compat_timing == 0 || s->compat_timing == 1);
    FUZZ_CHECK(s->sync >= PM_SYNC_NONE && s->sync <= PM_SYNC_OSYNC);
    FUZZ_CHECK(c->nlocations == 0 || c->locations != NULL);
    for (unsigned i = 0; i < c->nlocations; i++)
        FUZZ_CHECK(c->locations[i].dir != NULL && c->locations[i].weight >= 1);
    FUZZ_CHECK(s->json_path == NULL || s->json_path[0] != '\0');
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *p = (const char *)data, *end = p + size;
    struct fuzz_buf script = {0};
    struct pm_session s;
    FILE *in;

    if (devnull == NULL)
        devnull = fopen("/dev/null", "w");
    FUZZ_CHECK(devnull != NULL);
    while (p < end) {
        const char *lf = memchr(p, '\n', (size_t)(end - p));
        size_t len = lf ? (size_t)(lf - p) + 1 : (size_t)(end - p);

        if (!does_io(p, len))
            fuzz_buf_put(&script, p, len);
        p += len;
    }
    pm_command_session_init(&s, devnull, devnull);
    s.progress = 0;
    if (script.len > 0) {
        in = fmemopen(script.data, script.len, "r");
        FUZZ_CHECK(in != NULL);
        pm_command_stream(&s, in, NULL);
        fclose(in);
    }
    check_session(&s);
    pm_command_session_free(&s);
    free(script.data);
    return 0;
}
