/*
 * calibrate - `spoolsim calibrate': measure a real MTA's CPU per message.
 *
 * `spoolsim calibrate postfix|exim [-o FILE] [-m N]' runs a real Postfix or
 * Exim (from scripts/fetch-peer.sh, never installed) and the bare relay at
 * the same loads and writes a cost model: by default into this machine's
 * place in the cache (model_cache.h), where `--model postfix' (or exim)
 * finds it. The measuring is a script, bench/calibrate-postfix.sh or
 * bench/calibrate-exim.sh, since it drives another program's daemons and
 * cgroups; this command finds it and runs it with this spoolsim, as root
 * in a mount namespace of its own, its children tied to it
 * (platform_tie_children()): a kill -9 of the calibration takes its
 * daemons (Postfix's master detaches from the script) and its tmpfs mounts
 * with it, and the next calibration removes the directory and cgroups it
 * left (bench/calibrate-lib.sh).
 * `spoolsim calibrate --machine' prints what the model records of the
 * machine (identity and micro-benchmarks, machine_probe.h);
 * `--speed' only the integer loop's speed.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "exit_status.h"
#include "calibrate_fit.h"
#include "cpu_burn.h"
#include "json.h"
#include "machine_probe.h"
#include "model_cache.h"
#include "msg.h"
#include "optarg.h"
#include "optgroup.h"
#include "platform.h"
#include "relay_model.h"
#include "spoolsim.h"

static void usage(FILE *fp)
{
    fprintf(fp, "Usage: spoolsim calibrate postfix|exim [--if-needed] [--dry-run] [-o MODEL.json]\n"
                "                          [-m MESSAGES]\n"
                "       spoolsim calibrate --machine | --speed | --cache-path [MTA]\n"
                "\n"
                "Measures a real Postfix (or Exim) relay's CPU per message for each of its\n"
                "process classes (Postfix: smtpd, cleanup, qmgr, trivial-rewrite, smtp, ...;\n"
                "Exim: its daemon, receiving and delivery processes), and the bare relay's\n"
                "with that MTA's profile at the same loads, on tmpfs, and writes a cost\n"
                "model. Without -o it goes to this machine's file in the cache (see the\n"
                "option --cache-path), which spoolsim relay --model postfix (or exim) then\n"
                "uses on this machine. Needs root; the MTA is fetched by\n"
                "scripts/fetch-peer.sh, never installed.\n"
                "\n"
                "  --if-needed   only if --model MTA has no model measured on this machine\n"
                "                (exit 0 at once if it has; 1 if not and not root)\n"
                "  --dry-run     check what it needs (root, its script, the cache or -o)\n"
                "                and say what would run: exit 0, or 2 naming the problem\n"
                "  -o, --output FILE\n"
                "                write the model here (- for standard output)\n"
                "  -m, --messages N\n"
                "                messages per load, at least 200 (2000)\n"
                "  --machine     print this machine's identity and what system work costs\n"
                "                on it (the micro-benchmarks a model records), as JSON\n"
                "  --speed       print this CPU's integer loop speed and exit\n"
                "  --cache-path  print where this machine's model of MTA (postfix) is kept\n"
                "                and exit\n"
                "  -h, --help, --version\n");
}

/* --machine: what a model records of the machine it was measured on. */
static int print_machine(const char *self)
{
    struct cost_machine mc;
    struct json_writer w;
    char err[200];

    machine_probe_identity(&mc);
    memset(&mc.costs, 0, sizeof(mc.costs));
    /* what a model records is compared with every later probe: the best of three */
    if (machine_probe_costs_more(self, MACHINE_PROBE_ROUNDS, &mc.costs, err, sizeof(err)) != 0)
        msg_fatal("cannot measure this machine: %s", err);
    mc.has_costs = 1;
    json_init(&w, stdout);
    calibrate_fit_machine_json(&mc, &w, NULL);
    return json_finish(&w) == 0 ? 0 : 1;
}

static void cache_path(const char *mta, char *out, size_t len)
{
    struct cost_machine here;

    machine_probe_identity(&here);
    if (model_cache_path(mta, &here, out, len) != 0)
        msg_fatal("no cache directory: set SPOOLSIM_CACHE_DIR, XDG_CACHE_HOME or HOME, or use -o");
}

