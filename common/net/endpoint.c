/*
 * endpoint - network endpoints in Postfix notation; see endpoint.h.
 */
#include "config.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "endpoint.h"
#include "msg.h"
#include "xalloc.h"

#define UNIX_PATH_LIMIT (sizeof(((struct sockaddr_un *)0)->sun_path) - 1)

/* Letters, digits, '-', '.', '_'; inside brackets also ':' and '%' (zone id). */
static int host_ok(const char *host, size_t len, int bracketed)
{
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)host[i];

        if (isalnum(c) || c == '-' || c == '.' || c == '_')
            continue;
        if (bracketed && (c == ':' || c == '%'))
            continue;
        return 0;
    }
    return len > 0;
}

/* Stores a normalised port ("025" becomes "25") or a service name. */
static int port_parse(const char *port, int min, const char *spec, char **out, char *err,
                      size_t errlen)
{
    char buf[8];
    unsigned long v = 0;
    size_t i;

    if (*port == 0)
        return msg_set_error(err, errlen, "missing port in \"%s\"", spec);
    if (isdigit((unsigned char)*port)) {
        if (port[strspn(port, "0123456789")] != 0)
            return msg_set_error(err, errlen, "bad port \"%s\" in \"%s\"", port, spec);
        for (i = 0; port[i] && v <= 65535; i++)
            v = v * 10 + (unsigned long)(port[i] - '0');
        if (v > 65535 || v < (unsigned long)min)
            return msg_set_error(err, errlen, "port %s in \"%s\" is out of range (%d-65535)", port,
                                 spec, min);
        snprintf(buf, sizeof(buf), "%lu", v);
        *out = xstrdup(buf);
        return 0;
    }
    for (i = 0; port[i]; i++) {
        unsigned char c = (unsigned char)port[i];

        if (!isalnum(c) && (i == 0 || (c != '-' && c != '_')))
            return msg_set_error(err, errlen, "bad port \"%s\" in \"%s\"", port, spec);
    }
    *out = xstrdup(port);
    return 0;
}

static int endpoint_parse(const char *spec, int server, const char *default_port,
                          struct endpoint *ep, char *err, size_t errlen)
{
    const char *rest, *host = NULL, *port = NULL, *rbracket;
    size_t hostlen = 0;
    int bracketed = 0;
    unsigned char addr[sizeof(struct in6_addr)];

    memset(ep, 0, sizeof(*ep));
    ep->family_hint = AF_UNSPEC;
    if (spec == NULL || *spec == 0)
        return msg_set_error(err, errlen, "empty endpoint");
    if (strncmp(spec, "unix:", 5) == 0) {
        if (spec[5] == 0)
            return msg_set_error(err, errlen, "missing socket path in \"%s\"", spec);
        if (strlen(spec + 5) > UNIX_PATH_LIMIT)
            return msg_set_error(err, errlen, "socket path \"%.40s...\" is longer than %zu bytes",
                                 spec + 5, UNIX_PATH_LIMIT);
        ep->family_hint = AF_UNIX;
        ep->is_unix = 1;
        ep->path = xstrdup(spec + 5);
        return 0;
    }
    rest = strncmp(spec, "inet:", 5) == 0 ? spec + 5 : spec;
    if (*rest == 0)
        return msg_set_error(err, errlen, "missing %s in \"%s\"", server ? "port" : "host", spec);

    if (*rest == '[') {
        rbracket = strchr(rest, ']');
        if (rbracket == NULL)
            return msg_set_error(err, errlen, "missing ']' in \"%s\"", spec);
        host = rest + 1;
        hostlen = (size_t)(rbracket - host);
        bracketed = 1;
        if (rbracket[1] == ':')
            port = rbracket + 2;
        else if (rbracket[1] != 0)
            return msg_set_error(err, errlen, "unexpected \"%s\" after ']' in \"%s\"", rbracket + 1,
                                 spec);
        if (hostlen == 0)
            return msg_set_error(err, errlen, "empty [] in \"%s\"", spec);
    } else {
        const char *colon = strchr(rest, ':');

        if (colon && strchr(colon + 1, ':'))
            return msg_set_error(err, errlen,
                                 "IPv6 address in \"%s\" must be in brackets, e.g. [::1]:25", spec);
        if (colon) {
            host = rest;
            hostlen = (size_t)(colon - rest);
            port = colon + 1;
        } else if (server && isdigit((unsigned char)*rest)) {
            port = rest; /* "2525": Postfix reads a lone number as a port */
        } else {
            host = rest;
            hostlen = strlen(rest);
        }
    }

