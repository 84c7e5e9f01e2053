/*
 * smtp_txn - a client's mail transaction as replies come back (no I/O).
 *
 * smtp-source and the relay's client speak the same order: MAIL, the
 * RCPTs, DATA, the text, the dot; with PIPELINING, MAIL, every RCPT and
 * DATA leave in one group and their replies are then taken in the order
 * sent (RFC 2920), otherwise one command goes per reply. smtp_txn_reply()
 * takes the reply owed next and says what the client does now; the
 * client keeps its own policy (which recipient is which, what a failure
 * costs, RSET or QUIT). A MAIL refused makes every later RCPT reply count
 * for nothing, as no transaction is open.
 *
 * Before the first transaction, smtp_txn_opening() takes the replies to
 * the greeting, EHLO (or HELO) and STARTTLS and says what the client does
 * now, as it wants TLS or not.
 *
 * enum smtp_step names whose reply a connection waits for, the same for
 * both clients, with the words their messages use (smtp_txn_step_name()).
 */
#ifndef SPOOLSIM_SMTP_TXN_H
#define SPOOLSIM_SMTP_TXN_H

enum smtp_step {
    SMTP_STEP_CONNECT,
    SMTP_STEP_GREETING,
    SMTP_STEP_EHLO,
    SMTP_STEP_HELO,
    SMTP_STEP_STARTTLS,
    SMTP_STEP_HANDSHAKE,
    SMTP_STEP_IDLE, /* connected (or not), no transaction, nothing owed */
    SMTP_STEP_MAIL,
    SMTP_STEP_RCPT,
    SMTP_STEP_DATA,
    SMTP_STEP_TEXT, /* no reply owed: the text is on its way */
    SMTP_STEP_DOT,
    SMTP_STEP_RSET,
    SMTP_STEP_QUIT,
    SMTP_STEP_WAIT, /* no connection's business: a timer runs (smtp-source's -w, a retry) */
    SMTP_STEP_DONE, /* the session has ended */
    SMTP_STEP_COUNT
};

/* What the client does after a reply. */
enum smtp_txn_next {
    SMTP_TXN_WAIT,      /* the next reply of the pipelined group is owed */
    SMTP_TXN_SEND_RCPT, /* one command a time: RCPT number t->rcpt_replies (from 0) */
    SMTP_TXN_SEND_DATA, /* one command a time: every RCPT answered, one or more accepted */
    SMTP_TXN_SEND_TEXT, /* 354 with a recipient accepted */
    SMTP_TXN_EMPTY_354, /* 354 with none accepted: the client decides (an empty dot, or drop) */
    SMTP_TXN_FAILED,    /* over without text: MAIL refused, no recipient, DATA refused */
    SMTP_TXN_DONE,      /* the last reply to the dot */
};

struct smtp_txn {
    enum smtp_step step; /* whose reply is owed next: MAIL, RCPT, DATA, TEXT or DOT */
    int pipelined;
    unsigned lmtp;         /* LMTP: one reply to the dot per accepted recipient */
    unsigned rcpts;        /* RCPTs the transaction sends */
    unsigned rcpt_replies; /* RCPT replies taken */
    unsigned accepted;     /* of them 2xx, while MAIL stood */
    int mail_refused;
    unsigned dot_replies; /* replies to the dot still owed */
};

void smtp_txn_begin(struct smtp_txn *t, unsigned rcpts, int pipelined, int lmtp);
/* The reply owed next (t->step), by its code. */
enum smtp_txn_next smtp_txn_reply(struct smtp_txn *t, int code);
/* The text and its dot have been queued: the dot's replies are owed. */
void smtp_txn_text_sent(struct smtp_txn *t);
/* The replies a pipelined group (MAIL, t->rcpts RCPTs, DATA) is owed; 1 without PIPELINING. */
unsigned smtp_txn_group_size(const struct smtp_txn *t);

/* How much the client wants STARTTLS. */
enum smtp_tls_want {
    SMTP_TLS_NONE,
    SMTP_TLS_MAY,  /* when offered; if refused, on in plain text */
    SMTP_TLS_MUST, /* or the session ends */
};

/* What the client does after a reply of the opening; each says the step whose reply comes next. */
enum smtp_open_next {
    SMTP_OPEN_SEND_EHLO,     /* the greeting was 2xx: EHLO */
    SMTP_OPEN_SEND_STARTTLS, /* EHLO offered it, and TLS is wanted: STARTTLS */
    SMTP_OPEN_START_TLS,     /* STARTTLS's 220: the handshake, then EHLO again inside TLS */
    SMTP_OPEN_READY,         /* transactions may begin: idle */
    SMTP_OPEN_REFUSED,       /* the session ends (the reply's text says why), or no such step */
    SMTP_OPEN_NO_TLS,        /* TLS is a must, and EHLO did not offer it */
};

/*
 * The reply owed at `step' (GREETING, EHLO, HELO or STARTTLS), by its code
 * and the extensions it offered; in_tls: the session runs inside TLS
 * already. A 2xx greets and answers EHLO or HELO (whose reply offers no
 * extension, STARTTLS neither); STARTTLS needs its 220.
 */
enum smtp_open_next smtp_txn_opening(enum smtp_step step, int code, unsigned extensions,
                                     enum smtp_tls_want tls, int in_tls);

/* "MAIL FROM", "end of data": the words a message about a step uses. */
const char *smtp_txn_step_name(enum smtp_step step);

#endif
