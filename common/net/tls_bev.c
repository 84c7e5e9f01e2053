/*
 * tls_bev - move an SMTP session's socket from plain text to TLS; see tls_bev.h.
 */
#include "config.h"

#include <event2/buffer.h>
#include <event2/bufferevent_ssl.h>
#include <event2/event.h>

#include "tls_bev.h"

void tls_bev_hold(struct bufferevent *plain)
{
    struct evbuffer *in = bufferevent_get_input(plain);

    evbuffer_drain(in, evbuffer_get_length(in));
    bufferevent_disable(plain, EV_READ);
}

struct bufferevent *tls_bev_upgrade(struct bufferevent *plain, SSL_CTX *ctx, enum tls_bev_role role)
{
    struct event_base *base = bufferevent_get_base(plain);
    evutil_socket_t fd = bufferevent_getfd(plain);
    struct bufferevent *tls = NULL;
    SSL *ssl = SSL_new(ctx);

    /* Detach the socket first, so that freeing the plain bufferevent keeps it open. */
    bufferevent_setfd(plain, -1);
    bufferevent_free(plain);
    if (ssl != NULL)
        tls = bufferevent_openssl_socket_new(base, fd, ssl,
                                             role == TLS_BEV_SERVER ? BUFFEREVENT_SSL_ACCEPTING
                                                                    : BUFFEREVENT_SSL_CONNECTING,
                                             BEV_OPT_CLOSE_ON_FREE);
    if (tls == NULL) {
        if (ssl != NULL)
            SSL_free(ssl);
        evutil_closesocket(fd);
        return NULL;
    }
    bufferevent_openssl_set_allow_dirty_shutdown(tls, 1);
    return tls;
}
