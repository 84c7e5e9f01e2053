/*
 * Unit tests for common/net/tls.c: the self-signed server context, file loading
 * and its error messages, and real in-process handshakes over a socketpair.
 */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "tls.h"
#include "check_main.h"
#include "check_tmpdir.h"

static char tmpdir[CHECK_TMPDIR_MAX];

/* Write the certificate and/or key of a context to tmpdir/name as PEM. */
static const char *write_pem(const char *name, SSL_CTX *ctx, int cert, int key)
{
    static char path[128];
    FILE *fp;

    snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
    fp = fopen(path, "w");
    ck_assert_ptr_nonnull(fp);
    if (cert)
        ck_assert_int_eq(PEM_write_X509(fp, SSL_CTX_get0_certificate(ctx)), 1);
    if (key)
        ck_assert_int_eq(
            PEM_write_PrivateKey(fp, SSL_CTX_get0_privatekey(ctx), NULL, NULL, 0, NULL, NULL), 1);
    fclose(fp);
    return path;
}

/* Drive both ends of a non-blocking pair until both finish or one fails. */
static int handshake(SSL *client, SSL *server)
{
    SSL *side[2] = {client, server};
    int done[2] = {0, 0};

    for (int round = 0; round < 1000 && !(done[0] && done[1]); round++) {
        for (int i = 0; i < 2; i++) {
            int rc, e;

            if (done[i])
                continue;
            rc = SSL_do_handshake(side[i]);
            if (rc == 1) {
                done[i] = 1;
                continue;
            }
            e = SSL_get_error(side[i], rc);
            if (e != SSL_ERROR_WANT_READ && e != SSL_ERROR_WANT_WRITE)
                return 0;
        }
    }
    return done[0] && done[1];
}

struct pair {
    SSL *client, *server;
    int fd[2];
};

static void pair_open(struct pair *p, SSL_CTX *cctx, SSL_CTX *sctx)
{
    ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, p->fd), 0);
    p->client = SSL_new(cctx);
    p->server = SSL_new(sctx);
    ck_assert(p->client && p->server);
    ck_assert_int_eq(SSL_set_fd(p->client, p->fd[0]), 1);
    ck_assert_int_eq(SSL_set_fd(p->server, p->fd[1]), 1);
    SSL_set_connect_state(p->client);
    SSL_set_accept_state(p->server);
}

static void pair_close(struct pair *p)
{
    SSL_free(p->client);
    SSL_free(p->server);
    close(p->fd[0]);
    close(p->fd[1]);
}

START_TEST(test_self_signed_context)
{
    char err[256] = "";
    SSL_CTX *a = tls_server_ctx_new(NULL, NULL, err, sizeof(err));
    SSL_CTX *b = tls_server_ctx_new(NULL, NULL, err, sizeof(err));
    X509 *cert;
    EVP_PKEY *pkey;
    char cn[64];
    int days, secs;

    ck_assert_msg(a && b, "%s", err);
    ck_assert_int_eq(SSL_CTX_get_min_proto_version(a), TLS1_2_VERSION);
    cert = SSL_CTX_get0_certificate(a);
    ck_assert_ptr_nonnull(cert);
    ck_assert_int_gt(
        X509_NAME_get_text_by_NID(X509_get_subject_name(cert), NID_commonName, cn, sizeof(cn)), 0);
    ck_assert_str_eq(cn, "spoolsim.invalid");
    ck_assert_int_eq(X509_get_signature_nid(cert), NID_ecdsa_with_SHA256);
    ck_assert_int_eq(X509_check_issued(cert, cert), X509_V_OK);
    ck_assert_int_eq(
        ASN1_TIME_diff(&days, &secs, X509_get0_notBefore(cert), X509_get0_notAfter(cert)), 1);
    ck_assert_int_eq(days, 1);
    ck_assert_int_eq(secs, 0);
    pkey = SSL_CTX_get0_privatekey(a);
    ck_assert(EVP_PKEY_is_a(pkey, "EC"));
    ck_assert_int_eq(EVP_PKEY_get_bits(pkey), 256);
    /* Serials are random, so two runs never present the same certificate. */
    ck_assert_int_ne(ASN1_INTEGER_cmp(X509_get0_serialNumber(cert),
                                      X509_get0_serialNumber(SSL_CTX_get0_certificate(b))),
                     0);
    ck_assert_uint_eq(ERR_peek_error(), 0);
    SSL_CTX_free(a);
    SSL_CTX_free(b);
}
END_TEST

START_TEST(test_missing_files)
{
    char err[256] = "";
    SSL_CTX *ctx;

    ck_assert_ptr_null(tls_server_ctx_new("/nonexistent/cert.pem", NULL, err, sizeof(err)));
    ck_assert_str_eq(err,
                     "cannot read certificate /nonexistent/cert.pem: No such file or directory");
    ck_assert_uint_eq(ERR_peek_error(), 0);

    ck_assert_ptr_null(tls_client_ctx_new(1, "/nonexistent/ca.pem", err, sizeof(err)));
    ck_assert_str_eq(err, "cannot read CA file /nonexistent/ca.pem: No such file or directory");

    /* Without verification the CA file is not even opened. */
    ctx = tls_client_ctx_new(0, "/nonexistent/ca.pem", err, sizeof(err));
    ck_assert_ptr_nonnull(ctx);
    SSL_CTX_free(ctx);
}
END_TEST

