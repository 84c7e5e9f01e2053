/*
 * tls - OpenSSL contexts for STARTTLS; see tls.h.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include "msg.h"
#include "tls.h"

#define SELF_SIGNED_CN "spoolsim.invalid"
#define SELF_SIGNED_DAYS 1

static SSL_CTX *fail(SSL_CTX *ctx, char *err, size_t errlen, const char *fmt, ...) MSG_PRINTF(4, 5);

static SSL_CTX *fail(SSL_CTX *ctx, char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    msg_vset_error(err, errlen, fmt, ap);
    va_end(ap);
    SSL_CTX_free(ctx);
    ERR_clear_error();
    return NULL;
}

/*
 * The oldest queued error is the root cause; the later ones only say which
 * wrapper gave up ("PEM lib"). A file without the expected PEM block gets
 * `missing' instead of OpenSSL's "no start line" or "unsupported".
 */
static const char *ssl_reason(const char *missing)
{
    unsigned long code = ERR_peek_error();
    const char *reason = code ? ERR_reason_error_string(code) : NULL;

    if (missing &&
        ((ERR_GET_LIB(code) == ERR_LIB_PEM && ERR_GET_REASON(code) == PEM_R_NO_START_LINE) ||
         (ERR_GET_LIB(code) == ERR_LIB_OSSL_DECODER && ERR_GET_REASON(code) == ERR_R_UNSUPPORTED)))
        return missing;
    return reason ? reason : "unknown OpenSSL error";
}

static int key_mismatch(void)
{
    unsigned long code = ERR_peek_error();

    return ERR_GET_LIB(code) == ERR_LIB_X509 && ERR_GET_REASON(code) == X509_R_KEY_VALUES_MISMATCH;
}

/*
 * OpenSSL's own message for a missing file is a generic "system lib"; an
 * early fopen() gives the reader the real errno text.
 */
static int readable(const char *path)
{
    FILE *fp = fopen(path, "r");

    if (fp == NULL)
        return 0;
    fclose(fp);
    return 1;
}

static SSL_CTX *ctx_new(const SSL_METHOD *method, char *err, size_t errlen)
{
    SSL_CTX *ctx;

    /* Error reports look at the oldest queued error, so start with none. */
    ERR_clear_error();
    ctx = SSL_CTX_new(method);
    if (ctx == NULL)
        return fail(NULL, err, errlen, "cannot create TLS context: %s", ssl_reason(NULL));
    if (SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION) != 1)
        return fail(ctx, err, errlen, "cannot require TLS 1.2: %s", ssl_reason(NULL));
    /*
     * bufferevent_openssl may retry a write that would block from a different
     * evbuffer chunk; without this OpenSSL calls that a "bad write retry".
     */
    SSL_CTX_set_mode(ctx, SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    return ctx;
}

static int self_signed(SSL_CTX *ctx)
{
    EVP_PKEY *pkey = EVP_EC_gen("P-256");
    X509 *x509 = X509_new();
    BIGNUM *serial = BN_new();
    X509_NAME *name = NULL;
    int ok;

    /* A random serial: clients that cache certificates see each run as new. */
    ok = pkey && x509 && serial && X509_set_version(x509, X509_VERSION_3) &&
         BN_rand(serial, 64, BN_RAND_TOP_ONE, BN_RAND_BOTTOM_ANY) &&
         BN_to_ASN1_INTEGER(serial, X509_get_serialNumber(x509)) &&
         X509_gmtime_adj(X509_getm_notBefore(x509), 0) &&
         X509_gmtime_adj(X509_getm_notAfter(x509), 86400L * SELF_SIGNED_DAYS) &&
         X509_set_pubkey(x509, pkey) && (name = X509_get_subject_name(x509)) != NULL &&
         X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, (const unsigned char *)SELF_SIGNED_CN,
                                    -1, -1, 0) &&
         X509_set_issuer_name(x509, name) && X509_sign(x509, pkey, EVP_sha256()) > 0 &&
         SSL_CTX_use_certificate(ctx, x509) == 1 && SSL_CTX_use_PrivateKey(ctx, pkey) == 1;
    BN_free(serial);
    X509_free(x509); /* the context holds its own references */
    EVP_PKEY_free(pkey);
    return ok;
}

SSL_CTX *tls_server_ctx_new(const char *cert_file, const char *key_file, char *err, size_t errlen)
{
    SSL_CTX *ctx = ctx_new(TLS_server_method(), err, errlen);
    int loaded;

    if (ctx == NULL)
        return NULL;
    if (cert_file == NULL) {
        if (!self_signed(ctx))
            return fail(ctx, err, errlen, "cannot generate a self-signed certificate: %s",
                        ssl_reason(NULL));
        return ctx;
    }
    if (key_file == NULL)
        key_file = cert_file;
    if (!readable(cert_file))
        return fail(ctx, err, errlen, "cannot read certificate %s: %s", cert_file, strerror(errno));
    if (SSL_CTX_use_certificate_chain_file(ctx, cert_file) != 1)
        return fail(ctx, err, errlen, "cannot load certificate %s: %s", cert_file,
                    ssl_reason("no PEM certificate found"));
    if (!readable(key_file))
        return fail(ctx, err, errlen, "cannot read private key %s: %s", key_file, strerror(errno));
    /* OpenSSL 3 already compares key and certificate while loading the key. */
    loaded = SSL_CTX_use_PrivateKey_file(ctx, key_file, SSL_FILETYPE_PEM) == 1;
    if (!loaded && !key_mismatch())
        return fail(ctx, err, errlen, "cannot load private key %s: %s", key_file,
                    ssl_reason("no PEM private key found"));
    if (!loaded || SSL_CTX_check_private_key(ctx) != 1)
        return fail(ctx, err, errlen, "private key %s does not match certificate %s", key_file,
                    cert_file);
    return ctx;
}

SSL_CTX *tls_client_ctx_new(int verify_peer, const char *ca_file, char *err, size_t errlen)
{
    SSL_CTX *ctx = ctx_new(TLS_client_method(), err, errlen);

    if (ctx == NULL)
        return NULL;
    if (!verify_peer) {
        SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, NULL);
        return ctx;
    }
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
    if (ca_file == NULL) {
        if (SSL_CTX_set_default_verify_paths(ctx) != 1)
            return fail(ctx, err, errlen, "cannot load the system CA store: %s", ssl_reason(NULL));
        return ctx;
    }
    if (!readable(ca_file))
        return fail(ctx, err, errlen, "cannot read CA file %s: %s", ca_file, strerror(errno));
    if (SSL_CTX_load_verify_locations(ctx, ca_file, NULL) != 1)
        return fail(ctx, err, errlen, "cannot load CA file %s: %s", ca_file,
                    ssl_reason("no PEM certificate found"));
    return ctx;
}

const char *tls_describe(SSL *ssl, char *buf, size_t len)
{
    const SSL_CIPHER *cipher = ssl ? SSL_get_current_cipher(ssl) : NULL;

    if (cipher == NULL)
        snprintf(buf, len, "none");
    else
        snprintf(buf, len, "%s %s", SSL_get_version(ssl), SSL_CIPHER_get_name(cipher));
    return buf;
}
