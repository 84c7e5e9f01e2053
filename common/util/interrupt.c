/*
 * interrupt - SIGINT, SIGTERM and a reader gone away; see interrupt.h.
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "interrupt.h"
#include "msg.h"

/* The one piece of state a signal handler may touch: the signal, or 0. */
static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
    if (stop_signal == 0)
        stop_signal = sig;
}

void interrupt_install(void)
{
    struct sigaction sa;

    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal; /* no SA_RESTART: blocking waits return EINTR */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
}

int interrupt_thread_create(pthread_t *thread, void *(*run)(void *), void *arg)
{
    sigset_t block, old;
    int err;

    /* a new thread inherits the creator's mask: block them just for it */
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    err = pthread_create(thread, NULL, run, arg);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return err;
}

int interrupt_signal(void)
{
    return stop_signal;
}

void interrupt_note(int sig)
{
    if (stop_signal == 0)
        stop_signal = sig;
}

int interrupt_exit_status(void)
{
    return stop_signal ? 128 + stop_signal : 0;
}

const char *interrupt_name(void)
{
    switch (stop_signal) {
    case SIGINT:
        return "SIGINT";
    case SIGTERM:
        return "SIGTERM";
    case SIGPIPE:
        return "SIGPIPE";
    default:
        return "a signal";
    }
}

void interrupt_print_partial(FILE *fp)
{
    fprintf(fp, "partial: interrupted by %s; the figures cover the work done until then\n",
            interrupt_name());
}

int interrupt_flush_stdout(void)
{
    if (fflush(stdout) == 0 && !ferror(stdout))
        return 0;
    if (errno == EPIPE) {
        interrupt_note(SIGPIPE);
        return -1;
    }
    msg_warn("cannot write the standard output: %s", strerror(errno));
    return -1;
}
