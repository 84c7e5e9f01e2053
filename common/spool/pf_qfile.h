/*
 * pf_qfile - Postfix queue files, built and read in memory (no I/O).
 *
 * A queue file is a sequence of records: a type byte, the data length as
 * a little-endian base-128 varint, the data. spoolsim writes them in the
 * order a real Postfix 3.7 writes a message received over SMTP
 * (docs/postfix-observed.md 5.1): the C size record, T, A
 * attributes, S, M, the content as N records (L for pieces of lines over
 * 2048 bytes), X, the recipients as R, and E. The C record has fixed-width
 * fields so that it can be rewritten in place once the sizes are known,
 * as Postfix's cleanup does; each R record's offset is kept so that a
 * delivered recipient can be marked by overwriting one byte with D.
 * Debian's postcat reads the result without complaint.
 *
 * The reader goes the other way, for a relay delivering from a queue
 * file and for crash recovery deciding whether a file is whole: it checks
 * the structure (C first and consistent with the file, T and S, M, only N
 * and L up to X, E last), skips the envelope records spoolsim does not
 * write, and returns a view whose pointers point into the caller's buffer.
 * Any damage or truncation is an error, never a read outside the buffer.
 */
#ifndef SPOOLSIM_PF_QFILE_H
#define SPOOLSIM_PF_QFILE_H

#include <stddef.h>
#include <stdint.h>

#define PF_REC_SIZE 'C'
#define PF_REC_TIME 'T'
#define PF_REC_ATTR 'A'
#define PF_REC_FROM 'S'
#define PF_REC_MESG 'M'
#define PF_REC_NORM 'N'
#define PF_REC_CONT 'L'
#define PF_REC_XTRA 'X'
#define PF_REC_RCPT 'R'
#define PF_REC_DONE 'D'
#define PF_REC_END 'E'

#define PF_SIZE_RECORD_LEN 97 /* type, one length byte, six "%15ld" fields */
#define PF_LINE_LIMIT 2048    /* Postfix's line_length_limit */

struct pf_qfile {
    char *buf;
    size_t len, cap;
    uint64_t drained;       /* file bytes taken from buf before it (pf_qfile_drain) */
    size_t content_start;   /* file offset of the first content record */
    size_t content_end;     /* file offset of the X record */
    uint64_t content_bytes; /* message bytes, line ends counted as one */
    char *line;             /* the current line's bytes not yet in a record */
    size_t line_len;
    size_t *rcpt_offsets;
    unsigned rcpt_count;
};

void pf_qfile_init(struct pf_qfile *q);
void pf_qfile_free(struct pf_qfile *q);

/* C (placeholder), T, the A attributes, S and M. */
void pf_qfile_begin(struct pf_qfile *q, long arrival_sec, long arrival_usec, const char *sender,
                    const char *client_name, const char *client_addr, const char *helo);

/* Message content, CR LF or LF line ends, in pieces of any size. */
void pf_qfile_content(struct pf_qfile *q, const char *data, size_t len);

/*
 * X, the R records, E; then the C record gets its real values, if it is
 * still in buf (else pf_qfile_size_record() gives it, for an in-place
 * rewrite).
 */
void pf_qfile_finish(struct pf_qfile *q, const char *const *rcpts, unsigned rcpt_count);

/*
 * The writer has taken buf's len bytes (a queue file written as the
 * message arrives): buf starts empty again, and the offsets of the
 * records still to come count what was taken.
 */
void pf_qfile_drain(struct pf_qfile *q);

/* The 97 bytes of the C record for the current sizes (for an in-place rewrite). */
void pf_qfile_size_record(const struct pf_qfile *q, char out[PF_SIZE_RECORD_LEN]);

/*
 * The largest queue file a message can make: `max_content' bytes of text
 * (each byte, a line end included, costs at most two in N and L records:
 * an empty line is a type and a zero length), `max_rcpt' recipients, and
 * sender, client and HELO names of up to `max_field' bytes each. A queue
 * file longer than this was not written by a relay with these limits.
 */
uint64_t pf_qfile_bound(uint64_t max_content, unsigned max_rcpt, size_t max_field);

