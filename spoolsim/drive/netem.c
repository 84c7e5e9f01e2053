/*
 * netem - bench's next hop in a network namespace behind netem, or its
 * emulation by the sink's delays; see netem.h.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fileutil.h"
#include "netem.h"
#include "spawn_logged.h"

int netem_spec_wanted(const struct netem_spec *s)
{
    return s->delay_s > 0 || s->jitter_s > 0 || s->loss_pct > 0 || s->rate_bit_s > 0;
}

/* The number `text' starts with, *end after it; -1 for none (or one out of range). */
static int leading_number(const char *text, double *v, char **end)
{
    if (text == NULL || *text == 0)
        return -1;
    errno = 0;
    *v = strtod(text, end);
    return *end == text || errno != 0 ? -1 : 0;
}

int netem_parse_loss(const char *text, double *pct)
{
    char *end;
    double v;

    if (leading_number(text, &v, &end) != 0)
        return -1;
    if (*end == '%')
        end++;
    if (*end != 0 || !(v >= 0 && v <= 100))
        return -1;
    *pct = v;
    return 0;
}

int netem_parse_rate(const char *text, double *bit_s)
{
    static const struct {
        const char *unit;
        double scale;
    } units[] = {{"bit", 1}, {"kbit", 1e3}, {"mbit", 1e6}, {"gbit", 1e9}};
    char *end;
    double v;

    if (leading_number(text, &v, &end) != 0 || !(v > 0) || !isfinite(v))
        return -1;
    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
        if (strcmp(end, units[i].unit) == 0) {
            if (v * units[i].scale < 8 || v * units[i].scale > 1e12)
                return -1; /* below a byte a second, or above a terabit: a typo */
            *bit_s = v * units[i].scale;
            return 0;
        }
    }
    return -1;
}

static void plan_make(struct netem_plan *p, enum netem_side side, unsigned id,
                      const struct netem_spec *s, const char *ip, const char *tc)
{
    /*
     * The hop: 22 bits of id, the /30s of 10.0.0.0/8, one run, one subnet.
     * The client: the /30s of 172.16.0.0/12, 18 bits of id.
     */
    unsigned net =
        side == NETEM_SIDE_HOP ? (id & 0x3fffffu) << 2 : (16u << 16) + ((id & 0x3ffffu) << 2);
    unsigned a = side == NETEM_SIDE_HOP ? 10 : 172;
    unsigned b = (net >> 16) & 0xff, c = (net >> 8) & 0xff, d = net & 0xff;
    const char *tag = side == NETEM_SIDE_HOP ? "" : "c";
    char vtag = side == NETEM_SIDE_HOP ? 'v' : 'c';

    memset(p, 0, sizeof(*p));
    snprintf(p->ns, sizeof(p->ns), "spoolsim-%s%u", tag, id);
    snprintf(p->veth_host, sizeof(p->veth_host), "ss%c%uh", vtag, id % 10000000u);
    snprintf(p->veth_ns, sizeof(p->veth_ns), "ss%c%un", vtag, id % 10000000u);
    snprintf(p->addr_host, sizeof(p->addr_host), "%u.%u.%u.%u", a, b, c, d + 1);
    snprintf(p->addr_ns, sizeof(p->addr_ns), "%u.%u.%u.%u", a, b, c, d + 2);
    snprintf(p->cidr_host, sizeof(p->cidr_host), "%s/30", p->addr_host);
    snprintf(p->cidr_ns, sizeof(p->cidr_ns), "%s/30", p->addr_ns);
    /* each end delays its own packets by half: the round trip is the whole */
    snprintf(p->delay, sizeof(p->delay), "%.3fms", s->delay_s * 1e3 / 2);
    snprintf(p->jitter, sizeof(p->jitter), "%.3fms", s->jitter_s * 1e3 / 2);
    snprintf(p->loss, sizeof(p->loss), "%g%%", s->loss_pct);
    snprintf(p->rate, sizeof(p->rate), "%.0fbit", s->rate_bit_s);
    if (s->rate_bit_s <= 0)
        p->rate[0] = 0;
    if (s->loss_pct <= 0)
        p->loss[0] = 0;
    if (s->jitter_s <= 0)
        p->jitter[0] = 0;
    /* copies: netem_down() runs long after the caller's buffers are gone */
    snprintf(p->ip, sizeof(p->ip), "%s", ip);
    snprintf(p->tc, sizeof(p->tc), "%s", tc);
}