/*
 * mkdir -p of the cache file's directory, owner-writable only; the
 * machine's cache readable by every user (0755 whatever the umask), and
 * so is the model written into it, since every user's runs read it.
 */
static void make_parent(const char *path, int system)
{
    char dir[PATH_MAX];
    char *last;

    snprintf(dir, sizeof(dir), "%s", path);
    for (char *p = dir + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = 0;
        if (mkdir(dir, 0755) != 0 && errno != EEXIST)
            msg_fatal("cannot make %s: %s", dir, strerror(errno));
        *p = '/';
    }
    if (!system || (last = strrchr(dir, '/')) == NULL || last == dir)
        return;
    *last = 0;
    if (chmod(dir, 0755) != 0)
        msg_fatal("cannot make %s readable by every user: %s", dir, strerror(errno));
    umask(022);
}

/*
 * As root, the cache calibrate writes the model to, and the MTA it unpacks
 * there and runs (its peers/), must be root's alone (model_cache.h):
 * whoever else could write there would choose the model every run takes,
 * or what root runs. A place not made yet is made by root.
 */
static void check_cache(const char *dir, const char *what)
{
    char why[600];

    if (geteuid() != 0 || model_cache_check_dir(dir, why, sizeof(why)) == 0 || errno == ENOENT)
        return;
    msg_fatal("not calibrating as root with %s in %s: %s (fix its owner or mode, or set "
              "SPOOLSIM_CACHE_DIR, or SPOOLSIM_PEERS, to a place that is root's alone)",
              what, dir, why);
}

/* --if-needed: does --model MTA lack a model measured on this machine? Says which. */
static int needed(const char *self, const char *mta)
{
    struct relay_model *rm;
    char err[300];
    const char *why;

    if (relay_model_open(mta, self, &rm, err, sizeof(err)) != 0)
        msg_fatal("%s", err);
    why = relay_model_warning(rm);
    if (why)
        msg_info("%s: calibrating here first", why);
    else
        msg_info("the %s model is this machine's already (%s)", mta, relay_model_origin(rm));
    relay_model_free(rm);
    return why != NULL;
}

/*
 * What the script needs, named for it as spoolsim finds it (companion.c):
 * this spoolsim, its smtp-source and smtp-sink, the data; and, for an
 * installed spoolsim, where the MTA is unpacked (fetch-peer.sh), beside
 * the models in the cache, since an installed tree has no tests/peers.
 * What the environment names already is kept.
 */
void calibrate_script_env(const char *self)
{
    char path[PATH_MAX];

    setenv("SPOOLSIM", self, 1);
    companion_find_program(self, "smtp-source", "SPOOLSIM_SMTP_SOURCE", path, sizeof(path));
    setenv("SPOOLSIM_SMTP_SOURCE", path, 1);
    companion_find_program(self, "smtp-sink", "SPOOLSIM_SMTP_SINK", path, sizeof(path));
    setenv("SPOOLSIM_SMTP_SINK", path, 1);
    companion_data_dir(self, path, sizeof(path));
    setenv("SPOOLSIM_DATA_DIR", path, 0);
    if (!companion_in_build_tree(self) && getenv("SPOOLSIM_PEERS") == NULL) {
        char dir[PATH_MAX - 8];

        if (model_cache_home(geteuid(), dir, sizeof(dir), NULL) != 0)
            msg_fatal("no directory to unpack the MTA in: set SPOOLSIM_PEERS, SPOOLSIM_CACHE_DIR, "
                      "XDG_CACHE_HOME or HOME");
        snprintf(path, sizeof(path), "%s/peers", dir);
        check_cache(dir, "the MTA to run");
        check_cache(path, "the MTA to run");
        setenv("SPOOLSIM_PEERS", path, 1);
    }
}

/*
 * A count of Postfix's CPU per message on a busy machine runs high: on one
 * AMD EPYC VM 1.71 ms quiet and 2.52 ms beside a CI run's tests
 * (docs/fidelity.md), and the model keeps what it was given. So the
 * machine is looked at for a second first, and a busy one said.
 */
