/*
 * Unit tests for common/net/endpoint.c: client and server endpoint syntax, and
 * the socket helpers on loopback and a unix socket.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "endpoint.h"
#include "check_main.h"

enum { CLIENT, SERVER };

static const struct {
    int side;
    const char *spec;
    int ok;
    const char *host; /* expected; NULL means NULL */
    const char *port;
    const char *path;
    int is_unix;
    int family;
    const char *describe; /* on success; on failure a substring of the error */
} cases[] = {
    /* Clients. */
    {CLIENT, "localhost", 1, "localhost", "25", NULL, 0, AF_UNSPEC, "localhost:25"},
    {CLIENT, "inet:mx.example:2525", 1, "mx.example", "2525", NULL, 0, AF_UNSPEC,
     "mx.example:2525"},
    {CLIENT, "127.0.0.1:587", 1, "127.0.0.1", "587", NULL, 0, AF_INET, "127.0.0.1:587"},
    {CLIENT, "[::1]:2525", 1, "::1", "2525", NULL, 0, AF_INET6, "[::1]:2525"},
    {CLIENT, "[::1]", 1, "::1", "25", NULL, 0, AF_INET6, "[::1]:25"},
    {CLIENT, "inet:[2001:db8::5]:26", 1, "2001:db8::5", "26", NULL, 0, AF_INET6,
     "[2001:db8::5]:26"},
    {CLIENT, "[127.0.0.1]:25", 1, "127.0.0.1", "25", NULL, 0, AF_INET, "127.0.0.1:25"},
    {CLIENT, "[mail.example]", 1, "mail.example", "25", NULL, 0, AF_UNSPEC, "mail.example:25"},
    {CLIENT, "host:smtp", 1, "host", "smtp", NULL, 0, AF_UNSPEC, "host:smtp"},
    {CLIENT, "host:0025", 1, "host", "25", NULL, 0, AF_UNSPEC, "host:25"},
    {CLIENT, "host:65535", 1, "host", "65535", NULL, 0, AF_UNSPEC, "host:65535"},
    {CLIENT, "unix:/tmp/s.sock", 1, NULL, NULL, "/tmp/s.sock", 1, AF_UNIX, "unix:/tmp/s.sock"},
    {CLIENT, "unix:relative", 1, NULL, NULL, "relative", 1, AF_UNIX, "unix:relative"},
    {CLIENT, "", 0, 0, 0, 0, 0, 0, "empty endpoint"},
    {CLIENT, "inet:", 0, 0, 0, 0, 0, 0, "missing host"},
    {CLIENT, ":25", 0, 0, 0, 0, 0, 0, "missing host"},
    {CLIENT, "host:", 0, 0, 0, 0, 0, 0, "missing port"},
    {CLIENT, "host:99999", 0, 0, 0, 0, 0, 0, "port 99999 in \"host:99999\" is out of range"},
    {CLIENT, "host:0", 0, 0, 0, 0, 0, 0, "out of range (1-65535)"},
    {CLIENT, "host:123456789012345678901", 0, 0, 0, 0, 0, 0, "out of range"},
    {CLIENT, "host:25x", 0, 0, 0, 0, 0, 0, "bad port \"25x\""},
    {CLIENT, "host:-1", 0, 0, 0, 0, 0, 0, "bad port \"-1\""},
    {CLIENT, "unix:", 0, 0, 0, 0, 0, 0, "missing socket path"},
    {CLIENT, "[::1", 0, 0, 0, 0, 0, 0, "missing ']'"},
    {CLIENT, "[::1]x", 0, 0, 0, 0, 0, 0, "unexpected \"x\""},
    {CLIENT, "[]:25", 0, 0, 0, 0, 0, 0, "empty []"},
    {CLIENT, "::1", 0, 0, 0, 0, 0, 0, "must be in brackets"},
    {CLIENT, "::1:25", 0, 0, 0, 0, 0, 0, "must be in brackets"},
    {CLIENT, "[1:2]:25", 0, 0, 0, 0, 0, 0, "bad IPv6 address \"1:2\""},
    {CLIENT, "bad host:25", 0, 0, 0, 0, 0, 0, "bad host \"bad host\""},
    {CLIENT, "a/b:25", 0, 0, 0, 0, 0, 0, "bad host"},
    /* Servers. */
    {SERVER, ":2525", 1, NULL, "2525", NULL, 0, AF_UNSPEC, ":2525"},
    {SERVER, "inet::2525", 1, NULL, "2525", NULL, 0, AF_UNSPEC, ":2525"},
    {SERVER, "2525", 1, NULL, "2525", NULL, 0, AF_UNSPEC, ":2525"},
    {SERVER, "127.0.0.1:0", 1, "127.0.0.1", "0", NULL, 0, AF_INET, "127.0.0.1:0"},
    {SERVER, "inet:[::]:25", 1, "::", "25", NULL, 0, AF_INET6, "[::]:25"},
    {SERVER, "localhost:smtp", 1, "localhost", "smtp", NULL, 0, AF_UNSPEC, "localhost:smtp"},
    {SERVER, "unix:/run/sink", 1, NULL, NULL, "/run/sink", 1, AF_UNIX, "unix:/run/sink"},
    {SERVER, "", 0, 0, 0, 0, 0, 0, "empty endpoint"},
    {SERVER, "inet:", 0, 0, 0, 0, 0, 0, "missing port"},
    {SERVER, "localhost", 0, 0, 0, 0, 0, 0, "missing port"},
    {SERVER, "[::1]", 0, 0, 0, 0, 0, 0, "missing port"},
    {SERVER, ":", 0, 0, 0, 0, 0, 0, "missing port"},
    {SERVER, ":65536", 0, 0, 0, 0, 0, 0, "out of range (0-65535)"},
    {SERVER, "host:99999", 0, 0, 0, 0, 0, 0, "out of range"},
    {SERVER, "unix:", 0, 0, 0, 0, 0, 0, "missing socket path"},
    {SERVER, "[::1:25", 0, 0, 0, 0, 0, 0, "missing ']'"},
};

