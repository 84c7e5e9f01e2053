/*
 * sink_text - the texts smtp-sink sends and looks for; see sink_text.h.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "msg.h"
#include "sink_text.h"
#include "xalloc.h"

char *sink_text_greeting(const struct sink_options *opts)
{
    size_t len = strlen(opts->hostname) + 64;
    char *text = xmalloc(len);

    if (opts->pix_banner)
        snprintf(text, len, "220 ********************************");
    else
        snprintf(text, len, "220 %s %s", opts->hostname,
                 opts->tool.lmtp  ? "LMTP"
                 : opts->no_esmtp ? "SMTP"
                                  : "ESMTP");
    return text;
}

/* What this offers, the session must take: SMTPUTF8 goes with smtp_cmd_parse()'s flags. */
char *sink_text_ehlo(const struct sink_options *opts, int offer_starttls)
{
    char *text = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&text, &len);
    const char *lines[12];
    int n = 0;
    char size_line[64];

    if (fp == NULL)
        msg_fatal("open_memstream: %s", strerror(errno));
    if (!opts->no_pipelining)
        lines[n++] = "PIPELINING";
    if (opts->server.max_size) {
        snprintf(size_line, sizeof(size_line), "SIZE %llu",
                 (unsigned long long)opts->server.max_size);
        lines[n++] = size_line;
    }
    if (!opts->no_8bitmime)
        lines[n++] = "8BITMIME";
    if (offer_starttls)
        lines[n++] = "STARTTLS";
    if (!opts->no_auth)
        lines[n++] = "AUTH PLAIN LOGIN";
    if (!opts->no_xclient)
        lines[n++] = "XCLIENT NAME HELO";
    if (!opts->no_xforward)
        lines[n++] = "XFORWARD NAME ADDR PROTO HELO";
    if (!opts->no_enhanced)
        lines[n++] = "ENHANCEDSTATUSCODES";
    if (!opts->no_dsn)
        lines[n++] = "DSN";
    fprintf(fp, "250%c%s\r\n", n ? '-' : ' ', opts->hostname);
    for (int i = 0; i < n; i++)
        fprintf(fp, "250%c%s\r\n", i + 1 < n ? '-' : ' ', lines[i]);
    if (fclose(fp) != 0)
        msg_fatal("cannot build the EHLO reply");
    return text;
}

int sink_text_code(const char *reply)
{
    const char *p = reply;

    if (p[0] >= '0' && p[0] <= '9' && p[1] >= '0' && p[1] <= '9' && p[2] >= '0' && p[2] <= '9' &&
        !(p[3] >= '0' && p[3] <= '9'))
        return (p[0] - '0') * 100 + (p[1] - '0') * 10 + (p[2] - '0');
    return atoi(reply); /* anything else a -b or -B reply may start with */
}

size_t sink_text_queued(char *buf, uint64_t id)
{
    static const char prefix[] = "250 2.0.0 Ok: queued as ";
    static const char hex[] = "0123456789ABCDEF";
    size_t len = sizeof(prefix) - 1;
    int digits = 8;

    while (digits < 16 && (id >> (4 * digits)) != 0)
        digits++;
    memcpy(buf, prefix, len);
    for (int i = digits - 1; i >= 0; i--)
        buf[len++] = hex[(id >> (4 * i)) & 0xf];
    buf[len] = 0;
    return len;
}

size_t sink_text_enhanced_len(const char *reply)
{
    const char *p;

    if (strlen(reply) < 4 || reply[3] != ' ')
        return 0;
    p = reply + 4;
    /* class "2"-"5", then two dot-separated numbers of 1-3 digits, then a space */
    if (!(p[0] >= '2' && p[0] <= '5') || p[1] != '.')
        return 0;
    p += 2;
    for (int part = 0; part < 2; part++) {
        int digits = 0;

        while (*p >= '0' && *p <= '9' && digits < 3) {
            p++;
            digits++;
        }
        if (digits == 0 || *p != (part == 0 ? '.' : ' '))
            return 0;
        p++;
    }
    return (size_t)(p - (reply + 4));
}

void sink_text_message_id(const char *buf, size_t len, char *out, size_t outlen)
{
    const char *p = buf, *end = buf + len;

    snprintf(out, outlen, "-");
    while (p < end) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        size_t line_len = (size_t)((eol ? eol : end) - p);

        if (line_len == 0 || (line_len == 1 && *p == '\r'))
            return; /* the empty line: end of the header */
        if (line_len > 11 && strncasecmp(p, "Message-ID:", 11) == 0) {
            const char *v = p + 11;

            while (v < p + line_len && (*v == ' ' || *v == '\t'))
                v++;
            line_len -= (size_t)(v - p);
            if (line_len > 0 && v[line_len - 1] == '\r')
                line_len--;
            if (line_len == 0 || eol == NULL)
                return; /* empty, or cut off by the kept-bytes limit */
            snprintf(out, outlen, "%.*s", (int)line_len, v);
            return;
        }
        if (eol == NULL)
            return;
        p = eol + 1;
    }
}
