/*
 * smtp_tool_opts - the options smtp-source and smtp-sink share; see
 * smtp_tool_opts.h.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "msg.h"
#include "optarg.h"
#include "smtp_tool_opts.h"

const struct optarg_old smtp_tool_opts_old[] = {{"--quiet", NULL}, {NULL, NULL}};

void smtp_tool_opts_init(struct smtp_tool_opts *o, const char *program, const char *quiet_usage)
{
    *o = (struct smtp_tool_opts){
        .program = program,
        .quiet_usage = quiet_usage,
        .family = AF_UNSPEC,
        .seed = 1,
    };
}

int smtp_tool_opts_parse(struct smtp_tool_opts *o, int code, const char *arg)
{
    switch (code) {
    case '4':
        o->family = AF_INET;
        return 1;
    case '6':
        o->family = AF_INET6;
        return 1;
    case 'L':
        o->lmtp = 1;
        return 1;
    case 'T':
        o->tcp_window = (int)optarg_count(arg, "-T", 1, INT_MAX);
        return 1;
    case 'v':
        o->verbose++;
        return 1;
    case SMTP_TOOL_OPT_SEED:
        o->seed = optarg_count(arg, "--seed", 0, UINT64_MAX);
        return 1;
    case SMTP_TOOL_OPT_JSON:
        o->json_file = optarg_output_file(arg, "--json");
        return 1;
    case SMTP_TOOL_OPT_MSG_LOG:
        o->msg_log = optarg_output_file(arg, "--msg-log");
        return 1;
    case SMTP_TOOL_OPT_NO_SUMMARY:
        o->no_summary = 1;
        return 1;
    case SMTP_TOOL_OPT_QUIET:
        msg_usage("%s", o->quiet_usage);
    case SMTP_TOOL_OPT_VERSION:
        printf("%s (spoolsim) %s\n", o->program, PACKAGE_VERSION);
        exit(0);
    default:
        return 0;
    }
}

int smtp_tool_opts_msg_log_close(const struct smtp_tool_opts *o, FILE *fp)
{
    int lost, flushed;

    if (fp == NULL)
        return 0;
    lost = ferror(fp);
    flushed = fflush(fp) == 0 && (fp == stdout || fclose(fp) == 0);
    if (lost || !flushed) {
        msg_warn("write error on message log %s: %s; lines of it are lost, and it cannot be "
                 "used to check what was delivered",
                 o->msg_log, !flushed ? strerror(errno) : "an earlier write failed");
        return -1;
    }
    return 0;
}

FILE *smtp_tool_opts_msg_log(const struct smtp_tool_opts *o, const char *mode)
{
    FILE *fp;

    if (o->msg_log == NULL)
        return NULL;
    fp = strcmp(o->msg_log, "-") == 0 ? stdout : fopen(o->msg_log, mode);
    if (fp == NULL)
        msg_fatal("cannot open message log %s: %s", o->msg_log, strerror(errno));
    return fp;
}