void netem_plan_make(struct netem_plan *p, unsigned id, const struct netem_spec *s, const char *ip,
                     const char *tc)
{
    plan_make(p, NETEM_SIDE_HOP, id, s, ip, tc);
}

void netem_plan_make_client(struct netem_plan *p, unsigned id, const struct netem_spec *s,
                            const char *ip, const char *tc)
{
    plan_make(p, NETEM_SIDE_CLIENT, id, s, ip, tc);
}

/* The netem words after "root netem", from i, for either end; the new count. */
static size_t netem_words(const struct netem_plan *p, const char *argv[], size_t i)
{
    argv[i++] = "delay";
    argv[i++] = p->delay; /* 0 ms when only loss or rate is asked for */
    if (p->jitter[0])
        argv[i++] = p->jitter;
    if (p->loss[0]) {
        argv[i++] = "loss";
        argv[i++] = p->loss;
    }
    if (p->rate[0]) {
        argv[i++] = "rate";
        argv[i++] = p->rate;
    }
    return i;
}

static void words(const char *argv[], size_t *n, const char *const list[])
{
    for (size_t i = 0; list[i]; i++)
        argv[(*n)++] = list[i];
}

void netem_setup_argv(const struct netem_plan *p, size_t i, const char *argv[NETEM_ARGV_MAX])
{
    size_t n = 0;

    switch (i) {
    case 0:
        words(argv, &n, (const char *const[]){p->ip, "netns", "add", p->ns, NULL});
        break;
    case 1:
        words(argv, &n,
              (const char *const[]){p->ip, "link", "add", p->veth_host, "type", "veth", "peer",
                                    "name", p->veth_ns, "netns", p->ns, NULL});
        break;
    case 2:
        words(argv, &n,
              (const char *const[]){p->ip, "addr", "add", p->cidr_host, "dev", p->veth_host, NULL});
        break;
    case 3:
        words(argv, &n, (const char *const[]){p->ip, "link", "set", p->veth_host, "up", NULL});
        break;
    case 4:
        words(argv, &n,
              (const char *const[]){p->ip, "-n", p->ns, "addr", "add", p->cidr_ns, "dev",
                                    p->veth_ns, NULL});
        break;
    case 5:
        words(argv, &n,
              (const char *const[]){p->ip, "-n", p->ns, "link", "set", p->veth_ns, "up", NULL});
        break;
    case 6:
        words(argv, &n, (const char *const[]){p->ip, "-n", p->ns, "link", "set", "lo", "up", NULL});
        break;
    case 7:
        words(argv, &n,
              (const char *const[]){p->tc, "qdisc", "add", "dev", p->veth_host, "root", "netem",
                                    NULL});
        n = netem_words(p, argv, n);
        break;
    default:
        words(argv, &n,
              (const char *const[]){p->tc, "-n", p->ns, "qdisc", "add", "dev", p->veth_ns, "root",
                                    "netem", NULL});
        n = netem_words(p, argv, n);
        break;
    }
    argv[n] = NULL;
}

void netem_teardown_argv(const struct netem_plan *p, size_t i, const char *argv[NETEM_ARGV_MAX])
{
    size_t n = 0;

    /* the namespace's end goes with the namespace, and takes its peer along */
    if (i == 0)
        words(argv, &n, (const char *const[]){p->ip, "netns", "del", p->ns, NULL});
    else
        words(argv, &n, (const char *const[]){p->ip, "link", "del", p->veth_host, NULL});
    argv[n] = NULL;
}

