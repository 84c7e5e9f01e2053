/*
 * msg - diagnostics for spoolsim programs; see msg.h.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "msg.h"

static const char *msg_name = "spoolsim";
static int msg_verbosity;
static void (*msg_hook)(const void *ctx);
static const void *msg_hook_ctx;

void msg_init(const char *progname)
{
    const char *slash = strrchr(progname, '/');

    msg_name = slash ? slash + 1 : progname;
}

const char *msg_progname(void)
{
    return msg_name;
}

void msg_set_verbose(int level)
{
    msg_verbosity = level;
}

int msg_verbose(void)
{
    return msg_verbosity;
}

void msg_set_hook(void (*fn)(const void *ctx), const void *ctx)
{
    msg_hook_ctx = ctx;
    msg_hook = fn;
}

static void msg_vprint(const char *level, const char *fmt, va_list ap)
{
    char line[2048];

    vsnprintf(line, sizeof(line), fmt, ap);
    if (msg_hook)
        msg_hook(msg_hook_ctx);
    if (level)
        fprintf(stderr, "%s: %s: %s\n", msg_name, level, line);
    else
        fprintf(stderr, "%s: %s\n", msg_name, line);
}

void msg_info(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    msg_vprint(NULL, fmt, ap);
    va_end(ap);
}

void msg_warn(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    msg_vprint("warning", fmt, ap);
    va_end(ap);
}

void msg_fatal(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    msg_vprint("fatal", fmt, ap);
    va_end(ap);
    exit(1);
}

void msg_usage(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    msg_vprint("usage error", fmt, ap);
    va_end(ap);
    fprintf(stderr, "Try '%s --help' for more information.\n", msg_name);
    exit(2);
}

void msg_panic(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    msg_vprint("panic", fmt, ap);
    va_end(ap);
    abort();
}

int msg_vset_error(char *err, size_t errlen, const char *fmt, va_list ap)
{
    if (err && errlen)
        vsnprintf(err, errlen, fmt, ap);
    return -1;
}

int msg_set_error(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    msg_vset_error(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}
