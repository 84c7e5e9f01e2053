/*
 * received - the Received: header, pure (no I/O but the clock's zone).
 *
 * received_header() makes the header the relay's smtpd puts on top of each
 * message it accepts, in the shape of Postfix 3.7's smtpd (smtpd.c,
 * data_cmd), so that a queue file is as long as Postfix's and a message
 * carries its trace:
 *
 *   Received: from HELO (NAME [ADDRESS])
 *   <TAB>by HOSTNAME (Postfix) with ESMTP id QUEUEID
 *   <TAB>for <RECIPIENT>; DATE
 *
 * with "id QUEUEID;" and the date on a line of its own when there are
 * several recipients. "Postfix" is Postfix's mail_name: the bytes are
 * Postfix's. Fields from the client are cut to their SMTP limits and
 * their control characters made '?', so the header is one header,
 * at most RECEIVED_MAX bytes.
 *
 * received_counter counts the Received: fields of the message text a
 * client sends, as it streams in, the way Postfix's cleanup counts hops
 * against hopcount_limit: header fields of the message's own header
 * section only (not in the body, nor in a message attached to it), the
 * name in any case, "Received :" too, a folded field once. Postfix's
 * smtpd hands its own header to cleanup with the client's text, so it is
 * one of the hops: the relay adds one.
 */
#ifndef SPOOLSIM_RECEIVED_H
#define SPOOLSIM_RECEIVED_H

#include <stddef.h>

#define RECEIVED_FIELD_MAX 512 /* a client's HELO name or recipient: a command line's length */
#define RECEIVED_MAX 2048      /* the longest header received_header() makes, CR LFs included */

struct received_info {
    const char *helo;        /* the HELO or EHLO name; NULL: none given, the client's name */
    const char *client_name; /* "localhost", or "unknown" when not looked up */
    const char *client_addr; /* 192.0.2.1, or IPv6:2001:db8::1 */
    const char *hostname;    /* ours */
    const char *protocol;    /* SMTP, ESMTP or ESMTPS */
    const char *queue_id;
    const char *rcpt; /* the one recipient; NULL when there are several */
    long time;        /* the arrival, in the local zone */
};

/* The header's lines with CR LF ends in out (RECEIVED_MAX + 1 bytes); its length. */
size_t received_header(const struct received_info *ri, char *out);

struct received_counter {
    unsigned count; /* Received: fields so far */
    int state;
    unsigned name_len; /* of the field name being read */
    int name_ok;       /* ... and it is still "received" so far */
};

void received_counter_init(struct received_counter *rc);

/* The client's text (un-stuffed, CR LF or LF lines) in pieces of any size. */
void received_counter_feed(struct received_counter *rc, const char *buf, size_t len);

#endif
