/*
 * relay_dry_run - `spoolsim relay --dry-run' (and its old name,
 * --check-options); see relay_dry_run.h.
 */
#include "config.h"

#include <openssl/ssl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "endpoint.h"
#include "msg.h"
#include "optarg.h"
#include "optgroup.h"
#include "profile.h"
#include "relay_dry_run.h"
#include "relay_model.h"
#include "relay_spool.h"
#include "tls.h"

/* A name that must resolve, as the relay resolves it: a usage error naming the option if not. */
static void check_endpoint(const char *spec, int server, const char *what)
{
    struct sockaddr_storage sa;
    socklen_t salen = sizeof(sa);
    struct endpoint ep;
    char err[512];
    int rc = server ? endpoint_parse_server(spec, &ep, err, sizeof(err))
                    : endpoint_parse_client(spec, "25", &ep, err, sizeof(err));

    if (rc != 0)
        msg_usage("%s: %s", what, err);
    rc = endpoint_resolve(&ep, AF_UNSPEC, &sa, &salen, err, sizeof(err));
    endpoint_free(&ep);
    if (rc != 0)
        msg_usage("%s %s: %s", what, spec, err);
}

void relay_dry_run(const struct relay_options *opts)
{
    const struct profile *profile = profile_find(opts->profile);
    const char *model = opts->model ? opts->model : relay_model_default(profile->mta);
    struct pf_spool spool;
    char err[4400];
    SSL_CTX *ctx;

    memset(&spool, 0, sizeof(spool));
    if (opts->user && pf_spool_set_user(&spool, opts->user, err, sizeof(err)) != 0)
        msg_usage("-u %s: %s", opts->user, err);
    check_endpoint(opts->listen, 1, "--listen");
    if (opts->hop_kind == RELAY_HOP_SMTP)
        check_endpoint(opts->hop_arg, 0, "--next-hop");
    else if (opts->hop_kind == RELAY_HOP_MAILDIR)
        optarg_work_dir(opts->hop_arg, "--next-hop maildir:", 1);
    if (opts->server.tls) {
        if ((ctx = tls_server_ctx_new(opts->server.tls_cert, opts->server.tls_key, err,
                                      sizeof(err))) == NULL)
            msg_usage("--tls: %s", err);
        SSL_CTX_free(ctx);
    }
    if (relay_spool_of(profile) == NULL)
        msg_usage("--profile %s: no spool backend of the relay serves it", opts->profile);
    if (relay_model_check(model, profile->name, profile->mta, err, sizeof(err)) != 0)
        msg_usage("--model %s", err);
    optarg_work_dir(opts->spool, "--spool", 1);
    if (opts->port_file)
        optarg_output_file(opts->port_file, "--port-file");
    optgroup_dry_run_done("would listen on %s with the queue in %s (profile %s, model %s), "
                          "relaying to %s; nothing was started",
                          opts->listen, opts->spool, profile->name, model, opts->next_hop);
}
