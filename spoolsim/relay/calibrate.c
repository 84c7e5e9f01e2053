/*
 * calibrate - `spoolsim calibrate': measure a real MTA's CPU per message.
 *
 * `spoolsim calibrate postfix [-o FILE] [-m N]' runs a real Postfix (from
 * scripts/fetch-peer.sh, never installed) and the bare relay at the same
 * loads and writes a cost model for `spoolsim relay --model FILE'. The
 * measuring is a script, bench/calibrate-postfix.sh, since it drives another
 * program's daemons and cgroups; this command finds it and runs it with this
 * spoolsim. `spoolsim calibrate --speed' prints this CPU's reference speed,
 * which a model carries so that its costs can be scaled to another CPU.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cpu_burn.h"
#include "msg.h"
#include "optarg.h"
#include "spoolsim.h"

#define SCRIPT "calibrate-postfix.sh"

static void usage(FILE *fp)
{
    fprintf(fp, "Usage: spoolsim calibrate postfix [-o MODEL.json] [-m MESSAGES]\n"
                "       spoolsim calibrate --speed\n"
                "\n"
                "Measures a real Postfix relay's CPU per message for each of its process\n"
                "classes (smtpd, cleanup, qmgr, trivial-rewrite, smtp, ...), and the bare\n"
                "relay's at the same loads, on tmpfs, and writes a cost model for\n"
                "spoolsim relay --model FILE (standard output without -o). Needs root;\n"
                "Postfix is fetched by scripts/fetch-peer.sh, never installed.\n"
                "\n"
                "  -o FILE     write the model here\n"
                "  -m N        messages per load (2000)\n"
                "  --speed     print this CPU's reference speed and exit\n"
                "  -h, --help, --version\n");
}

int spoolsim_calibrate(int argc, char **argv)
{
    char self[PATH_MAX], script[PATH_MAX];

    if (argc < 2)
        msg_usage("which MTA? (spoolsim calibrate postfix; see --help)");
    if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
        usage(stdout);
        return 0;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("spoolsim calibrate %s\n", PACKAGE_VERSION);
        return 0;
    }
    if (strcmp(argv[1], "--speed") == 0) {
        if (argc > 2)
            msg_usage("--speed takes no arguments");
        printf("%.1f\n", cpu_burn_speed());
        return 0;
    }
    if (strcmp(argv[1], "postfix") != 0)
        msg_usage("cannot calibrate \"%s\": only postfix has a calibration", argv[1]);
    /* the script writes the model at its very end: a bad -o must not cost a calibration */
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "-o") == 0 && i + 1 < argc)
            optarg_output_file(argv[++i], "-o");
        else if (strncmp(argv[i], "-o", 2) == 0 && argv[i][2])
            optarg_output_file(argv[i] + 2, "-o");
    }
    spoolsim_self(self, sizeof(self));
    if (spoolsim_find_script(self, SCRIPT, "SPOOLSIM_CALIBRATE_SCRIPT", script, sizeof(script)) !=
        0)
        msg_fatal("cannot find %s next to %s or in its build tree (set SPOOLSIM_CALIBRATE_SCRIPT "
                  "to its path)",
                  SCRIPT, self);
    setenv("SPOOLSIM", self, 1);
    argv[1] = script;
    execv(script, argv + 1);
    msg_fatal("cannot run %s: %s", script, strerror(errno));
}
