/*
 * smtp_input - feed the SMTP readers from a libevent input buffer.
 *
 * Every SMTP speaker here (both servers, smtp-source and the relay's
 * client) reads from a bufferevent's input: lines through smtp_line,
 * message text through smtp_data. These functions do the buffer work
 * once: they hand the readers contiguous bytes, drain what was used, and
 * never pull up more than the line limit, so that a peer sending no LF
 * costs no more memory than that.
 */
#ifndef SPOOLSIM_SMTP_INPUT_H
#define SPOOLSIM_SMTP_INPUT_H

#include <event2/buffer.h>

#include "smtp_data.h"
#include "smtp_line.h"

/*
 * The next line, copied into `copy' (size at least rd->limit) and drained
 * from `in': SMTP_LINE_OK with its length in *len; SMTP_LINE_TOO_LONG once
 * for an over-long line, whose rest is then skipped; SMTP_LINE_NEED_MORE
 * when no whole line is buffered.
 */
enum smtp_line_status smtp_input_line(struct smtp_line_reader *rd, struct evbuffer *in, char *copy,
                                      size_t size, size_t *len);

/*
 * Message text: feed `rd' until the end of data or until `in' is empty,
 * draining what it used; bytes after the end of data stay in `in'.
 * Returns rd->done.
 */
int smtp_input_data(struct smtp_data_reader *rd, struct evbuffer *in, smtp_data_emit_fn emit,
                    void *ctx);

#endif
