/*
 * msglog - read the per-message logs (--msg-log) of smtp-source and
 * smtp-sink, and compare what was sent with what arrived.
 *
 * A line is space-separated key=value fields in any order, e.g.
 *   id=4BE8FA72B14 size=1128 sum=db338504de3b48fe rcpts=1 message-id=<6b0c.1@vm>
 * (the sink adds from= and client=). A message is known by its Message-ID,
 * size and content checksum together: a message that arrives altered has a
 * different key and so does not count as delivered. Only msglog_set_load()
 * does I/O; the rest works on memory.
 *
 * Parsing is strict about the fields the key is made of, because a wrong
 * value there would make a match or a loss up:
 *   size        decimal digits that fit in 64 bits;
 *   sum         1 to 16 hex digits (either case);
 *   message-id  1 to 255 bytes, no control characters, not "-" (what both
 *               programs write when a message has none, and which would
 *               match every other message without one), and if it starts
 *               with '<' it ends with '>' (so a line cut inside it is bad).
 * Each may appear once. id= is optional and cut to fit queue_id. So is
 * mono_ns= (decimal, once): the CLOCK_MONOTONIC time in nanoseconds when
 * smtp-source read the final reply or smtp-sink sent it, 0 when absent
 * (spoolsim crash compares it with a block-write log's times). Fields
 * without '=' and unknown keys are ignored. A Message-ID holding a space
 * cannot be logged unambiguously: it is read only up to the space, so
 * "<a b>" makes the line bad (it looks cut).
 */
#ifndef SPOOLSIM_MSGLOG_H
#define SPOOLSIM_MSGLOG_H

#include <stddef.h>
#include <stdint.h>

struct msglog_entry {
    char message_id[256];
    uint64_t size;
    uint64_t sum;
    char queue_id[64]; /* the id= field, "" if there was none */
    uint64_t mono_ns;  /* the mono_ns= field, 0 if there was none */
};

/* Parse one line (with or without its "\n" or "\r\n"); 0, or -1 (e untouched) if it is bad. */
int msglog_parse_line(const char *line, struct msglog_entry *e);

struct msglog_set {
    struct msglog_entry *v;
    size_t n, cap;
    size_t bad_lines;
};

void msglog_set_init(struct msglog_set *s);
void msglog_set_free(struct msglog_set *s);

/*
 * Add every parseable line of the file at path; every other line adds one
 * to bad_lines, which is not fatal. A last line without its newline counts
 * as bad: both programs end every line, so it was cut off by a writer that
 * died, and a cut can leave a plausible but wrong size or sum. So do lines
 * holding a NUL byte. 0, or -1 with errno if the file cannot be opened or
 * read (the lines read before a read error stay added).
 */
int msglog_set_load(struct msglog_set *s, const char *path);

void msglog_set_add(struct msglog_set *s, const struct msglog_entry *e);

/*
 * Matching on message-id + size + sum, with s sent and r received entries
 * for one key: min(s, r) are delivered, s - min(s, r) lost and, when s > 0,
 * r - min(s, r) duplicated; when s == 0 all r are unexpected (e.g. accepted
 * by a relay after the client gave up on it). So the same key twice in sent
 * is two acknowledged messages needing two arrivals, and always
 *   acked = sent->n = delivered + lost
 *   received->n = delivered + duplicated + unexpected.
 * A message arriving altered counts as one lost and one unexpected. Sorts
 * both sets in place (qsort), which is why they are not const.
 */
struct msglog_compare {
    size_t acked, delivered, lost, duplicated, unexpected;
};

void msglog_compare(struct msglog_set *sent, struct msglog_set *received,
                    struct msglog_compare *out);
/*
 * The same with the Message-ID alone as the key: for mail relayed by a real
 * MTA, which may add headers of its own (Date:, Return-Path:, ...) and so
 * change the size and checksum; "arrived", not "arrived intact".
 */
void msglog_compare_ids(struct msglog_set *sent, struct msglog_set *received,
                        struct msglog_compare *out);

#endif