size_t netem_sink_delays(const struct netem_spec *s, char (*out)[32], size_t max)
{
    static const struct {
        const char *cmd;
        int trips;
    } waits[] = {{"CONNECT", 2}, {"EHLO", 1}, {"DATA", 1}, {".", 1}, {"RSET", 1}, {"QUIT", 1}};
    size_t n = 0;

    if (s->delay_s <= 0)
        return 0;
    for (size_t i = 0; i < sizeof(waits) / sizeof(waits[0]) && n + 2 <= max; i++) {
        snprintf(out[n++], 32, "-W");
        snprintf(out[n++], 32, "%s:%.6f", waits[i].cmd, s->delay_s * waits[i].trips);
    }
    return n;
}

const char *netem_fallback_cannot(const struct netem_spec *s)
{
    if (s->loss_pct > 0)
        return "--hop-loss";
    if (s->rate_bit_s > 0)
        return "--hop-rate";
    if (s->jitter_s > 0)
        return "--hop-jitter";
    return NULL;
}

/* ------------------------------------------------------------ I/O */

/* The first of ip's usual homes that has it; NULL if none does. */
static const char *find_tool(const char *name, char *out, size_t len)
{
    static const char *const dirs[] = {"/usr/sbin", "/sbin", "/usr/bin", "/bin"};

    for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
        snprintf(out, len, "%s/%s", dirs[i], name);
        if (access(out, X_OK) == 0)
            return out;
    }
    return NULL;
}

/* Run argv, wait for its PID: its exit status, or -1. */
static int run(const char *const argv[], const char *err_path)
{
    pid_t pid = spawn_logged((char *const *)argv, "/dev/null", err_path);
    int status;

    if (pid < 0)
        return -1;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* why = "WHAT: the first line of the tool's error" */
static void say_why(struct netem_hop *hop, const char *what, const char *err_path)
{
    char *text = fileutil_read_all(err_path, NULL);
    char *nl = text ? strchr(text, '\n') : NULL;

    if (nl)
        *nl = 0;
    snprintf(hop->why, sizeof(hop->why), "%s failed%s%s", what, text && *text ? ": " : "",
             text ? text : "");
    free(text);
}

int netem_up(struct netem_hop *hop, enum netem_side side, unsigned id, const struct netem_spec *s,
             const char *err_path)
{
    char ip[64], tc[64];

    memset(hop, 0, sizeof(*hop));
    if (geteuid() != 0) {
        snprintf(hop->why, sizeof(hop->why), "not root (network namespaces and netem need root)");
        return -1;
    }
    if (find_tool("ip", ip, sizeof(ip)) == NULL || find_tool("tc", tc, sizeof(tc)) == NULL) {
        snprintf(hop->why, sizeof(hop->why), "no ip or tc (iproute2) in /usr/sbin or /sbin");
        return -1;
    }
    plan_make(&hop->plan, side, id, s, ip, tc);
    hop->made = 1;
    for (size_t i = 0; i < NETEM_SETUP_CMDS; i++) {
        const char *argv[NETEM_ARGV_MAX];
        char what[200];

        netem_setup_argv(&hop->plan, i, argv);
        if (run(argv, err_path) != 0) {
            snprintf(what, sizeof(what), "%s", i >= 7 ? "tc" : "ip");
            for (size_t k = 1; argv[k]; k++)
                snprintf(what + strlen(what), sizeof(what) - strlen(what), " %s", argv[k]);
            say_why(hop, what, err_path);
            netem_down(hop, err_path);
            return -1;
        }
    }
    return 0;
}

void netem_down(struct netem_hop *hop, const char *err_path)
{
    if (!hop->made)
        return;
    for (size_t i = 0; i < NETEM_TEARDOWN_CMDS; i++) {
        const char *argv[NETEM_ARGV_MAX];

        netem_teardown_argv(&hop->plan, i, argv);
        run(argv, err_path); /* the link is already gone with the namespace, mostly */
    }
    hop->made = 0;
}
