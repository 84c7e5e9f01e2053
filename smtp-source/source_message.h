/*
 * source_message - the messages smtp-source sends (no sockets).
 *
 * A message is a small per-message header (From, To, Date, a unique
 * Message-Id, Subject) followed by a body taken from one shared template
 * of 80-octet lines, so that sending a message copies nothing but its
 * header. With -F the whole message comes from a file instead, converted
 * once to its wire form (CR LF line ends, dot-stuffed). The wire form
 * never contains a bare CR or LF.
 *
 * The content checksum (checksum.h) is over the un-stuffed content, the
 * same bytes smtp-sink sees after un-stuffing, so their logs can be
 * matched one to one.
 */
#ifndef SPOOLSIM_SOURCE_MESSAGE_H
#define SPOOLSIM_SOURCE_MESSAGE_H

#include <stddef.h>
#include <stdint.h>

#include "source_options.h"

#define SOURCE_HEADER_MAX 2048
#define SOURCE_MSGID_MAX 128

struct source_message {
    const struct source_options *opts;
    char *from; /* envelope sender, without <> */
    char *to;   /* envelope recipient, without <> */
    char *helo_name;
    char *body; /* template: lines of 'X' ending in CR LF */
    size_t body_cap;
    char *file_wire; /* -F: stuffed message without the final "." line */
    size_t file_wire_len;
    size_t file_content_len;
    uint64_t file_log_size, file_checksum; /* the message log's key (checksum.h) */
    char date[64];
    long date_second;
    unsigned long run_tag; /* makes Message-Ids unique across runs */

    /*
     * Prebuilt wire text, so that a message costs copies rather than a
     * printf per command and per header: the commands with their CR LF,
     * and the header around the Message-Id's sequence number (the part
     * before it is rebuilt once a second, for its Date).
     */
    char *helo_cmd; /* "EHLO name\r\n" (LHLO with -L) */
    size_t helo_cmd_len;
    char *mail_cmd; /* "MAIL FROM:<from>\r\n" */
    size_t mail_cmd_len;
    char *rcpt_cmd; /* "RCPT TO:<to>\r\n" */
    size_t rcpt_cmd_len;
    char *head; /* From, To, Date and "Message-Id: <tag." */
    size_t head_cap, head_len;
    size_t msgid_start; /* where the Message-Id's '<' is in head */
    char *tail;         /* "@name>\r\n", the Subject and the empty line */
    size_t tail_len;
};

void source_message_init(struct source_message *m, const struct source_options *opts,
                         const char *myhostname);
void source_message_free(struct source_message *m);
/*
 * A worker thread's copy: the texts shared and read-only, the header's
 * once-a-second cache (head, date) its own, for source_message_header()
 * writes it. Freed with source_message_free_copy(), before the original.
 */
void source_message_copy(struct source_message *copy, const struct source_message *m);
void source_message_free_copy(struct source_message *copy);

/*
 * Header block for message `seq', ending in the empty line; its length.
 * `msgid' gets its Message-Id ("-" with -o and -F), cut to msgid_len.
 */
size_t source_message_header(struct source_message *m, uint64_t seq, char *buf, size_t len,
                             char *msgid, size_t msgid_len);

/*
 * The body of a message of `length' octets, as two spans of shared,
 * read-only memory: whole lines, then a last partial line ending in CR LF.
 * A last line of one octet cannot end in CR LF, so such a body is one
 * octet longer. Returns the body length.
 */
struct source_body {
    const char *lines;
    size_t lines_len;
    const char *tail;
    size_t tail_len;
};
size_t source_message_body(const struct source_message *m, uint64_t length,
                           struct source_body *body);

#endif
