/*
 * endpoint - network endpoints in Postfix notation, and the sockets for them.
 *
 * Clients (smtp-source) name a target "[inet:]host[:port]" or "unix:path";
 * servers (smtp-sink) name a listener "[inet:][host]:port" or "unix:path".
 * An IPv6 literal goes in brackets: "[::1]:2525". A server endpoint with an
 * empty host (":2525", or just "2525") has host NULL and, like Postfix's
 * smtp-sink, listens on all addresses; a client needs a host. Ports are
 * 1-65535 (a server may use 0 for "any", handy in tests) or a service name.
 *
 * Parsing does no I/O and allocates with xalloc; on failure the endpoint is
 * left empty (safe to endpoint_free) and err holds a one-line message.
 * The socket helpers return non-blocking, close-on-exec descriptors, or -1
 * with a message in err naming the address and the system error.
 */
#ifndef SPOOLSIM_ENDPOINT_H
#define SPOOLSIM_ENDPOINT_H

#include <stddef.h>
#include <sys/socket.h>
#include <sys/types.h>

struct endpoint {
    int family_hint; /* AF_UNSPEC, AF_INET, AF_INET6 (numeric host), AF_UNIX */
    char *host;      /* without brackets; NULL for unix and for a wildcard server */
    char *port;      /* decimal or a service name; NULL for unix */
    char *path;      /* unix only */
    int is_unix;
};

/* default_port NULL means "25". */
int endpoint_parse_client(const char *spec, const char *default_port, struct endpoint *ep,
                          char *err, size_t errlen);
int endpoint_parse_server(const char *spec, struct endpoint *ep, char *err, size_t errlen);
void endpoint_free(struct endpoint *ep);
/* "host:port", "[v6]:port", ":port" (wildcard) or "unix:path"; parses back. */
const char *endpoint_describe(const struct endpoint *ep, char *buf, size_t len);

/*
 * Bind and listen (SO_REUSEADDR). family comes from -4/-6: AF_UNSPEC,
 * AF_INET or AF_INET6. A wildcard with AF_UNSPEC is one dual-stack "::"
 * socket, or 0.0.0.0 where the kernel has no IPv6; with AF_INET6 it is
 * IPv6 only. A host name is resolved and the first address that binds
 * wins. For unix, an existing socket file is removed first unless a live
 * server still answers on it; any other kind of file is an error.
 * file (may be NULL) learns the socket file a unix listener made (its
 * path NULL for inet), for endpoint_file_remove() at exit.
 */
struct endpoint_file {
    char *path; /* NULL: no file was made */
    dev_t dev;
    ino_t ino;
    /*
     * Its directory, held open, and its name there: the removal finds the
     * file after a chroot (smtp-sink -R) or a chdir as well.
     */
    int dir_fd;
    const char *name; /* within path */
};
int endpoint_listen(const struct endpoint *ep, int family, int backlog, struct endpoint_file *file,
                    char *err, size_t errlen);
/*
 * Remove the socket file a listener made, if its path still names that
 * very file (same device and inode); a file put there since stays. Call
 * it before closing the listener: while the socket is open its inode
 * cannot pass to a new file. Frees file's path and closes its directory;
 * 0, or -1 with a message in err if the unlink failed.
 */
int endpoint_file_remove(struct endpoint_file *file, char *err, size_t errlen);
/*
 * Resolve once, for connect(): the first address getaddrinfo() prefers.
 * A wildcard endpoint resolves to loopback.
 */
int endpoint_resolve(const struct endpoint *ep, int family, struct sockaddr_storage *sa,
                     socklen_t *salen, char *err, size_t errlen);
/* The bound TCP port of a socket, 0 for a unix socket, -1 on error. */
int endpoint_local_port(int fd);
/* The bound address of a socket, as endpoint_describe() writes one ("unknown" on error). */
const char *endpoint_local_describe(int fd, char *buf, size_t len);

#endif