static void check_str(const char *what, const char *got, const char *want)
{
    if (want == NULL)
        ck_assert_msg(got == NULL, "%s: expected NULL, got \"%s\"", what, got);
    else
        ck_assert_msg(got != NULL && strcmp(got, want) == 0, "%s: expected \"%s\", got \"%s\"",
                      what, want, got ? got : "(null)");
}

START_TEST(test_parse_table)
{
    struct endpoint ep, again;
    char err[256] = "", buf[256];
    int rc;

    if (cases[_i].side == CLIENT)
        rc = endpoint_parse_client(cases[_i].spec, NULL, &ep, err, sizeof(err));
    else
        rc = endpoint_parse_server(cases[_i].spec, &ep, err, sizeof(err));
    if (!cases[_i].ok) {
        ck_assert_msg(rc == -1, "\"%s\" was accepted", cases[_i].spec);
        ck_assert_msg(strstr(err, cases[_i].describe) != NULL, "\"%s\": error \"%s\" lacks \"%s\"",
                      cases[_i].spec, err, cases[_i].describe);
        ck_assert(ep.host == NULL && ep.port == NULL && ep.path == NULL);
        endpoint_free(&ep);
        return;
    }
    ck_assert_msg(rc == 0, "\"%s\" rejected: %s", cases[_i].spec, err);
    check_str("host", ep.host, cases[_i].host);
    check_str("port", ep.port, cases[_i].port);
    check_str("path", ep.path, cases[_i].path);
    ck_assert_int_eq(ep.is_unix, cases[_i].is_unix);
    ck_assert_int_eq(ep.family_hint, cases[_i].family);
    check_str("describe", endpoint_describe(&ep, buf, sizeof(buf)), cases[_i].describe);

    /* What describe prints must parse back to the same endpoint. */
    if (cases[_i].side == CLIENT)
        rc = endpoint_parse_client(buf, NULL, &again, err, sizeof(err));
    else
        rc = endpoint_parse_server(buf, &again, err, sizeof(err));
    ck_assert_msg(rc == 0, "describe output \"%s\" rejected: %s", buf, err);
    check_str("re-parsed host", again.host, ep.host);
    check_str("re-parsed port", again.port, ep.port);
    endpoint_free(&again);
    endpoint_free(&ep);
    ck_assert(ep.host == NULL && ep.port == NULL && ep.path == NULL);
}
END_TEST

