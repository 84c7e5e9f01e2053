/*
 * quote - text from the user made safe to print in a message.
 *
 * A value the user gave (an option's value, a path, a command) is echoed in
 * error messages. Printed as it came it could drive the terminal (an escape
 * sequence such as "\033[31m", or a C1 control such as U+009B, which some
 * terminals take for CSI), break the line (a CR or LF), or be 131 KB long.
 * quote_text() writes it with every such byte escaped as \xNN (C0 controls
 * and DEL; C1 controls, byte by byte; bytes that start no well-formed UTF-8
 * character), and a run of more than max_run characters without a space
 * cut, with "...". Pure: no I/O, no state.
 */
#ifndef SPOOLSIM_QUOTE_H
#define SPOOLSIM_QUOTE_H

#include <stddef.h>

/* The longest run without a space that error messages print in full. */
#define QUOTE_RUN_MAX 80

/* keep line feeds and tabs: a message that quotes a child's lines of output */
#define QUOTE_KEEP_LINES 1

/*
 * `in' made safe into out (outlen > 0; always NUL-terminated, cut where
 * it is full, never inside an escape or a character); max_run 0: nothing
 * is cut; flags 0 or QUOTE_KEEP_LINES. Returns out.
 */
char *quote_text(const char *in, size_t max_run, int flags, char *out, size_t outlen);

#endif
