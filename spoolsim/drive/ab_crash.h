/*
 * ab_crash - `spoolsim ab --crash N': each side's durability beside its
 * speed. ab runs `spoolsim crash' as a child on each side after the speed
 * runs (and once with --dry-run before them, so that a side the crash test
 * cannot take is said before any run), on the load the A/B measured;
 * this module says what that child is given and what its report said, and prints it. The crash test
 * makes its own image like the side's filesystem (--spool DIR: its type and the mount options that
 * decide what a crash loses); it never touches DIR.
 */
#ifndef SPOOLSIM_AB_CRASH_H
#define SPOOLSIM_AB_CRASH_H

#include <stddef.h>
#include <stdio.h>

#include "ab.h"
#include "json.h"

/* A crash child's command line: v, whose strings point into points and ab's options. */
struct ab_crash_argv {
    char *v[40];
    char points[32];
};

/*
 * The child's command line in a: spoolsim crash --spool DIR --points N with
 * the A/B's load (ab_options.crash_load), then --dry-run, or -q --json JSON (and
 * --progress when ab shows one).
 */
void ab_crash_argv(const struct ab *ab, const struct side *s, int dry_run, const char *json,
                   int progress, struct ab_crash_argv *a);

/* The load the crash child is given, as its options: "--duration 10s --sessions 20 ...". */
void ab_crash_load_text(const struct ab_crash_load *l, char *text, size_t size);

/*
 * What the crash child's wait status and report say, into c: done with
 * its verdict when it exited 0 (durable) or 1 with a report (it lost
 * mail); otherwise not done, and why. 0 when done, else -1.
 */
int ab_crash_read(struct side_crash *c, int status, const char *json);

/* "A crash (ext4 -o data=ordered): durable: ..." or "A crash: failed: ...", a line on fp. */
void ab_crash_print(const struct side *s, FILE *fp);
/* The side's "crash" member: its figures, or null when --crash was not given. */
void ab_crash_json(struct json_writer *w, const struct ab *ab, const struct side *s);

#endif
