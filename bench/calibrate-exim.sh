#!/usr/bin/env bash
# calibrate-exim.sh - measure what a real Exim spends in CPU per message, by
# process class, and write it as a cost model for `spoolsim relay --profile
# exim --model FILE' (docs/fidelity.md). `spoolsim calibrate exim' runs this
# script.
#
# Usage: bench/calibrate-exim.sh [-o MODEL.json] [-m MESSAGES]
#   as root, after `make'; Exim comes from scripts/fetch-peer.sh
#   exim4-daemon-light (tests/peers, or $SPOOLSIM_PEERS): nothing is installed.
#
# How: a private, loopback-only Exim (bench/exim-instance.sh, in its own
# mount namespace) relays our smtp-source's load into our smtp-sink, its
# spool on a tmpfs so that only CPU is measured. Exim has three classes of
# process, as Debian runs it:
#   daemon    the listener: accepts each connection and forks for it
#   receive   the process forked per connection: the SMTP dialogue, the
#             spool files (-D, -H), the log, and the fork of the delivery
#   delivery  the delivery forked per message, which re-execs exim (-Mc ID)
#             by its compiled-in path: routing, the smtp transport to the
#             next hop, the spool files' removal
# The daemon starts in a cgroup (its receiving processes inherit it), and
# /usr/sbin/exim4 is a shell wrapper that moves the re-exec'd delivery into a
# second cgroup before it execs the real exim. The daemon's own CPU is its
# /proc/PID/schedstat (nanoseconds), so receive = the first cgroup less the
# daemon, less what the wrapper costs before it moves (measured here: a
# shell's exec and start, counted to receive, which a real Exim does not
# spend; one per message).
# smtp-source closes after sending QUIT (--skip-quit-reply), as Postfix's
# smtp client does: Exim holds its 221 for up to 200 ms waiting for the
# client to close first, which costs no CPU but a client that waits for the
# reply 200 ms per connection (docs/fidelity.md, "Exim").
# Then the bare relay (`spoolsim relay --profile exim --model none') takes the
# same loads, and each stage's fit is Exim's class less the relay in the same
# role: its cleanup threads write the spool files as receive does, its qmgr
# thread removes them as delivery does, its event loop's CPU is shared
# between receive and delivery as Exim's is. Loads and fit as
# bench/calibrate-postfix.sh (bench/calibrate-lib.sh).
set -u
. "$(dirname "$0")/calibrate-lib.sh"
. "$CAL_ROOT/bench/exim-instance.sh"
cal_init calibrate-exim exi_stop "$@"
exi_init "$CAL_ROOT" || exit 1
CAL_SOURCE_OPTS=(--skip-quit-reply)
mkdir -p "$CG/daemon" "$CG/delivery" "$CG/probe" "$CG/probe-moved" || exit 1

# What the wrapper costs before it moves: K runs of a wrapper like it (to
# another cgroup, then /bin/true) against K runs of /bin/true, from one
# process in probe/; its per-run difference, with what ran after the move.
printf '#!/bin/sh\necho $$ >%s/probe-moved/cgroup.procs || exit 1\nexec /bin/true "$@"\n' "$CG" \
    >"$TMP/probe-wrapper" && chmod 755 "$TMP/probe-wrapper" || exit 1
# probe_runs: the least of three (the machine may be shared) per-run
# differences, in nanoseconds; run from one shell in probe/, its own reads
# of the counters counted to both sides alike.
probe_runs() {
    local k=200 best='' t wrapped bare d i
    for _ in 1 2 3; do
        t=$(($(cg_usage probe) + $(cg_usage probe-moved)))
        for ((i = 0; i < k; i++)); do "$TMP/probe-wrapper" || return 1; done
        wrapped=$(($(cg_usage probe) + $(cg_usage probe-moved) - t))
        t=$(($(cg_usage probe) + $(cg_usage probe-moved)))
        for ((i = 0; i < k; i++)); do /bin/true || return 1; done
        bare=$(($(cg_usage probe) + $(cg_usage probe-moved) - t))
        d=$(((wrapped - bare) / k))
        [ "$d" -lt 0 ] && d=0
        [ -z "$best" ] || [ "$d" -lt "$best" ] && best=$d
    done
    echo "$best"
}
WRAP_NS=$(echo "$BASHPID" >"$CG/probe/cgroup.procs" && probe_runs) || { echo "$0: cannot measure the wrapper's cost" >&2; exit 1; }
echo "calibrate: the delivery wrapper costs $((WRAP_NS / 1000)) us before it moves" >&2

cal_sink && free_port PORT || exit 1
exi_setup "$TMP/exim" "$TMP/queue" "$SINK_PORT" "$PORT" "$CG" && exi_start || exit 1

# Idle: the spool empty and every receiving and delivery process gone (their
# last CPU counted), or 10 s.
exim_idle() {
    local deadline=$((SECONDS + 10))
    exi_queue_empty "$1" || return 1
    while [ $SECONDS -lt $deadline ]; do
        [ -z "$(cat "$CG/daemon/cgroup.procs" "$CG/delivery/cgroup.procs" | grep -vx "$EXI_OWN_PID")" ] &&
            return 0
        sleep 0.1
    done
    return 0
}
receptions() {
    local n
    n=$(grep -c ' <= ' "$TMP/exim/log/mainlog" 2>/dev/null)
    echo "${n:-0}"
}
snapshot_exim() {
    local d r
    d=$(awk '{ print $1 }' "/proc/$EXI_PID/schedstat") || return 1
    r=$(($(cg_usage daemon) - d - WRAP_NS * $(receptions)))
    echo "daemon $d"
    echo "receive $r"
    echo "delivery $(cg_usage delivery)"
}
cal_measure exim "$PORT" exim_idle "$TMP/queue" snapshot_exim || exit 1
exi_stop
cal_relay exim exi_queue_empty || exit 1
cal_write exim "$EXI_VERSION" \
    '{"daemon": [], "receive": ["loop", "cleanup"], "delivery": ["loop", "qmgr"]}' \
    "bench/calibrate-exim.sh: Exim's daemon (/proc schedstat), receiving and delivery processes (cgroup cpuacct; a wrapper of $((WRAP_NS / 1000)) us a message taken off receive), spool on tmpfs, clients closing after QUIT; loads 20x1KiB, 20x15KiB, 5x1KiB, 20x1KiB x5 recipients, one message per connection" ||
    exit 1
