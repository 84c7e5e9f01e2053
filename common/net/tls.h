/*
 * tls - OpenSSL contexts for STARTTLS.
 *
 * Both contexts speak TLS 1.2 or later. The server context loads a PEM
 * certificate chain and key, or with no certificate generates a throw-away
 * self-signed one in memory (EC P-256, CN spoolsim.invalid, valid one day)
 * so that --tls works with no files. The client context normally does not
 * verify: a load generator is not the place to enforce PKI. When it does,
 * only the chain is checked; a caller wanting the name checked too calls
 * SSL_set1_host() on each SSL.
 *
 * On failure a constructor returns NULL with a one-line message in err,
 * naming the file and the reason, and leaves the OpenSSL error queue empty
 * so a later SSL_get_error() is not misled by a stale entry.
 */
#ifndef SPOOLSIM_TLS_H
#define SPOOLSIM_TLS_H

#include <stddef.h>

#include <openssl/ssl.h>

/* key_file NULL means the key is in cert_file; cert_file NULL means self-signed. */
SSL_CTX *tls_server_ctx_new(const char *cert_file, const char *key_file, char *err, size_t errlen);
/* ca_file NULL means the system trust store; both are ignored unless verify_peer. */
SSL_CTX *tls_client_ctx_new(int verify_peer, const char *ca_file, char *err, size_t errlen);
/* "TLSv1.3 TLS_AES_256_GCM_SHA384", or "none" before a handshake completes. */
const char *tls_describe(SSL *ssl, char *buf, size_t len);

#endif