START_TEST(test_default_port)
{
    struct endpoint ep;
    char err[128];

    ck_assert_int_eq(endpoint_parse_client("mx", "2525", &ep, err, sizeof(err)), 0);
    ck_assert_str_eq(ep.port, "2525");
    endpoint_free(&ep);
    ck_assert_int_eq(endpoint_parse_client("mx:26", "2525", &ep, err, sizeof(err)), 0);
    ck_assert_str_eq(ep.port, "26");
    endpoint_free(&ep);
}
END_TEST

START_TEST(test_unix_path_too_long)
{
    struct endpoint ep;
    char spec[300], err[256];

    memset(spec, 'x', sizeof(spec) - 1);
    spec[sizeof(spec) - 1] = 0;
    memcpy(spec, "unix:", 5);
    ck_assert_int_eq(endpoint_parse_client(spec, NULL, &ep, err, sizeof(err)), -1);
    ck_assert_ptr_nonnull(strstr(err, "longer than"));
}
END_TEST

START_TEST(test_listen_loopback_port_zero)
{
    struct endpoint ep, client;
    struct sockaddr_storage sa;
    socklen_t salen;
    char err[256], spec[64];
    int lfd, cfd, port;

    ck_assert_int_eq(endpoint_parse_server("127.0.0.1:0", &ep, err, sizeof(err)), 0);
    lfd = endpoint_listen(&ep, AF_UNSPEC, 16, NULL, err, sizeof(err));
    ck_assert_msg(lfd >= 0, "listen: %s", err);
    port = endpoint_local_port(lfd);
    ck_assert_int_gt(port, 0);

    /* Resolve it as a client would and connect. */
    snprintf(spec, sizeof(spec), "127.0.0.1:%d", port);
    ck_assert_int_eq(endpoint_parse_client(spec, NULL, &client, err, sizeof(err)), 0);
    ck_assert_msg(endpoint_resolve(&client, AF_UNSPEC, &sa, &salen, err, sizeof(err)) == 0, "%s",
                  err);
    ck_assert_int_eq(sa.ss_family, AF_INET);
    ck_assert_int_eq(ntohs(((struct sockaddr_in *)&sa)->sin_port), port);
    cfd = socket(AF_INET, SOCK_STREAM, 0);
    ck_assert_int_eq(connect(cfd, (struct sockaddr *)&sa, salen), 0);

    /* The family from -6 contradicts an IPv4 literal. */
    ck_assert_int_eq(endpoint_resolve(&client, AF_INET6, &sa, &salen, err, sizeof(err)), -1);
    ck_assert_ptr_nonnull(strstr(err, "IPv4 address"));
    ck_assert_int_eq(endpoint_listen(&ep, AF_INET6, 16, NULL, err, sizeof(err)), -1);

    close(cfd);
    close(lfd);
    endpoint_free(&client);
    endpoint_free(&ep);
}
END_TEST

START_TEST(test_listen_in_use)
{
    struct endpoint ep;
    char err[256], spec[64];
    int lfd, fd2;

    ck_assert_int_eq(endpoint_parse_server("127.0.0.1:0", &ep, err, sizeof(err)), 0);
    lfd = endpoint_listen(&ep, AF_INET, 16, NULL, err, sizeof(err));
    ck_assert_int_ge(lfd, 0);
    snprintf(spec, sizeof(spec), "127.0.0.1:%d", endpoint_local_port(lfd));
    endpoint_free(&ep);
    ck_assert_int_eq(endpoint_parse_server(spec, &ep, err, sizeof(err)), 0);
    fd2 = endpoint_listen(&ep, AF_UNSPEC, 16, NULL, err, sizeof(err));
    ck_assert_int_eq(fd2, -1);
    ck_assert_msg(strstr(err, spec) != NULL && strstr(err, strerror(EADDRINUSE)) != NULL, "%s",
                  err);
    close(lfd);
    endpoint_free(&ep);
}
END_TEST