START_TEST(test_load_files)
{
    char err[512] = "", both[128], certonly[128], other_key[128];
    SSL_CTX *gen = tls_server_ctx_new(NULL, NULL, err, sizeof(err));
    SSL_CTX *gen2 = tls_server_ctx_new(NULL, NULL, err, sizeof(err));
    SSL_CTX *ctx;
    FILE *fp;

    ck_assert(gen && gen2);
    check_tmpdir_make(tmpdir, "check_tls");
    snprintf(both, sizeof(both), "%s", write_pem("both.pem", gen, 1, 1));
    snprintf(certonly, sizeof(certonly), "%s", write_pem("cert.pem", gen, 1, 0));
    snprintf(other_key, sizeof(other_key), "%s", write_pem("other.key", gen2, 0, 1));

    /* The key is read from the certificate file when no key file is given. */
    ctx = tls_server_ctx_new(both, NULL, err, sizeof(err));
    ck_assert_msg(ctx != NULL, "%s", err);
    ck_assert_int_eq(X509_cmp(SSL_CTX_get0_certificate(ctx), SSL_CTX_get0_certificate(gen)), 0);
    SSL_CTX_free(ctx);

    ctx = tls_server_ctx_new(certonly, both, err, sizeof(err));
    ck_assert_msg(ctx != NULL, "%s", err);
    SSL_CTX_free(ctx);

    ck_assert_ptr_null(tls_server_ctx_new(certonly, NULL, err, sizeof(err)));
    ck_assert_msg(strstr(err, certonly) != NULL, "%s", err);

    ck_assert_ptr_null(tls_server_ctx_new(certonly, other_key, err, sizeof(err)));
    ck_assert_msg(strstr(err, other_key) != NULL, "%s", err);

    fp = fopen(certonly, "w");
    ck_assert_ptr_nonnull(fp);
    fputs("not a certificate\n", fp);
    fclose(fp);
    ck_assert_ptr_null(tls_server_ctx_new(certonly, both, err, sizeof(err)));
    ck_assert_msg(strstr(err, "cannot load certificate") && strstr(err, certonly), "%s", err);
    ck_assert_uint_eq(ERR_peek_error(), 0);

    check_tmpdir_remove(tmpdir);
    SSL_CTX_free(gen);
    SSL_CTX_free(gen2);
}
END_TEST

START_TEST(test_handshake_and_data)
{
    char err[256] = "", desc[128], sdesc[128], buf[16];
    SSL_CTX *sctx = tls_server_ctx_new(NULL, NULL, err, sizeof(err));
    SSL_CTX *cctx = tls_client_ctx_new(0, NULL, err, sizeof(err));
    struct pair p;
    int n = -1;

    ck_assert(sctx && cctx);
    pair_open(&p, cctx, sctx);
    ck_assert_str_eq(tls_describe(p.client, desc, sizeof(desc)), "none");
    ck_assert_msg(handshake(p.client, p.server), "handshake failed: %s",
                  ERR_reason_error_string(ERR_peek_error()));
    tls_describe(p.client, desc, sizeof(desc));
    ck_assert_msg(strncmp(desc, "TLSv1.", 6) == 0 && strchr(desc, ' ') && strlen(desc) > 10,
                  "describe \"%s\"", desc);
    ck_assert_str_eq(tls_describe(p.server, sdesc, sizeof(sdesc)), desc);

    ck_assert_int_eq(SSL_write(p.client, "EHLO x\r\n", 8), 8);
    for (int i = 0; i < 100 && n <= 0; i++)
        n = SSL_read(p.server, buf, sizeof(buf));
    ck_assert_int_eq(n, 8);
    ck_assert_int_eq(memcmp(buf, "EHLO x\r\n", 8), 0);

    pair_close(&p);
    SSL_CTX_free(sctx);
    SSL_CTX_free(cctx);
}
END_TEST

START_TEST(test_verify_peer)
{
    char err[256] = "", ca[128];
    SSL_CTX *sctx = tls_server_ctx_new(NULL, NULL, err, sizeof(err));
    SSL_CTX *cctx;
    struct pair p;

    ck_assert_ptr_nonnull(sctx);
    check_tmpdir_make(tmpdir, "check_tls");
    snprintf(ca, sizeof(ca), "%s", write_pem("ca.pem", sctx, 1, 0));

    /* Trusting the self-signed certificate itself, the chain verifies. */
    cctx = tls_client_ctx_new(1, ca, err, sizeof(err));
    ck_assert_msg(cctx != NULL, "%s", err);
    pair_open(&p, cctx, sctx);
    ck_assert(handshake(p.client, p.server));
    ck_assert_int_eq(SSL_get_verify_result(p.client), X509_V_OK);
    pair_close(&p);
    SSL_CTX_free(cctx);

    /* Against the system store a throw-away certificate must be refused. */
    cctx = tls_client_ctx_new(1, NULL, err, sizeof(err));
    ck_assert_msg(cctx != NULL, "%s", err);
    pair_open(&p, cctx, sctx);
    ck_assert(!handshake(p.client, p.server));
    ck_assert_int_eq(SSL_get_verify_result(p.client), X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT);
    pair_close(&p);
    SSL_CTX_free(cctx);
    ERR_clear_error();

    check_tmpdir_remove(tmpdir);
    SSL_CTX_free(sctx);
}
END_TEST

START_TEST(test_describe_null)
{
    char buf[16];

    ck_assert_str_eq(tls_describe(NULL, buf, sizeof(buf)), "none");
}
END_TEST

int main(void)
{
    /* Key generation and handshakes are slow under sanitizers. */
    const TTest *const tests[] = {test_self_signed_context,
                                  test_missing_files,
                                  test_load_files,
                                  test_handshake_and_data,
                                  test_verify_peer,
                                  test_describe_null,
                                  NULL};

    return check_run_cases("tls", 60, tests, NULL, 0);
}
