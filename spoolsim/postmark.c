/*
 * postmark - `spoolsim postmark [FILE]': the PostMark 1.53 workload.
 *
 * Reads PostMark's command language from FILE, then from standard input
 * with the pm> prompt, as PostMark does; see spoolsim(1) and pm_command.h.
 * Unlike PostMark, a FILE that cannot be read is an error (exit 2), not
 * silently ignored. Without FILE, ./.pmrc is read if it exists.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "msg.h"
#include "pm_command.h"
#include "spoolsim.h"

static void usage(FILE *fp)
{
    fprintf(fp, "Usage: spoolsim postmark [options] [FILE]\n"
                "\n"
                "Runs the PostMark 1.53 workload: the same operations, in the same order, with\n"
                "the same counts as Debian's postmark for the same commands. Commands are read\n"
                "from FILE (default ./.pmrc if it exists), then from standard input (pm> prompt).\n"
                "\n"
                "PostMark's commands: set size LOW [HIGH], set number N, set seed N,\n"
                "  set transactions N, set location [+|-]DIR [WEIGHT], set subdirectories N,\n"
                "  set read BYTES, set write BYTES, set buffering true|false,\n"
                "  set bias read -1..10, set bias create -1..10, set report verbose|terse,\n"
                "  run [FILE], load FILE, show [FILE], help [PREFIX], quit, !COMMAND\n"
                "spoolsim's additions:\n"
                "  set sync none|fsync|fdatasync|osync   sync every file before close (none)\n"
                "  set dirsync on|off       fsync the directory after create and delete (off)\n"
                "  set timing precise|compat  monotonic-clock rates with decimals (precise),\n"
                "                           or PostMark's whole-second arithmetic (compat)\n"
                "  set json FILE|off        also write each run's report as JSON\n"
                "  set workers N            N concurrent workers, each its own stream (1)\n"
                "Blank lines and # comments are allowed; CR LF line ends are fine.\n"
                "\n"
                "Options:\n"
                "  -q, --quiet     no progress text\n"
                "  --help, --version\n");
}

int spoolsim_postmark(int argc, char **argv)
{
    static const struct option long_options[] = {
        {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'H'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    struct pm_session session;
    struct json_run run;
    const char *file = NULL;
    FILE *fp = NULL;
    int ch, quiet = 0, quit = 0;

    json_run_init(&run, "spoolsim postmark", "spoolsim", argc, argv);
    optind = 1;
    while ((ch = getopt_long(argc, argv, "q", long_options, NULL)) != -1) {
        switch (ch) {
        case 'q':
            quiet = 1;
            break;
        case 'H':
            usage(stdout);
            return 0;
        case 'V':
            printf("spoolsim postmark %s\n", PACKAGE_VERSION);
            return 0;
        default:
            msg_usage("unknown option");
        }
    }
    if (argc - optind > 1)
        msg_usage("postmark takes at most one command file");
    if (argc - optind == 1) {
        file = argv[optind];
        if ((fp = fopen(file, "r")) == NULL)
            msg_usage("cannot read command file %s: %s", file, strerror(errno));
    } else if ((fp = fopen(".pmrc", "r")) != NULL) {
        file = ".pmrc";
    }
    pm_session_init(&session, stdout, stderr);
    session.progress = !quiet;
    session.run = &run;
    printf("spoolsim postmark %s: the PostMark 1.53 workload\n", PACKAGE_VERSION);
    if (fp) {
        printf("Reading configuration from file '%s'\n", file);
        quit = pm_command_stream(&session, fp, NULL);
        fclose(fp);
    }
    if (!quit)
        pm_command_stream(&session, stdin, "pm>");
    pm_session_free(&session);
    json_run_free(&run);
    return fflush(stdout) == 0 ? 0 : 1;
}