    if (hostlen == 0) {
        if (!server)
            return msg_set_error(err, errlen, "missing host in \"%s\"", spec);
        host = NULL; /* wildcard */
    } else if (!host_ok(host, hostlen, bracketed)) {
        return msg_set_error(err, errlen, "bad host \"%.*s\" in \"%s\"", (int)hostlen, host, spec);
    }
    if (port == NULL && server)
        return msg_set_error(err, errlen, "missing port in \"%s\" (expected [host]:port)", spec);
    if (port == NULL)
        port = default_port ? default_port : "25";
    if (port_parse(port, server ? 0 : 1, spec, &ep->port, err, errlen) < 0)
        return -1;

    if (host) {
        ep->host = xstrndup(host, hostlen);
        if (inet_pton(AF_INET, ep->host, addr) == 1)
            ep->family_hint = AF_INET;
        else if (bracketed && inet_pton(AF_INET6, ep->host, addr) == 1)
            ep->family_hint = AF_INET6;
        else if (bracketed && strchr(ep->host, ':') && strchr(ep->host, '%') == NULL) {
            msg_set_error(err, errlen, "bad IPv6 address \"%s\" in \"%s\"", ep->host, spec);
            endpoint_free(ep);
            return -1;
        }
    }
    return 0;
}

int endpoint_parse_client(const char *spec, const char *default_port, struct endpoint *ep,
                          char *err, size_t errlen)
{
    return endpoint_parse(spec, 0, default_port, ep, err, errlen);
}

int endpoint_parse_server(const char *spec, struct endpoint *ep, char *err, size_t errlen)
{
    return endpoint_parse(spec, 1, NULL, ep, err, errlen);
}

void endpoint_free(struct endpoint *ep)
{
    free(ep->host);
    free(ep->port);
    free(ep->path);
    memset(ep, 0, sizeof(*ep));
    ep->family_hint = AF_UNSPEC;
}

const char *endpoint_describe(const struct endpoint *ep, char *buf, size_t len)
{
    if (ep->is_unix)
        snprintf(buf, len, "unix:%s", ep->path);
    else if (ep->host == NULL)
        snprintf(buf, len, ":%s", ep->port);
    else if (strchr(ep->host, ':'))
        snprintf(buf, len, "[%s]:%s", ep->host, ep->port);
    else
        snprintf(buf, len, "%s:%s", ep->host, ep->port);
    return buf;
}

static int sock_open(int domain)
{
#if defined(SOCK_NONBLOCK) && defined(SOCK_CLOEXEC)
    return socket(domain, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
#else
    int fd = socket(domain, SOCK_STREAM, 0);

    if (fd >= 0 && (fcntl(fd, F_SETFD, FD_CLOEXEC) < 0 ||
                    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) < 0)) {
        close(fd);
        return -1;
    }
    return fd;
#endif
}

static int family_check(const struct endpoint *ep, int family, char *err, size_t errlen)
{
    if (family != AF_UNSPEC && family != AF_INET && family != AF_INET6)
        return msg_set_error(err, errlen, "unsupported address family %d", family);
    if (family == AF_UNSPEC || ep->family_hint == AF_UNSPEC || ep->family_hint == family)
        return 0;
    return msg_set_error(err, errlen, "%s is an %s address, but only %s is enabled", ep->host,
                         ep->family_hint == AF_INET ? "IPv4" : "IPv6",
                         family == AF_INET ? "IPv4" : "IPv6");
}

static void unix_addr(const char *path, struct sockaddr_un *sun, socklen_t *len)
{
    memset(sun, 0, sizeof(*sun));
    sun->sun_family = AF_UNIX;
    memcpy(sun->sun_path, path, strlen(path) + 1);
    *len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(path) + 1);
}

/* A connect that does not fail with ECONNREFUSED means someone is serving. */
static int unix_socket_live(const struct sockaddr_un *sun, socklen_t len)
{
    int fd = sock_open(AF_UNIX), live;

    if (fd < 0)
        return 0;
    live = connect(fd, (const struct sockaddr *)sun, len) == 0 || errno == EAGAIN ||
           errno == EINPROGRESS;
    close(fd);
    return live;
}

#ifndef O_PATH
#define O_PATH O_RDONLY
#endif

/*
 * What bind() made, taken at once: at exit the path is removed only while
 * it still names this file, not a socket someone else put there since.
 * Unknown (the file stays at exit) if its directory cannot be opened.
 */
