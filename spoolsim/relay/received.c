/*
 * received - the Received: header; see received.h.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "dsn.h"
#include "received.h"

/* `text', at most `max' bytes of it, with control characters made '?' (Postfix's printable()). */
static size_t put_field(char *out, size_t room, const char *text, size_t max)
{
    size_t n = 0;

    for (; text[n] && n < max && n + 1 < room; n++) {
        unsigned char c = (unsigned char)text[n];

        out[n] = c < 0x20 || c == 0x7f ? '?' : (char)c;
    }
    out[n] = 0;
    return n;
}

size_t received_header(const struct received_info *ri, char *out)
{
    char helo[RECEIVED_FIELD_MAX + 1], rcpt[RECEIVED_FIELD_MAX + 1], host[256], date[64];
    int n;

    put_field(helo, sizeof(helo), ri->helo ? ri->helo : ri->client_name, RECEIVED_FIELD_MAX);
    put_field(host, sizeof(host), ri->hostname, sizeof(host) - 1);
    dsn_mail_date(ri->time, date, sizeof(date));
    if (ri->rcpt) {
        put_field(rcpt, sizeof(rcpt), ri->rcpt, RECEIVED_FIELD_MAX);
        n = snprintf(out, RECEIVED_MAX + 1,
                     "Received: from %s (%.20s [%.60s])\r\n\tby %s (Postfix) with %.8s id %.40s\r\n"
                     "\tfor <%s>; %s\r\n",
                     helo, ri->client_name, ri->client_addr, host, ri->protocol, ri->queue_id, rcpt,
                     date);
    } else {
        n = snprintf(
            out, RECEIVED_MAX + 1,
            "Received: from %s (%.20s [%.60s])\r\n\tby %s (Postfix) with %.8s id %.40s;\r\n"
            "\t%s\r\n",
            helo, ri->client_name, ri->client_addr, host, ri->protocol, ri->queue_id, date);
    }
    return n < 0 ? 0 : (size_t)n;
}

enum {
    RC_FIRST, /* at the first line */
    RC_LINE,  /* at the start of a later line of the header section */
    RC_NAME,  /* in a field name */
    RC_BLANK, /* blanks after the name, before its ':' */
    RC_FIELD, /* in a field (or its continuation), up to the LF */
    RC_DONE   /* past the header section */
};

void received_counter_init(struct received_counter *rc)
{
    memset(rc, 0, sizeof(*rc));
    rc->state = RC_FIRST;
}

/* One byte of a field name: a printable character other than ':' (RFC 5322 ftext). */
static void name_byte(struct received_counter *rc, unsigned char c)
{
    static const char name[] = "received";

    rc->name_ok = rc->name_ok && rc->name_len < sizeof(name) - 1 &&
                  (c >= 'A' && c <= 'Z' ? c + 'a' - 'A' : c) == (unsigned char)name[rc->name_len];
    rc->name_len++;
}

void received_counter_feed(struct received_counter *rc, const char *buf, size_t len)
{
    const char *p = buf, *end = buf + len;

    while (p < end && rc->state != RC_DONE) {
        unsigned char c = (unsigned char)*p;
        const char *nl;

        switch (rc->state) {
        case RC_FIELD:
            nl = memchr(p, '\n', (size_t)(end - p));
            if (nl == NULL)
                return;
            p = nl + 1;
            rc->state = RC_LINE;
            continue;
        case RC_LINE:
        case RC_FIRST:
            if (c == ' ' || c == '\t') /* folded; at the top, the continuation of nothing */
                rc->state = rc->state == RC_FIRST ? RC_DONE : RC_FIELD;
            else if (c > ' ' && c < 0x7f && c != ':') {
                rc->state = RC_NAME;
                rc->name_len = 0;
                rc->name_ok = 1;
                name_byte(rc, c);
            } else {
                rc->state = RC_DONE; /* the empty line, or not a field */
            }
            break;
        case RC_NAME:
            if (c == ':' || c == ' ' || c == '\t') {
                rc->state = RC_BLANK;
                continue; /* the ':' is looked at there */
            }
            if (c > ' ' && c < 0x7f)
                name_byte(rc, c);
            else
                rc->state = RC_DONE;
            break;
        case RC_BLANK:
            if (c == ':') {
                rc->count += rc->name_ok && rc->name_len == sizeof("received") - 1;
                rc->state = RC_FIELD;
            } else if (c != ' ' && c != '\t') {
                rc->state = RC_DONE;
            }
            break;
        }
        p++;
    }
}
