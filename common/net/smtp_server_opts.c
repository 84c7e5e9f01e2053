/*
 * smtp_server_opts - the options every SMTP server here takes; see
 * smtp_server_opts.h.
 */
#include "config.h"

#include <stdio.h>

#include "msg.h"
#include "optarg.h"
#include "optgroup.h"
#include "smtp_server_opts.h"

void smtp_server_opts_init(struct smtp_server_opts *o)
{
    *o = (struct smtp_server_opts){
        .max_size = 10240000,
        .max_rcpt = 1000,
        .error_limit = 20,
        .junk_limit = 100,
        .bare_lf = SMTP_BARE_LF_NORMALIZE,
    };
}

int smtp_server_opts_parse(struct smtp_server_opts *o, int code, const char *arg)
{
    switch (code) {
    case SMTP_SERVER_OPT_MAX_SIZE:
        o->max_size = optarg_size(arg, "--max-size", 1);
        return 1;
    case SMTP_SERVER_OPT_MAX_RCPT:
        o->max_rcpt = (unsigned)optarg_count(arg, "--max-rcpt", 1, SMTP_SERVER_MAX_RCPT_MAX);
        return 1;
    case SMTP_SERVER_OPT_ERROR_LIMIT:
        o->error_limit =
            (unsigned)optarg_count(arg, "--error-limit", 1, SMTP_SERVER_ERROR_LIMIT_MAX);
        return 1;
    case SMTP_SERVER_OPT_JUNK_LIMIT:
        o->junk_limit = (unsigned)optarg_count(arg, "--junk-limit", 0, SMTP_SERVER_JUNK_LIMIT_MAX);
        return 1;
    case SMTP_SERVER_OPT_MIN_DATA_RATE:
        o->min_data_rate =
            (double)optarg_count(arg, "--min-data-rate", 1, SMTP_SERVER_MIN_DATA_RATE_MAX);
        return 1;
    case SMTP_SERVER_OPT_BARE_LF:
        if (smtp_data_bare_lf_parse(arg, &o->bare_lf) != 0)
            msg_usage("bad --bare-lf \"%s\" (strict, normalize or lenient)", arg);
        return 1;
    case SMTP_SERVER_OPT_TLS:
        o->tls = 1;
        return 1;
    case SMTP_SERVER_OPT_TLS_CERT:
        o->tls_cert = arg;
        o->tls = 1;
        return 1;
    case SMTP_SERVER_OPT_TLS_KEY:
        o->tls_key = arg;
        return 1;
    default:
        return 0;
    }
}

void smtp_server_opts_end(const struct smtp_server_opts *o)
{
    if (o->tls_key && !o->tls_cert)
        msg_usage("--tls-key needs --tls-cert");
}

void smtp_server_opts_help(FILE *fp, const struct smtp_server_opts *o, const char *timeout,
                           int width)
{
    char text[512];

    if (o->max_size)
        snprintf(text, sizeof(text),
                 "message size limit, announced with SIZE; a larger message gets 552 (%llu; at "
                 "most 1024m)",
                 (unsigned long long)o->max_size);
    else
        snprintf(text, sizeof(text),
                 "message size limit, announced with SIZE; a larger message gets 552 (at most "
                 "1024m); default: none, no SIZE");
    optgroup_help_line(fp, "--max-size BYTES", text, width);
    snprintf(text, sizeof(text), "recipients per transaction, then 452 (%u; at most %u)",
             o->max_rcpt, SMTP_SERVER_MAX_RCPT_MAX);
    optgroup_help_line(fp, "--max-rcpt N", text, width);
    snprintf(text, sizeof(text), "protocol errors in a session before 421 and close (%u)",
             o->error_limit);
    optgroup_help_line(fp, "--error-limit N", text, width);
    snprintf(text, sizeof(text),
             "commands that achieve nothing (HELO/EHLO, RSET, NOOP, VRFY, HELP, RCPT past "
             "--max-rcpt) allowed between accepted messages; each one more is a protocol error "
             "(%u; 0: no limit; Postfix's smtpd_junk_command_limit)",
             o->junk_limit);
    optgroup_help_line(fp, "--junk-limit N", text, width);
    snprintf(text, sizeof(text),
             "in DATA, a client gets %s plus one second per N bytes received, then 421 "
             "(Postfix's smtpd_min_data_rate); default: no such deadline",
             timeout);
    optgroup_help_line(fp, "--min-data-rate N", text, width);
    snprintf(text, sizeof(text), "bare line feeds in DATA: strict, normalize or lenient (%s)",
             smtp_data_bare_lf_name(o->bare_lf));
    optgroup_help_line(fp, "--bare-lf POLICY", text, width);
    optgroup_help_line(fp, "--tls", "offer STARTTLS (self-signed certificate made in memory)",
                       width);
    optgroup_help_line(fp, "--tls-cert FILE", "certificate chain (PEM) for STARTTLS", width);
    optgroup_help_line(fp, "--tls-key FILE", "private key (PEM); default: in the certificate file",
                       width);
}