/* Append one record (also used by tests and for defer logs). */
void pf_qfile_record(struct pf_qfile *q, int type, const char *data, size_t len);

/* Parse one record at `buf'; its length in bytes, or 0 if malformed or cut short. */
size_t pf_qfile_parse(const char *buf, size_t len, int *type, const char **data, size_t *data_len);

struct pf_qfile_rcpt {
    const char *addr; /* points into the caller's buffer, not NUL-terminated */
    size_t addr_len;
    size_t offset; /* file offset of the record's type byte (for the in-place R->D rewrite) */
    int done;      /* 1 if the record type is D (already delivered) */
};

struct pf_qfile_view {
    long arrival_sec, arrival_usec; /* from the T record */
    const char *sender;             /* S record; not NUL-terminated, may be empty */
    size_t sender_len;
    struct pf_qfile_rcpt *rcpts;       /* R and D records in file order */
    unsigned rcpt_count, rcpt_pending; /* pending = not done */
    size_t content_start, content_end; /* offset of the first record after M; offset of X */
    uint64_t content_bytes;            /* from the C record's content-length field */
    int content_unread; /* pf_qfile_read_envelope(): the content is in the file, not the buffer */
};

/*
 * Parse a whole queue file. 0 on success; -1 with a short reason in err
 * ("no E record", "malformed record at offset N", ...) for a corrupt or
 * incomplete one, and then there is nothing to free. The view points
 * into buf, which must outlive it.
 */
int pf_qfile_read(const char *buf, size_t len, struct pf_qfile_view *v, char *err, size_t errlen);
void pf_qfile_view_free(struct pf_qfile_view *v);

/*
 * Where the content section of a file lies, from its C record at `buf'
 * (the file's first bytes): 0, or -1 if there is no good C record.
 */
int pf_qfile_layout(const char *buf, size_t len, uint64_t *content_offset, uint64_t *content_size);

/*
 * pf_qfile_read() of a file whose content section, `gap' bytes as its C
 * record says, was left out of buf: the bytes up to the M record's end,
 * then from the X record on. The same checks but those of the content,
 * which its reader makes as it goes (pf_qfile_content_piece()); offsets
 * are the file's; v->content_unread says the content is not in buf. As
 * Postfix's qmgr reads the envelope and seeks over the content.
 */
int pf_qfile_read_envelope(const char *buf, size_t len, uint64_t gap, struct pf_qfile_view *v,
                           char *err, size_t errlen);

/*
 * The message content as text with CR LF line ends: each N record is its
 * data and CR LF, each L record its data alone (the line goes on in the
 * next record). Returns a malloc'd buffer, NUL-terminated for convenience,
 * and its length (without that NUL) in *len; buf and v as pf_qfile_read()
 * accepted them. Empty, as pf_qfile_content_next() gives nothing, when
 * the content was left out of buf (v->content_unread).
 */
char *pf_qfile_content_text(const char *buf, const struct pf_qfile_view *v, size_t *len);

/*
 * The same text a record at a time, for a writer that does not want the
 * message twice in memory: start with *off = v->content_start; each call
 * gives a record's bytes in *data and *len, *line_end 1 if CR LF follows
 * them (an N record), and 1; at the end, 0.
 */
int pf_qfile_content_next(const char *buf, const struct pf_qfile_view *v, size_t *off,
                          const char **data, size_t *len, int *line_end);

/*
 * The content of a file a window at a time, trusting nothing: `buf' holds
 * `len' bytes of the file from offset `at', and the content ends at
 * `content_end' (the X record's offset). RECORD: an N or L record, its
 * bytes in *data and *data_len, *line_end as above, *used bytes of buf;
 * MORE: the window ends inside a record (read on, keeping it); END: `at'
 * is the content's end; BAD: damage (another record type, a record across
 * X, a length that does not parse), which no reading will mend.
 */
enum pf_qfile_piece { PF_PIECE_BAD = -1, PF_PIECE_MORE, PF_PIECE_RECORD, PF_PIECE_END };
enum pf_qfile_piece pf_qfile_content_piece(const char *buf, size_t len, uint64_t at,
                                           uint64_t content_end, const char **data,
                                           size_t *data_len, int *line_end, size_t *used);

#endif
