/*
 * tls_bev - move an SMTP session's socket from plain text to TLS.
 *
 * After STARTTLS and its 220, the socket leaves its plain bufferevent for
 * a new OpenSSL one, in the handshake. The plain bufferevent is freed with
 * whatever it still held: plaintext that arrived behind STARTTLS or its
 * 220 must never be read as if it came inside TLS (CVE-2011-0411). The
 * caller sets the callbacks, timeouts and watermarks of the new one.
 */
#ifndef SPOOLSIM_TLS_BEV_H
#define SPOOLSIM_TLS_BEV_H

#include <event2/bufferevent.h>
#include <openssl/ssl.h>

enum tls_bev_role { TLS_BEV_SERVER, TLS_BEV_CLIENT };

/*
 * A server, right after its 220 to STARTTLS: whatever the client sent
 * behind the command is dropped, and nothing more is read in plain text.
 */
void tls_bev_hold(struct bufferevent *plain);

/* The TLS bufferevent, or NULL with the socket closed. `plain' is gone either way. */
struct bufferevent *tls_bev_upgrade(struct bufferevent *plain, SSL_CTX *ctx,
                                    enum tls_bev_role role);

#endif