#define BUSY_WARN_FRACTION 0.25

static void warn_if_busy(void)
{
    uint64_t busy0, total0, busy1, total1;
    double busy;

    if (platform_cpu_ticks(&busy0, &total0) != 0)
        return;
    sleep(1);
    if (platform_cpu_ticks(&busy1, &total1) != 0 || total1 <= total0)
        return;
    busy = (double)(busy1 - busy0) / (double)(total1 - total0);
    if (busy > BUSY_WARN_FRACTION)
        msg_warn("the machine is %.0f %% busy with other work: a busy machine counts up to half "
                 "more CPU per message than a quiet one (docs/fidelity.md); calibrate when it is "
                 "quiet",
                 busy * 100.0);
}

/*
 * --dry-run: what a calibration would need before it starts (root, its
 * script, a cache root may write to, or -o's file, checked when parsed),
 * said without running the MTA or measuring the machine; --if-needed's
 * look at the cache is a measurement, so it is only said.
 */
static _Noreturn void check_dry_run(const char *self, const char *mta, const char *name,
                                    const char *out, int if_needed)
{
    char script[PATH_MAX], cache[PATH_MAX], dir[PATH_MAX];
    char why[600];

    if (geteuid() != 0)
        msg_usage("calibrating %s needs root: it runs a private %s and its daemons", mta, mta);
    if (companion_find_script(self, name, "SPOOLSIM_CALIBRATE_SCRIPT", script, sizeof(script)) != 0)
        msg_usage("cannot find %s next to %s, in its build tree or where it is installed (set "
                  "SPOOLSIM_CALIBRATE_SCRIPT to its path)",
                  name, self);
    if (out == NULL) {
        cache_path(mta, cache, sizeof(cache));
        model_cache_home(geteuid(), dir, sizeof(dir), NULL);
        if (model_cache_check_dir(dir, why, sizeof(why)) != 0 && errno != ENOENT)
            msg_usage("the cache %s is not root's alone: %s", dir, why);
        out = cache;
    }
    optgroup_dry_run_done("would %s %s with %s (a minute or two), the model to %s",
                          if_needed ? "calibrate, unless this machine's model is cached,"
                                    : "calibrate",
                          mta, script, out);
}

/*
 * The words the command line takes, for --list-options as optarg.h lists
 * a table (this one has none): the MTA, then the options ("=": a value).
 */
static const char *const list_words[] = {
    "postfix",     "exim",      "--if-needed", "--dry-run",    "-o=", "--output=", "-m=",
    "--messages=", "--machine", "--speed",     "--cache-path", "-h",  "--help",    "--version",
};