START_TEST(test_listen_wildcard)
{
    struct endpoint ep;
    char err[256];
    int lfd;

    ck_assert_int_eq(endpoint_parse_server(":0", &ep, err, sizeof(err)), 0);
    lfd = endpoint_listen(&ep, AF_UNSPEC, 16, NULL, err, sizeof(err));
    ck_assert_msg(lfd >= 0, "listen: %s", err);
    ck_assert_int_gt(endpoint_local_port(lfd), 0);
    close(lfd);
    lfd = endpoint_listen(&ep, AF_INET, 16, NULL, err, sizeof(err));
    ck_assert_msg(lfd >= 0, "listen: %s", err);
    close(lfd);
    endpoint_free(&ep);
}
END_TEST

START_TEST(test_unix_listen_stale_and_live)
{
    struct endpoint ep;
    struct sockaddr_storage sa;
    socklen_t salen;
    struct stat st;
    char dir[] = "/tmp/check_endpoint.XXXXXX", spec[160], file[128], err[256];
    int lfd, lfd2, cfd;
    FILE *fp;

    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(spec, sizeof(spec), "unix:%s/sink", dir);
    ck_assert_int_eq(endpoint_parse_server(spec, &ep, err, sizeof(err)), 0);
    lfd = endpoint_listen(&ep, AF_UNSPEC, 16, NULL, err, sizeof(err));
    ck_assert_msg(lfd >= 0, "listen: %s", err);
    ck_assert_int_eq(endpoint_local_port(lfd), 0);

    /* A live listener is not stolen. */
    ck_assert_int_eq(endpoint_listen(&ep, AF_UNSPEC, 16, NULL, err, sizeof(err)), -1);
    ck_assert_ptr_nonnull(strstr(err, "another server"));

    ck_assert_int_eq(endpoint_resolve(&ep, AF_UNSPEC, &sa, &salen, err, sizeof(err)), 0);
    ck_assert_int_eq(sa.ss_family, AF_UNIX);
    cfd = socket(AF_UNIX, SOCK_STREAM, 0);
    ck_assert_int_eq(connect(cfd, (struct sockaddr *)&sa, salen), 0);
    close(cfd);

    /* Once the server is gone the socket file is stale and is replaced. */
    close(lfd);
    ck_assert_int_eq(lstat(ep.path, &st), 0);
    lfd2 = endpoint_listen(&ep, AF_UNSPEC, 16, NULL, err, sizeof(err));
    ck_assert_msg(lfd2 >= 0, "relisten: %s", err);
    close(lfd2);
    unlink(ep.path);
    endpoint_free(&ep);

    /* A regular file in the way is never removed. */
    snprintf(file, sizeof(file), "%s/plain", dir);
    fp = fopen(file, "w");
    ck_assert_ptr_nonnull(fp);
    fclose(fp);
    snprintf(spec, sizeof(spec), "unix:%s", file);
    ck_assert_int_eq(endpoint_parse_server(spec, &ep, err, sizeof(err)), 0);
    ck_assert_int_eq(endpoint_listen(&ep, AF_UNSPEC, 16, NULL, err, sizeof(err)), -1);
    ck_assert_ptr_nonnull(strstr(err, "not a socket"));
    ck_assert_int_eq(lstat(file, &st), 0);
    unlink(file);
    rmdir(dir);
    endpoint_free(&ep);
}
END_TEST

