#!/bin/bash
# .ci/lab.sh ROOT - CI's lab step (docs/lab.md): boot Debian's own kernel
# (scripts/lab.sh, qemu) over an image of ROOT, CI's fresh Debian 12 root
# in which scripts/test.sh has just built and tested the tree
# (/root/spoolsim), and run there what this host's kernel cannot: the netem
# paths of bench --hop-delay (with --hop-loss 1 %) and --client-delay, by
# it_bench_hop.sh and it_bench_client_delay.sh with SPOOLSIM_REQUIRE_NETEM=1
# (their emulated path is then a failure), and under qemu's emulation (no
# KVM) with SPOOLSIM_FLOORS_ONLY=1 (their floors checked, the comparisons
# between runs only shown: the machine is slow beside a round trip); and
# one cell of the power-cut test recorded by dm-log-writes beside the FUSE
# recorder on the same seed, by it_crash_dm.sh with SPOOLSIM_REQUIRE_DM=1
# (postfix on ext4, 20 messages of load, 12 points each); and a spool on
# NFS beside a local one at a 10 ms round trip (scripts/lab-nfs.sh --check:
# raw -d 1, 3 runs a side, NFS must be the slower, its interval below 1;
# docs/nfs.md), after it_crash_leftover_nfs.sh there, with the NFS programs of Debian's packages put into the
# tree first (lab-nfs.sh --fetch). The
# kernel and busybox are fetched into a directory of this step's own,
# removed afterwards; the lab prints its boot time, and this step its own.
set -eu
cd "$(dirname "$0")/.."
if [ $# != 1 ] || [ ! -d "$1/root/spoolsim" ]; then
    echo "usage: $0 ROOT (a root holding the built tree in /root/spoolsim)" >&2
    exit 2
fi
t0=$SECONDS
SPOOLSIM_LAB_DIR=$(mktemp -d "${CI_ROOT_DIR:-/var/tmp}/spoolsim-lab-ci.XXXXXX")
export SPOOLSIM_LAB_DIR
trap 'rm -rf --one-file-system "$SPOOLSIM_LAB_DIR"' EXIT
scripts/lab-nfs.sh --fetch "$1/root/spoolsim"
status=0
# shellcheck disable=SC2016 # expanded in the lab
scripts/lab.sh --root "$1" --no-tree --console "$SPOOLSIM_LAB_DIR/console.log" --timeout 2400 '
    cd /root/spoolsim || exit 1
    export top_srcdir=. top_builddir=. SPOOLSIM_REQUIRE_PEERS=1 SPOOLSIM_REQUIRE_NETEM=1
    export SPOOLSIM_REQUIRE_DM=1 SPOOLSIM_CRASH_DM_POINTS=12
    # under emulation the machine is slow beside a round trip: floors only
    if [ "$SPOOLSIM_LAB_ACCEL" = tcg ]; then export SPOOLSIM_FLOORS_ONLY=1; fi
    echo "kernel $(uname -r), qdisc netem: $(tc qdisc add dev lo root netem delay 1ms &&
        tc qdisc del dev lo root && echo yes)"
    for t in tests/it/it_bench_hop.sh tests/it/it_bench_client_delay.sh tests/it/it_crash_dm.sh; do
        echo "== $t"
        s=$SECONDS
        bash "$t" || exit 1
        echo "== $t passed in $((SECONDS - s)) s"
    done
    echo "== NFS against local (docs/nfs.md)"
    s=$SECONDS
    scripts/lab-nfs.sh --inside --check --test tests/it/it_crash_leftover_nfs.sh --rtt 10 --runs 3 --warmup-runs 0 -- raw -d 1 || exit 1
    echo "== NFS against local passed in $((SECONDS - s)) s"' || status=$?
if [ "$status" != 0 ]; then
    echo "== lab failed ($status); the end of its console:" >&2
    tail -n 30 "$SPOOLSIM_LAB_DIR/console.log" >&2
    exit 1
fi
echo "== lab passed in $((SECONDS - t0)) s"
