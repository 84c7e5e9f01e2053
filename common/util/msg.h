/*
 * msg - diagnostics for spoolsim programs.
 *
 * Messages go to stderr as "program: level: text". msg_fatal() exits with
 * EXIT_STATUS_INCOMPLETE, 3 (the run could not complete: a runtime
 * failure), msg_usage() with EXIT_STATUS_USAGE, 2 (the user asked for
 * something that cannot be done: a bad option, a missing argument); see
 * exit_status.h. The only
 * state is the program name, verbosity and a hook, set once at start-up.
 *
 * Library code does not print: it says what went wrong in the caller's
 * buffer with msg_set_error() and returns -1, and the caller decides
 * whether that is a warning, a usage error or fatal.
 *
 * A warning that can repeat without end (a dead disk fails every message
 * alike, thousands a second) goes through a limiter the caller owns, one
 * per place that warns, used by one thread: the first is said, its
 * repeats are counted, and a line says how many once every_ns has passed,
 * when another warning comes, and at msg_limit_flush(). msg_limit_pass()
 * and msg_limit_take() decide, purely (the time is the caller's);
 * msg_warn_limited() and msg_limit_flush() print what they decide.
 */
#ifndef SPOOLSIM_MSG_H
#define SPOOLSIM_MSG_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#define MSG_PRINTF(f, a) __attribute__((format(printf, f, a)))

void msg_init(const char *progname);
const char *msg_progname(void);
void msg_set_verbose(int level);
int msg_verbose(void);
/*
 * fn(ctx) before every message is written: a live status line on a
 * terminal (progress_out.h) is erased, so the message starts a line of its own.
 */
void msg_set_hook(void (*fn)(const void *ctx), const void *ctx);

void msg_info(const char *fmt, ...) MSG_PRINTF(1, 2);
void msg_warn(const char *fmt, ...) MSG_PRINTF(1, 2);
_Noreturn void msg_fatal(const char *fmt, ...) MSG_PRINTF(1, 2);
_Noreturn void msg_usage(const char *fmt, ...) MSG_PRINTF(1, 2);
_Noreturn void msg_panic(const char *fmt, ...) MSG_PRINTF(1, 2);

#define MSG_LIMIT_KEY 160

struct msg_limit {
    uint64_t every_ns;  /* a count is said at most this often while a warning repeats */
    uint64_t shown_ns;  /* when the run of its warning last printed a line */
    unsigned long held; /* repeats since then, counted, not yet said */
    int running;        /* key holds a warning */
    char key[MSG_LIMIT_KEY];
};

/* Repeats to say: `count' (0: nothing to say) of `key' in the last span_ns. */
struct msg_limit_held {
    unsigned long count;
    uint64_t span_ns;
    char key[MSG_LIMIT_KEY];
};

void msg_limit_init(struct msg_limit *l, uint64_t every_ns);

/*
 * One more warning `key' (truncated to MSG_LIMIT_KEY - 1) at now_ns: 1
 * to print it, 0 when it is only counted. *held gets the repeats to say
 * first: those of another key, whose run this one ends, or of this key
 * once every_ns has passed since its last line (this one among them: it
 * is not printed but counted). Pure.
 */
int msg_limit_pass(struct msg_limit *l, const char *key, uint64_t now_ns,
                   struct msg_limit_held *held);

/* What l holds, into *held, and l empty: the next warning is printed. Pure. */
void msg_limit_take(struct msg_limit *l, uint64_t now_ns, struct msg_limit_held *held);

/*
 * msg_warn() through l: `key' is what counts as the same warning (NULL:
 * the text), so that warnings that each name their message count as one.
 * A count is said as "warning: KEY (N more times in S s)".
 */
void msg_warn_limited(struct msg_limit *l, uint64_t now_ns, const char *key, const char *fmt, ...)
    MSG_PRINTF(4, 5);
/* Say the count l holds, if any (at the end of a run: nothing is to stay unsaid). */
void msg_limit_flush(struct msg_limit *l, uint64_t now_ns);

/* The message in err (truncated to errlen; nothing if err is NULL or errlen 0); returns -1. */
int msg_set_error(char *err, size_t errlen, const char *fmt, ...) MSG_PRINTF(3, 4);
int msg_vset_error(char *err, size_t errlen, const char *fmt, va_list ap) MSG_PRINTF(3, 0);

#endif
