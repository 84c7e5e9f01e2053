/*
 * replay.c - main() for a fuzz target built without libFuzzer.
 *
 * tests/fuzz/replay_<name> links this file with the very source list
 * (FUZZ_SRC_<name>, tests/fuzz/include.am) that `make fuzz' hands clang,
 * but through $(CC) in `make check': a library source that starts to call
 * a function of a file the list lacks then fails `make check' at link time
 * instead of CI's last step. Run, it calls LLVMFuzzerTestOneInput() as
 * libFuzzer would on its seed corpus: the empty input first, then each
 * file, so the seeds are a test of the target's invariants too (under the
 * sanitizers in a --enable-sanitizers build).
 *
 * Usage: replay_<name> [FILE|DIR]...  Each FILE is one input; a DIR's
 * files are taken in name order, its subfolders too. With no argument, the
 * seed corpus $top_srcdir/tests/fuzz/corpus/<name> (FUZZ_NAME), as `make
 * check' runs it. The name of each input is printed before it runs, so a
 * trap's log says which one it was; any input that cannot be read, or no
 * input at all, is a failure.
 *
 * Only libc here, none of common/util (fileutil_read_all would do): what
 * this file linked would mask what a target's list lacks.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <sys/stat.h>

#include "fuzz.h"

#ifndef FUZZ_NAME
#error "FUZZ_NAME: the target's name, as its seed corpus folder is called"
#endif

/* One input, in an allocation of exactly its size so ASan sees overreads. */
static int replay_file(const char *path, size_t *count)
{
    FILE *f = fopen(path, "rb");
    uint8_t *data = NULL;
    size_t len = 0, cap = 0;

    if (f == NULL) {
        fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
        return -1;
    }
    for (;;) {
        uint8_t chunk[8192];
        size_t n = fread(chunk, 1, sizeof(chunk), f);

        if (n == 0)
            break;
        if (len + n > cap) {
            cap = len + n;
            data = realloc(data, cap);
            FUZZ_CHECK(data != NULL);
        }
        memcpy(data + len, chunk, n);
        len += n;
    }
    if (ferror(f)) {
        fprintf(stderr, "replay: %s: read error\n", path);
        fclose(f);
        free(data);
        return -1;
    }
    fclose(f);
    printf("%s (%zu bytes)\n", path, len);
    fflush(stdout);
    LLVMFuzzerTestOneInput(data ? data : (const uint8_t *)"", len);
    free(data);
    (*count)++;
    return 0;
}

static int replay_path(const char *path, size_t *count)
{
    struct stat st;
    struct dirent **names;
    int n, rc = 0;

    if (stat(path, &st) != 0) {
        fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
        return -1;
    }
    if (!S_ISDIR(st.st_mode))
        return replay_file(path, count);
    n = scandir(path, &names, NULL, alphasort);
    if (n < 0) {
        fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
        return -1;
    }
    for (int i = 0; i < n; i++) {
        const char *name = names[i]->d_name;

        if (rc == 0 && strcmp(name, ".") != 0 && strcmp(name, "..") != 0) {
            size_t size = strlen(path) + strlen(name) + 2;
            char *sub = malloc(size);

            FUZZ_CHECK(sub != NULL);
            snprintf(sub, size, "%s/%s", path, name);
            rc = replay_path(sub, count);
            free(sub);
        }
        free(names[i]);
    }
    free(names);
    return rc;
}

int main(int argc, char **argv)
{
    size_t count = 0;
    int rc = 0;

    /* libFuzzer tries the empty input before any of the corpus. */
    LLVMFuzzerTestOneInput((const uint8_t *)"", 0);
    if (argc > 1) {
        for (int i = 1; i < argc && rc == 0; i++)
            rc = replay_path(argv[i], &count);
    } else {
        const char *top = getenv("top_srcdir");
        const char *tail = "/tests/fuzz/corpus/" FUZZ_NAME;
        size_t size;
        char *dir;

        if (top == NULL || *top == 0)
            top = ".";
        size = strlen(top) + strlen(tail) + 1;
        dir = malloc(size);
        FUZZ_CHECK(dir != NULL);
        snprintf(dir, size, "%s%s", top, tail);
        rc = replay_path(dir, &count);
        free(dir);
    }
    if (rc != 0)
        return 1;
    if (count == 0) {
        fprintf(stderr, "replay: %s: no input to replay\n", FUZZ_NAME);
        return 1;
    }
    printf("%s: %zu inputs and the empty one, ok\n", FUZZ_NAME, count);
    return 0;
}