START_TEST(test_unix_file_removed_only_if_ours)
{
    struct endpoint ep;
    struct endpoint_file made, inet;
    struct stat st;
    char dir[] = "/tmp/check_endpoint.XXXXXX", spec[160], moved[160], err[256];
    int lfd, lfd2;
    FILE *fp;

    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(spec, sizeof(spec), "unix:%s/sink", dir);
    snprintf(moved, sizeof(moved), "%s/moved", dir);
    ck_assert_int_eq(endpoint_parse_server(spec, &ep, err, sizeof(err)), 0);

    /* The file it made goes. */
    lfd = endpoint_listen(&ep, AF_UNSPEC, 16, &made, err, sizeof(err));
    ck_assert_msg(lfd >= 0, "listen: %s", err);
    ck_assert_str_eq(made.path, ep.path);
    ck_assert_int_eq(endpoint_file_remove(&made, err, sizeof(err)), 0);
    ck_assert_ptr_null(made.path);
    ck_assert_int_eq(lstat(ep.path, &st), -1);
    ck_assert_int_eq(errno, ENOENT);
    close(lfd);

    /* Another server's socket at the path since: it stays. */
    lfd = endpoint_listen(&ep, AF_UNSPEC, 16, &made, err, sizeof(err));
    ck_assert_msg(lfd >= 0, "listen: %s", err);
    ck_assert_int_eq(rename(ep.path, moved), 0);
    lfd2 = endpoint_listen(&ep, AF_UNSPEC, 16, NULL, err, sizeof(err));
    ck_assert_msg(lfd2 >= 0, "listen again: %s", err);
    ck_assert_int_eq(endpoint_file_remove(&made, err, sizeof(err)), 0);
    ck_assert_int_eq(lstat(ep.path, &st), 0);
    ck_assert(S_ISSOCK(st.st_mode));
    close(lfd2);
    unlink(ep.path);
    unlink(moved);

    /* A regular file put there: it stays too. */
    close(lfd);
    lfd = endpoint_listen(&ep, AF_UNSPEC, 16, &made, err, sizeof(err));
    ck_assert_msg(lfd >= 0, "listen: %s", err);
    unlink(ep.path);
    fp = fopen(ep.path, "w");
    ck_assert_ptr_nonnull(fp);
    fclose(fp);
    ck_assert_int_eq(endpoint_file_remove(&made, err, sizeof(err)), 0);
    ck_assert_int_eq(lstat(ep.path, &st), 0);
    ck_assert(S_ISREG(st.st_mode));
    unlink(ep.path);
    close(lfd);
    endpoint_free(&ep);

    /* An inet listener has no file. */
    ck_assert_int_eq(endpoint_parse_server("127.0.0.1:0", &ep, err, sizeof(err)), 0);
    lfd = endpoint_listen(&ep, AF_UNSPEC, 16, &inet, err, sizeof(err));
    ck_assert_msg(lfd >= 0, "listen: %s", err);
    ck_assert_ptr_null(inet.path);
    ck_assert_int_eq(endpoint_file_remove(&inet, err, sizeof(err)), 0);
    close(lfd);
    endpoint_free(&ep);
    rmdir(dir);
}
END_TEST

START_TEST(test_resolve_failure_message)
{
    struct endpoint ep;
    struct sockaddr_storage sa;
    socklen_t salen;
    char err[256];

    ck_assert_int_eq(
        endpoint_parse_client("127.0.0.1:no-such-service-x", NULL, &ep, err, sizeof(err)), 0);
    ck_assert_int_eq(endpoint_resolve(&ep, AF_UNSPEC, &sa, &salen, err, sizeof(err)), -1);
    ck_assert_msg(strstr(err, "127.0.0.1:no-such-service-x") != NULL, "%s", err);
    endpoint_free(&ep);
}
END_TEST

int main(void)
{
    const TTest *const parse[] = {test_default_port, test_unix_path_too_long, NULL};
    const TTest *const socket[] = {test_listen_loopback_port_zero,
                                   test_listen_in_use,
                                   test_listen_wildcard,
                                   test_unix_listen_stale_and_live,
                                   test_unix_file_removed_only_if_ours,
                                   test_resolve_failure_message,
                                   NULL};
    Suite *s = suite_create("endpoint");
    TCase *tc;

    tc = check_add_tcase(s, "parse", parse);
    tcase_add_loop_test(tc, test_parse_table, 0, (int)(sizeof(cases) / sizeof(cases[0])));
    check_add_tcase(s, "socket", socket);
    return check_run_suite(s);
}