/* The options after the MTA; the script checks -m again, with the same bound. */
enum { OPT_IF_NEEDED = 256, OPT_DRY_RUN };
static const struct option mta_options[] = {
    {"if-needed", no_argument, NULL, OPT_IF_NEEDED},
    {"dry-run", no_argument, NULL, OPT_DRY_RUN},
    {"output", required_argument, NULL, 'o'},
    {"messages", required_argument, NULL, 'm'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};
#define CALIBRATE_MESSAGES_MIN 200

int spoolsim_calibrate(int argc, char **argv)
{
    char self[PATH_MAX], script[PATH_MAX], cache[PATH_MAX], name[64];
    char *args[6];
    const char *mta, *out = NULL, *messages = NULL;
    int if_needed = 0, dry_run = 0, n = 0, ch;

    if (argc < 2)
        msg_usage("which MTA? (spoolsim calibrate postfix or exim; see --help)");
    if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
        usage(stdout);
        return 0;
    }
    if (strcmp(argv[1], "--list-options") == 0 && argc == 2) {
        for (size_t i = 0; i < sizeof(list_words) / sizeof(list_words[0]); i++)
            printf("%s\n", list_words[i]);
        return ferror(stdout) || fflush(stdout) != 0;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("spoolsim calibrate %s\n", PACKAGE_VERSION);
        return 0;
    }
    /* the calibration scripts' steps (calibrate_fit.h), not for users */
    if (strcmp(argv[1], "--fit") == 0)
        return calibrate_fit_run(argc - 1, argv + 1);
    if (strcmp(argv[1], "--relay-cpu") == 0)
        return calibrate_fit_relay_cpu(argc - 1, argv + 1);
    if (strcmp(argv[1], "--cache-path") == 0) {
        mta = argc > 2 ? argv[2] : "postfix";
        if (argc > 3 || cost_model_builtin(mta) == NULL)
            msg_usage("--cache-path takes one MTA at most: postfix or exim");
        cache_path(mta, cache, sizeof(cache));
        printf("%s\n", cache);
        return 0;
    }
    if (strcmp(argv[1], "--speed") == 0 || strcmp(argv[1], "--machine") == 0) {
        if (argc > 2)
            msg_usage("%s takes no arguments", argv[1]);
        if (strcmp(argv[1], "--speed") == 0) {
            printf("%.1f\n", cpu_burn_speed());
            return 0;
        }
        companion_self(self, sizeof(self));
        return print_machine(self);
    }
    if ((mta = cost_model_builtin_name(argv[1])) == NULL)
        msg_usage("cannot calibrate \"%s\": only postfix and exim have a calibration", argv[1]);
    snprintf(name, sizeof(name), "calibrate-%s.sh", mta);
    /* after the MTA, getopt's argv[0] */
    while ((ch = optarg_getopt(argc - 1, argv + 1, "o:m:h", mta_options)) != -1) {
        switch (ch) {
        case 'o':
            /* the script writes the model at its very end: a bad -o must not cost a calibration */
            if (strcmp(optarg, "-") != 0)
                optarg_output_file(optarg, "--output");
            out = optarg;
            break;
        case 'h':
            /* calibrate postfix --help: the command's help, as before the MTA */
            usage(stdout);
            return 0;
        case 'm':
            optarg_count(optarg, "--messages", CALIBRATE_MESSAGES_MIN, OPTGROUP_MESSAGES_MAX);
            messages = optarg;
            break;
        case OPT_IF_NEEDED:
            if_needed = 1;
            break;
        case OPT_DRY_RUN:
            dry_run = 1;
            break;
        default:
            msg_panic("option %d not handled", ch);
        }
    }
    if (optind < argc - 1)
        msg_usage("unexpected argument \"%s\"", argv[optind + 1]);
    companion_self(self, sizeof(self));
    if (dry_run)
        check_dry_run(self, mta, name, out, if_needed);
    if (if_needed && !needed(self, mta))
        return 0;
    if (if_needed && geteuid() != 0) {
        msg_warn("calibrating here needs root: the rates of --model %s stay another machine's",
                 mta);
        return EXIT_STATUS_INCOMPLETE; /* the model needed was not made */
    }
    if (companion_find_script(self, name, "SPOOLSIM_CALIBRATE_SCRIPT", script, sizeof(script)) != 0)
        msg_fatal("cannot find %s next to %s, in its build tree or where it is installed (set "
                  "SPOOLSIM_CALIBRATE_SCRIPT to its path)",
                  name, self);
    warn_if_busy();
    calibrate_script_env(self);
    args[n++] = script;
    if (out == NULL) {
        char dir[PATH_MAX];
        int system;

        cache_path(mta, cache, sizeof(cache));
        model_cache_home(geteuid(), dir, sizeof(dir), &system);
        check_cache(dir, "the model to write");
        make_parent(cache, system);
        out = cache;
        msg_info("the model goes to %s (this machine's place in the %s cache)", cache,
                 system ? "machine's" : "user's");
    }
    args[n++] = "-o";
    args[n++] = (char *)out;
    if (messages) {
        args[n++] = "-m";
        args[n++] = (char *)messages;
    }
    args[n] = NULL;
    if (geteuid() == 0 && (platform_private_mounts() != 0 || platform_tie_children() != 0))
        msg_warn("cannot tie the MTA's daemons to this calibration (%s): a kill -9 of it would "
                 "leave them running",
                 strerror(errno));
    execv(script, args);
    msg_fatal("cannot run %s: %s", script, strerror(errno));
}