static void learn_file(const char *path, struct endpoint_file *file)
{
    const char *slash = strrchr(path, '/');
    char dir[UNIX_PATH_LIMIT + 1];
    struct stat st;
    size_t dir_len;

    if (slash == NULL) {
        snprintf(dir, sizeof(dir), ".");
    } else {
        dir_len = slash == path ? 1 : (size_t)(slash - path);
        memcpy(dir, path, dir_len);
        dir[dir_len] = 0;
    }
    if ((file->dir_fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
        return;
    file->path = xstrdup(path);
    file->name = slash ? file->path + (slash + 1 - path) : file->path;
    if (fstatat(file->dir_fd, file->name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
        close(file->dir_fd);
        free(file->path);
        memset(file, 0, sizeof(*file));
        return;
    }
    file->dev = st.st_dev;
    file->ino = st.st_ino;
}

static int unix_listen(const char *path, int backlog, struct endpoint_file *file, char *err,
                       size_t errlen)
{
    struct sockaddr_un sun;
    socklen_t len;
    struct stat st;
    int fd;

    if (strlen(path) > UNIX_PATH_LIMIT)
        return msg_set_error(err, errlen, "socket path %s is longer than %zu bytes", path,
                             UNIX_PATH_LIMIT);
    unix_addr(path, &sun, &len);
    if (lstat(path, &st) == 0) {
        if (!S_ISSOCK(st.st_mode))
            return msg_set_error(err, errlen, "%s exists and is not a socket", path);
        if (unix_socket_live(&sun, len))
            return msg_set_error(err, errlen, "%s: another server is listening there", path);
        if (unlink(path) < 0 && errno != ENOENT)
            return msg_set_error(err, errlen, "cannot remove stale socket %s: %s", path,
                                 strerror(errno));
    } else if (errno != ENOENT) {
        return msg_set_error(err, errlen, "cannot stat %s: %s", path, strerror(errno));
    }
    if ((fd = sock_open(AF_UNIX)) < 0)
        return msg_set_error(err, errlen, "socket(AF_UNIX): %s", strerror(errno));
    if (bind(fd, (struct sockaddr *)&sun, len) < 0 || listen(fd, backlog) < 0) {
        msg_set_error(err, errlen, "cannot listen on unix:%s: %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    if (file != NULL)
        learn_file(path, file);
    return fd;
}

static const char *resolve_error(int rc)
{
    return rc == EAI_SYSTEM ? strerror(errno) : gai_strerror(rc);
}

/*
 * Try each address of host:port until one binds. Sets *sys_errno to the last
 * socket-level error so the caller can tell "no IPv6 here" from "in use".
 */
static int inet_listen(const struct endpoint *ep, int family, int v6only, int backlog,
                       int *sys_errno, char *err, size_t errlen)
{
    struct addrinfo hints = {0}, *res, *ai;
    char desc[300], addr[INET6_ADDRSTRLEN];
    int rc, fd = -1, on = 1;

    hints.ai_family = family;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | (ep->family_hint != AF_UNSPEC ? AI_NUMERICHOST : 0);
    *sys_errno = 0;
    if ((rc = getaddrinfo(ep->host, ep->port, &hints, &res)) != 0)
        return msg_set_error(err, errlen, "cannot resolve %s: %s",
                             endpoint_describe(ep, desc, sizeof(desc)), resolve_error(rc));
    for (ai = res; ai; ai = ai->ai_next) {
        if ((fd = sock_open(ai->ai_family)) >= 0) {
            setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
            if (ai->ai_family == AF_INET6)
                setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &v6only, sizeof(v6only));
            if (bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 && listen(fd, backlog) == 0)
                break;
        }
        *sys_errno = errno;
        getnameinfo(ai->ai_addr, ai->ai_addrlen, addr, sizeof(addr), NULL, 0, NI_NUMERICHOST);
        msg_set_error(err, errlen, "cannot listen on %s%s%s:%s: %s",
                      ai->ai_family == AF_INET6 ? "[" : "", addr,
                      ai->ai_family == AF_INET6 ? "]" : "", ep->port, strerror(*sys_errno));
        if (fd >= 0)
            close(fd);
        fd = -1;
    }
    freeaddrinfo(res);
    return fd;
}

int endpoint_listen(const struct endpoint *ep, int family, int backlog, struct endpoint_file *file,
                    char *err, size_t errlen)
{
    int fd, sys_errno;

    if (file != NULL)
        memset(file, 0, sizeof(*file));
    if (ep->is_unix)
        return unix_listen(ep->path, backlog, file, err, errlen);
    if (family_check(ep, family, err, errlen) < 0)
        return -1;
    if (ep->host != NULL || family != AF_UNSPEC)
        return inet_listen(ep, family, family == AF_INET6, backlog, &sys_errno, err, errlen);
    /* All addresses: one dual-stack socket, or IPv4 alone where IPv6 is off. */
    fd = inet_listen(ep, AF_INET6, 0, backlog, &sys_errno, err, errlen);
    if (fd < 0 && (sys_errno == EAFNOSUPPORT || sys_errno == EADDRNOTAVAIL))
        fd = inet_listen(ep, AF_INET, 0, backlog, &sys_errno, err, errlen);
    return fd;
}

int endpoint_file_remove(struct endpoint_file *file, char *err, size_t errlen)
{
    struct stat st;
    int status = 0;

    if (file->path == NULL)
        return 0;
    /* Gone, or replaced (a new server's socket, or any other file): not ours to remove. */
    if (fstatat(file->dir_fd, file->name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISSOCK(st.st_mode) &&
        st.st_dev == file->dev && st.st_ino == file->ino &&
        unlinkat(file->dir_fd, file->name, 0) != 0 && errno != ENOENT)
        status =
            msg_set_error(err, errlen, "cannot remove socket %s: %s", file->path, strerror(errno));
    close(file->dir_fd);
    free(file->path);
    memset(file, 0, sizeof(*file));
    return status;
}

int endpoint_resolve(const struct endpoint *ep, int family, struct sockaddr_storage *sa,
                     socklen_t *salen, char *err, size_t errlen)
{
    struct addrinfo hints = {0}, *res;
    char desc[300];
    int rc;

    if (ep->is_unix) {
        if (strlen(ep->path) > UNIX_PATH_LIMIT)
            return msg_set_error(err, errlen, "socket path %s is longer than %zu bytes", ep->path,
                                 UNIX_PATH_LIMIT);
        memset(sa, 0, sizeof(*sa));
        unix_addr(ep->path, (struct sockaddr_un *)sa, salen);
        return 0;
    }
    if (family_check(ep, family, err, errlen) < 0)
        return -1;
    hints.ai_family = family;
    hints.ai_socktype = SOCK_STREAM;
    /*
     * AI_ADDRCONFIG keeps a name such as "localhost" from resolving to ::1
     * on a host without IPv6; a literal is taken as written.
     */
    hints.ai_flags = ep->family_hint != AF_UNSPEC ? AI_NUMERICHOST : AI_ADDRCONFIG;
    if ((rc = getaddrinfo(ep->host, ep->port, &hints, &res)) != 0)
        return msg_set_error(err, errlen, "cannot resolve %s: %s",
                             endpoint_describe(ep, desc, sizeof(desc)), resolve_error(rc));
    if (res->ai_addrlen > sizeof(*sa)) {
        freeaddrinfo(res);
        return msg_set_error(err, errlen, "address of %s is too long",
                             endpoint_describe(ep, desc, sizeof(desc)));
    }
    memset(sa, 0, sizeof(*sa));
    memcpy(sa, res->ai_addr, res->ai_addrlen);
    *salen = res->ai_addrlen;
    freeaddrinfo(res);
    return 0;
}

int endpoint_local_port(int fd)
{
    struct sockaddr_storage ss;
    socklen_t len = sizeof(ss);

    if (getsockname(fd, (struct sockaddr *)&ss, &len) < 0)
        return -1;
    if (ss.ss_family == AF_INET)
        return ntohs(((struct sockaddr_in *)&ss)->sin_port);
    if (ss.ss_family == AF_INET6)
        return ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
    return ss.ss_family == AF_UNIX ? 0 : -1;
}

const char *endpoint_local_describe(int fd, char *buf, size_t len)
{
    struct sockaddr_storage ss;
    socklen_t sslen = sizeof(ss);
    char host[NI_MAXHOST], port[NI_MAXSERV];

    if (getsockname(fd, (struct sockaddr *)&ss, &sslen) < 0) {
        snprintf(buf, len, "unknown");
    } else if (ss.ss_family == AF_UNIX) {
        snprintf(buf, len, "unix:%s", ((struct sockaddr_un *)&ss)->sun_path);
    } else if (getnameinfo((struct sockaddr *)&ss, sslen, host, sizeof(host), port, sizeof(port),
                           NI_NUMERICHOST | NI_NUMERICSERV) != 0) {
        snprintf(buf, len, "unknown");
    } else {
        snprintf(buf, len, ss.ss_family == AF_INET6 ? "[%s]:%s" : "%s:%s", host, port);
    }
    return buf;
}
