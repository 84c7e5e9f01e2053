/*
 * pm_command - PostMark's command language, as spoolsim postmark reads it.
 *
 * Commands are matched as PostMark 1.53 does: the first command, in table
 * order, whose full name is a prefix of the line; its parameter starts one
 * byte after the name. Numbers are read with atoi() semantics. What
 * PostMark's reader got wrong is fixed (docs/postmark.md, section
 * 9): a last line without a newline, CR LF line ends, blank lines and
 * "#" comments are read as meant, names have no length limit, "?" and
 * "exit" work everywhere. spoolsim adds: set sync, set dirsync, set
 * timing, set json.
 *
 * Normal output goes to session->out, errors to session->err: at the
 * prompt in PostMark's words ("Error: ...", "Eh?"), from a file as
 * FILE:LINE: WHAT. A command file is checked whole before any of it runs
 * (pm_command_check), so that a mistake on its last line does not cost a
 * run; the check applies the set commands to a scratch session, reads
 * loaded files too, and runs nothing.
 */
#ifndef SPOOLSIM_PM_COMMAND_H
#define SPOOLSIM_PM_COMMAND_H

#include <stdio.h>

#include "json_meta.h"
#include "pm_engine.h"
#include "pm_fs.h"

struct pm_session {
    struct pm_config cfg;
    enum pm_sync sync;
    int dirsync;
    int compat_timing;
    char *json_path;
    unsigned workers;                  /* set workers: 1 is PostMark */
    int progress;                      /* print progress text during runs */
    const struct progress_out *status; /* the status line on stderr; NULL: none */
    FILE *out, *err;
    int load_depth;
    const struct json_run *run; /* the command line, for JSON reports; NULL: none known */
    const char *file;           /* the command file being read, NULL at the prompt */
    unsigned line;              /* its line number */
    int check_only;             /* set commands only: run, show, load, help and ! do nothing */
    unsigned errors;            /* commands refused */
    unsigned failed_runs;       /* runs with no figure, or whose file operations failed */
    unsigned unsaved_runs;      /* runs whose JSON result could not be written */
};

void pm_command_session_init(struct pm_session *s, FILE *out, FILE *err);
void pm_command_session_free(struct pm_session *s);

/* Run one command line (no line end). 1 after quit, else 0. */
int pm_command_line(struct pm_session *s, const char *line);

/*
 * Run every command of a stream; stops after quit, or when interrupted
 * (interrupt.h). 1 if quit was read.
 */
int pm_command_stream(struct pm_session *s, FILE *in, const char *prompt);

/* The same for a command file: errors are said as NAME:LINE. */
int pm_command_file(struct pm_session *s, FILE *in, const char *name);

/* Check a command file without running it: its errors, said on err as NAME:LINE: WHAT. */
unsigned pm_command_check(FILE *in, const char *name, FILE *err);

#endif
