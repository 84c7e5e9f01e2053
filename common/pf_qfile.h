/*
 * pf_qfile - Postfix queue files, built in memory (no I/O).
 *
 * A queue file is a sequence of records: a type byte, the data length as
 * a little-endian base-128 varint, the data. spoolsim writes them in the
 * order a real Postfix 3.7 writes a message received over SMTP
 * (../shared/spec/postfix-observed.md 5.1): the C size record, T, A
 * attributes, S, M, the content as N records (L for pieces of lines over
 * 2048 bytes), X, the recipients as R, and E. The C record has fixed-width
 * fields so that it can be rewritten in place once the sizes are known,
 * as Postfix's cleanup does; each R record's offset is kept so that a
 * delivered recipient can be marked by overwriting one byte with D.
 * Debian's postcat reads the result without complaint.
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
    size_t content_start;   /* offset of the first content record */
    size_t content_end;     /* offset of the X record */
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

/* X, the R records, E; then the C record gets its real values. */
void pf_qfile_finish(struct pf_qfile *q, const char *const *rcpts, unsigned rcpt_count);

/* The 97 bytes of the C record for the current sizes (for an in-place rewrite). */
void pf_qfile_size_record(const struct pf_qfile *q, char out[PF_SIZE_RECORD_LEN]);

/* Append one record (also used by tests and for defer logs). */
void pf_qfile_record(struct pf_qfile *q, int type, const char *data, size_t len);

/* Parse one record at `buf'; its length in bytes, or 0 if malformed or cut short. */
size_t pf_qfile_parse(const char *buf, size_t len, int *type, const char **data, size_t *data_len);

#endif
