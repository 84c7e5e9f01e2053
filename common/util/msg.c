/*
 * msg - diagnostics for spoolsim programs; see msg.h.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exit_status.h"
#include "msg.h"
#include "quote.h"

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

/*
 * Every message escaped (quote.h): it may echo what the user gave. A usage
 * error's line feeds are escaped and its long runs cut too: it echoes the
 * command line, and says what was wrong with it on one line without all of
 * it; the others may quote a child's lines.
 */
static void msg_vprint_cut(const char *level, size_t max_run, const char *fmt, va_list ap)
{
    char line[2048], safe[4 * sizeof(line)];

    vsnprintf(line, sizeof(line), fmt, ap);
    quote_text(line, max_run, max_run ? 0 : QUOTE_KEEP_LINES, safe, sizeof(safe));
    if (msg_hook)
        msg_hook(msg_hook_ctx);
    if (level)
        fprintf(stderr, "%s: %s: %s\n", msg_name, level, safe);
    else
        fprintf(stderr, "%s: %s\n", msg_name, safe);
}

static void msg_vprint(const char *level, const char *fmt, va_list ap)
{
    msg_vprint_cut(level, 0, fmt, ap);
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
    exit(EXIT_STATUS_INCOMPLETE);
}

void msg_usage(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    msg_vprint_cut("usage error", QUOTE_RUN_MAX, fmt, ap);
    va_end(ap);
    fprintf(stderr, "Try '%s --help' for more information.\n", msg_name);
    exit(EXIT_STATUS_USAGE);
}

void msg_panic(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    msg_vprint("panic", fmt, ap);
    va_end(ap);
    abort();
}

void msg_limit_init(struct msg_limit *l, uint64_t every_ns)
{
    memset(l, 0, sizeof(*l));
    l->every_ns = every_ns;
}

void msg_limit_take(struct msg_limit *l, uint64_t now_ns, struct msg_limit_held *held)
{
    held->count = l->running ? l->held : 0;
    held->span_ns = now_ns > l->shown_ns ? now_ns - l->shown_ns : 0;
    memcpy(held->key, l->key, sizeof(held->key));
    l->running = 0;
    l->held = 0;
}

int msg_limit_pass(struct msg_limit *l, const char *key, uint64_t now_ns,
                   struct msg_limit_held *held)
{
    char k[MSG_LIMIT_KEY];

    snprintf(k, sizeof(k), "%s", key);
    held->count = 0;
    if (!l->running || strcmp(k, l->key) != 0) {
        msg_limit_take(l, now_ns, held); /* another warning: the old one's count first */
        l->running = 1;
        l->shown_ns = now_ns;
        memcpy(l->key, k, sizeof(k));
        return 1;
    }
    if (now_ns < l->shown_ns || now_ns - l->shown_ns < l->every_ns) {
        l->held++;
        return 0;
    }
    if (l->held == 0) {
        l->shown_ns = now_ns;
        return 1; /* a rare repeat is said as it comes */
    }
    /* a flood: a line an interval, whose count takes this one too */
    l->held++;
    msg_limit_take(l, now_ns, held);
    l->running = 1;
    l->shown_ns = now_ns;
    return 0;
}

static void say_held(const struct msg_limit_held *held)
{
    if (held->count > 0)
        msg_warn("%s (%lu more %s in %.1f s)", held->key, held->count,
                 held->count == 1 ? "time" : "times", (double)held->span_ns / 1e9);
}

void msg_warn_limited(struct msg_limit *l, uint64_t now_ns, const char *key, const char *fmt, ...)
{
    struct msg_limit_held held;
    char text[2048];
    va_list ap;
    int say;

    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    say = msg_limit_pass(l, key ? key : text, now_ns, &held);
    say_held(&held);
    if (say)
        msg_warn("%s", text);
}

void msg_limit_flush(struct msg_limit *l, uint64_t now_ns)
{
    struct msg_limit_held held;

    msg_limit_take(l, now_ns, &held);
    say_held(&held);
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
