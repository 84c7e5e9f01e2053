/*
 * postmark - `spoolsim postmark [FILE]': the PostMark 1.53 workload.
 *
 * Reads PostMark's command language from FILE, then from standard input
 * with the pm> prompt, as PostMark does; see spoolsim-postmark(1) and pm_command.h.
 * Unlike PostMark, a FILE that cannot be read is an error (exit 2), not
 * silently ignored, and so is a FILE with any command in error: it is
 * checked whole, and nothing of it runs. Without FILE, ./.pmrc is read if
 * it exists.
 *
 * Exit status (exit_status.h): 0; 3 when a run failed (file operations
 * that failed, out of files); 1 when its output could not be written; 2 for a usage error or a
 * command in error; 130 or 143 after SIGINT or SIGTERM, which end the run under way as PostMark's
 * own end does, deleting its files, and print its report marked partial.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "exit_status.h"
#include "interrupt.h"
#include "msg.h"
#include "optarg.h"
#include "optgroup.h"
#include "pm_command.h"
#include "progress_out.h"
#include "spoolsim.h"

static void usage(FILE *fp, const struct optgroup *g)
{
    fprintf(fp,
            "Usage: spoolsim postmark [options] [FILE]\n"
            "\n"
            "Runs the PostMark 1.53 workload: the same operations, in the same order, with\n"
            "the same counts as Debian's postmark for the same commands. Commands are read\n"
            "from FILE (default ./.pmrc if it exists), then from standard input (pm> prompt).\n"
            "FILE is checked first: an error on any line, said as FILE:LINE, and nothing runs.\n"
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
            "Options:\n");
    optgroup_help(fp, g, OPTGROUP_OUTPUT, 15);
    fprintf(fp, "\n"
                "-q silences PostMark's own progress text on standard output; the status line\n"
                "replaces it when standard output and standard error are one terminal.\n"
                "\n"
                "Exit status: 0; 1 if the output could not be written; 2 for a usage error or a\n"
                "command in error; 3 if a run failed (file operations failed, out of files);\n"
                "130 or 143 after SIGINT or SIGTERM, which\n"
                "end the run under way, delete its files and print its report marked partial.\n");
}

/* FILE checked whole: its errors said, exit status 2, before anything of it runs. */
static void check_file(FILE *fp, const char *file)
{
    unsigned errors = pm_command_check(fp, file, stderr);

    if (errors)
        msg_usage("%s: %u error%s: nothing was run", file, errors, errors == 1 ? "" : "s");
    rewind(fp);
}

int spoolsim_postmark(int argc, char **argv)
{
    static const struct option long_options[] = {
        {NULL, 0, NULL, 0},
    };
    struct optgroup_values common;
    struct optgroup g;
    struct pm_session session;
    struct json_run run;
    const char *file = NULL;
    FILE *fp = NULL;
    struct stat st;
    struct progress_out status_line;
    int ch, quit = 0, status;

    json_meta_run_init(&run, "spoolsim postmark", "spoolsim", argc, argv);
    optgroup_init(&g, &common,
                  OPTGROUP_PROGRESS | OPTGROUP_QUIET | OPTGROUP_HELP | OPTGROUP_DRY_RUN, "",
                  long_options, "spoolsim postmark", usage);
    g.progress_what = "done of total of the phase (files created, transactions), its ETA";
    /* postmark has no options of its own: every one is a group's */
    if ((ch = optgroup_getopt(&g, argc, argv)) != -1)
        msg_panic("option %d not handled", ch);
    optgroup_end(&g);
    if (argc - optind > 1)
        msg_usage("postmark takes at most one command file");
    if (argc - optind == 1) {
        file = argv[optind];
        if ((fp = fopen(file, "r")) == NULL)
            msg_usage("cannot read command file %s: %s", file, strerror(errno));
        if (fstat(fileno(fp), &st) == 0 && S_ISDIR(st.st_mode))
            msg_usage("cannot read command file %s: %s", file, strerror(EISDIR));
    } else if ((fp = fopen(".pmrc", "r")) != NULL) {
        file = ".pmrc";
    }
    if (fp)
        check_file(fp, file);
    if (common.dry_run && fp)
        optgroup_dry_run_done("would run the commands of %s (checked), then read more from "
                              "standard input unless it quits",
                              file);
    if (common.dry_run)
        optgroup_dry_run_done("no command file (nor ./.pmrc): would read the commands from "
                              "standard input");
    interrupt_install();
    pm_command_session_init(&session, stdout, stderr);
    session.progress = !common.quiet;
    progress_out_init(&status_line, stderr, common.progress);
    progress_out_hook_messages(&status_line);
    session.status = &status_line;
    /* PostMark's dots and a line rewritten in place on one terminal would garble each other */
    if (status_line.mode == PROGRESS_TTY && isatty(STDOUT_FILENO))
        session.progress = 0;
    session.run = &run;
    printf("spoolsim postmark %s: the PostMark 1.53 workload\n", PACKAGE_VERSION);
    if (fp) {
        printf("Reading configuration from file '%s'\n", file);
        quit = pm_command_file(&session, fp, file);
        fclose(fp);
    }
    if (!quit && !interrupt_signal())
        pm_command_stream(&session, stdin, "pm>");
    status = interrupt_flush_stdout();
    if (interrupt_signal())
        status = interrupt_exit_status();
    else if (session.errors)
        status = EXIT_STATUS_USAGE;
    else if (session.failed_runs)
        status = EXIT_STATUS_INCOMPLETE; /* a run whose file operations failed gave no figures */
    else
        status = status != 0 || session.unsaved_runs ? EXIT_STATUS_BAD : EXIT_STATUS_OK;
    progress_out_clear(&status_line);
    msg_set_hook(NULL, NULL);
    pm_command_session_free(&session);
    json_meta_run_free(&run);
    return status;
}
