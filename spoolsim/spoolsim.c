/*
 * spoolsim - what a mail spool costs on a disk.
 *
 * The program dispatches to its subcommands; see spoolsim(1). More arrive
 * with their issues: relay, raw, ab, bench.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "msg.h"
#include "spoolsim.h"
#include "suggest.h"

/* A package keeps these two out of PATH, where Postfix's are: spoolsim reaches ours. */
static int run_source(int argc, char **argv)
{
    return companion_run_program("smtp-source", "SPOOLSIM_SMTP_SOURCE", argc, argv);
}

static int run_sink(int argc, char **argv)
{
    return companion_run_program("smtp-sink", "SPOOLSIM_SMTP_SINK", argc, argv);
}

static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} subcommands[] = {
    {"bench", spoolsim_bench, "end to end in one command: source -> relay -> sink on a temp spool"},
    {"sweep", spoolsim_sweep,
     "the knee of a relay: open-loop steps of rate, the highest it keeps up"},
    {"raw", spoolsim_raw, "a spool profile's file operations alone, no network"},
    {"relay", spoolsim_relay, "a queue daemon writing a Postfix spool, relaying to a next hop"},
    {"postmark", spoolsim_postmark, "the PostMark 1.53 workload, faithful, with precise timing"},
    {"ab", spoolsim_ab, "A/B: two spool directories compared, the ratio with a 95 % interval"},
    {"calibrate", spoolsim_calibrate, "measure a real MTA's CPU per message: a cost model"},
    {"plot", spoolsim_plot,
     "pictures of results: timelines, latency percentiles, A/B bars, sweeps"},
    {"merge", spoolsim_merge, "smtp-source results of several load hosts as one, exactly"},
    {"compare", spoolsim_compare, "stored results side by side, ratios and 95 % intervals"},
    {"rerun", spoolsim_rerun, "a stored result's command line, run again"},
    {"workload", spoolsim_workload,
     "a mail log read into a workload: sizes, recipients, arrivals, peak"},
    {"crash", spoolsim_crash, "what a power cut loses: the spool's crash points on a real fs"},
    {"source", run_source, "smtp-source, the load client, wherever it is installed"},
    {"sink", run_sink, "smtp-sink, the test server, wherever it is installed"},
};

static void usage(FILE *fp)
{
    fprintf(fp, "Usage: spoolsim COMMAND [options] [arguments]\n\nCommands:\n");
    for (size_t i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]); i++)
        fprintf(fp, "  %-10s %s\n", subcommands[i].name, subcommands[i].summary);
    fprintf(fp, "\nspoolsim help COMMAND (or spoolsim COMMAND --help, or -h) describes a "
                "command;\nits manual page is spoolsim-COMMAND(1), and spoolsim(1) is the "
                "overview.\n");
}

int main(int argc, char **argv)
{
    char *help_argv[3];

    msg_init("spoolsim");
    companion_init(argv[0]);
    if (argc < 2)
        msg_usage("no command given (try: spoolsim bench, or spoolsim --help)");
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
        (strcmp(argv[1], "help") == 0 && argc == 2)) {
        usage(stdout);
        return 0;
    }
    if (strcmp(argv[1], "help") == 0) {
        /* "spoolsim help CMD" is "spoolsim CMD --help". */
        if (argc > 3)
            msg_usage("help takes one command, got \"%s\" too", argv[3]);
        help_argv[0] = "help";
        help_argv[1] = argv[2];
        help_argv[2] = "--help";
        argv = help_argv;
        argc = 3;
    }
    if (strcmp(argv[1], "--list-options") == 0 && argc == 2) {
        /* For the shell completion, as optarg_getopt() lists a command's options. */
        for (size_t i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]); i++)
            printf("%s\n", subcommands[i].name);
        printf("help\n-h\n--help\n--version\n");
        return ferror(stdout) || fflush(stdout) != 0;
    }
    if (strcmp(argv[1], "--version") == 0) {
#ifdef SPOOLSIM_PACKAGE_VERSION
        printf("spoolsim %s (package %s)\n", PACKAGE_VERSION, SPOOLSIM_PACKAGE_VERSION);
#else
        printf("spoolsim %s\n", PACKAGE_VERSION);
#endif
        return 0;
    }
    for (size_t i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]); i++) {
        if (strcmp(argv[1], subcommands[i].name) == 0) {
            char name[64];

            snprintf(name, sizeof(name), "spoolsim %s", subcommands[i].name);
            msg_init(name);
            return subcommands[i].run(argc - 1, argv + 1);
        }
    }
    {
        const char *names[sizeof(subcommands) / sizeof(subcommands[0]) + 1];
        const char *near;

        for (size_t i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]); i++)
            names[i] = subcommands[i].name;
        names[sizeof(subcommands) / sizeof(subcommands[0])] = "help";
        near = suggest_nearest(argv[1], names, sizeof(names) / sizeof(names[0]));
        if (near)
            msg_usage("unknown command \"%s\" (did you mean %s?)", argv[1], near);
        msg_usage("unknown command \"%s\"", argv[1]);
    }
}
