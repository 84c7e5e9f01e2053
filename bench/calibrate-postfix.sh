#!/usr/bin/env bash
# calibrate-postfix.sh - measure what a real Postfix spends in CPU per
# message, by process class, and write it as a cost model for
# `spoolsim relay --model FILE' (docs/fidelity.md). `spoolsim calibrate
# postfix' runs this script.
#
# Usage: bench/calibrate-postfix.sh [-o MODEL.json] [-m MESSAGES]
#   as root, after `make'; Postfix comes from scripts/fetch-peer.sh postfix
#   (tests/peers/postfix, or $SPOOLSIM_PEERS/postfix): nothing is installed.
#
# How: a private, loopback-only Postfix instance relays our smtp-source's
# load into our smtp-sink, with its queue on a tmpfs so that the disk costs
# nothing and only CPU is measured. Its daemon_directory is a directory of
# wrappers, one per daemon, each of which moves itself into the cpuacct
# cgroup named after the daemon (smtpd, cleanup, qmgr, ...) and execs the
# real one: the cgroup counts the CPU of every process of the class, also
# of those that exit during the run (smtpd and cleanup do, after max_use),
# user and kernel time, to the nanosecond. The wrapper's own start (a
# shell, before it moves) is counted to master, which forks it.
# Then the bare relay (`spoolsim relay --model none') takes the same loads on
# a tmpfs, and its CPU per role (the event loop, the cleanup threads, the
# qmgr thread: its JSON's cpu_s, from the threads' own CPU clocks) is the
# difference between a run with the load and one with only the warm-up, so
# that the model burns only what the relay does not already spend.
# Loads (each after a warm-up): 20 sessions x 1 KiB, 20 x 15 KiB, 5 x 1 KiB,
# and 20 x 1 KiB with 5 recipients; one message per connection, as the
# Postfix tools' default. Per stage a least-squares fit of
#   CPU us = base + per_kib * KiB + per_rcpt * (recipients - 1)
# over the four loads, for Postfix's class and for the relay's role.
# The model also records the CPU's reference speed (`spoolsim calibrate
# --speed') and the machine it was measured on: its identity and what
# system work costs there (`spoolsim calibrate --machine', measured first,
# on a quiet machine), so that a relay elsewhere can say how far it is
# from this one (docs/fidelity.md). Each stage also gets the system calls
# its class makes per message, and the model the bare relay's, from
# data/postfix-syscalls.json (counted once by bench/count-postfix.sh: they
# are the program's, not the machine's), which the relay makes for real.
set -u
. "$(dirname "$0")/calibrate-lib.sh"
. "$CAL_ROOT/bench/postfix-instance.sh"
cal_init calibrate pfi_stop "$@"
SYSCALLS=${SPOOLSIM_DATA_DIR:-$CAL_ROOT/data}/postfix-syscalls.json
pfi_init "$CAL_ROOT" || exit 1
mkdir -p "$TMP/wrap" || exit 1

# The wrappers: every daemon in its class's cgroup; Postfix's scripts as they are.
for d in "$PFI_DAEMONS"/*; do
    n=$(basename "$d")
    case $n in
    *-script | post-install | postfix-wrapper) ln -s "$d" "$TMP/wrap/$n"; continue ;;
    esac
    mkdir -p "$CG/$n"
    printf '#!/bin/sh\necho $$ >%s/%s/cgroup.procs || exit 1\nexec %s "$@"\n' "$CG" "$n" "$d" >"$TMP/wrap/$n"
    chmod 755 "$TMP/wrap/$n"
done

cal_sink && free_port PORT || exit 1
pfi_setup "$TMP" "$TMP/queue" "$SINK_PORT" "$PORT" "$TMP/wrap" && pfi_start || exit 1

classes() { for d in "$CG"/*/; do basename "$d"; done; }
snapshot_postfix() { for c in $(classes); do echo "$c $(cg_usage "$c")"; done; }
cal_measure postfix "$PORT" pfi_queue_empty "$TMP/queue" snapshot_postfix || exit 1
pfi_stop
cal_relay postfix pfi_queue_empty || exit 1
# The relay's cleanup threads do cleanup's work, its qmgr thread qmgr's; its
# event loop is smtpd's and smtp's.
[ -f "$SYSCALLS" ] || echo "calibrate: no $SYSCALLS: the model's system calls will be burned, not made" >&2
MAP='{"cleanup": ["cleanup"], "qmgr": ["qmgr"], "smtpd": ["loop"], "smtp": ["loop"]}'
METHOD="bench/calibrate-postfix.sh: cgroup cpuacct per Postfix daemon class, queue on tmpfs; loads 20x1KiB, 20x15KiB, 5x1KiB, 20x1KiB x5 recipients, one message per connection; the relay's own CPU measured with the model burning"
cal_relay_own postfix pfi_queue_empty postfix "$PFI_VERSION" "$MAP" "$METHOD" "$SYSCALLS" || exit 1
