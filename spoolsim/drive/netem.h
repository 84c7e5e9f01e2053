/*
 * netem - bench's next hop across a network: the sink in a network
 * namespace of its own, joined to the host by a veth pair with netem on
 * both ends (iproute2's ip and tc), or, where that cannot be had, the
 * sink's own per-command delays standing in for the round trips.
 *
 * The contract:
 *
 * - --hop-delay is the round trip the hop adds, as ping would show it:
 *   netem delays each end's outgoing packets by half of it (and by half
 *   the jitter), so both directions are slow, as on a real path; the SMTP
 *   dialogue alternates directions, so the split does not change its
 *   cost, only which side waits. Loss and rate apply to each direction.
 * - The names are the run's own: namespace spoolsim-ID, links ssvIDh (the
 *   host's end) and ssvIDn (the namespace's), addresses the /30 of
 *   10.0.0.0/8 that ID (a PID, below 2^22) maps to, one to one.
 * - The client side (bench --client-delay) is the same with smtp-source
 *   in the namespace: spoolsim-cID, links sscIDh and sscIDn, the /30 of
 *   172.16.0.0/12 that ID modulo 2^18 maps to (two runs at once share one
 *   only if their PIDs differ by a multiple of 262144).
 * - netem_plan_make(), netem_setup_argv(), netem_teardown_argv() and
 *   netem_sink_delays() are pure: the names, the commands and the
 *   fallback's smtp-sink options, tested with Check.
 * - netem_up() runs the commands as root, each waited for by PID; if one
 *   fails (no root, no ip, no sch_netem) it says why in hop->why, removes
 *   what it made and returns -1: the caller falls back. netem_down()
 *   removes the namespace and the links, whatever was made, and may be
 *   called any number of times; the caller calls it on every way out,
 *   an interrupt included (a SIGKILL leaves them: ip netns del spoolsim-ID).
 */
#ifndef SPOOLSIM_NETEM_H
#define SPOOLSIM_NETEM_H

#include <stddef.h>

struct netem_spec {
    double delay_s;    /* the round trip added; 0 none */
    double jitter_s;   /* of the round trip */
    double loss_pct;   /* per packet, each direction */
    double rate_bit_s; /* each direction; 0 unlimited */
};

/* Any of the four asked for: bench has a hop to set up. */
int netem_spec_wanted(const struct netem_spec *s);

/* "0.1%" or "0.1", 0 to 100: 0, or -1. */
int netem_parse_loss(const char *text, double *pct);

/* "100mbit", "512kbit", "1gbit", "64000bit" (tc's units; positive): 0, or -1. */
int netem_parse_rate(const char *text, double *bit_s);

#define NETEM_ARGV_MAX 24 /* the longest command's words, and its NULL */
#define NETEM_SETUP_CMDS 9
#define NETEM_TEARDOWN_CMDS 2

struct netem_plan {
    char ns[32];                                    /* the namespace */
    char veth_host[16], veth_ns[16];                /* the pair's ends (IFNAMSIZ) */
    char addr_host[16], addr_ns[16];                /* dotted quads */
    char cidr_host[20], cidr_ns[20];                /* with the /30 */
    char delay[24], jitter[24], loss[24], rate[32]; /* each end's netem words */
    char ip[64], tc[64];                            /* the programs' paths, copied */
};

/* Which end of the relay the namespace is for: the next hop's sink, or the client. */
enum netem_side { NETEM_SIDE_HOP, NETEM_SIDE_CLIENT };

/* The names, addresses and netem words for run `id' (its PID)'s next hop. */
void netem_plan_make(struct netem_plan *p, unsigned id, const struct netem_spec *s, const char *ip,
                     const char *tc);

/* The same for its client. */
void netem_plan_make_client(struct netem_plan *p, unsigned id, const struct netem_spec *s,
                            const char *ip, const char *tc);

/* Command i of the set-up (i < NETEM_SETUP_CMDS), NULL-terminated, pointing into p. */
void netem_setup_argv(const struct netem_plan *p, size_t i, const char *argv[NETEM_ARGV_MAX]);

/* Command i of the removal (i < NETEM_TEARDOWN_CMDS): the namespace, then the host's link. */
void netem_teardown_argv(const struct netem_plan *p, size_t i, const char *argv[NETEM_ARGV_MAX]);

/*
 * The fallback: the smtp-sink words ("-W", "CMD:SECONDS", ...) that make
 * its replies as late as the hop's round trips would, for a client that
 * pipelines MAIL, RCPT and DATA as the relay does: two round trips
 * before the greeting (the TCP handshake, then the greeting's way), one
 * for each of EHLO, DATA (the end of the pipelined group), the dot, RSET
 * and QUIT. out has room for max words, each of 32 bytes; the count, or
 * 0 for no delay.
 */
size_t netem_sink_delays(const struct netem_spec *s, char (*out)[32], size_t max);

/* What the fallback cannot emulate ("--hop-loss", ...), or NULL. */
const char *netem_fallback_cannot(const struct netem_spec *s);

struct netem_hop {
    struct netem_plan plan;
    int made;      /* netem_up() began: netem_down() has something to remove */
    char why[300]; /* netem_up()'s failure, in words */
};

/* Set up the hop or the client's side; errors go in err_path (ip's and tc's). 0, or -1 (see why).
 */
int netem_up(struct netem_hop *hop, enum netem_side side, unsigned id, const struct netem_spec *s,
             const char *err_path);

/* Remove the namespace and links, if made. */
void netem_down(struct netem_hop *hop, const char *err_path);

#endif
